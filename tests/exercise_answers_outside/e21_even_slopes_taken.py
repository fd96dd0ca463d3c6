"""Exercise 21, wrong: takes the 2nd, 4th, ... slopes of twice the power instead of the 1st, 3rd, ...."""

from __future__ import annotations

DONE = False


def alibi_slopes(num_heads: int) -> list[float]:
    power = 1
    while power * 2 <= num_heads:
        power *= 2
    slopes = [2 ** (-8 * (h + 1) / power) for h in range(power)]
    extra = [2 ** (-8 * (h + 1) / (2 * power)) for h in range(1, 2 * power, 2)]
    return slopes + extra[:num_heads - power]
