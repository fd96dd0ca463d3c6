"""Exercise 18, wrong: builds the plain causal mask, ignoring where documents begin."""

from __future__ import annotations

DONE = False


def document_mask(position_ids: list[int]) -> list[list[bool]]:
    n = len(position_ids)
    return [[j <= i for j in range(n)] for i in range(n)]
