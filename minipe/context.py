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
from types import MappingProxyType

from minipe.arrays import Vector
from minipe.checks import (
    check_choice,
    checked_at_least,
    checked_base,
    checked_number,
    checked_position,
    checked_rotary_width,
)
from minipe.rotary import rotary_thetas

METHODS = ("default", "linear", "ntk", "dynamic", "yarn", "llama3")
RAMPS = ("rounded", "paper")  # YaRN's ramp: Hugging Face's (linear in i), the paper's (in r)
USES = MappingProxyType({  # the arguments each method reads, besides d and base (read-only)
    "default": (),
    "linear": ("factor",),
    "ntk": ("factor",),
    "dynamic": ("factor", "original_context_length", "seq_len"),
    "yarn": ("factor", "original_context_length", "beta_fast", "beta_slow", "ramp"),
    "llama3": ("factor", "original_context_length", "low_freq_factor", "high_freq_factor"),
})
THRESHOLDS = MappingProxyType({  # turns inside L: a pair turning fewer is divided, more is
    "yarn": MappingProxyType({"beta_slow": 1.0, "beta_fast": 32.0}),  # kept; their defaults
    "llama3": MappingProxyType({"low_freq_factor": 1.0, "high_freq_factor": 4.0}),
})


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

    The module docstring gives each method's formula; the lines below and the
    functions they call compute them line for line. An argument left at None
    takes the method's default (YaRN: beta_fast 32, beta_slow 1, ramp "rounded";
    Llama 3.1: low_freq_factor 1, high_freq_factor 4); one the method does not
    read is refused rather than ignored.
    """
    stretch = _checked(d, base, method, factor, original_context_length=original_context_length,
                       seq_len=seq_len, beta_fast=beta_fast, beta_slow=beta_slow, ramp=ramp,
                       low_freq_factor=low_freq_factor, high_freq_factor=high_freq_factor)
    thetas = list(rotary_thetas(d, _stretched_base(stretch)))  # chapter 5: base**(-2i/d)
    if method == "linear":
        thetas = [theta / factor for theta in thetas]  # pos * (theta_i / s) = (pos / s) * theta_i
    if method == "yarn":
        yarn = _yarn_paper if stretch.ramp == "paper" else _yarn_rounded
        return (Vector(yarn(thetas, stretch)),
                0.1 * math.log(factor) + 1)  # YaRN's scale of q and k: sqrt(1/t) in the paper
    if method == "llama3":
        thetas = _llama3(thetas, stretch.factor, stretch.L, stretch.slow, stretch.fast)
    return Vector(thetas), 1.0


@dataclass(frozen=True)
class _Stretch:
    """rope_frequencies' arguments after the door: every one checked, defaults filled in."""

    d: int
    base: float
    method: str
    factor: float
    L: int  # original_context_length (0 for methods that do not read it)
    seq_len: int  # (0 unless dynamic)
    slow: float  # beta_slow (YaRN), low_freq_factor (Llama 3.1): turning fewer times, divided
    fast: float  # beta_fast, high_freq_factor: turning more times inside L, kept (others: 0)
    ramp: str


def _stretched_base(stretch: _Stretch) -> float:
    """The base NTK and dynamic NTK raise; the others keep it."""
    d, base, factor = stretch.d, stretch.base, stretch.factor
    if stretch.method == "ntk":
        base = base * factor ** (d / (d - 2))  # base' = base * factor**(d / (d - 2))
    if stretch.method == "dynamic":
        n = max(stretch.seq_len, stretch.L)
        base = base * (factor * n / stretch.L - (factor - 1)) ** (d / (d - 2))
    return base


def _pair_turning(turns: float, d: int, base: float, L: int) -> float:
    """The pair index i (as a real number) whose pair turns `turns` times inside L:
    L * theta_i / (2 pi) = turns, with theta_i = base**(-2i/d), solved for i."""
    return d * math.log(L / (turns * 2 * math.pi)) / (2 * math.log(base))


def _yarn_rounded(thetas: list[float], stretch: _Stretch) -> list[float]:
    """Hugging Face's ramp: linear in the pair index i, between whole pairs."""
    d, base, L = stretch.d, stretch.base, stretch.L
    beta_fast, beta_slow = stretch.fast, stretch.slow
    low = max(math.floor(_pair_turning(beta_fast, d, base, L)), 0)  # up to low: kept
    high: float = min(math.ceil(_pair_turning(beta_slow, d, base, L)), d - 1)  # from high: / s
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
    alpha, beta = stretch.slow, stretch.fast  # beta_slow, beta_fast: the paper's alpha, beta
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


def _power_of_ten(log_value: float) -> str:
    """e**log_value written as a power of ten: 1e-310, or 0 and inf past every float."""
    if math.isinf(log_value):
        return "inf" if log_value > 0 else "0"
    return f"1e{log_value / math.log(10):.0f}"


# ---------------------------------------------------------------------------
# The door, after the ideas it guards: each argument once, with a sentence that teaches
# ---------------------------------------------------------------------------


def _checked(d: int, base: float, method: str, factor: float, **given: object) -> _Stretch:
    """rope_frequencies' arguments, each checked once; what a None stands for filled in."""
    d = checked_rotary_width(d)  # even, and its d/2 angles fit in memory
    base = checked_base(base)
    check_choice(method, METHODS, f"method must be one of {', '.join(map(repr, METHODS))} (the "
                                  f"chapter's docstring explains each)")
    uses = USES[method]
    if factor != 1.0 and method == "default":
        raise ValueError(f"method='default' is plain RoPE and has no factor (got factor="
                         f"{factor}); to stretch the context pick 'linear', 'ntk', 'dynamic', "
                         f"'yarn' or 'llama3'")
    if unused := [name for name, value in given.items() if value is not None and name not in uses]:
        raise ValueError(f"method={method!r} does not read {', '.join(unused)}: it reads "
                         f"{', '.join(uses) or 'nothing but d and base'}. Leave the others out "
                         f"(they would be ignored)")
    if "original_context_length" in uses and given["original_context_length"] is None:
        raise ValueError(f"method={method!r} needs original_context_length, the length L "
                         f"the model was trained on: it decides from L which pairs change")
    if method == "dynamic" and given["seq_len"] is None:
        raise ValueError("method='dynamic' needs seq_len, the length of the text being read "
                         "now: its base grows once seq_len passes original_context_length")
    factor = checked_at_least(factor, "factor", 1, "it is how many times longer than the "
                                                   "original context the text may be")
    if method in ("ntk", "dynamic", "yarn") and base <= 1:
        raise ValueError(f"method={method!r} keeps the fast pairs (small i) and stretches the "
                         f"slow ones (large i), which needs theta_i = base**(-2i/d) to fall "
                         f"as i grows: base > 1 (RoPE's 10000 or 500000), got base={base}")
    if method in ("ntk", "dynamic") and d < 4:
        raise ValueError(f"method={method!r} raises base to the power d / (d - 2), so it "
                         f"needs d >= 4, got d={d}")
    slow = fast = 0.0  # the thresholds of YaRN and Llama 3.1, in turns inside L
    if method in THRESHOLDS:
        (slow_name, slow), (fast_name, fast) = THRESHOLDS[method].items()  # and defaults
        slow = slow if given[slow_name] is None else checked_number(given[slow_name], slow_name)
        fast = fast if given[fast_name] is None else checked_number(given[fast_name], fast_name)
        if not 0 < slow < fast < math.inf:
            raise ValueError(f"method={method!r} divides the pairs that turn fewer than {slow_name}"
                             f" times inside L and keeps those that turn more than {fast_name} "
                             f"times, so it needs finite numbers with 0 < {slow_name} < "
                             f"{fast_name}, got {slow_name}={slow}, {fast_name}={fast}")
    ramp = "rounded" if given["ramp"] is None else given["ramp"]
    check_choice(ramp, RAMPS, "ramp must be 'rounded' (Hugging Face's: linear in the pair index i "
                              "between whole pairs) or 'paper' (YaRN's gamma(r): linear in the "
                              "turns r = L / wavelength)")
    L, seq_len = (0 if given[name] is None else checked_position(given[name], name, 1)
                  for name in ("original_context_length", "seq_len"))  # 0: not read
    stretch = _Stretch(d, base, method, factor, L, seq_len, slow, fast, str(ramp))
    # Every theta_i must be a normal float, about 2.2e-308 to 1.8e308. In logarithms, before
    # any is computed: ln theta_i runs from 0 (pair 0) to -(d-2)/d * ln base' (the last pair),
    # minus ln factor for a pair a method divides.
    try:
        log_base = math.log(_stretched_base(stretch))  # log(inf) = inf
    except OverflowError:  # factor**(d / (d - 2)) past the largest float
        log_base = math.inf
    last = -(d - 2) / d * log_base  # ln theta of the last pair
    divided = math.log(factor) if method in ("linear", "yarn", "llama3") else 0.0
    smallest, largest = min(0.0, last) - divided, max(0.0, last)
    if smallest < math.log(sys.float_info.min) or largest > math.log(sys.float_info.max):
        raise ValueError(f"with base={base:g}, factor={factor:g} and d={d} (method={method!r}), "
                         f"theta_i would run from {_power_of_ten(largest)} down to "
                         f"{_power_of_ten(smallest)}: past what a float holds (about 2.2e-308 "
                         f"to 1.8e308). RoPE uses bases near 10000 and factors up to a few dozen")
    return stretch
