"""Exercise 18, wrong: lets every token see its whole document, later tokens too (forgets j <= i)."""

from __future__ import annotations

DONE = False


def document_mask(position_ids: list[int]) -> list[list[bool]]:
    start = [t - p for t, p in enumerate(position_ids)]
    n = len(position_ids)
    return [[start[j] == start[i] for j in range(n)] for i in range(n)]
