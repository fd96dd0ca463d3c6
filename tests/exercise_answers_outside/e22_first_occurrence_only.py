"""Exercise 22, wrong: replaces only the first occurrence of the pair in each piece."""

from __future__ import annotations

DONE = False


def merge_step(pieces: list[list[int]], new_id: int) -> list[int]:
    counts: dict[tuple[int, int], int] = {}
    for piece in pieces:
        for pair in zip(piece, piece[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    if not counts:
        return [i for piece in pieces for i in piece]
    best = max(counts, key=lambda p: counts[p])
    out: list[int] = []
    for piece in pieces:
        for i in range(len(piece) - 1):
            if (piece[i], piece[i + 1]) == best:
                piece = piece[:i] + [new_id] + piece[i + 2:]
                break
        out += piece
    return out
