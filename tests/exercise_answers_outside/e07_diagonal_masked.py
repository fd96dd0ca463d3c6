"""Exercise 07, wrong: masks j >= i instead of j > i, so a query may not see its own key."""

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
        scores = []
        for j in range(n):
            s = sum(a * b for a, b in zip(q[i], k[j])) / math.sqrt(d_k)
            scores.append(s if j < i else -math.inf)
        weights = softmax(scores)
        out.append([sum(weights[j] * v[j][c] for j in range(n)) for c in range(len(v[0]))])
    return out
