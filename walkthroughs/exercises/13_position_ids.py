"""Exercise 13 - position_ids from a padding mask (chapter 8, minipe/batches.py).

Write position_ids(attention_mask): the position of every token of a padded batch.

attention_mask[b][t] is 1 for a real token, 0 for padding. A left-padded row's
first real token is at position 0, not at its index:

    position_ids = cumsum(mask) - 1        at the real tokens (what padding holds is not
                                           checked: attention never reads it)

    position_ids([[1, 1, 1, 0], [0, 0, 1, 1]]) -> [[0, 1, 2, *], [*, *, 0, 1]]

Check it:   python -m minipe exercises check 13
A nudge:    python -m minipe exercises hint 13
"""

from __future__ import annotations

DONE = False  # `check 13` sets this word to True once position_ids() is right


def position_ids(attention_mask: list[list[int]]) -> list[list[int]]:
    raise NotImplementedError("exercise 13: write position_ids() here")
