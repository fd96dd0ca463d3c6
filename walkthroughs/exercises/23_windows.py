"""Exercise 23 - sliding windows: inputs and targets (see minipe/subword.py).

Write sliding_windows(ids, max_length, stride): cut a long list of token IDs into a
model's training examples. Window k starts at k * stride; its inputs are max_length IDs
from there, its targets the same IDs shifted one to the right (the token each position
must predict). Windows continue while a full window of targets fits. Return a list of
[inputs, targets].

    sliding_windows([10, 11, 12, 13, 14, 15], 2, 2)
        -> [[[10, 11], [11, 12]], [[12, 13], [13, 14]]]
    sliding_windows([10, 11, 12, 13], 2, 1)
        -> [[[10, 11], [11, 12]], [[11, 12], [12, 13]]]

stride is the step from one window's start to the next (not the overlap, as in Hugging
Face's tokenizers); a stride above max_length leaves tokens that are never an input.

Check it:   python -m minipe exercises check 23
A nudge:    python -m minipe exercises hint 23
"""

from __future__ import annotations

DONE = False  # `check 23` sets this word to True once sliding_windows() is right


def sliding_windows(ids: list[int], max_length: int, stride: int) -> list[list[list[int]]]:
    raise NotImplementedError("exercise 23: write sliding_windows() here")
