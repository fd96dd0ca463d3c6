"""Exercise 14 - one cached generation step (see minipe/rotary.py).

Write cached_step(q, k, v, keys, values): one generation step with a key/value cache.

The cache holds the n earlier tokens' keys, each already turned by RoPE at its own
position 0 .. n-1 (interleaved layout, base 10000), and their values. The new token
is at position n = len(keys); q, k, v are its query, key and value, not yet turned.

    q', k'  = q and k turned by RoPE at position n      (exercise 10)
    K       = keys + [k'],   V = values + [v]
    out     = softmax(q' K^T / sqrt(d)) V               one row: the new token's output

The answer equals the last row of a causal head run on the whole sequence.

    cached_step([1.0, 0.0], [1.0, 0.0], [5.0, 5.0], [], []) -> [5.0, 5.0]  (only itself)

Check it:   python -m minipe exercises check 14
A nudge:    python -m minipe exercises hint 14
"""

from __future__ import annotations

import math

DONE = False  # `check 14` sets this word to True once cached_step() is right


def cached_step(q: list[float], k: list[float], v: list[float], keys: list[list[float]],
                values: list[list[float]]) -> list[float]:
    raise NotImplementedError("exercise 14: write cached_step() here")
