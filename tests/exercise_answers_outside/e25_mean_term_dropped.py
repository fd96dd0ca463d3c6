"""Exercise 25, wrong: drops -mean(g), the term that comes from the mean moving with x_j."""

from __future__ import annotations

import math

DONE = False


def layer_norm_backward(x: list[list[float]], weight: list[float], d_out: list[list[float]],
                        eps: float) -> list[list[float]]:
    d_x = []
    for row, dy in zip(x, d_out):
        d = len(row)
        mu = sum(row) / d
        var = sum((v - mu) ** 2 for v in row) / d
        r = 1 / math.sqrt(var + eps)
        x_hat = [(v - mu) * r for v in row]
        g = [a * w for a, w in zip(dy, weight)]
        k = sum(gj * hj for gj, hj in zip(g, x_hat)) / d
        d_x.append([r * (gj - hj * k) for gj, hj in zip(g, x_hat)])
    return d_x
