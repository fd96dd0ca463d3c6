"""Exercise 16 - the broadcast's backward (see minipe/training/gradients.py).

Write broadcast_backward(d_X, context_length): the gradient of a position table P that
was added to every sequence of a batch (exercise 5).

In the forward pass x_b[t] = tokens_b[t] + P[t] for every sequence b, so

    dP[t] = sum over b of d_X[b][t]         rows t past the sequences stay 0

d_X has shape (batch, seq, d); the answer (context_length, d).

    broadcast_backward([[[1.0], [2.0]], [[10.0], [20.0]]], 3) -> [[11.0], [22.0], [0.0]]

Check it:   python -m minipe exercises check 16
A nudge:    python -m minipe exercises hint 16
"""

from __future__ import annotations

DONE = False  # `check 16` sets this word to True once broadcast_backward() is right


def broadcast_backward(d_X: list[list[list[float]]], context_length: int) -> list[list[float]]:
    raise NotImplementedError("exercise 16: write broadcast_backward() here")
