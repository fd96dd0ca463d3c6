"""Chapter 10, part 3 - the probe: can a straight line read a token's position from its row?

A model's residual stream holds one row x of d_model numbers per token. Does
the row say where the token stands? Ask the simplest reader there is, a linear
map. Each row gets the features phi = [x_1, ..., x_d, 1] (the 1 lets the map
add a constant), and the map is asked for y = onehot(pos), T numbers with a 1
at the row's position. The map W, (d + 1) x T, is the least-squares one with a
small ridge, found by solving the normal equations:

    W = argmin  sum over rows |phi W - y|**2  +  lambda |W|**2
    (Phi^T Phi + lambda I) W = Phi^T Y            Phi: (rows, d + 1),  Y: (rows, T)
    guess(x) = argmax over t of (phi W)_t         the probe's reading of pos

The probe is fitted on some sequences and scored on others it never saw: its
accuracy is the share of those rows whose guess is their position. A guess
that knows nothing is right 1 time in T.

Why these choices:
- Least squares, not a logistic read-out trained by gradient descent: one
  solve, no learning rate or steps, the same W on any machine. Whatever it
  reads, a straight line read; a curved reader could read more.
- Held-out sequences: W has (d + 1) T numbers, and on the rows it was fitted on
  it can match noise. On new rows noise scores chance (tests/test_probe.py).
- The ridge: lambda = ridge x the mean of Phi^T Phi's diagonal (the mean
  squared feature), so it scales with the rows. Without it the equations can
  have no single answer: a LayerNorm's rows (weight 1, bias 0) all sum to 0,
  and a model without positions has input rows E[id], at most vocab_size kinds
  of row for d + 1 features. The ridge picks the smallest W among the equally
  good ones, and 1e-3 of the scale barely moves a W that is well determined.
- Gaussian elimination without row swaps: Phi^T Phi + lambda I is symmetric
  and positive definite, so every pivot the elimination meets is positive.

    >>> from minipe.arrays import Matrix
    >>> x = Matrix([[1, 0, 0], [0, 1, 0], [0, 0, 1]])   # row i: the one-hot of i
    >>> probe = fit_probe([x, x])
    >>> probe, probe.guesses(x), probe.accuracy([x])
    (Probe(d_model=3, T=3, ridge=0.001, rows=6), [0, 1, 2], 1.0)

Left out: curved read-outs, read-outs of the offset between two tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from minipe.arrays import Matrix, dot
from minipe.checks import check_type, checked_number


@dataclass(frozen=True, repr=False)
class Probe:
    """A fitted read-out: W, (d_model + 1) x T, its last row the constant's."""

    W: Matrix  # (d_model + 1, T)
    ridge: float  # lambda, as a share of the mean squared feature
    rows: int  # how many rows it was fitted on

    def guesses(self, x: Matrix) -> list[int]:
        """argmax_t (phi W)_t for each row of x (d_model columns): the probe's positions."""
        _check_rows([x], self.W.shape[0] - 1)
        columns = self.W.T.rows  # (T, d_model + 1): one column of W per position
        guesses = []
        for row in x.rows:
            phi = row + (1.0,)  # the features: the row and a 1
            scores = [dot(phi, column) for column in columns]  # phi W, (T,)
            guesses.append(scores.index(max(scores)))
        return guesses

    def accuracy(self, sequences: Sequence[Matrix]) -> float:
        """The share of rows, over `sequences` (row i at position i), guessed right."""
        _check_rows(sequences, self.W.shape[0] - 1)
        right = total = 0
        for x in sequences:
            for pos, guess in enumerate(self.guesses(x)):
                right += guess == pos
                total += 1
        return right / total

    def __repr__(self) -> str:
        d_plus_1, T = self.W.shape
        return f"Probe(d_model={d_plus_1 - 1}, T={T}, ridge={self.ridge:g}, rows={self.rows})"


def fit_probe(sequences: Sequence[Matrix], *, ridge: float = 1e-3) -> Probe:
    """The least-squares W from `sequences`, each a Matrix whose row i stands at position i.

    T is the longest sequence's length; every Matrix has the same d_model columns.
    """
    lam_share = _checked_fit(sequences, ridge)
    T = max(len(x) for x in sequences)
    d = sequences[0].shape[1]
    features = [row + (1.0,) for x in sequences for row in x.rows]  # Phi, (rows, d + 1)
    columns = list(zip(*features))  # Phi^T, (d + 1, rows)
    gram = [[dot(a, b) for b in columns] for a in columns]  # Phi^T Phi, (d + 1, d + 1)
    lam = lam_share * sum(gram[i][i] for i in range(d + 1)) / (d + 1)
    for i in range(d + 1):
        gram[i][i] += lam  # + lambda I
    sums = [[0.0] * (d + 1) for _ in range(T)]  # (T, d + 1): Phi^T Y, one column per pos
    for x in sequences:
        for pos, row in enumerate(x.rows):
            sums[pos] = [s + f for s, f in zip(sums[pos], row + (1.0,))]  # y_pos = 1 there
    right_sides = [list(column) for column in zip(*sums)]  # Phi^T Y, (d + 1, T)
    W = _solve(gram, right_sides)  # (d + 1, T)
    return Probe(Matrix(W), lam_share, len(features))


def _solve(A: list[list[float]], B: list[list[float]]) -> list[list[float]]:
    """X with A X = B by Gaussian elimination; A symmetric positive definite, so no swaps.

    Forward: for each column c, subtract row c times A[r][c] / A[c][c] from every row r
    below, on A and B alike, until A is upper triangular. Back: X's rows from the last up,
    X[c] = (B[c] - sum over j > c of A[c][j] X[j]) / A[c][c].
    """
    n = len(A)
    A = [row[:] for row in A]  # (n, n), eliminated in place
    B = [row[:] for row in B]  # (n, m)
    for c in range(n):
        for r in range(c + 1, n):
            factor = A[r][c] / A[c][c]  # the pivot A[c][c] > 0
            A[r] = [a_r - factor * a_c for a_r, a_c in zip(A[r], A[c])]
            B[r] = [b_r - factor * b_c for b_r, b_c in zip(B[r], B[c])]
    X: list[list[float]] = [[] for _ in range(n)]
    for c in reversed(range(n)):
        known = [sum(A[c][j] * X[j][t] for j in range(c + 1, n)) for t in range(len(B[c]))]
        X[c] = [(b - k) / A[c][c] for b, k in zip(B[c], known)]
    return X


# The door: the sequences a probe reads, and its ridge


def _checked_fit(sequences: Sequence[Matrix], ridge: float) -> float:
    """_check_rows's sequences, and a ridge > 0 (the equations may have no single answer
    without one); the ridge back as a float."""
    _check_rows(sequences, None)
    lam = checked_number(ridge, "ridge")
    if not 0 < lam < float("inf"):
        raise ValueError(f"ridge must be a positive number such as 1e-3, got {lam}: without "
                         f"it a LayerNorm's rows, which all sum to 0, have no single best W")
    return lam


def _check_rows(sequences: Sequence[Matrix], d_model: int | None) -> None:
    """A non-empty list of Matrix, each row i at position i, all with d_model columns (the
    first's, when d_model is None)."""
    check_type(sequences, (list, tuple), "sequences must be a list of Matrix, one per "
               "sequence, row i at position i", empty="sequences is empty: a probe needs rows")
    for i, x in enumerate(sequences):
        check_type(x, Matrix, f"sequences[{i}] must be a Matrix (row i at position i)")
    width = sequences[0].shape[1] if d_model is None else d_model
    for i, x in enumerate(sequences):
        if x.shape[1] != width:
            raise ValueError(f"sequences[{i}] has {x.shape[1]} columns, but the probe reads "
                             f"rows of {width} (d_model): every row must come from one place")
