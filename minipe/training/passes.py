"""Chapter 10 - the forward and backward passes of TinyModel (minipe/training/model.py).

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

Backpropagation runs the same lines backwards, one rule of minipe/training/gradients.py
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
looked up at once (E.take), so that x W_q for all of them is one matmul and
RoPE turns all their rows at once; attention runs sequence by sequence and
head by head (minipe/training/heads.py cuts and joins the heads).
Training (minipe/training/lab.py) repeats: loss and gradients, then Adam.
A block model's passes (layers, norms, MLPs) are minipe/training/layers.py's.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, NamedTuple, Protocol, Sequence

from minipe.arrays import Matrix
from minipe.training.gradients import (broadcast_backward, cross_entropy, lookup_backward,
                              matmul_backward)
from minipe.training.heads import HeadSettings, HeadsPass, attend, attend_backward, position_rows


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


@dataclass(frozen=True, repr=False)
class Backprop:
    """One batch through the model and back.

    loss        the mean cross-entropy over every target that is not -100
    gradients   dloss/dW for every parameter, named as in `parameters()` (read-only)
    d_inputs    dloss/dx for each sequence, (n, d_model): x = E[ids] + P (a tuple)

    What it hands out cannot change it: the gradients are a read-only view of its own
    dict, d_inputs a tuple, every table an immutable Matrix (`dict(result.gradients)`
    is a dict of one's own to change).
    """

    loss: float
    gradients: Mapping[str, Matrix]
    d_inputs: Sequence[Matrix]  # kept as a tuple

    def __post_init__(self) -> None:
        object.__setattr__(self, "gradients", MappingProxyType(dict(self.gradients)))
        object.__setattr__(self, "d_inputs", tuple(self.d_inputs))

    def __reduce__(self) -> tuple[type[Backprop], tuple[float, dict[str, Matrix],
                                                         Sequence[Matrix]]]:
        return (Backprop, (self.loss, dict(self.gradients), self.d_inputs))  # for pickle

    def __repr__(self) -> str:
        return (f"Backprop(loss={self.loss:.6g}, gradients={sorted(self.gradients)}, "
                f"d_inputs={len(self.d_inputs)})")


# Forward: the lines of the module docstring, for a batch of sequences


class Inputs(NamedTuple):
    """A batch as the forward pass reads it, one entry per sequence: what TinyModel's door
    (minipe/training/checks.py) hands it, checked."""

    sequences: list[list[int]]  # the IDs
    masks: list[list[list[bool]] | None]  # (n, n): True where query i may attend key j
    positions: list[list[int]] | None  # position_ids; None: 0 .. n-1 in every sequence
    one: bool  # one sequence was given (not a batch): the answer is a Matrix

    def each_position(self) -> list[list[int] | None]:
        """The position_ids of each sequence, or None for 0 .. n-1."""
        if self.positions is None:
            return [None] * len(self.sequences)
        return [pos for pos in self.positions]


@dataclass(frozen=True)
class ForwardPass:
    """What the backward pass reads: the inputs and every intermediate, by name."""

    given: Inputs  # the IDs, masks and positions of every sequence
    rows_at: list[int]  # (N,): the position of every row of x
    x: Matrix  # (N, d): every sequence's input rows, stacked
    heads: HeadsPass  # q, k, v, weights per head (minipe/training/heads.py)
    logits: Matrix  # (N, vocab_size)


def forward(model: Model, given: Inputs) -> ForwardPass:
    weights = model.parameters()
    rows_at, X = embedded(model, given)  # (N,), (N, d): x = E[ids] + P[pos]
    Q, K, V = X @ weights["W_q"], X @ weights["W_k"], X @ weights["W_v"]  # (N, d) each
    heads = attend(model, Q, K, V, spans(given.sequences), given.masks,
                   given.each_position(), rows_at)  # per head, sequence by sequence (heads.py)
    logits = heads.output @ weights["W_out"]  # (N, vocab_size): h W_out
    return ForwardPass(given, rows_at, X, heads, logits)


def embedded(model: Model, given: Inputs) -> tuple[list[int], Matrix]:
    """Where every row of the batch stands (N,), and x = E[ids] + P[pos] (N, d): the
    sequences' rows one after another, P only for a learned or sinusoidal model."""
    weights = model.parameters()
    all_ids = list(itertools.chain.from_iterable(given.sequences))  # (N,): row by row
    positions = given.each_position()  # position_ids, or None for 0 .. n-1, per sequence
    rows_at = [p for ids, pos in zip(given.sequences, positions)
               for p in (range(len(ids)) if pos is None else pos)]  # (N,): where each row stands
    X = weights["token_embedding"].take(all_ids)  # (N, d): E[ids], all sequences stacked
    if model.positions in ("learned", "sinusoidal"):  # + P[pos]
        X = X + position_rows(model.positions, weights.get("position_embedding"),
                              len(rows_at), model.d_model, model.base, rows_at)
    return rows_at, X


def spans(inputs: list[list[int]]) -> list[tuple[int, int]]:
    """Where each sequence's rows sit in the stacked table: rows start .. stop - 1."""
    stops = list(itertools.accumulate(len(ids) for ids in inputs))  # n_1, n_1 + n_2, ...
    return list(zip([0] + stops[:-1], stops))


# Backward: the same lines in reverse, one rule of minipe/training/gradients.py per line


def backward(model: Model, recorded: ForwardPass, targets: list[list[int]]) -> Backprop:
    weights = model.parameters()
    flat_targets = list(itertools.chain.from_iterable(targets))  # (N,): row by row, as x
    loss, d_logits = cross_entropy(recorded.logits, flat_targets)
    d_H, d_W_out = matmul_backward(recorded.heads.output, weights["W_out"], d_logits)
    given = recorded.given
    d_Q, d_K, d_V = attend_backward(model, recorded.heads, d_H, recorded.rows_at)  # per head
    X = recorded.x
    d_X_q, d_W_q = matmul_backward(X, weights["W_q"], d_Q)  # Q = X W_q
    d_X_k, d_W_k = matmul_backward(X, weights["W_k"], d_K)
    d_X_v, d_W_v = matmul_backward(X, weights["W_v"], d_V)
    d_X = d_X_q + d_X_k + d_X_v  # x feeds all three: their gradients add
    d_inputs = [d_X[start:stop] for start, stop in recorded.heads.spans]  # per sequence
    gradients = embedding_gradients(model, given, d_X, d_inputs)
    gradients.update(W_q=d_W_q, W_k=d_W_k, W_v=d_W_v, W_out=d_W_out)
    return Backprop(loss, gradients, d_inputs)


def embedding_gradients(model: Model, given: Inputs, d_X: Matrix,
                        d_inputs: list[Matrix]) -> dict[str, Matrix]:
    """x = E[ids] + P[pos] backwards: dE (a lookup) and, for a learned table, dP."""
    gradients = {"token_embedding": lookup_backward(given.sequences, d_X, model.vocab_size)}
    if model.positions == "learned" and given.positions is None:
        gradients["position_embedding"] = broadcast_backward(d_inputs, model.context_length)
    elif model.positions == "learned" and given.positions:  # P[pos], a lookup: dP[pos] += dx
        gradients["position_embedding"] = lookup_backward(given.positions, d_X,
                                                          model.context_length)
    # sinusoidal: d_inputs reach PE too, but it is a formula, not a parameter (no update)
    return gradients

