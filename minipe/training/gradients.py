"""Chapter 10, part 1 - the backward rules, one function each (micrograd's engine.py).

Backpropagation is the chain rule, line by line, read from the end. Each
forward line `out = f(a, b)` has a rule that turns dloss/dout into dloss/da
and dloss/db. Written dX (a table of the shape of X), the rules a transformer's
input side needs are:

    cross_entropy       loss = -log softmax(z)[t]     dz = softmax(z) - onehot(t)
    matmul_backward     out = a b                      da = dout b^T,  db = a^T dout
    softmax_backward    w = softmax(s)                 ds = w * (dw - rowsum(w * dw))
    rotary_backward     x' = s R(pos theta) x          dx = s R(-pos theta) dx'
    lookup_backward     x = E[id]                      dE[id] += dx
    broadcast_backward  x_b = E[ids_b] + P             dP = sum over b of dx_b

A rule knows nothing of the model that calls it: minipe/training/passes.py chains
them. Each opens on its formula; the shapes it refuses sit in the door at the
bottom of this file. Each is tested alone against central finite differences
(L(w + h) - L(w - h)) / 2h in tests/test_gradients.py.

>>> from minipe.arrays import Matrix
>>> loss, d_logits = cross_entropy(Matrix([[0.0, 0.0]]), [1])
>>> round(loss, 4), d_logits     # -log(1/2); dz = [1/2, 1/2] - [0, 1]
(0.6931, Matrix([[0.5, -0.5]], shape=(1, 2)))
"""

from __future__ import annotations

import itertools
import math
from typing import Sequence

from minipe.arrays import Matrix, dot
from minipe.arrays import ShapeError
from minipe.checks import check_axis

IGNORE = -100  # a target that counts for nothing: PyTorch's ignore_index


def cross_entropy(logits: Matrix, targets: Sequence[int]) -> tuple[float, Matrix]:
    """The mean of -log softmax(z)[t] over the rows whose target t is not -100, and dz.

        loss = mean over counted rows of (log sum_j exp(z_j) - z_t)
        dz   = (softmax(z) - onehot(t)) / count,  and 0 on a row whose t is -100

    In the forward pass a row's loss was log sum_j exp(z_j) - z_t: the first
    term's slope in z_j is exp(z_j) / sum_k exp(z_k) = softmax(z)_j, the second's
    is -1 for j = t only.
    """
    _check_targets(logits, targets)
    count = len(targets) - list(targets).count(IGNORE)  # the rows whose target is not -100
    total = 0.0
    d_rows = []
    for z, t in zip(logits.rows, targets):
        if t == IGNORE:
            d_rows.append([0.0] * len(z))
            continue
        top = max(z)  # e**(z_j - top) <= 1: no overflow, and top comes back in the log
        exps = [math.exp(z_j - top) for z_j in z]
        total_exp = sum(exps)
        total += top + math.log(total_exp) - z[t]  # log sum_j e**z_j - z_t
        p = [e / total_exp for e in exps]  # softmax(z)
        p[t] -= 1.0  # softmax(z) - onehot(t)
        d_rows.append([p_j / count for p_j in p])
    return total / count, Matrix(d_rows)


def matmul_backward(a: Matrix, b: Matrix, d_out: Matrix) -> tuple[Matrix, Matrix]:
    """out = a b  ->  da = dout b^T,  db = a^T dout.

    In the forward pass out[i][j] was sum_k a[i][k] b[k][j], so a[i][k] met
    every b[k][j] of row k of b: da[i][k] = sum_j dout[i][j] b[k][j].
    """
    _check_matmul(a, b, d_out)
    d_a = d_out @ b.T
    d_b = a.T @ d_out
    return d_a, d_b


def softmax_backward(weights: Matrix, d_weights: Matrix) -> Matrix:
    """w = softmax(s), row by row  ->  ds_j = w_j (dw_j - sum_k w_k dw_k).

    In the forward pass every w_k shared one denominator sum_j exp(s_j), so
    raising s_j raised w_j and lowered every w_k: dw_k/ds_j = w_k (1[k=j] - w_j).
    """
    _check_softmax(weights, d_weights)
    rows = []
    for w, dw in zip(weights.rows, d_weights.rows):
        through = dot(w, dw)  # sum_k w_k dw_k
        rows.append([w_j * (dw_j - through) for w_j, dw_j in zip(w, dw)])
    return Matrix(rows)


def rotary_backward(d_turned: Matrix, thetas: Sequence[float], scale: float = 1.0, *,
                    positions: Sequence[int] | None = None) -> Matrix:
    """Row r of x' was pair i of x turned by a = pos * theta_i, times s (YaRN's, else 1),
    pos = positions[r] (a padded or packed batch's position_ids), or r when None:

        dx[2i]   = s ( dx'[2i] cos a + dx'[2i+1] sin a)
        dx[2i+1] = s (-dx'[2i] sin a + dx'[2i+1] cos a)

    In the forward pass each pair was turned by a; a rotation's transpose is
    its inverse, so the gradient is turned back, by -a, and scaled by s.
    """
    _check_rotary(d_turned, thetas, positions)
    rows_at = range(d_turned.shape[0]) if positions is None else positions
    angles = {pos: [pos * theta for theta in thetas]  # a = pos * theta_i, once per position
              for pos in dict.fromkeys(rows_at)}
    cosines = {pos: [scale * math.cos(angle) for angle in a] for pos, a in angles.items()}
    sines = {pos: [scale * math.sin(angle) for angle in a] for pos, a in angles.items()}
    rows = []
    for pos, row in zip(rows_at, d_turned.rows):
        turned_back = list(row)
        for i, (cos_a, sin_a) in enumerate(zip(cosines[pos], sines[pos])):
            first, second = row[2 * i], row[2 * i + 1]
            turned_back[2 * i] = first * cos_a + second * sin_a
            turned_back[2 * i + 1] = -first * sin_a + second * cos_a
        rows.append(turned_back)
    return Matrix(rows)


def lookup_backward(ids: Sequence[Sequence[int]], d_X: Matrix, vocab_size: int) -> Matrix:
    """x = E[id] copied row id of E  ->  dE[id] = the sum of the rows of dx whose token is id.

    In the forward pass a token that came twice copied its row twice, so both
    copies send their gradient back into that one row. d_X holds the rows of
    every sequence of `ids`, one after another.
    """
    _check_lookup(ids, d_X)
    all_ids = itertools.chain.from_iterable(ids)  # every sequence's IDs, one after another
    d_E = [[0.0] * d_X.shape[1] for _ in range(vocab_size)]
    for token_id, d_x in zip(all_ids, d_X.rows):
        d_E[token_id] = [total + part for total, part in zip(d_E[token_id], d_x)]
    return Matrix(d_E)  # (vocab_size, d); rows of IDs not in the batch stay 0


def broadcast_backward(d_inputs: Sequence[Matrix], context_length: int) -> Matrix:
    """x_b = E[ids_b] + P for every sequence b  ->  dP[t] = sum over b of dx_b[t].

    In the forward pass the one table P was broadcast over the batch (lecture
    001's rule), so every sequence's gradient flows back into the same rows.
    Rows past the longest sequence stay 0.
    """
    _check_broadcast(d_inputs, context_length)
    d_P = [[0.0] * d_inputs[0].shape[1] for _ in range(context_length)]
    for d_x in d_inputs:  # every sequence in the batch ...
        for t, d_x_t in enumerate(d_x.rows):  # ... sends row t back into row t of P
            d_P[t] = [total + part for total, part in zip(d_P[t], d_x_t)]
    return Matrix(d_P)  # (context_length, d)


# The door. A rule trusts the shapes of a forward pass: these refuse, with a sentence,
# the ones that cannot have come from one (a learner's own chain of rules, say).


def _check_targets(logits: Matrix, targets: Sequence[int]) -> None:
    """One target per row of logits, and at least one that is not -100."""
    if len(targets) != logits.shape[0]:
        raise ShapeError(f"logits has shape {logits.shape} but there are {len(targets)} "
                         f"targets: one target (or -100) per row")
    if list(targets).count(IGNORE) == len(targets):
        raise ValueError("every target is -100: the mean loss over no targets is undefined")


def _check_matmul(a: Matrix, b: Matrix, d_out: Matrix) -> None:
    check_axis("d_out", d_out.shape, f"a {a.shape} @ b {b.shape}", (a.shape[0], b.shape[1]),
               "d_out is dloss/d(a @ b), number by number, so it needs the shape of a @ b")


def _check_softmax(weights: Matrix, d_weights: Matrix) -> None:
    check_axis("weights", weights.shape, "d_weights", d_weights.shape,
               "dw is dloss/dw, number by number, so the two need one shape")


def _check_rotary(d_turned: Matrix, thetas: Sequence[float],
                  positions: Sequence[int] | None) -> None:
    if 2 * len(thetas) != d_turned.shape[1]:
        raise ShapeError(f"d_turned has shape {d_turned.shape}: its {d_turned.shape[1]} "
                         f"columns make {d_turned.shape[1] / 2:g} pairs, but there are "
                         f"{len(thetas)} theta_i")
    if positions is not None and len(positions) != d_turned.shape[0]:
        raise ShapeError(f"d_turned has {d_turned.shape[0]} rows but there are "
                         f"{len(positions)} positions: one position per row")


def _check_lookup(ids: Sequence[Sequence[int]], d_X: Matrix) -> None:
    tokens = sum(map(len, ids))
    if tokens != d_X.shape[0]:
        raise ShapeError(f"d_X has shape {d_X.shape} but ids hold {tokens} tokens: "
                         f"one row of d_X per token")


def _check_broadcast(d_inputs: Sequence[Matrix], context_length: int) -> None:
    longest = max(d_x.shape[0] for d_x in d_inputs)
    if longest > context_length:
        raise ShapeError(f"a sequence of {longest} rows cannot come from a table P of "
                         f"context_length={context_length} rows")
