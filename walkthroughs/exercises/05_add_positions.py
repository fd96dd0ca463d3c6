"""Exercise 05 - broadcasting a (4, 256) table over (8, 4, 256) (see minipe/positional.py).

Write add_positions(tokens, table): token embeddings of shape (batch, seq, d_model)
plus a position table of shape (seq, d_model), lecture 001's (8, 4, 256) + (4, 256).

    out[b][t][c] = tokens[b][t][c] + table[t][c]

The table has no batch axis: row t is added to token t of *every* sequence b
(NumPy and PyTorch call this broadcasting). Example, batch 2, seq 2, d_model 1:

    add_positions([[[1.0], [2.0]], [[3.0], [4.0]]], [[10.0], [20.0]])
        -> [[[11.0], [22.0]], [[13.0], [24.0]]]

Check it:   python -m minipe exercises check 5
A nudge:    python -m minipe exercises hint 5
"""

from __future__ import annotations

DONE = False  # `check 5` sets this word to True once add_positions() is right


def add_positions(tokens: list[list[list[float]]],
                  table: list[list[float]]) -> list[list[list[float]]]:
    raise NotImplementedError("exercise 5: write add_positions() here")
