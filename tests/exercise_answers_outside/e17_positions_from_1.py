"""Exercise 17, wrong: numbers each document's positions from 1."""

from __future__ import annotations

DONE = False


def pack_documents(documents: list[list[int]]) -> list[list[int]]:
    ids: list[int] = []
    pos: list[int] = []
    labels: list[int] = []
    for doc in documents:
        ids += doc
        pos += list(range(1, len(doc) + 1))
        labels += [-100] + doc[1:]
    return [ids, pos, labels]
