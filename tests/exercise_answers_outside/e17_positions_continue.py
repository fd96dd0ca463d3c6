"""Exercise 17, wrong: numbers the positions 0 .. n-1 across the whole sequence, not restarting per document."""

from __future__ import annotations

DONE = False


def pack_documents(documents: list[list[int]]) -> list[list[int]]:
    ids: list[int] = []
    labels: list[int] = []
    for doc in documents:
        ids += doc
        labels += [-100] + doc[1:]
    return [ids, list(range(len(ids))), labels]
