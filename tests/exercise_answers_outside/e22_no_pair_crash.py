"""Exercise 22, wrong: calls max() on the counts without checking there are any."""

from __future__ import annotations

DONE = False


def merge_step(pieces: list[list[int]], new_id: int) -> list[int]:
    counts: dict[tuple[int, int], int] = {}
    for piece in pieces:
        for pair in zip(piece, piece[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    best = max(counts, key=lambda p: counts[p])
    out: list[int] = []
    for piece in pieces:
        i = 0
        while i < len(piece):
            if i + 1 < len(piece) and (piece[i], piece[i + 1]) == best:
                out.append(new_id)
                i += 2
            else:
                out.append(piece[i])
                i += 1
    return out
