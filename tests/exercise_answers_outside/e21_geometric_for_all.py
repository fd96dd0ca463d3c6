"""Exercise 21, wrong: uses 2**(-8(h+1)/n) for every n, also when n is no power of two."""

from __future__ import annotations

DONE = False


def alibi_slopes(num_heads: int) -> list[float]:
    return [2 ** (-8 * (h + 1) / num_heads) for h in range(num_heads)]
