"""Chapter 9 - training: backpropagation written out, for a model small enough to read.

The chapters before build a transformer's input from tables drawn at random.
Here the tables learn. `TinyModel` is one attention head over token embeddings,
with any kind of position from chapters 3, 5 and 6, and a linear read-out
that scores every token kind. For one sequence of n IDs (d = d_model):

    x       = E[ids] + P[0 .. n-1]             (n, d)  E: token_embedding; P: the
                                                       learned or sinusoidal table
    q, k, v = x W_q,  x W_k,  x W_v            (n, d)  RoPE turns q and k by theta_i
                                                       (chapter 5, stretched: 7)
    scores  = q k^T / sqrt(d) + alibi + mask   (n, n)  ALiBi: -m |i - j| (chapter 6)
    weights = softmax(scores), row by row      (n, n)
    h       = weights v                        (n, d)
    logits  = h W_out                          (n, vocab_size)
    loss    = mean over the targets t != -100 of -log softmax(logits)[t]

Backpropagation runs the same lines backwards, one rule of minipe/gradients.py
per line. dX is dloss/dX, a table of the shape of X:

    dlogits  = (softmax(logits) - onehot(t)) / count      cross_entropy
    dh       = dlogits W_out^T,  dW_out = h^T dlogits     matmul_backward
    dweights = dh v^T,           dv = weights^T dh        matmul_backward
    dscores  = weights * (dweights - rowsum(weights * dweights))   softmax_backward
    dq, dk   = dscores k / sqrt(d),  dscores^T q / sqrt(d)  (RoPE: rotary_backward)
    dx       = dq W_q^T + dk W_k^T + dv W_v^T,  dW_q = x^T dq ...   matmul_backward
    dE[id]   = the sum of the rows of dx whose token is id          lookup_backward
    dP[t]    = the sum over the batch of row t of dx                broadcast_backward

The gradient dx reaches a sinusoidal table's rows too, and nothing holds it:
it is a formula, not a parameter, so `parameters()` has no entry for it.
The sequences of a batch are stacked row after row into one (N, d) table X,
so that x W_q for all of them is one matmul; attention runs sequence by
sequence. Training (minipe/lab.py) repeats: loss and gradients, then Adam.

Left out: layers, heads, layer norm, MLPs, dropout, biases.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from minipe.arrays import Matrix, Vector
from minipe.attention import scaled_dot_product_attention
from minipe.embedding import Embedding
from minipe.gradients import (broadcast_backward, cross_entropy, lookup_backward,
                              matmul_backward, rotary_backward, softmax_backward)
from minipe.pipeline import ALIBI_SLOPE
from minipe.positional import LearnedPositionalEmbedding, sinusoidal_encoding
from minipe.relative import alibi_bias
from minipe.rotary import apply_rotary, rotary_thetas
from minipe.training_checks import (check_parameters, check_sequences, check_targets,
                                    checked_rope, checked_settings, checked_slopes)


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


@dataclass(frozen=True, repr=False)
class TinyModel:
    """One attention head that predicts a token kind at every position.

    >>> model = TinyModel(vocab_size=5, d_model=8, context_length=8, positions="rope")
    >>> model.logits([0, 1, 2]).shape
    (3, 5)
    >>> sorted(model.parameters())
    ['W_k', 'W_out', 'W_q', 'W_v', 'token_embedding']

    `positions` is "none", "learned", "sinusoidal", "rope" or "alibi", as in
    `run()`; `context_length` bounds only the learned table (the other kinds
    read any length whose n x n weights fit in memory). A model never changes:
    training and stretching RoPE make new ones (`with_parameters`, `with_frequencies`).

    The tables, RoPE's theta_i and scale and ALiBi's slopes are part of the
    value: `dataclasses.replace(trained, causal=False)` keeps what training
    learned. Left as None, each is made from the settings (tables drawn from
    `seed`, theta_i = base**(-2i/d), m = 1/2): to draw new tables, say so with
    `dataclasses.replace(model, seed=3, weights=None)`.
    """

    vocab_size: int
    d_model: int
    context_length: int
    positions: str = field(default="learned", kw_only=True)
    causal: bool = field(default=True, kw_only=True)
    base: float = field(default=10000.0, kw_only=True)
    seed: int = field(default=0, kw_only=True)  # draws the tables when weights is None
    weights: Mapping[str, Matrix] | None = field(default=None, kw_only=True)  # by name
    frequencies: Vector | None = field(default=None, kw_only=True)  # RoPE's theta_i
    attention_scale: float = field(default=1.0, kw_only=True)  # q and k times it (YaRN's)
    alibi_slopes: tuple[float, ...] | None = field(default=None, kw_only=True)  # m per head

    def __post_init__(self) -> None:
        base = checked_settings(self.vocab_size, self.d_model, self.context_length,
                                self.positions, seed=self.seed, causal=self.causal,
                                base=self.base)
        object.__setattr__(self, "base", base)
        shapes = self._shapes()
        tables = self._drawn_tables() if self.weights is None else self.weights
        check_parameters(tables, shapes)
        own = MappingProxyType({name: tables[name] for name in shapes})  # read-only view
        object.__setattr__(self, "weights", own)
        frequencies, scale = checked_rope(self.positions, self.d_model, self.base,
                                          self.frequencies, self.attention_scale)
        object.__setattr__(self, "frequencies", frequencies)
        object.__setattr__(self, "attention_scale", scale)
        slopes = checked_slopes(self.alibi_slopes, self.positions)
        object.__setattr__(self, "alibi_slopes", slopes)

    def _learned_rows(self) -> int | None:
        """The rows of a learned position table; None: the model reads any length."""
        return self.context_length if self.positions == "learned" else None

    def _shapes(self) -> dict[str, tuple[int, int]]:
        """The shape of every table, by name: what `parameters()` holds."""
        d = self.d_model
        shapes = {"token_embedding": (self.vocab_size, d)}
        if self.positions == "learned":
            shapes["position_embedding"] = (self.context_length, d)
        shapes.update(W_q=(d, d), W_k=(d, d), W_v=(d, d), W_out=(d, self.vocab_size))
        return shapes

    def _drawn_tables(self) -> dict[str, Matrix]:
        """The tables of chapters 2 and 3, and W ~ U(-1/sqrt(d), 1/sqrt(d)) as in chapter 4."""
        d, seed = self.d_model, self.seed
        weights = {"token_embedding": Embedding(self.vocab_size, d, seed=seed).weight}
        if self.positions == "learned":
            weights["position_embedding"] = LearnedPositionalEmbedding(
                self.context_length, d, seed=seed + 1).weight
        rng = random.Random(seed + 2)  # this model's own generator for its matrices
        limit = 1 / math.sqrt(d)
        for name, cols in (("W_q", d), ("W_k", d), ("W_v", d), ("W_out", self.vocab_size)):
            weights[name] = Matrix([[rng.uniform(-limit, limit) for _ in range(cols)]
                                    for _ in range(d)])  # (d_model, cols)
        return weights

    def parameters(self) -> dict[str, Matrix]:
        """Every table that training changes, by name (a new dict; the tables are immutable)."""
        assert self.weights is not None  # __post_init__ fills it
        return dict(self.weights)

    def with_parameters(self, parameters: Mapping[str, Matrix]) -> TinyModel:
        """A new model with the same settings and these tables (names and shapes as now)."""
        return dataclasses.replace(self, weights=parameters)

    def with_frequencies(self, frequencies: Vector, *, attention_scale: float = 1.0) -> TinyModel:
        """The same model, its RoPE turning q and k by these theta_i (and scaling them).

        >>> model = TinyModel(5, 4, 8, positions="rope")
        >>> model.frequencies                    # 10000**(-2i/4), i = 0, 1
        Vector([1.0, 0.01], shape=(2,))
        >>> model.with_frequencies(Vector([0.25, 0.0025])).frequencies   # / 4: PI
        Vector([0.25, 0.0025], shape=(2,))

        `rope_frequencies` (chapter 7) makes both: a model trained at T reads 4T with,
        say, rope_frequencies(d, method="linear", factor=4). q and k are each multiplied
        by attention_scale, so the scores by its square.
        """
        return dataclasses.replace(self, frequencies=frequencies, attention_scale=attention_scale)

    def with_alibi_slopes(self, slopes: tuple[float, ...]) -> TinyModel:
        """The same model, its ALiBi scores getting -m |i - j| with m = slopes[0].

        >>> TinyModel(5, 4, 8, positions="alibi").with_alibi_slopes((2.0,)).alibi_slopes
        (2.0,)

        One slope per head (this model has one; 1/2 unless given). Training keeps it.
        """
        return dataclasses.replace(self, alibi_slopes=slopes)

    def logits(self, ids: list[int]) -> Matrix:
        """The scores of every token kind at every position: shape (len(ids), vocab_size)."""
        check_sequences([ids], "ids", self.vocab_size, self._learned_rows(), self.frequencies)
        return _forward(self, [ids]).logits

    def loss_and_gradients(self, inputs: list[list[int]],
                           targets: list[list[int]]) -> tuple[float, dict[str, Matrix]]:
        """The mean cross-entropy over every target that is not -100, and its gradients."""
        result = self.backprop(inputs, targets)
        return result.loss, result.gradients

    def backprop(self, inputs: list[list[int]], targets: list[list[int]]) -> Backprop:
        """Forward, then backward: the loss, every gradient, and dloss/dx of each sequence.

        inputs[b] is a sequence of IDs; targets[b][t] is the ID to predict at
        position t of it, or -100 to skip that position.
        """
        check_sequences(inputs, "inputs", self.vocab_size, self._learned_rows(),
                        self.frequencies)
        check_targets(inputs, targets, self.vocab_size)
        forward = _forward(self, inputs)
        return _backward(self, forward, targets)

    def __getstate__(self) -> dict[str, Any]:
        """For pickle and deepcopy: the tables as a dict (a read-only view cannot be pickled)."""
        return {**self.__dict__, "weights": self.parameters()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, weights=MappingProxyType(state["weights"]))

    def __hash__(self) -> int:
        """Equal models hash alike: the settings and every table, in order of name."""
        return hash((self.vocab_size, self.d_model, self.context_length, self.positions,
                     self.causal, self.base, self.frequencies, self.attention_scale,
                     self.alibi_slopes, tuple(sorted(self.parameters().items()))))

    def __repr__(self) -> str:
        text = (f"TinyModel(vocab_size={self.vocab_size}, d_model={self.d_model}, "
                f"context_length={self.context_length}, positions={self.positions!r}")
        plain_rope = (rotary_thetas(self.d_model, self.base), 1.0)
        stretched = (self.frequencies, self.attention_scale) != plain_rope  # with_frequencies
        if self.frequencies is not None and stretched:
            text += (f", frequencies={self.frequencies!r}, "
                     f"attention_scale={self.attention_scale:.5g}")
        if self.alibi_slopes is not None and self.alibi_slopes != (ALIBI_SLOPE,):
            text += f", alibi_slopes={self.alibi_slopes!r}"
        return text + ")"


# Forward: the lines of the module docstring, for a batch of sequences


@dataclass(frozen=True)
class _Forward:
    """What the backward pass reads: the inputs and every intermediate, by name."""

    ids: list[list[int]]
    x: Matrix  # (N, d): every sequence's input rows, stacked
    q: list[Matrix]  # per sequence (n, d), turned by RoPE if the model uses it
    k: list[Matrix]
    v: list[Matrix]
    weights: list[Matrix]  # per sequence (n, n)
    h: Matrix  # (N, d): attention's output rows, stacked
    logits: Matrix  # (N, vocab_size)


def _forward(model: TinyModel, inputs: list[list[int]]) -> _Forward:
    weights = model.parameters()
    E = weights["token_embedding"]
    sequences = []
    for ids in inputs:
        x = Matrix([E.rows[token_id] for token_id in ids])  # (n, d): E[ids], a lookup
        if model.positions == "learned":
            x = x + weights["position_embedding"][:len(ids)]  # + P[0 .. n-1]
        elif model.positions == "sinusoidal":
            x = x + sinusoidal_encoding(len(ids), model.d_model, base=model.base)
        sequences.append(x)
    X = _stack(sequences)  # (N, d): all sequences, row after row
    Q, K, V = X @ weights["W_q"], X @ weights["W_k"], X @ weights["W_v"]  # (N, d) each
    qs, ks, vs, attention_weights, outputs = [], [], [], [], []
    for start, stop in _spans(inputs):
        q, k, v = Q[start:stop], K[start:stop], V[start:stop]  # one sequence: (n, d)
        if model.frequencies is not None:  # RoPE: turn pair i by pos * theta_i
            q = apply_rotary(q, frequencies=model.frequencies)
            k = apply_rotary(k, frequencies=model.frequencies)
            if model.attention_scale != 1.0:  # YaRN's: the scores by its square
                q, k = q * model.attention_scale, k * model.attention_scale
        bias = (alibi_bias(stop - start, model.alibi_slopes[0], causal=False)
                if model.alibi_slopes is not None else None)  # ALiBi: -m |i - j|
        attention = scaled_dot_product_attention(q, k, v, causal=model.causal, bias=bias)
        qs.append(q)
        ks.append(k)
        vs.append(v)
        attention_weights.append(attention.weights)
        outputs.append(attention.output)
    H = _stack(outputs)  # (N, d)
    logits = H @ weights["W_out"]  # (N, vocab_size)
    return _Forward(inputs, X, qs, ks, vs, attention_weights, H, logits)


def _stack(matrices: list[Matrix]) -> Matrix:
    """The rows of every matrix, one after another: (n_1 + n_2 + ..., d)."""
    return Matrix([row for matrix in matrices for row in matrix.rows])


def _spans(inputs: list[list[int]]) -> list[tuple[int, int]]:
    """Where each sequence's rows sit in the stacked table: rows start .. stop - 1."""
    stops = list(itertools.accumulate(len(ids) for ids in inputs))  # n_1, n_1 + n_2, ...
    return list(zip([0] + stops[:-1], stops))


# Backward: the same lines in reverse, one rule of minipe/gradients.py per line


def _backward(model: TinyModel, forward: _Forward, targets: list[list[int]]) -> Backprop:
    weights = model.parameters()
    flat_targets = [target for wanted in targets for target in wanted]
    loss, d_logits = cross_entropy(forward.logits, flat_targets)
    d_H, d_W_out = matmul_backward(forward.h, weights["W_out"], d_logits)
    d_qs, d_ks, d_vs = [], [], []
    for b, (start, stop) in enumerate(_spans(forward.ids)):
        q, k, v, w = forward.q[b], forward.k[b], forward.v[b], forward.weights[b]
        d_w, d_v = matmul_backward(w, v, d_H[start:stop])  # h = weights v
        d_scores = softmax_backward(w, d_w)  # the mask and ALiBi are constants: no gradient
        d_scaled = d_scores / math.sqrt(model.d_model)  # scores = (q k^T) / sqrt(d)
        d_q = d_scaled @ k  # (q k^T): dq = d(q k^T) k,  dk = d(q k^T)^T q
        d_k = d_scaled.T @ q
        if model.frequencies is not None:
            thetas, scale = list(model.frequencies), model.attention_scale
            d_q = rotary_backward(d_q, thetas, scale)
            d_k = rotary_backward(d_k, thetas, scale)
        d_qs.append(d_q)
        d_ks.append(d_k)
        d_vs.append(d_v)
    X = forward.x
    d_X_q, d_W_q = matmul_backward(X, weights["W_q"], _stack(d_qs))  # Q = X W_q
    d_X_k, d_W_k = matmul_backward(X, weights["W_k"], _stack(d_ks))
    d_X_v, d_W_v = matmul_backward(X, weights["W_v"], _stack(d_vs))
    d_X = d_X_q + d_X_k + d_X_v  # x feeds all three: their gradients add
    d_inputs = [d_X[start:stop] for start, stop in _spans(forward.ids)]
    gradients = {"token_embedding": lookup_backward(forward.ids, d_X, model.vocab_size)}
    if model.positions == "learned":
        gradients["position_embedding"] = broadcast_backward(d_inputs, model.context_length)
    # sinusoidal: d_inputs reach PE too, but it is a formula, not a parameter (no update)
    gradients.update(W_q=d_W_q, W_k=d_W_k, W_v=d_W_v, W_out=d_W_out)
    return Backprop(loss, gradients, d_inputs)
