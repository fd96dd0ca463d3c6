"""Exercise 17 - packing documents into one sequence (see minipe/batches.py).

Write pack_documents(documents): documents of token IDs, end to end in one sequence,
as Hugging Face's DataCollatorWithFlattening packs them. Return three lists of n ints:

    ids           the documents' IDs, one after another
    position_ids  0, 1, 2, ... within each document: they restart at 0 where one begins
    labels        the IDs, but -100 at each document's first token (nothing before it in
                  its own document predicts it; a loss skips -100)

    pack_documents([[5, 1, 4], [7, 8]])
        -> [[5, 1, 4, 7, 8], [0, 1, 2, 0, 1], [-100, 1, 4, -100, 8]]

Check it:   python -m minipe exercises check 17
A nudge:    python -m minipe exercises hint 17
"""

from __future__ import annotations

DONE = False  # `check 17` sets this word to True once pack_documents() is right


def pack_documents(documents: list[list[int]]) -> list[list[int]]:
    raise NotImplementedError("exercise 17: write pack_documents() here")
