"""Chapter 10 - the forward and backward passes of TinyModel (minipe/training.py).

For one sequence of n IDs at positions pos (d = d_model):

    x       = E[ids] + P[pos]                  (n, d)  E: token_embedding; P: the
                                                       learned or sinusoidal table
    q, k, v = x W_q,  x W_k,  x W_v            (n, d)  cut into heads of head_dim columns;
                                                       RoPE turns q and k (chapters 5, 7)
    scores  = q k^T / sqrt(head_dim) + alibi   (n, n)  per head; ALiBi: -m_h |pos_i - pos_j|
    weights = softmax(scores), row by row      (n, n)  masked keys (causal, padding) get 0
    h       = [weights v, per head, side by side]   (n, d)
    logits  = h W_out                          (n, vocab_size)
    loss    = mean over the targets t != -100 of -log softmax(logits)[t]

Backpropagation runs the same lines backwards, one rule of minipe/gradients.py
per line. dX is dloss/dX, a table of the shape of X:

    dlogits  = (softmax(logits) - onehot(t)) / count      cross_entropy
    dh       = dlogits W_out^T,  dW_out = h^T dlogits     matmul_backward
    dweights = dh v^T,           dv = weights^T dh        matmul_backward (per head)
    dscores  = weights * (dweights - rowsum(weights * dweights))   softmax_backward
    dq, dk   = dscores k / sqrt(head_dim),  dscores^T q / sqrt(head_dim)  (RoPE: turned back)
    dx       = dq W_q^T + dk W_k^T + dv W_v^T,  dW_q = x^T dq ...   matmul_backward
    dE[id]   = the sum of the rows of dx whose token is id          lookup_backward
    dP[pos]  = the sum over the batch of the rows of dx at pos      broadcast_backward

The gradient dx reaches a sinusoidal table's rows too, and nothing holds it:
it is a formula, not a parameter, so `parameters()` has no entry for it.
The sequences of a batch are stacked row after row into one (N, d) table X,
so that x W_q for all of them is one matmul; attention runs sequence by
sequence and head by head (minipe/heads.py cuts and joins the heads).
Training (minipe/lab.py) repeats: loss and gradients, then Adam.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Protocol

from minipe.arrays import Matrix
from minipe.gradients import (broadcast_backward, cross_entropy, lookup_backward,
                              matmul_backward)
from minipe.heads import HeadSettings, HeadsPass, attend, attend_backward, position_rows
from minipe.training_checks import Inputs


class Model(HeadSettings, Protocol):
    """What the passes read of a model (TinyModel has all of it)."""

    @property
    def positions(self) -> str: ...  # "learned", "sinusoidal", "rope", "alibi" or "none"
    @property
    def vocab_size(self) -> int: ...
    @property
    def d_model(self) -> int: ...
    @property
    def context_length(self) -> int: ...
    @property
    def base(self) -> float: ...
    def parameters(self) -> dict[str, Matrix]: ...


@dataclass(frozen=True)
class Backprop:
    """One batch through the model and back.

    loss        the mean cross-entropy over every target that is not -100
    gradients   dloss/dW for every parameter, named as in `parameters()`
    d_inputs    dloss/dx for each sequence, (n, d_model): x = E[ids] + P
    """

    loss: float
    gradients: dict[str, Matrix]
    d_inputs: list[Matrix]


# Forward: the lines of the module docstring, for a batch of sequences


@dataclass(frozen=True)
class ForwardPass:
    """What the backward pass reads: the inputs and every intermediate, by name."""

    given: Inputs  # the IDs, masks and positions of every sequence
    x: Matrix  # (N, d): every sequence's input rows, stacked
    heads: list[HeadsPass]  # per sequence: q, k, v, weights per head (minipe/heads.py)
    h: Matrix  # (N, d): attention's output rows, heads side by side, stacked
    logits: Matrix  # (N, vocab_size)


def forward(model: Model, given: Inputs) -> ForwardPass:
    weights = model.parameters()
    E = weights["token_embedding"]
    positions = given.each_position()  # None: 0 .. n-1
    sequences = []
    for ids, pos in zip(given.sequences, positions):
        x = Matrix([E.rows[token_id] for token_id in ids])  # (n, d): E[ids], a lookup
        if model.positions in ("learned", "sinusoidal"):  # + P[pos]: P[0 .. n-1] unless given
            x = x + position_rows(model.positions, weights.get("position_embedding"),
                                  len(ids), model.d_model, model.base, pos)
        sequences.append(x)
    X = stack(sequences)  # (N, d): all sequences, row after row
    Q, K, V = X @ weights["W_q"], X @ weights["W_k"], X @ weights["W_v"]  # (N, d) each
    heads = []  # per sequence: its heads' q, k, v, weights and joined output (heads.py)
    for (start, stop), mask, pos in zip(spans(given.sequences), given.masks, positions):
        heads.append(attend(model, Q[start:stop], K[start:stop], V[start:stop], mask, pos))
    H = stack([passed.output for passed in heads])  # (N, d)
    logits = H @ weights["W_out"]  # (N, vocab_size)
    return ForwardPass(given, X, heads, H, logits)


def stack(matrices: list[Matrix]) -> Matrix:
    """The rows of every matrix, one after another: (n_1 + n_2 + ..., d)."""
    return Matrix([row for matrix in matrices for row in matrix.rows])


def spans(inputs: list[list[int]]) -> list[tuple[int, int]]:
    """Where each sequence's rows sit in the stacked table: rows start .. stop - 1."""
    stops = list(itertools.accumulate(len(ids) for ids in inputs))  # n_1, n_1 + n_2, ...
    return list(zip([0] + stops[:-1], stops))


# Backward: the same lines in reverse, one rule of minipe/gradients.py per line


def backward(model: Model, recorded: ForwardPass, targets: list[list[int]]) -> Backprop:
    weights = model.parameters()
    flat_targets = [target for wanted in targets for target in wanted]
    loss, d_logits = cross_entropy(recorded.logits, flat_targets)
    d_H, d_W_out = matmul_backward(recorded.h, weights["W_out"], d_logits)
    given = recorded.given
    positions = given.each_position()
    d_qs, d_ks, d_vs = [], [], []
    for (start, stop), heads, pos in zip(spans(given.sequences), recorded.heads, positions):
        d_q, d_k, d_v = attend_backward(model, heads, d_H[start:stop], pos)  # per head
        d_qs.append(d_q)
        d_ks.append(d_k)
        d_vs.append(d_v)
    X = recorded.x
    d_X_q, d_W_q = matmul_backward(X, weights["W_q"], stack(d_qs))  # Q = X W_q
    d_X_k, d_W_k = matmul_backward(X, weights["W_k"], stack(d_ks))
    d_X_v, d_W_v = matmul_backward(X, weights["W_v"], stack(d_vs))
    d_X = d_X_q + d_X_k + d_X_v  # x feeds all three: their gradients add
    d_inputs = [d_X[start:stop] for start, stop in spans(given.sequences)]
    gradients = {"token_embedding": lookup_backward(given.sequences, d_X, model.vocab_size)}
    if model.positions == "learned" and given.positions is None:
        gradients["position_embedding"] = broadcast_backward(d_inputs, model.context_length)
    elif model.positions == "learned" and given.positions:  # P[pos], a lookup: dP[pos] += dx
        gradients["position_embedding"] = lookup_backward(given.positions, d_X,
                                                          model.context_length)
    # sinusoidal: d_inputs reach PE too, but it is a formula, not a parameter (no update)
    gradients.update(W_q=d_W_q, W_k=d_W_k, W_v=d_W_v, W_out=d_W_out)
    return Backprop(loss, gradients, d_inputs)

