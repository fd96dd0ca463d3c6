"""Exercise 14, wrong: turns the cached keys again at their positions, though they are stored turned."""

from __future__ import annotations

import math

DONE = False


def turn(row: list[float], pos: int) -> list[float]:
    d = len(row)
    out = list(row)
    for i in range(d // 2):
        a = pos * 10000 ** (-2 * i / d)
        x, y = row[2 * i], row[2 * i + 1]
        out[2 * i] = x * math.cos(a) - y * math.sin(a)
        out[2 * i + 1] = x * math.sin(a) + y * math.cos(a)
    return out


def cached_step(q: list[float], k: list[float], v: list[float], keys: list[list[float]],
                values: list[list[float]]) -> list[float]:
    n = len(keys)
    q2, k2 = turn(q, n), turn(k, n)
    K, V = [turn(key, j) for j, key in enumerate(keys)] + [k2], values + [v]
    scores = [sum(a * b for a, b in zip(q2, key)) / math.sqrt(len(q)) for key in K]
    m = max(scores)
    exps = [math.exp(s - m) for s in scores]
    total = sum(exps)
    return [sum(e / total * val[c] for e, val in zip(exps, V)) for c in range(len(v))]
