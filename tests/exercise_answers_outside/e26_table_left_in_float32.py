"""Exercise 26, wrong: computes everything in float32 and returns cos and sin in float32, never cast to dtype."""

from __future__ import annotations

import math

from minipe import round_to

DONE = False


def rope_turns(pos: int, d: int, dtype: str) -> list[list[float]]:
    cosines, sines = [], []
    for i in range(d // 2):
        theta = round_to(10000 ** (-2 * i / d), "float32")
        angle = round_to(pos * theta, "float32")
        cosines.append(round_to(math.cos(angle), "float32"))
        sines.append(round_to(math.sin(angle), "float32"))
    return [cosines, sines]
