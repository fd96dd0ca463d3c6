"""The probe (minipe/training/probe.py): worked cases, a naive solve, and what noise scores.

Rows here are made by hand so that the answer is known: a row that holds the
one-hot of its position must be read every time, pure noise only by chance
(1 in T), and the fitted W must be the one the normal equations give, solved
here by Cramer's rule.
"""

from __future__ import annotations

import random

import pytest

from minipe.arrays import Matrix
from minipe.training.probe import Probe, fit_probe

D, T = 32, 16  # d_model 32, sequences of 16 tokens


def _noise(sequences: int, seed: int, d: int = D) -> list[Matrix]:
    rng = random.Random(seed)
    return [Matrix([[rng.gauss(0, 1) for _ in range(d)] for _ in range(T)])
            for _ in range(sequences)]


def _one_hot_and_noise(sequences: int, seed: int) -> list[Matrix]:
    """Row pos: onehot(pos) in its first T numbers, then D - T numbers of noise."""
    rng = random.Random(seed)
    return [Matrix([[float(j == pos) for j in range(T)] + [rng.gauss(0, 1) for _ in range(D - T)]
                    for pos in range(T)]) for _ in range(sequences)]


def test_a_row_that_holds_its_position_one_hot_is_read_every_time() -> None:
    probe = fit_probe(_one_hot_and_noise(12, seed=0))  # 192 rows
    assert probe.accuracy(_one_hot_and_noise(8, seed=1)) == 1.0  # 128 new rows, all right
    assert repr(probe) == "Probe(d_model=32, T=16, ridge=0.001, rows=192)"


def test_pure_noise_is_read_by_chance_on_new_rows_but_not_on_the_rows_it_was_fitted_on() -> None:
    fitted_on = _noise(20, seed=2)  # 320 rows, 33 x 16 numbers of W to fit them
    probe = fit_probe(fitted_on)
    held_out = probe.accuracy(_noise(20, seed=3))
    # chance is 1/16 = 0.0625; over 320 rows its spread is sqrt(0.0625 * 0.9375 / 320) = 0.0135
    assert abs(held_out - 1 / 16) < 0.05
    assert probe.accuracy(fitted_on) > held_out + 0.1  # W matched the noise it saw


def test_rows_that_all_sum_to_zero_are_read_too_thanks_to_the_ridge() -> None:
    """A LayerNorm's rows: onehot(pos) - 1/T sums to 0, so Phi^T Phi alone is singular."""
    centred = [Matrix([[float(j == pos) - 1 / T for j in range(T)] for pos in range(T)])]
    assert fit_probe(centred).accuracy(centred) == 1.0


def test_two_rows_worked_by_hand() -> None:
    """d_model 1, rows x = 0 at pos 0 and x = 1 at pos 1: Phi = [[0, 1], [1, 1]]. Without a
    ridge the lines through the targets are y_0 = 1 - x and y_1 = x: W = [[-1, 1], [1, 0]]
    (the x row, then the constant's row); a ridge of 1e-6 of the scale barely moves it."""
    probe = fit_probe([Matrix([[0.0], [1.0]])], ridge=1e-6)
    expected = [[-1.0, 1.0], [1.0, 0.0]]
    for got_row, row in zip(probe.W.rows, expected):
        assert got_row == pytest.approx(row, abs=1e-5)


def _det3(m: list[list[float]]) -> float:
    return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))


def test_W_solves_the_normal_equations_as_cramers_rule_does() -> None:
    """d_model 2, T 3, two sequences of random rows: (Phi^T Phi + lambda I) W = Phi^T Y,
    built here from the formula and solved column by column by Cramer's rule."""
    ridge = 0.01
    sequences = _noise(2, seed=4, d=2)
    sequences = [Matrix(x.rows[:3]) for x in sequences]  # T = 3
    phi = [list(row) + [1.0] for x in sequences for row in x.rows]
    targets = [pos for x in sequences for pos in range(len(x))]
    A = [[sum(f[i] * f[j] for f in phi) for j in range(3)] for i in range(3)]
    lam = ridge * (A[0][0] + A[1][1] + A[2][2]) / 3
    for i in range(3):
        A[i][i] += lam
    probe = fit_probe(sequences, ridge=ridge)
    for t in range(3):
        b = [sum(f[i] for f, target in zip(phi, targets) if target == t) for i in range(3)]
        for i in range(3):
            replaced = [[b[r] if c == i else A[r][c] for c in range(3)] for r in range(3)]
            assert probe.W.rows[i][t] == pytest.approx(_det3(replaced) / _det3(A), rel=1e-9)


def test_what_the_probe_refuses() -> None:
    x = Matrix([[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="ridge must be a positive number"):
        fit_probe([x], ridge=0.0)
    with pytest.raises(ValueError, match="sequences is empty"):
        fit_probe([])
    with pytest.raises(TypeError, match=r"sequences\[1\] must be a Matrix"):
        fit_probe([x, [[1.0, 0.0]]])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"sequences\[1\] has 3 columns, but the probe reads "
                                         r"rows of 2"):
        fit_probe([x, Matrix([[1.0, 0.0, 0.0]])])
    with pytest.raises(ValueError, match="rows of 2"):
        fit_probe([x]).accuracy([Matrix([[1.0]])])
    assert isinstance(fit_probe([x]), Probe)
