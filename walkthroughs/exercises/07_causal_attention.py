"""Exercise 07 - one attention head with the causal mask (see minipe/attention.py).

Write causal_attention(q, k, v): one attention head's output with GPT's causal mask,

    score(i, j) = q_i . k_j / sqrt(d_k)     for j <= i
    score(i, j) = -inf                      for j > i  (query i may not see later keys)
    weights_i   = softmax(score(i, 0), ..., score(i, n - 1))
    out_i       = sum_j weights_i[j] * v_j

q and k have shape (n, d_k), v has (n, d_v); the output (n, d_v). Row 0 sees only
itself, so out_0 = v_0. Example (d_k = 1):

    causal_attention([[1.0], [1.0]], [[0.0], [0.0]], [[2.0], [4.0]]) -> [[2.0], [3.0]]

Check it:   python -m minipe exercises check 7
A nudge:    python -m minipe exercises hint 7
"""

from __future__ import annotations

import math

DONE = False  # `check 7` sets this word to True once causal_attention() is right


def causal_attention(q: list[list[float]], k: list[list[float]],
                     v: list[list[float]]) -> list[list[float]]:
    raise NotImplementedError("exercise 7: write causal_attention() here")
