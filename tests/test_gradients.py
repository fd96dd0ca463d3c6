"""Chapter 10's backward rules, each alone, against central finite differences.

Every rule turns dloss/dout into dloss/dinput. To test one alone, take the loss
L = sum_ij out_ij R_ij for a fixed random table R: then dL/dout = R, and the rule's
answer must match (L(w + h) - L(w - h)) / 2h for every input number w, where the
forward pass is written here, on plain lists, from the formula in the rule's docstring.
"""

from __future__ import annotations

import math
import random
from typing import Callable

import pytest

from minipe import Matrix, ShapeError
from minipe.training.gradients import (IGNORE, broadcast_backward, cross_entropy, lookup_backward,
                              matmul_backward, rotary_backward, softmax_backward)

Table = list[list[float]]
H = 1e-6


def _random(rows: int, cols: int, seed: int) -> Table:
    rng = random.Random(seed)
    return [[rng.uniform(-1, 1) for _ in range(cols)] for _ in range(rows)]


def _dot(out: Table, R: Table) -> float:
    return sum(o * r for out_row, R_row in zip(out, R) for o, r in zip(out_row, R_row))


def _slopes(forward: Callable[[Table], float], x: Table) -> Table:
    """(f(x + h e_ij) - f(x - h e_ij)) / 2h for every number of x."""
    slopes = []
    for i, row in enumerate(x):
        slope_row = []
        for j in range(len(row)):
            up = [list(r) for r in x]
            down = [list(r) for r in x]
            up[i][j] += H
            down[i][j] -= H
            slope_row.append((forward(up) - forward(down)) / (2 * H))
        slopes.append(slope_row)
    return slopes


def _close(got: Matrix, slopes: Table) -> None:
    assert got.shape == (len(slopes), len(slopes[0]))
    for got_row, slope_row in zip(got.tolist(), slopes):
        for g, s in zip(got_row, slope_row):
            assert math.isclose(g, s, abs_tol=1e-7), (g, s)


def _matmul(a: Table, b: Table) -> Table:
    return [[sum(a[r][m] * b[m][c] for m in range(len(b))) for c in range(len(b[0]))]
            for r in range(len(a))]


def test_cross_entropy_by_hand_and_against_finite_differences() -> None:
    # one row z = [0, ln 3], t = 1: softmax = [1/4, 3/4], loss = -ln(3/4), dz = [1/4, -1/4]
    loss, d_z = cross_entropy(Matrix([[0.0, math.log(3)]]), [1])
    assert math.isclose(loss, -math.log(0.75))
    assert d_z.tolist()[0] == pytest.approx([0.25, -0.25])
    z = _random(4, 3, seed=1)
    targets = [2, IGNORE, 0, 1]  # three rows count: the mean divides by 3

    def loss_of(z: Table) -> float:  # mean over counted rows of log sum_j e**z_j - z_t
        terms = [math.log(sum(map(math.exp, row))) - row[t]
                 for row, t in zip(z, targets) if t != IGNORE]
        return sum(terms) / len(terms)

    loss, d_z = cross_entropy(Matrix(z), targets)
    assert math.isclose(loss, loss_of(z), rel_tol=1e-12)
    _close(d_z, _slopes(loss_of, z))
    assert d_z.tolist()[1] == [0.0, 0.0, 0.0]  # a skipped row gets no gradient


def test_matmul_backward_against_finite_differences() -> None:
    a, b, R = _random(3, 4, seed=2), _random(4, 2, seed=3), _random(3, 2, seed=4)
    d_a, d_b = matmul_backward(Matrix(a), Matrix(b), Matrix(R))
    _close(d_a, _slopes(lambda a: _dot(_matmul(a, b), R), a))
    _close(d_b, _slopes(lambda b: _dot(_matmul(a, b), R), b))


def _softmax_rows(s: Table) -> Table:
    return [[math.exp(x) / sum(map(math.exp, row)) for x in row] for row in s]


def test_softmax_backward_against_finite_differences() -> None:
    s, R = _random(3, 4, seed=5), _random(3, 4, seed=6)
    weights = Matrix(_softmax_rows(s))
    d_s = softmax_backward(weights, Matrix(R))
    _close(d_s, _slopes(lambda s: _dot(_softmax_rows(s), R), s))
    # each row of ds sums to 0: adding one number to a whole row of s changes no weight
    assert all(abs(sum(row)) < 1e-15 for row in d_s.tolist())


def _turned(x: Table, thetas: list[float], scale: float, positions: list[int]) -> Table:
    """RoPE written naively, for the finite differences: pair i of row r turned by
    positions[r] * theta_i, times scale."""
    out = []
    for pos, row in zip(positions, x):
        new = list(row)
        for i, theta in enumerate(thetas):
            a = pos * theta
            new[2 * i] = scale * (row[2 * i] * math.cos(a) - row[2 * i + 1] * math.sin(a))
            new[2 * i + 1] = scale * (row[2 * i] * math.sin(a) + row[2 * i + 1] * math.cos(a))
        out.append(new)
    return out


def test_rotary_backward_turns_back_against_finite_differences() -> None:
    thetas, scale = [0.7, 0.05], 1.3
    x, R = _random(4, 4, seed=7), _random(4, 4, seed=8)
    rows_at = [0, 1, 2, 3]  # row r at position r
    expected = _slopes(lambda x: _dot(_turned(x, thetas, scale, rows_at), R), x)
    _close(rotary_backward(Matrix(R), thetas, scale), expected)


def test_rotary_backward_at_given_positions_against_finite_differences() -> None:
    # rows at positions 5, 0, 5, 2 (a packed batch's position_ids: repeated, out of order)
    thetas, scale, positions = [0.7, 0.05], 1.3, [5, 0, 5, 2]
    x, R = _random(4, 4, seed=17), _random(4, 4, seed=18)
    got = rotary_backward(Matrix(R), thetas, scale, positions=positions)
    _close(got, _slopes(lambda x: _dot(_turned(x, thetas, scale, positions), R), x))
    with pytest.raises(ShapeError, match="4 rows but there are 3 positions"):
        rotary_backward(Matrix(R), thetas, scale, positions=[0, 1, 2])


def test_lookup_backward_sums_the_rows_of_a_repeated_token() -> None:
    ids = [[2, 0, 2], [1, 2]]  # token 2 comes three times; token 3 never
    E, R = _random(4, 3, seed=9), _random(5, 3, seed=10)

    def loss_of(E: Table) -> float:  # x = E[ids], every sequence's rows stacked
        return _dot([E[t] for sequence in ids for t in sequence], R)

    d_E = lookup_backward(ids, Matrix(R), vocab_size=4)
    _close(d_E, _slopes(loss_of, E))
    assert d_E.tolist()[3] == [0.0, 0.0, 0.0]  # a token not in the batch gets nothing
    assert d_E.tolist()[2] == pytest.approx([R[0][c] + R[2][c] + R[4][c] for c in range(3)])


def test_broadcast_backward_is_the_sum_over_the_batch() -> None:
    lengths = (3, 2)  # the table has 4 rows; row 3 is read by no sequence
    P, R = _random(4, 2, seed=11), [_random(n, 2, seed=12 + n) for n in lengths]

    def loss_of(P: Table) -> float:  # x_b = E[ids_b] + P[0 .. n_b - 1]; E adds a constant
        return sum(_dot(P[:n], R_b) for n, R_b in zip(lengths, R))

    d_P = broadcast_backward([Matrix(R_b) for R_b in R], context_length=4)
    _close(d_P, _slopes(loss_of, P))
    assert d_P.tolist()[3] == [0.0, 0.0]


def test_each_rule_names_shapes_that_do_not_fit() -> None:
    one = Matrix([[1.0, 2.0]])
    with pytest.raises(ShapeError, match="one target .* per row"):
        cross_entropy(one, [0, 1])
    with pytest.raises(ValueError, match="every target is -100"):
        cross_entropy(one, [IGNORE])
    with pytest.raises(ShapeError, match=r"d_out has shape \(1, 2\) and a \(1, 2\) @ b "
                       r"\(2, 1\) has shape \(1, 1\): axis 1 has 2 vs 1; .* needs the shape "
                       r"of a @ b"):
        matmul_backward(one, one.T, one)
    with pytest.raises(ShapeError, match="one shape"):
        softmax_backward(one, one.T)
    with pytest.raises(ShapeError, match="make 1 pairs, but there are 2 theta_i"):
        rotary_backward(one, [1.0, 0.1])
    with pytest.raises(ShapeError, match="one row of d_X per token"):
        lookup_backward([[0, 1]], one, vocab_size=2)
    with pytest.raises(ShapeError, match="context_length=1 rows"):
        broadcast_backward([Matrix([[1.0], [2.0]])], context_length=1)
