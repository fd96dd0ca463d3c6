"""Chapter 7 - past the context window: how a RoPE model reads more than it was trained on.

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
    yarn      pair by pair (Peng et al. 2023, "NTK-by-parts"): pairs turning more
              than beta_fast times inside L are kept, pairs turning fewer than
              beta_slow times are divided by factor, a linear ramp between; and
              q and k are multiplied by 0.1 * ln(factor) + 1 (the scores by its square)
    llama3    by wavelength (Llama 3.1): shorter than L / high_freq_factor kept,
              longer than L / low_freq_factor divided by factor, smoothed between

`rope_frequencies` returns the new theta_i and the attention scale (what q
and k are multiplied by: Hugging Face multiplies RoPE's cos and sin by it);
chapter 5's `apply_rotary(x, frequencies=...)` turns q and k with them.
`frequency_table` lays them out pair by pair, for reading.

Two more ideas about long texts close the chapter:
- RoFormer's long-term decay (its section 3.4.3): an upper bound on
  |q . k| that shrinks, on the whole, with the distance r (`decay_bound`). It
  is an upper bound, not the score itself, and later work (Barbero et al.
  2024) argues the decay is not why RoPE works.
- A causal head with no positions at all (NoPE) can still tell where it is,
  and a key with a high score soaks up the weight (an attention sink); both
  are computed with chapter 4's functions in lesson 14
  (walkthroughs/14_past_the_context_window.py).

A model trained short can be tested long with these frequencies: chapter 9's
`TinyModel.with_frequencies`, in lesson 18 (walkthroughs/18_train_short_test_long.py).

Left out: LongRoPE's searched per-pair factors, partial rotary dims, the YaRN
variants with mscale_all_dim (DeepSeek).
"""

from __future__ import annotations

import cmath
import math
from dataclasses import dataclass
from typing import Sequence

from minipe.arrays import Vector
from minipe.checks import checked_base, checked_number, checked_size

METHODS = ("default", "linear", "ntk", "dynamic", "yarn", "llama3")
NEEDS_L = ("dynamic", "yarn", "llama3")  # methods that read the original context length L


def rope_frequencies(
    d: int, *, base: float = 10000.0, method: str = "default", factor: float = 1.0,
    original_context_length: int | None = None, seq_len: int | None = None,
    beta_fast: float = 32.0, beta_slow: float = 1.0,
    low_freq_factor: float = 1.0, high_freq_factor: float = 4.0,
) -> tuple[Vector, float]:
    """theta_i for the pairs i = 0 .. d/2 - 1, and the attention scale (1.0 but for YaRN).

    >>> rope_frequencies(4)                             # chapter 5: 10000**(-2i/4)
    (Vector([1.0, 0.01], shape=(2,)), 1.0)
    >>> rope_frequencies(4, method="linear", factor=4)  # position interpolation
    (Vector([0.25, 0.0025], shape=(2,)), 1.0)

    The module docstring gives each method's formula; the functions below
    compute them line for line.
    """
    _check(d, base, method, factor, original_context_length, seq_len,
           beta_fast, beta_slow, low_freq_factor, high_freq_factor)
    return _frequencies(d, float(base), method, factor, original_context_length, seq_len,
                        beta_fast, beta_slow, low_freq_factor, high_freq_factor)


def _check(d: int, base: float, method: str, factor: float, L: int | None, seq_len: int | None,
           beta_fast: float, beta_slow: float, low: float, high: float) -> None:
    """The door: each argument once, with a sentence that says what it is for."""
    checked_size(d, "d", minimum=2)
    if d % 2:
        raise ValueError(f"RoPE needs an even width d, got d={d}: it turns the numbers of q "
                         f"and k two at a time, one angle theta_i per pair")
    checked_base(base)
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))} (the chapter's "
                         f"docstring explains each), got {method!r}")
    if not math.isfinite(checked_number(factor, "factor")) or factor < 1:
        raise ValueError(f"factor is how many times longer than the original context the "
                         f"text may be, so it must be a finite number >= 1, got {factor}")
    if method == "default" and factor != 1:
        raise ValueError(f"method='default' is plain RoPE and has no factor (got factor="
                         f"{factor}); to stretch the context pick 'linear', 'ntk', "
                         f"'dynamic', 'yarn' or 'llama3'")
    if L is not None:
        checked_size(L, "original_context_length")
    elif method in NEEDS_L:
        raise ValueError(f"method={method!r} needs original_context_length, the length L "
                         f"the model was trained on: it decides from L which pairs change")
    if seq_len is not None:
        checked_size(seq_len, "seq_len")
    elif method == "dynamic":
        raise ValueError("method='dynamic' needs seq_len, the length of the text being read "
                         "now: its base grows once seq_len passes original_context_length")
    if method in ("ntk", "dynamic") and d < 4:
        raise ValueError(f"method={method!r} raises base to the power d / (d - 2), so it "
                         f"needs d >= 4, got d={d}")
    if method == "yarn" and not 0 < checked_number(beta_slow, "beta_slow") \
            < checked_number(beta_fast, "beta_fast"):
        raise ValueError(f"YaRN keeps pairs that turn more than beta_fast times inside L and "
                         f"divides those that turn fewer than beta_slow times, so it needs "
                         f"0 < beta_slow < beta_fast, got beta_slow={beta_slow}, "
                         f"beta_fast={beta_fast}")
    if method == "llama3" and not 0 < checked_number(low, "low_freq_factor") \
            < checked_number(high, "high_freq_factor"):
        raise ValueError(f"Llama 3.1 keeps wavelengths shorter than L / high_freq_factor and "
                         f"divides those longer than L / low_freq_factor, so it needs "
                         f"0 < low_freq_factor < high_freq_factor, got {low} and {high}")


def _frequencies(d: int, base: float, method: str, factor: float, L: int | None,
                 seq_len: int | None, beta_fast: float, beta_slow: float, low: float,
                 high: float) -> tuple[Vector, float]:
    """What rope_frequencies returns, for arguments its door has checked."""
    if method == "ntk":
        base = base * factor ** (d / (d - 2))  # base' = base * factor**(d / (d - 2))
    if method == "dynamic":
        assert L is not None and seq_len is not None  # the door made sure
        n = max(seq_len, L)
        base = base * (factor * n / L - (factor - 1)) ** (d / (d - 2))
    thetas = _default_thetas(d, base)
    if method == "linear":
        thetas = [theta / factor for theta in thetas]  # pos * (theta_i / s) = (pos / s) * theta_i
    if method == "yarn":
        assert L is not None
        return Vector(_yarn(thetas, d, base, factor, L, beta_fast, beta_slow)), \
            0.1 * math.log(factor) + 1  # YaRN's scale of q and k: sqrt(1/t) in the paper
    if method == "llama3":
        assert L is not None
        thetas = _llama3(thetas, factor, L, low, high)
    return Vector(thetas), 1.0


def _default_thetas(d: int, base: float) -> list[float]:
    return [base ** (-2 * i / d) for i in range(d // 2)]  # theta_i = base**(-2i/d)


def _pair_turning(turns: float, d: int, base: float, L: int) -> float:
    """The pair index i (as a real number) whose pair turns `turns` times inside L:
    L * theta_i / (2 pi) = turns, with theta_i = base**(-2i/d), solved for i."""
    return d * math.log(L / (turns * 2 * math.pi)) / (2 * math.log(base))


def _yarn(thetas: list[float], d: int, base: float, factor: float, L: int,
          beta_fast: float, beta_slow: float) -> list[float]:
    low = max(math.floor(_pair_turning(beta_fast, d, base, L)), 0)  # pairs up to low: kept
    high: float = min(math.ceil(_pair_turning(beta_slow, d, base, L)), d - 1)  # from here: / s
    if high == low:
        high += 0.001  # a ramp needs some width (as in Hugging Face's code)
    yarn = []
    for i, theta in enumerate(thetas):
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)  # 0 up to low, 1 from high
        keep = 1 - ramp  # how much of the original theta_i stays
        yarn.append(theta / factor * (1 - keep) + theta * keep)
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


@dataclass(frozen=True)
class PairFrequency:
    """One row of `frequency_table`: what a method does to pair i."""

    i: int  # the pair: dimensions (2i, 2i + 1) in the interleaved layout
    theta: float  # its angle per position, theta_i
    wavelength: float  # 2 pi / theta_i: positions per full turn
    turns: float  # L / wavelength: full turns inside the original context L
    ratio: float  # theta_i / (the default theta_i): 1 kept, 1 / factor divided


def frequency_table(
    d: int, *, original_context_length: int, base: float = 10000.0, method: str = "default",
    factor: float = 1.0, seq_len: int | None = None, beta_fast: float = 32.0,
    beta_slow: float = 1.0, low_freq_factor: float = 1.0, high_freq_factor: float = 4.0,
) -> list[PairFrequency]:
    """rope_frequencies pair by pair: theta_i, wavelength, turns inside L, ratio to default.

    >>> row = frequency_table(4, original_context_length=100)[1]
    >>> row.i, row.theta, round(row.wavelength, 2), round(row.turns, 4), row.ratio
    (1, 0.01, 628.32, 0.1592, 1.0)

    Pair 1 turns 0.16 times in 100 positions: at position 300 it would reach
    an angle the first 100 never showed.
    """
    L = original_context_length  # the table counts the turns inside L
    if L is None:
        raise ValueError("frequency_table counts each pair's turns inside the original "
                         "context, so it needs original_context_length (L)")
    _check(d, base, method, factor, L, seq_len, beta_fast, beta_slow, low_freq_factor,
           high_freq_factor)
    thetas, _ = _frequencies(d, float(base), method, factor, L, seq_len, beta_fast, beta_slow,
                             low_freq_factor, high_freq_factor)
    rows = []
    for i, (theta, default) in enumerate(zip(thetas, _default_thetas(d, float(base)))):
        wavelength = 2 * math.pi / theta
        rows.append(PairFrequency(i, theta, wavelength, turns=L / wavelength,
                                  ratio=theta / default))
    return rows


def decay_bound(distances: Sequence[int], d: int, *, base: float = 10000.0) -> Vector:
    """RoFormer's relative upper bound on |q . k| at each distance r (its section 3.4.3).

    Summing the pairs' terms by parts bounds the score by max|h_{j+1} - h_j|
    times sum_j |S_j|; with the first factor set aside, what depends on r is

        S_j      = sum_{k=0}^{j-1} e^{i r theta_k}      (a partial sum of unit turns)
        bound(r) = (1 / (d/2)) * sum_{j=1}^{d/2} |S_j|

    At r = 0 every turn is 1, |S_j| = j, and the bound is (d/2 + 1) / 2:

    >>> decay_bound([0], 4)
    Vector([1.5], shape=(1,))

    It shrinks, with ripples, as r grows: an upper bound, not the score.
    """
    checked_size(d, "d", minimum=2)
    if d % 2:
        raise ValueError(f"RoPE needs an even width d, got d={d}")
    thetas = _default_thetas(d, checked_base(base))
    if isinstance(distances, (str, bytes)) or not isinstance(distances, Sequence) \
            or not distances:
        raise TypeError("distances must be a non-empty list of distances r = n - m (ints)")
    bounds = []
    for r in distances:
        checked_size(r, "each distance r", minimum=0)
        S_j = 0j
        total = 0.0
        for theta_k in thetas:  # j = 1 .. d/2: S_j adds the term k = j - 1
            S_j += cmath.exp(1j * r * theta_k)
            total += abs(S_j)
        bounds.append(total / (d // 2))  # (1 / (d/2)) * sum_j |S_j|
    return Vector(bounds)
