"""Chapter 10's block rules (layer_norm, rms_norm, gelu), each alone: by hand, against
central finite differences, and against PyTorch.

By hand: small rows worked on paper. Finite differences, with tests/test_gradients.py's
helpers: for the loss L = sum_ij y_ij R_ij with a fixed random R, dL/dy = R, and each
backward rule must match (L(w + h) - L(w - h)) / 2h for every input number w, where the
forward pass is written here, on plain lists, from the formula in the rule's docstring. PyTorch:
tests/reference/block_reference.json, written by tests/reference/make_block_reference.py
(torch 2.13.0, float64, autograd for a fixed upstream gradient), run by hand.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

import minipe
from minipe import Matrix, ShapeError, Vector
from minipe.training.block import (gelu, gelu_backward, layer_norm, layer_norm_backward,
                                   rms_norm, rms_norm_backward)
from test_gradients import Table, _close, _slopes
from test_gradients import _dot as _loss  # sum_ij out_ij R_ij

REFERENCE: dict[str, Any] = json.loads(
    (Path(__file__).parent / "reference" / "block_reference.json").read_text())
CASES = REFERENCE["cases"]


def _random(rows: int, cols: int, seed: int, scale: float = 1.0) -> Table:
    rng = random.Random(seed)
    return [[rng.gauss(0.0, scale) for _ in range(cols)] for _ in range(rows)]


# The forward passes, written again from the docstrings' formulas, number by number.

def _layer_norm(x: Table, w: list[float], b: list[float], eps: float) -> Table:
    out = []
    for row in x:
        mean = sum(row) / len(row)
        var = sum((v - mean) ** 2 for v in row) / len(row)
        out.append([(v - mean) / math.sqrt(var + eps) * w_j + b_j
                    for v, w_j, b_j in zip(row, w, b)])
    return out


def _rms_norm(x: Table, w: list[float], eps: float) -> Table:
    return [[v / math.sqrt(sum(u ** 2 for u in row) / len(row) + eps) * w_j
             for v, w_j in zip(row, w)] for row in x]


def _gelu(x: Table) -> Table:
    return [[0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))
             for v in row] for row in x]


def _same(got: Matrix, naive: Table) -> None:
    """The rule's forward pass and the naive one above: one formula, summed in another order."""
    assert got.shape == (len(naive), len(naive[0]))
    for got_row, naive_row in zip(got.tolist(), naive):
        assert got_row == pytest.approx(naive_row, rel=1e-13, abs=1e-15)


# By hand.

def test_layer_norm_of_1_2_3_by_hand() -> None:
    # mean 2, var ((-1)**2 + 0 + 1**2) / 3 = 2/3: (x - 2) / sqrt(2/3 + eps)
    y = layer_norm(Matrix([[1.0, 2.0, 3.0]]), [1.0, 1.0, 1.0], [0.0, 0.0, 0.0])
    assert y.tolist()[0] == pytest.approx([-1.2247, 0.0, 1.2247], abs=1e-4)
    exact = 1 / math.sqrt(2 / 3 + 1e-5)  # eps = 1e-5, torch's default, moves the 6th digit
    assert y.tolist()[0] == pytest.approx([-exact, 0.0, exact], rel=1e-15)
    # weight 2, bias 1 (a list, a Vector and a (1, d) Matrix alike): 2 y + 1
    for weight, bias in (([2.0] * 3, [1.0] * 3), (Vector([2.0] * 3), Vector([1.0] * 3)),
                         (Matrix([[2.0] * 3]), Matrix([[1.0] * 3]))):
        scaled = layer_norm(Matrix([[1.0, 2.0, 3.0]]), weight, bias)
        assert scaled.tolist()[0] == pytest.approx([1 - 2 * exact, 1.0, 1 + 2 * exact])


def test_layer_norm_of_a_constant_row_is_its_bias() -> None:
    # var 0, so x - mean = 0 everywhere: y = 0 / sqrt(0 + eps) * w + b = b, finite thanks to eps
    y = layer_norm(Matrix([[5.0, 5.0, 5.0, 5.0], [1.0, -1.0, 1.0, -1.0]]),
                   [3.0, 3.0, 3.0, 3.0], [0.5, -0.5, 0.25, 0.0])
    assert y.tolist()[0] == [0.5, -0.5, 0.25, 0.0]
    # the other row: mean 0, var 1: y = 3 x / sqrt(1 + 1e-5) + b
    assert y.tolist()[1] == pytest.approx([0.5 + 3 / math.sqrt(1 + 1e-5), -0.5 - 3 / math.sqrt(
        1 + 1e-5), 0.25 + 3 / math.sqrt(1 + 1e-5), -3 / math.sqrt(1 + 1e-5)], rel=1e-15)
    # and its gradient: x_hat = 0, so d_weight gets nothing from it; d_bias gets d_out
    d_x, d_weight, d_bias = layer_norm_backward(Matrix([[5.0, 5.0, 5.0]]), [3.0, 3.0, 3.0],
                                                Matrix([[1.0, 2.0, 3.0]]), 1e-5)
    # g = 3 d_out = [3, 6, 9]: dx = r (g - mean(g)) = (g - 6) / sqrt(1e-5)
    assert d_x.tolist()[0] == pytest.approx([-3 / math.sqrt(1e-5), 0.0, 3 / math.sqrt(1e-5)])
    assert d_weight.tolist() == [[0.0, 0.0, 0.0]] and d_bias.tolist() == [[1.0, 2.0, 3.0]]


def test_rms_norm_by_hand() -> None:
    # [3, 4]: mean(x**2) = (9 + 16) / 2 = 12.5; y = x / sqrt(12.5 + eps)
    y = rms_norm(Matrix([[3.0, 4.0], [0.0, 0.0]]), [1.0, 2.0], eps=1e-6)
    root = math.sqrt(12.5 + 1e-6)
    assert y.tolist()[0] == pytest.approx([3 / root, 2 * 4 / root], rel=1e-15)
    assert y.tolist()[1] == [0.0, 0.0]  # a zero row stays zero: eps keeps 0 / 0 away
    # no centring: a constant row [2, 2] becomes [1, 1] (times w), not 0
    assert rms_norm(Matrix([[2.0, 2.0]]), [1.0, 1.0], eps=1e-300).tolist() == [[1.0, 1.0]]


def test_gelu_by_hand() -> None:
    # gelu(0) = 0; gelu(1) = 0.5 (1 + tanh(0.79788 * 1.044715)) = 0.84119 (GPT-2's table)
    y = gelu(Matrix([[0.0, 1.0, -1.0, 30.0, -30.0]])).tolist()[0]
    assert y[0] == 0.0
    assert y[1] == pytest.approx(0.841192, abs=1e-6) and y[2] == pytest.approx(-0.158808,
                                                                                abs=1e-6)
    assert y[1] - y[2] == pytest.approx(1.0)  # gelu(x) - gelu(-x) = x: the tanh is odd
    assert y[3] == 30.0 and y[4] == 0.0  # the tails: x itself, and 0 (tanh is +-1 there)
    # its slope at 0 is 0.5: dx = dy (0.5 (1 + 0) + 0)
    assert gelu_backward(Matrix([[0.0]]), Matrix([[2.0]])).tolist() == [[1.0]]


# Each backward rule alone, against central finite differences.

def test_layer_norm_backward_against_finite_differences() -> None:
    x = _random(4, 6, seed=1)
    x[2] = [0.7] * 6  # a constant row too: its slopes are the same limit, r = 1/sqrt(eps)
    w = _random(1, 6, seed=2)[0]
    b = _random(1, 6, seed=3)[0]
    R = _random(4, 6, seed=4)
    eps = 1e-3
    d_x, d_weight, d_bias = layer_norm_backward(Matrix(x), w, Matrix(R), eps)
    _close(d_x, _slopes(lambda x: _loss(_layer_norm(x, w, b, eps), R), x))
    _close(d_weight, _slopes(lambda w: _loss(_layer_norm(x, w[0], b, eps), R), [w]))
    _close(d_bias, _slopes(lambda b: _loss(_layer_norm(x, w, b[0], eps), R), [b]))
    _same(layer_norm(Matrix(x), w, b, eps), _layer_norm(x, w, b, eps))


def test_rms_norm_backward_against_finite_differences() -> None:
    x = _random(4, 6, seed=5)
    w = _random(1, 6, seed=6)[0]
    R = _random(4, 6, seed=7)
    eps = 1e-6
    d_x, d_weight = rms_norm_backward(Matrix(x), Matrix([w]), Matrix(R), eps)
    _close(d_x, _slopes(lambda x: _loss(_rms_norm(x, w, eps), R), x))
    _close(d_weight, _slopes(lambda w: _loss(_rms_norm(x, w[0], eps), R), [w]))
    _same(rms_norm(Matrix(x), w, eps), _rms_norm(x, w, eps))


def test_gelu_backward_against_finite_differences() -> None:
    x = _random(3, 7, seed=8, scale=2.0)
    x[0][:3] = [0.0, -5.0, 6.0]  # the middle and both sides of the bend
    R = _random(3, 7, seed=9)
    d_x = gelu_backward(Matrix(x), Matrix(R))
    _close(d_x, _slopes(lambda x: _loss(_gelu(x), R), x))
    _same(gelu(Matrix(x)), _gelu(x))


# Against PyTorch.

def _agree(got: list[list[float]], want: list[list[float]]) -> None:
    """1e-12 relative; near 0 (a gradient that is 0 in exact arithmetic, as d = 1's, comes
    out of torch as rounding noise, 1e-14) 1e-12 absolute."""
    assert len(got) == len(want)
    for got_row, want_row in zip(got, want):
        assert len(got_row) == len(want_row)
        for g, w in zip(got_row, want_row):
            assert math.isclose(g, w, rel_tol=1e-12, abs_tol=1e-12), (g, w)


def test_the_reference_says_where_it_came_from() -> None:
    assert "torch 2.13.0" in REFERENCE["made_by"] and len(CASES) == 10
    assert {case["rule"] for case in CASES} == {"layer_norm", "rms_norm", "gelu"}


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_each_rule_and_its_gradients_match_pytorch(case: dict[str, Any]) -> None:
    x, d_out = Matrix(case["x"]), Matrix(case["d_out"])
    if case["rule"] == "layer_norm":
        _agree(layer_norm(x, case["weight"], case["bias"], case["eps"]).tolist(), case["out"])
        d_x, d_weight, d_bias = layer_norm_backward(x, case["weight"], d_out, case["eps"])
        _agree(d_weight.tolist(), [case["d_weight"]])
        _agree(d_bias.tolist(), [case["d_bias"]])
    elif case["rule"] == "rms_norm":
        _agree(rms_norm(x, case["weight"], case["eps"]).tolist(), case["out"])
        d_x, d_weight = rms_norm_backward(x, case["weight"], d_out, case["eps"])
        _agree(d_weight.tolist(), [case["d_weight"]])
    else:
        _agree(gelu(x).tolist(), case["out"])
        d_x = gelu_backward(x, d_out)
    _agree(d_x.tolist(), case["d_x"])


# The door.

def test_the_rules_are_public_names() -> None:
    assert (minipe.layer_norm, minipe.rms_norm, minipe.gelu) == (layer_norm, rms_norm, gelu)
    assert {"layer_norm", "rms_norm", "gelu"} <= set(minipe.__all__)
    assert {"layer_norm", "rms_norm", "gelu"} <= set(minipe.training.__all__)


def test_the_door_refuses_with_a_sentence() -> None:
    x = Matrix([[1.0, 2.0, 3.0]])
    with pytest.raises(TypeError, match="layer_norm takes x as a Matrix of shape"):
        layer_norm([[1.0, 2.0, 3.0]], [1.0] * 3, [0.0] * 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="gelu takes x as a Matrix"):
        gelu([[1.0]])  # type: ignore[arg-type]
    with pytest.raises(ShapeError, match="weight has 2 numbers but x has 3 columns"):
        layer_norm(x, [1.0, 1.0], [0.0] * 3)
    with pytest.raises(ShapeError, match="bias has 4 numbers but x has 3 columns"):
        layer_norm(x, [1.0] * 3, Vector([0.0] * 4))
    with pytest.raises(ShapeError, match=r"weight is a Matrix of shape \(3, 1\)"):
        rms_norm(x, Matrix([[1.0], [1.0], [1.0]]))
    with pytest.raises(TypeError, match=r"weight\[1\] must be a number, got 'a'"):
        rms_norm(x, [1.0, "a", 1.0])  # type: ignore[list-item]
    for eps in (0.0, -1e-5, math.inf):
        with pytest.raises(ValueError, match="eps must be a finite number > 0"):
            layer_norm(x, [1.0] * 3, [0.0] * 3, eps=eps)
    with pytest.raises(ValueError, match="eps is NaN"):
        rms_norm(x, [1.0] * 3, eps=math.nan)
    with pytest.raises(ShapeError, match=r"d_out has shape \(1, 2\) and x has shape \(1, 3\)"):
        gelu_backward(x, Matrix([[1.0, 1.0]]))
    with pytest.raises(ShapeError, match="weight has 2 numbers but x has 3 columns"):
        rms_norm_backward(x, [1.0, 1.0], x, 1e-6)
