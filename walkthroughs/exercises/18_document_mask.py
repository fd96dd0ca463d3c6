"""Exercise 18 - the document mask of a packed sequence (see minipe/batches.py).

Write document_mask(position_ids): for a packed sequence (exercise 17), an (n, n) table
of booleans, True where token i may attend token j:

    j <= i           causal: no token sees the ones after it
    and j is in i's document: a document begins where position_ids is 0, so token
                     t's document begins at t - position_ids[t]

    document_mask([0, 1, 0])
        -> [[True, False, False], [True, True, False], [False, False, True]]

Check it:   python -m minipe exercises check 18
A nudge:    python -m minipe exercises hint 18
"""

from __future__ import annotations

DONE = False  # `check 18` sets this word to True once document_mask() is right


def document_mask(position_ids: list[int]) -> list[list[bool]]:
    raise NotImplementedError("exercise 18: write document_mask() here")
