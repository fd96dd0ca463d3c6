"""Chapter 10, part 2 - the block's rules: two norms and GELU, forward and backward.

A transformer block wraps attention and an MLP in a norm each. Row by row, one
token of d numbers at a time (w and b hold d numbers, learned):

    layer_norm   y = (x - mean(x)) / sqrt(var(x) + eps) * w + b    var = mean((x - mean(x))**2)
    rms_norm     y = x / sqrt(mean(x**2) + eps) * w                Llama's: no centring, no b
    gelu         y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3)))    GPT-2's, each number

Written x_hat for the normalised row (before w and b) and r = 1 / sqrt(... + eps), their
backward rules, with g = dy * w (what reaches x_hat):

    layer_norm_backward  dx = r (g - mean(g) - x_hat mean(g x_hat))   dw = S(dy x_hat), db = S(dy)
    rms_norm_backward    dx = r (g - x_hat mean(g x_hat))             dw = S(dy x_hat)
    gelu_backward        dx = dy (0.5 (1 + t) + 0.5 x (1 - t**2) sqrt(2/pi) (1 + 3 0.044715 x**2))

where t = tanh(sqrt(2/pi) (x + 0.044715 x**3)) and S sums over the rows (the n tokens).

A norm rescales each token on its own, so it cannot mix tokens or positions: what
it can remove is one row's scale (and, for layer_norm, its mean). eps keeps r
finite when a row is constant: its var is 0, so layer_norm returns b there.

Like minipe/training/gradients.py, a rule knows nothing of the model that calls it;
each is tested alone in tests/test_block.py, against central finite differences
and against PyTorch's F.layer_norm, F.rms_norm and F.gelu(approximate="tanh").

>>> from minipe.arrays import Matrix
>>> y = layer_norm(Matrix([[1.0, 2.0, 3.0]]), [1.0, 1.0, 1.0], [0.0, 0.0, 0.0])
>>> [round(v, 4) for v in y.rows[0]]   # mean 2, var 2/3: (x - 2) / sqrt(2/3)
[-1.2247, 0.0, 1.2247]
"""

from __future__ import annotations

import math
from typing import Sequence, Union

from minipe.arrays import Matrix, Vector, dot
from minipe.arrays import ShapeError
from minipe.checks import check_axis, check_type, checked_number, checked_values

Weights = Union[Matrix, Vector, Sequence[float]]  # d numbers: a (1, d) Matrix, a Vector, a list
GELU_C = math.sqrt(2.0 / math.pi)  # sqrt(2/pi) = 0.7978845608...
GELU_A = 0.044715  # the cubic term's weight, fitted by Hendrycks and Gimpel (2016)


def layer_norm(x: Matrix, weight: Weights, bias: Weights, eps: float = 1e-5) -> Matrix:
    """Each row x of x (n, d):  y = (x - mean(x)) / sqrt(var(x) + eps) * w + b.

    var is the biased variance, mean((x - mean(x))**2), as torch's F.layer_norm.
    w and b: d numbers each, a list, a Vector or a (1, d) Matrix.

    >>> layer_norm(Matrix([[1.0, 2.0, 3.0]]), [2.0, 2.0, 2.0], [1.0, 1.0, 1.0])  # 2 x_hat + 1
    Matrix([[-1.4495, 1.0, 3.4495]], shape=(1, 3))
    """
    w, b = _checked_norm("layer_norm", x, weight, bias, eps)
    d = x.shape[1]
    rows = []
    for row in x.rows:
        mean = sum(row) / d
        centred = [v - mean for v in row]  # x - mean(x)
        var = dot(centred, centred) / d  # mean((x - mean)**2)
        r = 1.0 / math.sqrt(var + eps)
        rows.append([c * r * w_j + b_j for c, w_j, b_j in zip(centred, w, b)])
    return Matrix(rows)  # (n, d)


def rms_norm(x: Matrix, weight: Weights, eps: float = 1e-6) -> Matrix:
    """Each row x of x (n, d):  y = x / sqrt(mean(x**2) + eps) * w  (torch's F.rms_norm).

    >>> rms_norm(Matrix([[3.0, 4.0]]), [1.0, 1.0])  # mean(x**2) = 12.5: [3, 4] / 3.5355
    Matrix([[0.84853, 1.1314]], shape=(1, 2))
    """
    w, _ = _checked_norm("rms_norm", x, weight, None, eps)
    d = x.shape[1]
    rows = []
    for row in x.rows:
        r = 1.0 / math.sqrt(dot(row, row) / d + eps)  # 1 / sqrt(mean(x**2) + eps)
        rows.append([v * r * w_j for v, w_j in zip(row, w)])
    return Matrix(rows)  # (n, d)


def gelu(x: Matrix) -> Matrix:
    """Number by number:  y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3))).

    GPT-2's smooth ReLU: about x for large x, about 0 for very negative x, and
    gelu(0) = 0. torch's F.gelu(approximate="tanh").

    >>> gelu(Matrix([[0.0, 1.0, -1.0]]))
    Matrix([[0.0, 0.84119, -0.15881]], shape=(1, 3))
    """
    _check_gelu(x)
    tanh = math.tanh
    return Matrix([[0.5 * v * (1.0 + tanh(GELU_C * (v + GELU_A * v * v * v))) for v in row]
                   for row in x.rows])


def layer_norm_backward(x: Matrix, weight: Weights, d_out: Matrix,
                        eps: float) -> tuple[Matrix, Matrix, Matrix]:
    """y = x_hat w + b, x_hat = (x - mean(x)) r, r = 1 / sqrt(var(x) + eps)  ->  (dx, dw, db):

        g  = dy w
        dx = r (g - mean(g) - x_hat mean(g x_hat))
        dw = sum over rows of dy x_hat,   db = sum over rows of dy      (each (1, d))

    In the forward pass every number of a row met its mean and its var: moving
    x_j moves the mean (hence the -mean(g)) and the spread (hence the x_hat term).
    """
    w = _checked_backward(x, weight, d_out)
    d = x.shape[1]
    d_rows, weighted = [], []
    for row, dy in zip(x.rows, d_out.rows):
        mean = sum(row) / d
        centred = [v - mean for v in row]
        r = 1.0 / math.sqrt(dot(centred, centred) / d + eps)
        x_hat = [c * r for c in centred]  # the normalised row
        dy_x_hat = [dy_j * x_j for dy_j, x_j in zip(dy, x_hat)]  # summed over rows: dw
        mean_g = dot(dy, w) / d  # mean(g), g = dy w: dloss/dx_hat
        mean_gx = dot(dy_x_hat, w) / d  # mean(g x_hat)
        d_rows.append([r * (dy_j * w_j - mean_g - x_j * mean_gx)  # r (g - mean(g) - ...)
                       for dy_j, w_j, x_j in zip(dy, w, x_hat)])
        weighted.append(dy_x_hat)
    d_weight = Matrix([list(map(sum, zip(*weighted)))])  # (1, d)
    d_bias = Matrix([list(map(sum, zip(*d_out.rows)))])  # (1, d)
    return Matrix(d_rows), d_weight, d_bias


def rms_norm_backward(x: Matrix, weight: Weights, d_out: Matrix,
                      eps: float) -> tuple[Matrix, Matrix]:
    """y = x_hat w, x_hat = x r, r = 1 / sqrt(mean(x**2) + eps)  ->  (dx, dw):

        g  = dy w
        dx = r (g - x_hat mean(g x_hat))
        dw = sum over rows of dy x_hat      ((1, d))

    As layer_norm's, without the mean: nothing was subtracted, so no -mean(g).
    """
    w = _checked_backward(x, weight, d_out)
    d = x.shape[1]
    d_rows, weighted = [], []
    for row, dy in zip(x.rows, d_out.rows):
        r = 1.0 / math.sqrt(dot(row, row) / d + eps)
        x_hat = [v * r for v in row]
        dy_x_hat = [dy_j * x_j for dy_j, x_j in zip(dy, x_hat)]  # summed over rows: dw
        mean_gx = dot(dy_x_hat, w) / d  # mean(g x_hat), g = dy w
        d_rows.append([r * (dy_j * w_j - x_j * mean_gx) for dy_j, w_j, x_j in zip(dy, w, x_hat)])
        weighted.append(dy_x_hat)
    d_weight = Matrix([list(map(sum, zip(*weighted)))])  # (1, d)
    return Matrix(d_rows), d_weight


def gelu_backward(x: Matrix, d_out: Matrix) -> Matrix:
    """y = 0.5 x (1 + t), t = tanh(u), u = sqrt(2/pi) (x + 0.044715 x**3)  ->

        dx = dy (0.5 (1 + t) + 0.5 x (1 - t**2) sqrt(2/pi) (1 + 3 * 0.044715 x**2))

    The product rule: x's own slope times 0.5 (1 + t), plus 0.5 x times t's slope,
    which is (1 - t**2) du/dx.
    """
    _check_gelu_backward(x, d_out)
    tanh = math.tanh
    rows = []
    for row, dy in zip(x.rows, d_out.rows):
        t = [tanh(GELU_C * (v + GELU_A * v * v * v)) for v in row]
        rows.append([dy_j * (0.5 * (1.0 + t_j) + 0.5 * v * (1.0 - t_j * t_j) * GELU_C
                             * (1.0 + 3.0 * GELU_A * v * v))
                     for v, t_j, dy_j in zip(row, t, dy)])
    return Matrix(rows)


def _numbers(value: Weights) -> tuple[float, ...]:
    """The d numbers of a (1, d) Matrix, a Vector or a list: trusted."""
    if isinstance(value, Matrix):
        return value.rows[0]
    if isinstance(value, Vector):
        return value.values
    return tuple(value)


# The door. The forward rules check x, their d weights and eps; the backward rules
# trust a forward pass's arguments and check only that the shapes agree.


def _checked_norm(rule: str, x: object, weight: object, bias: object,
                  eps: object) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(w, b) as tuples of d floats (b empty for rms_norm), once x, both and eps are good."""
    check_type(x, Matrix, f"{rule} takes x as a Matrix of shape (n, d), one token per row")
    d = x.shape[1]  # type: ignore[attr-defined]
    w = _checked_row(weight, "weight", d, rule)
    b = () if bias is None else _checked_row(bias, "bias", d, rule)
    number = checked_number(eps, "eps")
    if not 0.0 < number < math.inf:
        raise ValueError(f"eps must be a finite number > 0, got {number}: it keeps "
                         f"1 / sqrt(var + eps) finite on a constant row, whose var is 0")
    return w, b


def _checked_row(value: object, name: str, d: int, rule: str) -> tuple[float, ...]:
    if isinstance(value, Matrix) and value.shape[0] != 1:
        raise ShapeError(f"{name} is a Matrix of shape {value.shape}: {rule} takes one "
                         f"number per column of x, as a list, a Vector or a (1, {d}) Matrix")
    numbers = _numbers(value) if isinstance(value, (Matrix, Vector)) else checked_values(
        value, name)
    if len(numbers) != d:
        raise ShapeError(f"{name} has {len(numbers)} numbers but x has {d} columns: {rule} "
                         f"scales (and shifts) column j of every row by {name}[j], so it "
                         f"needs {d}")
    return numbers


def _check_gelu(x: object) -> None:
    check_type(x, Matrix, "gelu takes x as a Matrix")


def _checked_backward(x: Matrix, weight: Weights, d_out: Matrix) -> tuple[float, ...]:
    check_axis("d_out", d_out.shape, "x", x.shape,
               "d_out is dloss/dy, number by number, and y has the shape of x")
    w = _numbers(weight)
    if len(w) != x.shape[1]:
        raise ShapeError(f"weight has {len(w)} numbers but x has {x.shape[1]} columns: "
                         f"one per column")
    return w


def _check_gelu_backward(x: Matrix, d_out: Matrix) -> None:
    check_axis("d_out", d_out.shape, "x", x.shape,
               "d_out is dloss/dy, number by number, and y has the shape of x")
