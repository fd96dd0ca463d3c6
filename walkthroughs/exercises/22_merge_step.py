"""Exercise 22 - one step of training a BPE: merge a pair (see minipe/subword.py).

Write merge_step(pieces, new_id). `pieces` are a text's pre-tokenizer pieces, in order,
each a list of token IDs (at first its bytes). One step of training:

    1. count every neighbouring pair of IDs inside each piece (never across two pieces:
       the last ID of one piece and the first of the next are no pair);
    2. take the most frequent pair; of pairs counted equally often, the one seen first;
    3. in every piece, replace each occurrence of that pair, left to right, by new_id.

Return the pieces' IDs end to end after the merge (with no pair at all, as they are).

    merge_step([[1, 2], [3, 1, 2]], 256) -> [256, 3, 256]
    merge_step([[1, 2], [3], [2, 3]], 9) -> [9, 3, 2, 3]

Check it:   python -m minipe exercises check 22
A nudge:    python -m minipe exercises hint 22
"""

from __future__ import annotations

DONE = False  # `check 22` sets this word to True once merge_step() is right


def merge_step(pieces: list[list[int]], new_id: int) -> list[int]:
    raise NotImplementedError("exercise 22: write merge_step() here")
