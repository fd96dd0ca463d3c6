"""Exercise 24, wrong: sends to inf only at 2**(emax + 1), so float16's 65520 is kept as 65536."""

from __future__ import annotations

import math

DONE = False


def round_to(x: float, dtype: str) -> float:
    p, emin, emax = (11, -14, 15) if dtype == "float16" else (8, -126, 127)
    if x == 0 or x != x or abs(x) == math.inf:
        return x
    e = math.frexp(abs(x))[1] - 1
    if e > emax:
        return math.copysign(math.inf, x)
    step = 2.0 ** (max(e, emin) - p + 1)
    return math.copysign(round(abs(x) / step) * step, x)
