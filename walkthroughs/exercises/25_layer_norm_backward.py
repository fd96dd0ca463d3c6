"""Exercise 25 - the layer norm's backward (see minipe/training/block.py).

Write layer_norm_backward(x, weight, d_out, eps): dloss/dx of the layer norm, given
the rows it normalised and dloss/dy. Each row x (d numbers) went forward as

    mean = sum(x) / d,   var = sum((x_j - mean)**2) / d        (divided by d, not d - 1)
    r = 1 / sqrt(var + eps),   x_hat = (x - mean) r,   y = x_hat w + b

and comes back, row by row, with g = dy w (dloss/dx_hat, number by number):

    dx = r (g - mean(g) - x_hat mean(g x_hat))

Moving x_j moves the row's mean (hence -mean(g)) and its spread (hence the x_hat
term). x and d_out have shape (n, d), weight has d numbers; return dx, (n, d). (The
weight's and the bias's gradients are sums over the rows: of dy x_hat, and of dy.)

    layer_norm_backward([[0.0, 1.0, 2.0]], [1.0, 1.0, 1.0], [[1.0, 0.0, 0.0]], 0.0)
        -> [[0.20412, -0.40825, 0.20412]]    (rounded here)

Check it:   python -m minipe exercises check 25
A nudge:    python -m minipe exercises hint 25
"""

from __future__ import annotations

import math

DONE = False  # `check 25` sets this word to True once layer_norm_backward() is right


def layer_norm_backward(x: list[list[float]], weight: list[float], d_out: list[list[float]],
                        eps: float) -> list[list[float]]:
    raise NotImplementedError("exercise 25: write layer_norm_backward() here")
