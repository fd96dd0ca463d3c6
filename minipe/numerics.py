"""Appendix C - numerics: the numbers a GPU stores (float32, float16, bfloat16).

minipe computes in Python floats (float64: 53 significant bits). The models you
train and read store float32, float16 or bfloat16, and a format with fewer bits
holds fewer numbers: between two neighbours it keeps there is a gap, and every
number in the gap becomes one of the two. That gap is where positions break:
bfloat16 holds every integer only up to 256, so position 257 is stored as 256.

The idea, one rule for all three formats. A format keeps `p` significant bits
and exponents from `emin` to `emax`:

    format     p    emin   emax    bits: sign | exponent | mantissa
    float32   24    -126    127          1  |    8     |    23
    float16   11     -14     15          1  |    5     |    10
    bfloat16   8    -126    127          1  |    8     |     7

A nonzero x lies between two powers of two, and there the format's numbers are
evenly spaced, `p` significant bits apart:

    2**e <= |x| < 2**(e+1)                     (e: math.frexp(x)[1] - 1)
    spacing = 2**(max(e, emin) - p + 1)        (below 2**emin: the subnormals,
                                                evenly spaced down to 0)
    rounded = round(x / spacing) * spacing     (to the nearest; a tie to even)

and a rounded value above the largest finite one, (2 - 2**(1 - p)) * 2**emax,
becomes infinity. Python's round() sends a tie to the even integer, which is the
rule the hardware follows, and dividing by a power of two is exact, so the two
lines are the whole cast: float16 stores 65519.99 as 65504 and 65520 as inf.

bfloat16 is float32's top 16 bits: the same 8-bit exponent, so the same range
(up to about 3.4e38), but 8 significant bits instead of 24. float16 has more
bits for the mantissa (11) and fewer for the exponent: finer steps, up to 65504.

What follows from the rule: the largest integer below which every integer is
kept is 2**p (bfloat16 256, float16 2048, float32 16,777,216); past it the
spacing is 2, then 4, ... (bfloat16 at 65,536: 512), and positions 0..n-1 keep
fewer than n distinct values (bfloat16 among 0..4095: 769).

Left out: float8 formats, rounding modes other than to-nearest-even, and the
arithmetic a GPU does in the format (here you round what float64 computed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Format:
    """A binary floating-point format: significant bits, exponent range, field widths."""

    precision: int  # p: significant bits, the leading 1 included
    emin: int  # the smallest normal exponent
    emax: int  # the largest exponent
    exponent_bits: int

    @property
    def largest(self) -> float:
        """The largest finite value: p ones, times 2**emax."""
        return math.ldexp(2 - math.ldexp(1, 1 - self.precision), self.emax)


FORMATS = {
    "float32": Format(precision=24, emin=-126, emax=127, exponent_bits=8),
    "float16": Format(precision=11, emin=-14, emax=15, exponent_bits=5),
    "bfloat16": Format(precision=8, emin=-126, emax=127, exponent_bits=8),
}


def round_to(x: float, dtype: str) -> float:
    """The value of `dtype` ("float32", "float16" or "bfloat16") nearest to x, ties to
    even, as a Python float; +-inf past the format's range; NaN, +-0 and +-inf kept.

    >>> round_to(257.0, "bfloat16"), round_to(0.1, "float16"), round_to(65520.0, "float16")
    (256.0, 0.0999755859375, inf)
    """
    x, form = _checked(x, dtype, "round_to")
    if x == 0 or not math.isfinite(x):
        return x
    spacing_at_x = 2.0 ** _spacing_exponent(abs(x), form)  # 2**(max(e, emin) - p + 1)
    rounded = round(abs(x) / spacing_at_x) * spacing_at_x  # exact: a power of two; ties to even
    if rounded > form.largest:  # past the range (near float64's own end the product is inf)
        rounded = math.inf
    return math.copysign(rounded, x)  # the sign put back: -0.3 in float16 is -0.0


def _spacing_exponent(magnitude: float, form: Format) -> int:
    """max(e, emin) - p + 1, with 2**e <= magnitude < 2**(e+1): the spacing is 2 to it."""
    e = math.frexp(magnitude)[1] - 1 if magnitude else form.emin  # frexp: m * 2**(e+1), m < 1
    return max(e, form.emin) - form.precision + 1


def spacing(x: float, dtype: str) -> float:
    """The gap between neighbouring values of `dtype` at x (x within the format's range).

    >>> spacing(65536.0, "bfloat16"), spacing(1.0, "float16"), spacing(0.0, "float16")
    (512.0, 0.0009765625, 5.960464477539063e-08)
    """
    x, form = _checked(x, dtype, "spacing", finite=True)
    return 2.0 ** _spacing_exponent(abs(x), form)


def bits(x: float, dtype: str) -> str:
    """The bits `dtype` stores for x (after round_to): "sign exponent mantissa".

    >>> bits(256.0, "bfloat16"), bits(-1.5, "float16")
    ('0 10000111 0000000', '1 01111 1000000000')
    """
    x, form = _checked(x, dtype, "bits")
    value = round_to(x, dtype)
    sign = "1" if math.copysign(1, value) < 0 else "0"
    mantissa_bits = form.precision - 1
    magnitude = abs(value)
    if math.isnan(value):  # the exponent all ones, the mantissa not 0 (a quiet NaN)
        exponent, mantissa = 2 ** form.exponent_bits - 1, 2 ** (mantissa_bits - 1)
    elif math.isinf(value):  # the exponent all ones, the mantissa 0
        exponent, mantissa = 2 ** form.exponent_bits - 1, 0
    elif magnitude < math.ldexp(1, form.emin):  # 0 and the subnormals: exponent field 0
        exponent = 0
        mantissa = int(math.ldexp(magnitude, -_spacing_exponent(magnitude, form)))
    else:  # 1.mantissa * 2**e: the field stores e + emax (the bias) and drops the leading 1
        e = math.frexp(magnitude)[1] - 1
        exponent = e + form.emax
        mantissa = int(math.ldexp(magnitude, mantissa_bits - e)) - 2 ** mantissa_bits
    return (f"{sign} {exponent:0{form.exponent_bits}b} "
            f"{mantissa:0{mantissa_bits}b}")


def largest_exact_integer(dtype: str) -> int:
    """2**p: every integer from 0 up to it is kept by `dtype`; the next one is not.

    >>> largest_exact_integer("bfloat16"), largest_exact_integer("float16")
    (256, 2048)
    """
    form = _checked(0.0, dtype, "largest_exact_integer")[1]
    return 1 << form.precision  # 2**p


def distinct_positions(n: int, dtype: str) -> int:
    """How many distinct values positions 0..n-1 keep in `dtype`:
    len({round_to(float(pos), dtype) for pos in range(n)}), counted without the loop.

    Rounding keeps order, and every whole number the format holds is some position's
    own value, so 0..n-1 keep exactly the whole numbers held from 0 up to where n - 1
    lands: all 2**p + 1 of 0..2**p, then 2**(p - 1) more per power of two past it (the
    spacing doubles, the count stays), and infinity once past the largest finite value.

    >>> distinct_positions(4096, "bfloat16"), distinct_positions(4096, "float16")
    (769, 3073)
    >>> distinct_positions(10**9, "bfloat16")     # a billion positions, 3,055 values
    3055
    """
    _check_count(n, dtype)
    if n == 0:
        return 0
    p = FORMATS[dtype].precision
    exact = largest_exact_integer(dtype)  # 2**p: every whole number up to here is held
    last = round_to(float(n - 1), dtype)  # where position n - 1 lands
    top = min(last, FORMATS[dtype].largest)  # past the range, the rest are one value: inf
    if top <= exact:
        return int(top) + 1  # 0, 1, ..., top: every one exact
    e = math.frexp(top)[1] - 1  # top's power of two: 2**e <= top < 2**(e + 1)
    spacing_at_top = 1 << (e - p + 1)  # 2**(e - p + 1)
    per_power = exact // 2  # 2**(p - 1) values between one power of two and the next
    past = (e - p) * per_power + int(top - 2**e) // spacing_at_top  # held in (2**p, top]
    return exact + 1 + past + (1 if math.isinf(last) else 0)


# --- the door: what the functions above take ---------------------------------------------


def _checked(x: object, dtype: object, who: str, finite: bool = False) -> tuple[float, Format]:
    """x as a float and the format `dtype` names, or a sentence saying what is wrong."""
    if not isinstance(dtype, str) or dtype not in FORMATS:
        raise ValueError(f"{who}: dtype must be one of 'float32', 'float16' or 'bfloat16' "
                         f"(the formats this appendix rounds to), not {dtype!r}")
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"{who}: x must be a number (an int or a float), "
                        f"not {type(x).__name__} {x!r}")
    try:
        value = float(x)
    except OverflowError:
        raise ValueError(f"{who}: x = {x} is too large for a Python float") from None
    if finite and not abs(value) <= FORMATS[dtype].largest:
        raise ValueError(f"{who}: x = {x!r} is past {dtype}'s range (its largest finite "
                         f"value is {FORMATS[dtype].largest:g}): there is no spacing there")
    return value, FORMATS[dtype]


def _check_count(n: object, dtype: object) -> None:
    """n a count of positions (an int >= 0), dtype one of the three formats."""
    _checked(0.0, dtype, "distinct_positions")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"distinct_positions: n must be a count of positions (an int >= 0), "
                         f"not {n!r}")
    if n - 1 > 2**53:
        raise ValueError(f"distinct_positions: n = {n:,} takes positions past 2**53 = "
                         f"{2**53:,}, where float64, the number each is rounded from, no "
                         f"longer holds every integer: keep n at most 2**53 + 1")
