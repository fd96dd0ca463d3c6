"""Chapter 7, part 3 - positions in low precision: where RoPE's rounding happens.

Chapters 3 and 5 compute in Python floats (float64, 53 significant bits). The
models you train and read store float32, float16 or bfloat16 (appendix C,
minipe/numerics.py: bfloat16 keeps 8 significant bits, so it holds every integer
only up to 256). RoPE's angle is a product, and each of its numbers can be kept
in another format:

    pos                  the position, as a float tensor holds it     at.pos
    theta_i              base**(-2i / d), RoPE's `inv_freq`            at.theta
    a = pos * theta_i    the angle                                     at.angle
    cos a, sin a         the table that turns q and k                  at.table

`Precision` names the format of each step ("float64" keeps Python's float as it
is), and every function here rounds on the line where the step happens:

    angle = stored(stored(pos, at.pos) * stored(theta_i, at.theta), at.angle)

Which step is rounded decides the damage. A stored position (4095 -> 4096 in
bfloat16) turns every pair as if at another place; a stored theta_i is off by up
to 2**-8 of itself, and so is the angle pos * theta_i (up to 16 radians near
4096); a stored angle near 4095 is a multiple of 16 radians. A stored cos a or
sin a is off by at most 2**-9, at every position. So the fix production code
uses is one line: compute the angle in float32, cast only cos and sin.

Rounding also breaks RoPE's promise that only the offset counts (chapter 5):
(R_m q) . (R_n k) equals (R_(m+s) q) . (R_(n+s) k) for any shift s in exact
arithmetic, not once cos and sin are rounded (`rounded_score`). And a sinusoidal
table whose positions are float16 has equal rows at 2048 and 2049
(`rounded_sinusoids`); a learned table is looked up with int positions, which no
format rounds.

Each step is rounded once, from the exact float64 result of the step before:
what a GPU does when it computes in float32 and stores the result (an angle of
two float32 numbers is their exact product, rounded once). Left out: the order
a GPU sums the score in (here: math.fsum, exact, then rounded once).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from minipe.arrays import Matrix, Vector
from minipe.checks import (check_angle, check_choice, check_type, checked_base,
                           checked_position, checked_positions, checked_rotary_width,
                           checked_size)
from minipe.numerics import round_to
from minipe.positional import sinusoidal_denominators
from minipe.rotary import rotary_pairs, rotary_thetas

FORMATS = ("float64", "float32", "float16", "bfloat16")  # float64: Python's float, kept


@dataclass(frozen=True)
class Precision:
    """The format each step stores its result in: "float64" (kept), "float32", "float16"
    or "bfloat16".

    >>> Precision(theta="bfloat16").theta     # only inv_freq in bfloat16
    'bfloat16'
    """

    pos: str = "float64"  # the position, as a float tensor holds it
    theta: str = "float64"  # theta_i = base**(-2i/d) (for sinusoids: base**(2i/d_model))
    angle: str = "float64"  # a = pos * theta_i (sinusoids: pos / base**(2i/d_model))
    table: str = "float64"  # cos a and sin a
    x: str = "float64"  # q and k, and each product and sum that turns them
    score: str = "float64"  # q' . k'

    def __post_init__(self) -> None:
        _check_formats(self)

    @staticmethod
    def everywhere(dtype: str) -> Precision:
        """Every step in one format: a model cast whole to `dtype`."""
        return Precision(dtype, dtype, dtype, dtype, dtype, dtype)


def stored(x: float, dtype: str) -> float:
    """x as a tensor of `dtype` holds it: appendix C's round_to; float64 keeps x.

    >>> stored(4095.0, "bfloat16"), stored(4095.0, "float16"), stored(0.1, "float64")
    (4096.0, 4096.0, 0.1)
    """
    _check_format(dtype, "dtype")
    return _stored(x, dtype)


def _stored(x: float, dtype: str) -> float:
    return x if dtype == "float64" else round_to(x, dtype)


def rounded_angle(pos: int, i: int, d: int, *, base: float = 10000.0,
             at: Precision | None = None) -> float:
    """The angle pair i turns by at position pos, each step stored as `at` says.

        a = pos * theta_i,   theta_i = base**(-2i / d)

    >>> rounded_angle(1857, 1, 32)                   # EleutherAI gpt-neox issue 1003: float64
    1044.2678408784782
    >>> rounded_angle(1857, 1, 32, at=Precision.everywhere("float16"))   # theta_1 -> 0.5625
    1045.0
    """
    at = _checked_angle_at(pos, i, d, base, at)
    theta = _stored(rotary_thetas(d, base)[i], at.theta)  # theta_i, stored
    return _stored(_stored(float(pos), at.pos) * theta, at.angle)  # a = pos * theta_i, stored


def rounded_turns(positions: Sequence[int], d: int, *, base: float = 10000.0,
             at: Precision | None = None) -> tuple[Matrix, Matrix]:
    """(cos a, sin a) for each position (rows) and pair i (columns): (len(positions), d/2) each.

    theta_1 = 0.86596 is stored in bfloat16 as 0.86719; at position 4095 that is 5 radians:

    >>> cos, sin = rounded_turns([4095], 128, at=Precision(theta="bfloat16"))
    >>> round(cos[0][1], 4), round(math.cos(4095 * 10000 ** (-2 / 128)), 4)
    (0.4238, -0.7424)
    """
    at = _checked_turns(positions, d, base, at)
    thetas = _thetas(d, base, at)
    cosines, sines = zip(*[_turns(pos, thetas, at) for pos in positions])
    return Matrix(cosines), Matrix(sines)


def _thetas(d: int, base: float, at: Precision) -> list[float]:
    return [_stored(theta, at.theta) for theta in rotary_thetas(d, base)]  # theta_i, stored


def _turns(pos: int, thetas: list[float], at: Precision) -> tuple[list[float], list[float]]:
    """cos a and sin a of every pair at one position; thetas already stored."""
    pos_stored = _stored(float(pos), at.pos)  # the position, as a float tensor holds it
    cosines, sines = [], []
    for theta in thetas:
        angle = _stored(pos_stored * theta, at.angle)  # a = pos * theta_i, stored
        cosines.append(_stored(math.cos(angle), at.table))  # cos a, stored
        sines.append(_stored(math.sin(angle), at.table))  # sin a, stored
    return cosines, sines


def rounded_score(q: Vector, k: Vector, m: int, n: int, *, base: float = 10000.0,
             at: Precision | None = None) -> float:
    """(R_m q) . (R_n k): the score of a query at position m and a key at position n.

        x'[first]  = x[first] cos a - x[second] sin a      (pair i: rotary_pairs(d))
        x'[second] = x[first] sin a + x[second] cos a      each product and sum stored as at.x
        score      = q' . k'                               summed exactly, stored as at.score

    In float64 it depends on n - m alone (chapter 5); rounded, on m and n:

    >>> q, k = Vector([1.0, 2.0, 3.0, 4.0]), Vector([0.5, -1.0, 2.0, 1.0])
    >>> abs(rounded_score(q, k, 10, 3) - rounded_score(q, k, 1010, 1003)) < 1e-12
    True
    >>> rounded_score(q, k, 10, 3, at=Precision.everywhere("bfloat16"))
    7.1875
    >>> rounded_score(q, k, 1010, 1003, at=Precision.everywhere("bfloat16"))
    12.5
    """
    d, at = _checked_score(q, k, m, n, base, at)
    thetas = _thetas(d, base, at)
    q_turned = _turned(q, *_turns(m, thetas, at), at)  # R_m q
    k_turned = _turned(k, *_turns(n, thetas, at), at)  # R_n k
    return _stored(math.fsum([a * b for a, b in zip(q_turned, k_turned)]), at.score)


def _turned(x: Vector, cosines: list[float], sines: list[float], at: Precision) -> list[float]:
    """x turned pair by pair, as a tensor of at.x computes it: each product and sum stored."""
    values = [_stored(value, at.x) for value in x]  # q or k, stored
    turned = list(values)
    for (first, second), cos_a, sin_a in zip(rotary_pairs(len(values)), cosines, sines):
        a, b = values[first], values[second]
        turned[first] = _stored(_stored(a * cos_a, at.x) - _stored(b * sin_a, at.x), at.x)
        turned[second] = _stored(_stored(a * sin_a, at.x) + _stored(b * cos_a, at.x), at.x)
    return turned


def rounded_sinusoids(positions: Sequence[int], d_model: int, *, base: float = 10000.0,
                 at: Precision | None = None) -> Matrix:
    """Chapter 3's sinusoidal rows PE(pos), each step stored: (len(positions), d_model).

        PE(pos, 2i)     = sin(pos / base**(2i / d_model))   pos stored as at.pos,
        PE(pos, 2i + 1) = cos(pos / base**(2i / d_model))   base**(2i/d_model) as at.theta,
                                                            the angle as at.angle, PE as at.table

    >>> table = rounded_sinusoids([2048, 2049], 64, at=Precision(pos="float16"))
    >>> table[0] == table[1]                 # 2049 is stored as 2048
    True
    """
    at = _checked_turns(positions, d_model, base, at, "d_model", rotary=False)
    denominators = [_stored(value, at.theta) for value in sinusoidal_denominators(
        d_model, base=base)]  # base**(2i / d_model), stored
    rows = []
    for pos in positions:
        pos_stored = _stored(float(pos), at.pos)  # the position, as a float tensor holds it
        row = []
        for denominator in denominators:
            angle = _stored(pos_stored / denominator, at.angle)  # pos / base**(2i/d_model)
            row.append(_stored(math.sin(angle), at.table))  # PE(pos, 2i)
            row.append(_stored(math.cos(angle), at.table))  # PE(pos, 2i + 1)
        del row[d_model:]  # odd d_model: the last sine has no cosine partner
        rows.append(row)
    return Matrix(rows)  # (len(positions), d_model)


# ---------------------------------------------------------------------------
# The door: a known format for each step; positions, widths and bases as chapter 5 takes
# them; and no step that overflows its format (an angle of inf has no cos)
# ---------------------------------------------------------------------------


def _check_format(dtype: object, step: str) -> None:
    check_choice(dtype, FORMATS, f"{step} must be one of 'float64' (Python's float, kept as "
                 f"it is), 'float32', 'float16' or 'bfloat16'")


def _check_formats(at: Precision) -> None:
    for step in ("pos", "theta", "angle", "table", "x", "score"):
        _check_format(getattr(at, step), f"Precision's {step}")


def _checked_angle_at(pos: int, i: int, d: int, base: float,
                      at: Precision | None) -> Precision:
    width = checked_rotary_width(d)
    if checked_size(i, "i", minimum=0) >= width // 2:
        raise ValueError(f"i must be a pair, from 0 to d/2 - 1 = {width // 2 - 1}, got {i}")
    return _checked_turns([checked_position(pos, "pos")], d, base, at)


def _checked_turns(positions: Sequence[int], d: int, base: object, at: Precision | None,
                   name: str = "d", rotary: bool = True) -> Precision:
    """Positions (ints >= 0), a width (even for RoPE), a base, a Precision (None: float64 at
    every step); and the largest position and angle finite in their formats: the Precision."""
    at = Precision() if at is None else at
    check_type(at, Precision, "at must be a Precision (which format each step stores)")
    listed = checked_positions(positions, "positions", "int positions")
    width = checked_rotary_width(d, name) if rotary else checked_size(d, name)
    checked = checked_base(base)
    fastest = max(1.0, checked ** (-(width - 2) / width))  # the largest theta_i
    last = max(listed)
    check_angle(last, fastest)
    for value, step, what in ((float(last), "pos", f"position {last}"),
                              (last * fastest, "angle", f"the angle {last} * {fastest:.4g}")):
        if math.isinf(_stored(value, getattr(at, step))):
            raise ValueError(f"{what} is past {getattr(at, step)}'s largest value: stored, "
                             f"it becomes inf, which has no cos or sin; keep it smaller or "
                             f"store {step} in a wider format")
    return at


def _checked_score(q: Vector, k: Vector, m: int, n: int, base: float,
                   at: Precision | None) -> tuple[int, Precision]:
    """q and k Vectors of one even width d, m and n positions: d and the Precision."""
    check_type(q, Vector, "q must be a Vector (one query)")
    check_type(k, Vector, "k must be a Vector (one key)")
    if len(q) != len(k):
        raise ValueError(f"q and k must have one width, got {len(q)} and {len(k)}")
    at = _checked_turns([checked_position(m, "m"), checked_position(n, "n")], len(q), base, at)
    largest = max(max(map(abs, q)), max(map(abs, k)))
    if math.isinf(_stored(largest, at.x)):
        raise ValueError(f"q and k hold {largest:g}, past {at.x}'s largest value: stored, it "
                         f"becomes inf, and the turn would make inf - inf = NaN")
    return len(q), at
