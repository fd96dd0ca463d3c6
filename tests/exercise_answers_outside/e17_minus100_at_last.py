"""Exercise 17, wrong: puts -100 at each document's last token instead of its first."""

from __future__ import annotations

DONE = False


def pack_documents(documents: list[list[int]]) -> list[list[int]]:
    ids: list[int] = []
    pos: list[int] = []
    labels: list[int] = []
    for doc in documents:
        ids += doc
        pos += list(range(len(doc)))
        labels += doc[:-1] + [-100]
    return [ids, pos, labels]
