"""Exercise 02 - an embedding lookup (see minipe/embedding.py).

Write lookup(table, ids): an embedding lookup, chapter 2's Embedding called with IDs.

    out[t] = table[ids[t]]        one row of the table per ID; nothing is multiplied

The table has one row per ID (vocab_size rows of dim numbers). Example:

    lookup([[0.0, 0.0], [1.0, 1.5], [2.0, 2.5]], [2, 0, 2])
        -> [[2.0, 2.5], [0.0, 0.0], [2.0, 2.5]]   (the same ID, the same row)

Check it:   python -m minipe exercises check 2
A nudge:    python -m minipe exercises hint 2
"""

from __future__ import annotations

DONE = False  # `check 2` sets this word to True once lookup() is right


def lookup(table: list[list[float]], ids: list[int]) -> list[list[float]]:
    raise NotImplementedError("exercise 2: write lookup() here")
