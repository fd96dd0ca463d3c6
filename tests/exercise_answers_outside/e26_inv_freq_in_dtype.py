"""Exercise 26, wrong: stores inv_freq (theta_i) in dtype, as a model cast whole to bfloat16 does."""

from __future__ import annotations

import math

from minipe import round_to

DONE = False


def rope_turns(pos: int, d: int, dtype: str) -> list[list[float]]:
    inv_freq = [round_to(1.0 / 10000 ** (2 * i / d), dtype) for i in range(d // 2)]
    angles = [round_to(pos * f, "float32") for f in inv_freq]
    return [[round_to(math.cos(a), dtype) for a in angles],
            [round_to(math.sin(a), dtype) for a in angles]]
