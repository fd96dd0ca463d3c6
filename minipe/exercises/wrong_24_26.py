"""The known wrong solutions of exercises 24-26: a number stored by hand (appendix C), the
layer norm's backward (chapter 10's block) and RoPE's table in low precision (chapter 7).

As in wrong.py, each function has the signature of the learner's and is wrong in
exactly one way: the right rule (reference.py) with one thing changed.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from minipe.numerics import FORMATS, Format, round_to

# ---------------------------------------------------------------------------
# a number stored by hand: round_to(x, dtype)


def _stored(x: float, form: Format, *, nearest: Callable[[float], float] = round,
            floor: bool = True, overflow: bool = True, signed: bool = True) -> float:
    """The nearest-value rule, each of its parts switchable: `nearest` rounds x / spacing
    (round: ties to even), `floor` keeps the subnormals' spacing below 2**emin, `overflow`
    sends past the largest value to inf, `signed` puts the sign back."""
    if x == 0 or not math.isfinite(x):
        return x
    e = math.frexp(abs(x))[1] - 1  # 2**e <= |x| < 2**(e+1)
    spacing = 2.0 ** ((max(e, form.emin) if floor else e) - form.precision + 1)
    rounded = nearest(abs(x) / spacing) * spacing
    if overflow and rounded > form.largest:
        rounded = math.inf
    return math.copysign(rounded, x) if signed else rounded


def _half_up(steps: float) -> float:
    return math.floor(steps + 0.5)


def round_half_up(x: float, dtype: str) -> float:
    """A tie goes up (floor(steps + 0.5)): 257 -> 258 in bfloat16, where even says 256."""
    return _stored(x, FORMATS[dtype], nearest=_half_up)


def round_truncated(x: float, dtype: str) -> float:
    """The bits past p chopped (int(steps)): toward zero, never to the nearest."""
    return _stored(x, FORMATS[dtype], nearest=math.floor)


def round_truncated_bfloat16(x: float, dtype: str) -> float:
    """bfloat16 as float32's top 16 bits, the bottom 16 chopped (float16 right): truncation."""
    return _stored(x, FORMATS[dtype], nearest=math.floor if dtype == "bfloat16" else round)


def round_no_subnormal_floor(x: float, dtype: str) -> float:
    """The spacing 2**(e - p + 1) at every e: below 2**emin the steps keep shrinking."""
    return _stored(x, FORMATS[dtype], floor=False)


def round_overflow_finite(x: float, dtype: str) -> float:
    """No infinity: past the largest value, the rounded number kept (65520 -> 65536)."""
    return _stored(x, FORMATS[dtype], overflow=False)


def round_overflow_saturated(x: float, dtype: str) -> float:
    """No infinity: past the largest value, the largest value (saturation)."""
    form = FORMATS[dtype]
    rounded = _stored(x, form, overflow=False)
    return math.copysign(min(abs(rounded), form.largest), rounded)


def round_sign_lost(x: float, dtype: str) -> float:
    """|x| rounded, its sign never put back: -257 -> 256."""
    return _stored(x, FORMATS[dtype], signed=False)


def round_with_float16_bits(x: float, dtype: str) -> float:
    """float16's p = 11 and emin = -14 (and emax = 15) for both formats."""
    return _stored(x, FORMATS["float16"])


# ---------------------------------------------------------------------------
# the layer norm's backward: d_x of y = x_hat w + b


Rows = list[list[float]]


def _ln_backward(x: Rows, weight: list[float], d_out: Rows, eps: float, *,
                 mean_g: bool = True, x_hat_term: bool = True, unbiased: bool = False,
                 with_eps: bool = True, eps_outside: bool = False,
                 with_weight: bool = True) -> Rows:
    """dx = r (g - mean(g) - x_hat mean(g x_hat)), g = dy w, r = 1 / sqrt(var + eps), each
    part switchable."""
    d_x = []
    for row, dy in zip(x, d_out):
        d = len(row)
        mean = sum(row) / d
        centred = [v - mean for v in row]
        var = sum(c * c for c in centred) / (d - 1 if unbiased else d)
        if eps_outside:
            r = 1.0 / (math.sqrt(var) + eps)
        else:
            r = 1.0 / math.sqrt(var + (eps if with_eps else 0.0))
        x_hat = [c * r for c in centred]
        g = [dy_j * w_j for dy_j, w_j in zip(dy, weight)] if with_weight else list(dy)
        m_g = sum(g) / d if mean_g else 0.0
        m_gx = sum(g_j * x_j for g_j, x_j in zip(g, x_hat)) / d if x_hat_term else 0.0
        d_x.append([r * (g_j - m_g - x_j * m_gx) for g_j, x_j in zip(g, x_hat)])
    return d_x


def ln_no_mean_g(x: Rows, weight: list[float], d_out: Rows, eps: float) -> Rows:
    """The -mean(g) term left out: as if the mean had not moved with x_j."""
    return _ln_backward(x, weight, d_out, eps, mean_g=False)


def ln_no_x_hat_term(x: Rows, weight: list[float], d_out: Rows, eps: float) -> Rows:
    """The -x_hat mean(g x_hat) term left out: as if the spread had not moved with x_j."""
    return _ln_backward(x, weight, d_out, eps, x_hat_term=False)


def ln_statistics_constant(x: Rows, weight: list[float], d_out: Rows, eps: float) -> Rows:
    """dx = r g: the mean and the variance taken as constants, both terms left out."""
    return _ln_backward(x, weight, d_out, eps, mean_g=False, x_hat_term=False)


def ln_unbiased(x: Rows, weight: list[float], d_out: Rows, eps: float) -> Rows:
    """The variance divided by d - 1 (statistics.variance, torch.var's default)."""
    return _ln_backward(x, weight, d_out, eps, unbiased=True)


def ln_no_eps(x: Rows, weight: list[float], d_out: Rows, eps: float) -> Rows:
    """r = 1 / sqrt(var): eps forgotten (a constant row divides by zero)."""
    return _ln_backward(x, weight, d_out, eps, with_eps=False)


def ln_eps_outside(x: Rows, weight: list[float], d_out: Rows, eps: float) -> Rows:
    """r = 1 / (sqrt(var) + eps): eps added outside the square root."""
    return _ln_backward(x, weight, d_out, eps, eps_outside=True)


def ln_no_weight(x: Rows, weight: list[float], d_out: Rows, eps: float) -> Rows:
    """g = dy: the weight w, which multiplied x_hat on the way forward, left out."""
    return _ln_backward(x, weight, d_out, eps, with_weight=False)


# ---------------------------------------------------------------------------
# RoPE's table in low precision: rope_turns(pos, d, dtype) -> [cosines, sines]


def _turns(pos: int, d: int, *, pos_in: str | None, theta_in: str | None,
           angle_in: str | None, table_in: str | None) -> list[list[float]]:
    """cos a and sin a of every pair, each step stored in its format (None: float64)."""
    def kept(x: float, dtype: str | None) -> float:
        return x if dtype is None else round_to(x, dtype)

    position = kept(float(pos), pos_in)
    cosines, sines = [], []
    for i in range(d // 2):
        theta = kept(10000 ** (-2 * i / d), theta_in)
        angle = kept(position * theta, angle_in)
        cosines.append(kept(math.cos(angle), table_in))
        sines.append(kept(math.sin(angle), table_in))
    return [cosines, sines]


def rope_theta_low(pos: int, d: int, dtype: str) -> list[list[float]]:
    """theta_i (inv_freq) stored in dtype: off by up to 2**-8 of itself in bfloat16."""
    return _turns(pos, d, pos_in=None, theta_in=dtype, angle_in="float32", table_in=dtype)


def rope_angle_low(pos: int, d: int, dtype: str) -> list[list[float]]:
    """The angle stored in dtype before cos and sin: near 4095, a multiple of 16 radians."""
    return _turns(pos, d, pos_in=None, theta_in="float32", angle_in=dtype, table_in=dtype)


def rope_pos_low(pos: int, d: int, dtype: str) -> list[list[float]]:
    """The position stored in dtype (positions as a bfloat16 tensor): 257 -> 256."""
    return _turns(pos, d, pos_in=dtype, theta_in="float32", angle_in="float32",
                  table_in=dtype)


def rope_all_low(pos: int, d: int, dtype: str) -> list[list[float]]:
    """Every step in dtype: the model cast whole."""
    return _turns(pos, d, pos_in=dtype, theta_in=dtype, angle_in=dtype, table_in=dtype)


def rope_table_unstored(pos: int, d: int, dtype: str) -> list[list[float]]:
    """cos a and sin a returned as Python computed them: never stored in dtype."""
    return _turns(pos, d, pos_in=None, theta_in="float32", angle_in="float32",
                  table_in=None)


def rope_table_float32(pos: int, d: int, dtype: str) -> list[list[float]]:
    """cos a and sin a stored in float32, not in dtype."""
    return _turns(pos, d, pos_in=None, theta_in="float32", angle_in="float32",
                  table_in="float32")


def rope_angle_float64(pos: int, d: int, dtype: str) -> list[list[float]]:
    """theta_i and the angle kept in float64: finer than the float32 a GPU computes in."""
    return _turns(pos, d, pos_in=None, theta_in=None, angle_in=None, table_in=dtype)


WRONG: dict[int, tuple[tuple[str, Any], ...]] = {
    24: (("round-half-up", round_half_up), ("round-truncated", round_truncated),
         ("round-truncated", round_truncated_bfloat16),
         ("no-subnormal-floor", round_no_subnormal_floor),
         ("overflow-kept-finite", round_overflow_finite),
         ("overflow-kept-finite", round_overflow_saturated),
         ("sign-lost", round_sign_lost),
         ("bfloat16-with-float16-bits", round_with_float16_bits)),
    25: (("ln-statistics-constant", ln_statistics_constant),
         ("ln-mean-g-missing", ln_no_mean_g), ("ln-x-hat-term-missing", ln_no_x_hat_term),
         ("ln-unbiased-variance", ln_unbiased), ("ln-eps-forgotten", ln_no_eps),
         ("ln-eps-outside-sqrt", ln_eps_outside), ("ln-weight-forgotten", ln_no_weight)),
    26: (("rope-all-in-low-precision", rope_all_low),
         ("rope-theta-in-low-precision", rope_theta_low),
         ("rope-angle-in-low-precision", rope_angle_low),
         ("rope-pos-in-low-precision", rope_pos_low),
         ("rope-table-not-stored", rope_table_unstored),
         ("rope-table-not-stored", rope_table_float32),
         ("rope-angle-in-float64", rope_angle_float64)),
}
