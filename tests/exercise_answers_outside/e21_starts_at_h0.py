"""Exercise 21, wrong: starts the sequence at 2**0 = 1: m_h = 2**(-8h/n)."""

from __future__ import annotations

DONE = False


def alibi_slopes(num_heads: int) -> list[float]:
    power = 1
    while power * 2 <= num_heads:
        power *= 2
    slopes = [2 ** (-8 * h / power) for h in range(power)]
    extra = [2 ** (-8 * h / (2 * power)) for h in range(0, 2 * power, 2)]
    return slopes + extra[:num_heads - power]
