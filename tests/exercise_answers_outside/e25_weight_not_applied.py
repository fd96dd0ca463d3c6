"""Exercise 25, wrong: uses d_out itself for g, never multiplying by the weight."""

from __future__ import annotations

import math

DONE = False


def layer_norm_backward(x: list[list[float]], weight: list[float], d_out: list[list[float]],
                        eps: float) -> list[list[float]]:
    d_x = []
    for row, g in zip(x, d_out):
        d = len(row)
        mu = sum(row) / d
        r = 1 / math.sqrt(sum((v - mu) ** 2 for v in row) / d + eps)
        x_hat = [(v - mu) * r for v in row]
        mean_g = sum(g) / d
        mean_gx = sum(gj * hj for gj, hj in zip(g, x_hat)) / d
        d_x.append([r * (gj - mean_g - hj * mean_gx) for gj, hj in zip(g, x_hat)])
    return d_x
