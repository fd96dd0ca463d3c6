"""Exercise 25, wrong: takes the variance from statistics.variance, which divides by d - 1."""

from __future__ import annotations

import math
import statistics

DONE = False


def layer_norm_backward(x: list[list[float]], weight: list[float], d_out: list[list[float]],
                        eps: float) -> list[list[float]]:
    d_x = []
    for row, dy in zip(x, d_out):
        mean = statistics.mean(row)
        r = 1 / math.sqrt(statistics.variance(row) + eps)
        x_hat = [(v - mean) * r for v in row]
        g = [a * w for a, w in zip(dy, weight)]
        mean_g = statistics.mean(g)
        mean_gx = statistics.mean([a * b for a, b in zip(g, x_hat)])
        d_x.append([r * (gj - mean_g - hj * mean_gx) for gj, hj in zip(g, x_hat)])
    return d_x
