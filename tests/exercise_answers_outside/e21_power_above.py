"""Exercise 21, wrong: takes the power of two above n and cuts its slopes to n."""

from __future__ import annotations

DONE = False


def alibi_slopes(num_heads: int) -> list[float]:
    power = 1
    while power < num_heads:
        power *= 2
    return [2 ** (-8 * (h + 1) / power) for h in range(power)][:num_heads]
