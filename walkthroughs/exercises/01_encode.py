r"""Exercise 01 - tokenize and encode, with <|unk|> (see minipe/tokenizer.py).

Write encode(text, vocabulary): the token IDs of a text, chapter 1's Tokenizer.encode.

    tokens  = the lower-cased text cut into words and punctuation marks:
              re.findall(r"<\|\w+\|>|\w+|[^\w\s]", text.lower())
    ID      = the token's index in `vocabulary`, or the index of "<|unk|>"
              for a token the vocabulary does not hold

Example, with vocabulary = ["cat", "mat", "on", "sat", "the", "<|unk|>", "<|endoftext|>"]:

    encode("The cat sat on the mat", vocabulary) -> [4, 0, 3, 2, 4, 1]
    encode("The dog sat.", vocabulary)           -> [4, 5, 3, 5]   (dog and "." are unknown)

Check it:   python -m minipe exercises check 1
A nudge:    python -m minipe exercises hint 1
"""

from __future__ import annotations

import re

DONE = False  # `check 1` sets this word to True once encode() is right


def encode(text: str, vocabulary: list[str]) -> list[int]:
    raise NotImplementedError("exercise 1: write encode() here")
