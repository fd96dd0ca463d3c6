"""Exercise 19 - evicting a RoPE cache: sinks and a window (see minipe/training/generation.py).

Write evict(keys, values, sinks, window): one head's key/value cache, cut to the first
`sinks` tokens (sinks >= 0) and the last `window` (window >= 1), as StreamingLLM does.
keys[j] was stored turned by RoPE at its position j (interleaved, base 10000, as in
exercise 10); values were never turned.

    evicted  = len(keys) - sinks - window            tokens dropped (<= 0: keep them all)
    K        = keys[:sinks] + (keys[-window:], each turned back by evicted)
    V        = values[:sinks] + values[-window:]      as they are

A kept key moves from position p to p - evicted: turned back by evicted * theta_i, it
stands where the next query looks for it. Return [K, V].

    evict([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], [[1.0], [2.0], [3.0]], 1, 1)
        -> [[[1.0, 0.0], [0.54030, -0.84147]], [[1.0], [3.0]]]

Check it:   python -m minipe exercises check 19
A nudge:    python -m minipe exercises hint 19
"""

from __future__ import annotations

import math

DONE = False  # `check 19` sets this word to True once evict() is right


def evict(keys: list[list[float]], values: list[list[float]], sinks: int,
          window: int) -> list[list[list[float]]]:
    raise NotImplementedError("exercise 19: write evict() here")
