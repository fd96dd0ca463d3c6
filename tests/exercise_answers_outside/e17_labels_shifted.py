"""Exercise 17, wrong: shifts the labels to the next token (-100 at each document's last), as a causal LM's loss does itself."""

from __future__ import annotations

DONE = False


def pack_documents(documents: list[list[int]]) -> list[list[int]]:
    ids: list[int] = []
    pos: list[int] = []
    labels: list[int] = []
    for doc in documents:
        ids += doc
        pos += list(range(len(doc)))
        labels += doc[1:] + [-100]
    return [ids, pos, labels]
