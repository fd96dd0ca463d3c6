"""Chapter 7, part 1 - past the context window: a RoPE model reads more than it was trained on.

A model trained on texts of L tokens (its original context length) has seen
RoPE's pair i (chapter 5) turn through the angles pos * theta_i for
pos = 0 .. L - 1, and no others. Pair i has the wavelength 2*pi / theta_i and
turns L / wavelength times inside L. The fast pairs (small i) went round
many times, so any angle is familiar to them; the slow pairs turned part of
one circle, so past L they reach angles training never showed. Each method
changes theta_i so that a text `factor` times longer stays near what was seen:

    default   theta_i = base**(-2i/d)                                  (chapter 5)
    linear    theta_i / factor: position pos reads as pos / factor
              (position interpolation, Chen et al. 2023)
    ntk       base' = base * factor**(d / (d - 2)): the fastest pair stays,
              the slowest is divided by exactly factor ("NTK-aware", 2023)
    dynamic   base' = base * (factor * n / L - (factor - 1))**(d / (d - 2)),
              n = max(seq_len, L): no change until the text outgrows L
    yarn      pair by pair (Peng et al. 2023, "NTK-by-parts"), by the turns
              r = L / wavelength each pair makes inside L: pairs turning more than
              beta_fast times are kept, fewer than beta_slow times divided by factor,
              and a linear ramp blends the two between - linear in what, two ways:
              ramp="paper"    gamma(r) = (r - beta_slow) / (beta_fast - beta_slow),
                              linear in the turns r (the paper's rule);
              ramp="rounded"  (the default: Hugging Face's code) the pair indices where
                              r = beta_fast and r = beta_slow, rounded down and up to
                              whole pairs, and a ramp linear in the pair index i between.
              Both keep the pairs with r >= beta_fast and divide those with
              r <= beta_slow, but for pair 0: the rounded ramp starts at pair 0 at the
              earliest, so it keeps pair 0 whole whatever L; the paper's blends it once
              it turns fewer than beta_fast times (L < 2 pi beta_fast: 201 positions
              for 32; lesson 18). Between, they blend differently: r falls by
              base**(2/d) from one pair to the next, so linear in i is not linear in r.
              Both multiply q and k by 0.1 * ln(factor) + 1 (the scores by its square)
    llama3    by wavelength (Llama 3.1): shorter than L / high_freq_factor kept,
              longer than L / low_freq_factor divided by factor, smoothed between

`rope_frequencies` returns the new theta_i and the attention scale (what q
and k are multiplied by: Hugging Face multiplies RoPE's cos and sin by it);
chapter 5's `apply_rotary(x, frequencies=...)` turns q and k with them.
Part 2 (minipe/wavelengths.py) lays them out pair by pair (`frequency_table`)
and closes the chapter with what happens far apart: the long-term decay, NoPE
and attention sinks.

A model trained short can be tested long with these frequencies: chapter 10's
`TinyModel.with_frequencies`, in lesson 18 (walkthroughs/18_train_short_test_long.py).

The door refuses what cannot be computed (a theta_i that underflows to 0 or
overflows, a ramp over a base <= 1, a table larger than a laptop's memory) and
an argument the chosen method would ignore.

Left out: LongRoPE's searched per-pair factors, partial rotary dims, the YaRN
variants with mscale_all_dim (DeepSeek).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

from minipe.arrays import Vector
from minipe.checks import (
    check_table_size,
    checked_base,
    checked_number,
    checked_position,
    checked_size,
)
from minipe.rotary import checked_rotary_width, rotary_thetas

METHODS = ("default", "linear", "ntk", "dynamic", "yarn", "llama3")
RAMPS = ("rounded", "paper")  # YaRN's ramp: Hugging Face's (linear in i), the paper's (in r)
USES = {  # the arguments each method reads, besides d and base
    "default": (),
    "linear": ("factor",),
    "ntk": ("factor",),
    "dynamic": ("factor", "original_context_length", "seq_len"),
    "yarn": ("factor", "original_context_length", "beta_fast", "beta_slow", "ramp"),
    "llama3": ("factor", "original_context_length", "low_freq_factor", "high_freq_factor"),
}


def rope_frequencies(
    d: int, *, base: float = 10000.0, method: str = "default", factor: float = 1.0,
    original_context_length: int | None = None, seq_len: int | None = None,
    beta_fast: float | None = None, beta_slow: float | None = None,
    low_freq_factor: float | None = None, high_freq_factor: float | None = None,
    ramp: str | None = None,
) -> tuple[Vector, float]:
    """theta_i for the pairs i = 0 .. d/2 - 1, and the attention scale (1.0 but for YaRN).

    >>> rope_frequencies(4)                             # chapter 5: 10000**(-2i/4)
    (Vector([1.0, 0.01], shape=(2,)), 1.0)
    >>> rope_frequencies(4, method="linear", factor=4)  # position interpolation
    (Vector([0.25, 0.0025], shape=(2,)), 1.0)

    The module docstring gives each method's formula; the functions below
    compute them line for line. An argument left at None takes the method's
    default (YaRN: beta_fast 32, beta_slow 1, ramp "rounded"; Llama 3.1:
    low_freq_factor 1, high_freq_factor 4); one the method does not read is
    refused rather than ignored.
    """
    return _frequencies(_checked(d, base, method, factor, original_context_length, seq_len,
                                 beta_fast, beta_slow, low_freq_factor, high_freq_factor, ramp))


@dataclass(frozen=True)
class _Stretch:
    """rope_frequencies' arguments after the door: every one checked, defaults filled in."""

    d: int
    base: float
    method: str
    factor: float
    L: int  # original_context_length (0 for methods that do not read it)
    seq_len: int  # (0 unless dynamic)
    beta_fast: float
    beta_slow: float
    low: float  # low_freq_factor
    high: float  # high_freq_factor
    ramp: str


def _frequencies(stretch: _Stretch) -> tuple[Vector, float]:
    """What rope_frequencies returns, for arguments its door has checked."""
    d, base, factor, L = stretch.d, stretch.base, stretch.factor, stretch.L
    if stretch.method == "ntk":
        base = base * factor ** (d / (d - 2))  # base' = base * factor**(d / (d - 2))
    if stretch.method == "dynamic":
        n = max(stretch.seq_len, L)
        base = base * (factor * n / L - (factor - 1)) ** (d / (d - 2))
    thetas = list(rotary_thetas(d, base))  # chapter 5: theta_i = base**(-2i/d)
    if stretch.method == "linear":
        thetas = [theta / factor for theta in thetas]  # pos * (theta_i / s) = (pos / s) * theta_i
    if stretch.method == "yarn":
        yarn = _yarn_paper if stretch.ramp == "paper" else _yarn_rounded
        return (Vector(yarn(thetas, stretch)),
                0.1 * math.log(factor) + 1)  # YaRN's scale of q and k: sqrt(1/t) in the paper
    if stretch.method == "llama3":
        thetas = _llama3(thetas, factor, L, stretch.low, stretch.high)
    return Vector(thetas), 1.0


def _pair_turning(turns: float, d: int, base: float, L: int) -> float:
    """The pair index i (as a real number) whose pair turns `turns` times inside L:
    L * theta_i / (2 pi) = turns, with theta_i = base**(-2i/d), solved for i."""
    return d * math.log(L / (turns * 2 * math.pi)) / (2 * math.log(base))


def _yarn_rounded(thetas: list[float], stretch: _Stretch) -> list[float]:
    """Hugging Face's ramp: linear in the pair index i, between whole pairs."""
    d, base, L = stretch.d, stretch.base, stretch.L
    low = max(math.floor(_pair_turning(stretch.beta_fast, d, base, L)), 0)  # up to low: kept
    high: float = min(math.ceil(_pair_turning(stretch.beta_slow, d, base, L)), d - 1)  # / s
    if high == low:
        high += 0.001  # a ramp needs some width (as in Hugging Face's code)
    yarn = []
    for i, theta in enumerate(thetas):
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)  # 0 up to low, 1 from high
        keep = 1 - ramp  # how much of the original theta_i stays
        yarn.append(theta / stretch.factor * (1 - keep) + theta * keep)
    return yarn


def _yarn_paper(thetas: list[float], stretch: _Stretch) -> list[float]:
    """The paper's ramp: gamma(r), linear in the turns r = L / wavelength."""
    alpha, beta = stretch.beta_slow, stretch.beta_fast  # the paper's names for the two
    yarn = []
    for theta in thetas:
        r = stretch.L / (2 * math.pi / theta)  # r = L / wavelength: turns inside L
        gamma = min(max((r - alpha) / (beta - alpha), 0.0), 1.0)  # 0 below alpha, 1 above beta
        yarn.append((1 - gamma) * theta / stretch.factor + gamma * theta)  # h(theta_i)
    return yarn


def _llama3(thetas: list[float], factor: float, L: int, low: float, high: float) -> list[float]:
    llama = []
    for theta in thetas:
        wavelength = 2 * math.pi / theta
        if wavelength < L / high:  # turns more than high_freq_factor times inside L: kept
            llama.append(theta)
        elif wavelength > L / low:  # turns less than low_freq_factor times: divided
            llama.append(theta / factor)
        else:  # between: smooth goes from 0 (divided) to 1 (kept) with the turns L / wavelength
            smooth = (L / wavelength - low) / (high - low)
            llama.append((1 - smooth) * theta / factor + smooth * theta)
    return llama


# The door, after the ideas it guards: each argument once, with a sentence that teaches.
def _checked(d: object, base: object, method: object, factor: object, L: object,
             seq_len: object, beta_fast: object, beta_slow: object, low: object, high: object,
             ramp: object) -> _Stretch:
    """The door: each argument once, with a sentence that says what it is for."""
    d = checked_rotary_width(d)
    pairs = d // 2
    check_table_size(pairs, f"d={d:,} (RoPE's d is a head's width: 64 or 128 in most "
                            f"models) means d/2 = {pairs:,} angles theta_i: that")
    base = checked_base(base)
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))} (the chapter's "
                         f"docstring explains each), got {method!r}")
    assert isinstance(method, str)
    given = {"factor": factor != 1.0 or None, "original_context_length": L,
             "seq_len": seq_len, "beta_fast": beta_fast, "beta_slow": beta_slow,
             "low_freq_factor": low, "high_freq_factor": high, "ramp": ramp}
    unused = [name for name, value in given.items()
              if value is not None and name not in USES[method]]
    if method == "default" and "factor" in unused:
        raise ValueError(f"method='default' is plain RoPE and has no factor (got factor="
                         f"{factor}); to stretch the context pick 'linear', 'ntk', "
                         f"'dynamic', 'yarn' or 'llama3'")
    if unused:
        reads = ", ".join(USES[method]) or "nothing but d and base"
        raise ValueError(f"method={method!r} does not read {', '.join(unused)}: it reads "
                         f"{reads}. Leave the others out (they would be ignored)")
    factor = checked_number(factor, "factor")
    if not math.isfinite(factor) or factor < 1:
        raise ValueError(f"factor is how many times longer than the original context the "
                         f"text may be, so it must be a finite number >= 1, got {factor}")
    if method in ("ntk", "dynamic", "yarn") and base <= 1:
        raise ValueError(f"method={method!r} keeps the fast pairs (small i) and stretches the "
                         f"slow ones (large i), which needs theta_i = base**(-2i/d) to fall "
                         f"as i grows: base > 1 (RoPE's 10000 or 500000), got base={base}")
    if method in ("ntk", "dynamic") and d < 4:
        raise ValueError(f"method={method!r} raises base to the power d / (d - 2), so it "
                         f"needs d >= 4, got d={d}")
    if "original_context_length" in USES[method]:
        if L is None:
            raise ValueError(f"method={method!r} needs original_context_length, the length L "
                             f"the model was trained on: it decides from L which pairs change")
        L = checked_position(L, "original_context_length", 1)
    if method == "dynamic":
        if seq_len is None:
            raise ValueError("method='dynamic' needs seq_len, the length of the text being "
                             "read now: its base grows once seq_len passes "
                             "original_context_length")
        seq_len = checked_position(seq_len, "seq_len", 1)
    slow, fast = _checked_pair(beta_slow, beta_fast, ("beta_slow", "beta_fast"), (1.0, 32.0),
                               "YaRN keeps pairs that turn more than beta_fast times inside L "
                               "and divides those that turn fewer than beta_slow times")
    low_f, high_f = _checked_pair(low, high, ("low_freq_factor", "high_freq_factor"),
                                  (1.0, 4.0), "Llama 3.1 keeps wavelengths shorter than "
                                  "L / high_freq_factor and divides those longer than "
                                  "L / low_freq_factor")
    if ramp is None:
        ramp = "rounded"
    if ramp not in RAMPS:
        raise ValueError(f"ramp must be 'rounded' (Hugging Face's: linear in the pair index i "
                         f"between whole pairs) or 'paper' (YaRN's gamma(r): linear in the "
                         f"turns r = L / wavelength), got {ramp!r}")
    assert isinstance(ramp, str)
    stretch = _Stretch(d, base, method, factor, L if isinstance(L, int) else 0,
                       seq_len if isinstance(seq_len, int) else 0, fast, slow, low_f, high_f,
                       ramp)
    _check_range(stretch)
    return stretch


def _checked_pair(low: object, high: object, names: tuple[str, str],
                  defaults: tuple[float, float], rule: str) -> tuple[float, float]:
    """Two thresholds, each None (its default) or a finite number, with 0 < low < high."""
    low_value = defaults[0] if low is None else checked_number(low, names[0])
    high_value = defaults[1] if high is None else checked_number(high, names[1])
    if not (math.isfinite(low_value) and math.isfinite(high_value)
            and 0 < low_value < high_value):
        raise ValueError(f"{rule}, so it needs finite numbers with 0 < {names[0]} < "
                         f"{names[1]}, got {names[0]}={low_value}, {names[1]}={high_value}")
    return low_value, high_value


def _check_range(stretch: _Stretch) -> None:
    """Every theta_i must be a normal float: between about 2.2e-308 and 1.8e308.

    Worked in logarithms, before anything is computed: ln theta_i runs from
    0 (pair 0) to -(d-2)/d * ln base' (the last pair), minus ln factor for a
    pair a method divides."""
    d, factor = stretch.d, stretch.factor
    log_base = math.log(stretch.base)
    if stretch.method == "ntk":
        log_base += d / (d - 2) * math.log(factor)
    if stretch.method == "dynamic":
        n = max(stretch.seq_len, stretch.L)
        log_base += d / (d - 2) * math.log(factor * n / stretch.L - (factor - 1))
    last = -(d - 2) / d * log_base  # ln theta of the last pair
    divided = math.log(factor) if stretch.method in ("linear", "yarn", "llama3") else 0.0
    smallest, largest = min(0.0, last) - divided, max(0.0, last)
    if smallest < math.log(sys.float_info.min) or largest > math.log(sys.float_info.max):
        raise ValueError(f"with base={stretch.base:g}, factor={factor:g} and d={d} "
                         f"(method={stretch.method!r}), theta_i would run from "
                         f"{_power_of_ten(largest)} down to {_power_of_ten(smallest)}: past "
                         f"what a float holds (about 2.2e-308 to 1.8e308). RoPE uses bases "
                         f"near 10000 and factors up to a few dozen")


def _power_of_ten(log_value: float) -> str:
    """e**log_value written as a power of ten: 1e-310, or 0 and inf past every float."""
    if math.isinf(log_value):
        return "inf" if log_value > 0 else "0"
    return f"1e{log_value / math.log(10):.0f}"
