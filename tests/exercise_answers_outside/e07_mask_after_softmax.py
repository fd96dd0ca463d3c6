"""Exercise 07, wrong: takes the softmax over every key, then zeroes the later keys' weights (no renormalising)."""

from __future__ import annotations

import math

DONE = False


def softmax(scores: list[float]) -> list[float]:
    m = max(scores)
    exps = [math.exp(x - m) for x in scores]
    total = sum(exps)
    return [e / total for e in exps]


def causal_attention(q: list[list[float]], k: list[list[float]],
                     v: list[list[float]]) -> list[list[float]]:
    n, d_k = len(q), len(q[0])
    out = []
    for i in range(n):
        scores = [sum(a * b for a, b in zip(q[i], k[j])) / math.sqrt(d_k) for j in range(n)]
        weights = softmax(scores)
        weights = [w if j <= i else 0.0 for j, w in enumerate(weights)]
        out.append([sum(weights[j] * v[j][c] for j in range(n)) for c in range(len(v[0]))])
    return out
