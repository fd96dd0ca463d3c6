"""Chapter 7, part 2 - the pairs read one by one: wavelengths, turns inside L, and far apart.

Part 1 (minipe/context.py) changes RoPE's theta_i so that a long text stays
near what training showed. This part looks at what that means for each pair,
and at what happens to a score as the distance grows:

- `frequency_table`: for each pair i, theta_i, its wavelength 2 pi / theta_i
  (positions per full turn), the turns L / wavelength it makes inside the
  original context L, and its ratio to the default theta_i (1 kept, 1 / factor
  divided). A pair that turns less than once inside L reaches, past L, angles
  training never showed: the pairs each method divides.
- RoFormer's long-term decay (its section 3.4.3): an upper bound on |q . k|
  that shrinks, on the whole, with the distance r (`decay_bound`). It is an
  upper bound, not the score itself, and later work (Barbero et al. 2024)
  argues the decay is not why RoPE works.

Two more ideas about long texts need no code of their own: a causal head with
no positions at all (NoPE) can still tell where it is, and a key with a high
score soaks up the weight (an attention sink). Lesson 14 computes both with
chapter 4's functions (walkthroughs/14_past_the_context_window.py).

Both functions take their theta_i from part 1's `rope_frequencies`, whose door
checks d, base and the method's arguments; each checks here only what is its own.
"""

from __future__ import annotations

import cmath
import math
from dataclasses import dataclass
from typing import Sequence

from minipe.arrays import Vector
from minipe.checks import check_angle, checked_position, checked_positions
from minipe.context import USES, rope_frequencies


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
    factor: float = 1.0, seq_len: int | None = None, beta_fast: float | None = None,
    beta_slow: float | None = None, low_freq_factor: float | None = None,
    high_freq_factor: float | None = None, ramp: str | None = None,
) -> list[PairFrequency]:
    """rope_frequencies pair by pair: theta_i, wavelength, turns inside L, ratio to default.

    >>> row = frequency_table(4, original_context_length=100)[1]
    >>> row.i, row.theta, round(row.wavelength, 2), round(row.turns, 4), row.ratio
    (1, 0.01, 628.32, 0.1592, 1.0)

    Pair 1 turns 0.16 times in 100 positions: at position 300 it would reach
    an angle the first 100 never showed. The table needs L for every method
    (to count the turns); the methods that read it are given it too.
    """
    L = _checked_length(original_context_length)
    reads_L = "original_context_length" in USES.get(method, ())  # else: only for the table
    thetas, _ = rope_frequencies(
        d, base=base, method=method, factor=factor,
        original_context_length=L if reads_L else None, seq_len=seq_len,
        beta_fast=beta_fast, beta_slow=beta_slow, low_freq_factor=low_freq_factor,
        high_freq_factor=high_freq_factor, ramp=ramp)
    defaults, _ = rope_frequencies(d, base=base)  # chapter 5's theta_i = base**(-2i/d)
    rows = []
    for i, (theta, default) in enumerate(zip(thetas, defaults)):
        wavelength = 2 * math.pi / theta
        rows.append(PairFrequency(i, theta, wavelength, turns=L / wavelength,
                                  ratio=theta / default))
    return rows


def decay_bound(distances: Sequence[int], d: int, *, base: float = 10000.0) -> Vector:
    """RoFormer's relative upper bound on |q . k| at each distance r (its section 3.4.3).

    Summing the pairs' terms by parts bounds the score by max|h_{j+1} - h_j|
    times sum_j |S_j|; with the first factor set aside, what depends on r is

        S_j      = sum over k = 0 .. j-1 of exp(i r theta_k)   (a partial sum of unit turns)
        bound(r) = (1 / (d/2)) * sum over j = 1 .. d/2 of |S_j|

    At r = 0 every turn is 1, |S_j| = j, and the bound is (d/2 + 1) / 2:

    >>> decay_bound([0], 4)
    Vector([1.5], shape=(1,))

    It shrinks, with ripples, as r grows: an upper bound, not the score.
    """
    _check_distances(distances, d, base)
    thetas, _ = rope_frequencies(d, base=base)  # chapter 5: theta_k = base**(-2k/d)
    bounds = []
    for r in distances:
        S_j = 0j
        total = 0.0
        for theta_k in thetas:  # j = 1 .. d/2: S_j adds the term k = j - 1
            S_j += cmath.exp(1j * r * theta_k)
            total += abs(S_j)
        bounds.append(total / (d // 2))  # (1 / (d/2)) * sum_j |S_j|
    return Vector(bounds)


# The door, after the ideas it guards (rope_frequencies' door checks d, base and the method's
# arguments): what is this part's own, each once.
def _checked_length(L: object) -> int:
    """The original context L: the table counts each pair's turns inside it."""
    if L is None:
        raise ValueError("frequency_table counts each pair's turns inside the original "
                         "context, so it needs original_context_length (L)")
    return checked_position(L, "original_context_length", 1)


def _check_distances(distances: Sequence[int], d: int, base: float) -> None:
    """Distances r, ints 0 .. 2**53, with every r * theta_k a float (rope_frequencies gives
    theta_k and checks d and base; the largest theta_k is theta_0 = 1 unless base < 1)."""
    listed = checked_positions(distances, "distances", "distances r = n - m (ints)",
                               each="each distance r")
    check_angle(max(listed), max(rope_frequencies(d, base=base)[0]), angle="r * theta_k")
