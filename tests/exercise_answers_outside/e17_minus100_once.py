"""Exercise 17, wrong: puts -100 only at the very first token of the packed sequence."""

from __future__ import annotations

DONE = False


def pack_documents(documents: list[list[int]]) -> list[list[int]]:
    ids: list[int] = []
    pos: list[int] = []
    for doc in documents:
        ids += doc
        pos += list(range(len(doc)))
    return [ids, pos, [-100] + ids[1:]]
