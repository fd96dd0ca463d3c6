"""Exercise 18, wrong: compares position IDs (position_ids[j] <= position_ids[i]) instead of document starts."""

from __future__ import annotations

DONE = False


def document_mask(position_ids: list[int]) -> list[list[bool]]:
    n = len(position_ids)
    return [[j <= i and position_ids[j] <= position_ids[i] for j in range(n)] for i in range(n)]
