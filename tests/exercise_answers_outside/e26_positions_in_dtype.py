"""Exercise 26, wrong: keeps the positions in dtype (a bfloat16 arange), so 257 is turned as 256."""

from __future__ import annotations

import math

from minipe import round_to

DONE = False


def rope_turns(pos: int, d: int, dtype: str) -> list[list[float]]:
    p = round_to(float(pos), dtype)
    cosines, sines = [], []
    for i in range(d // 2):
        a = round_to(p * round_to(10000 ** (-2 * i / d), "float32"), "float32")
        cosines.append(round_to(math.cos(a), dtype))
        sines.append(round_to(math.sin(a), dtype))
    return [cosines, sines]
