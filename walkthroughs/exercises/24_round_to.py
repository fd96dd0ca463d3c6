"""Exercise 24 - a number stored in bfloat16 or float16, by hand (see minipe/numerics.py).

Write round_to(x, dtype): the number a tensor of `dtype` ("bfloat16" or "float16")
holds for the Python float x. A format keeps p significant bits and exponents from
emin to emax:

    format     p    emin   emax    largest finite value (2 - 2**(1 - p)) * 2**emax
    float16   11     -14     15        65504
    bfloat16   8    -126    127        about 3.39e38

A nonzero x lies between two powers of two, 2**e <= |x| < 2**(e+1) (math.frexp gives
e + 1). There the format's numbers are evenly spaced:

    spacing = 2**(max(e, emin) - p + 1)       below 2**emin the spacing stops shrinking
    rounded = round(|x| / spacing) * spacing  the nearest; a tie goes to the even one
    rounded > the largest finite value        ->  inf
    then the sign of x put back; 0, inf and nan come back as they are

    round_to(257.0, "bfloat16") -> 256.0     (a tie between 256 and 258: to the even)
    round_to(-0.3, "float16") -> -0.300048828125
    round_to(65520.0, "float16") -> inf
    round_to(1e-40, "bfloat16") -> 9.183549615799121e-41    (a subnormal: 2**-133)

Python's round() already sends a tie to the even integer, the rule the hardware
follows, and dividing by a power of two is exact.

Check it:   python -m minipe exercises check 24
A nudge:    python -m minipe exercises hint 24
"""

from __future__ import annotations

import math

DONE = False  # `check 24` sets this word to True once round_to() is right


def round_to(x: float, dtype: str) -> float:
    raise NotImplementedError("exercise 24: write round_to() here")
