"""Chapter 9 - training: backpropagation written out, for a model small enough to read.

Chapters 1-6 build a transformer's input from tables drawn at random. Here
the tables learn. `TinyModel` is one attention head over token embeddings,
with any kind of position from chapters 3, 5 and 6, and a linear read-out
that scores every token kind. For one sequence of n IDs (d = d_model):

    x       = E[ids] + P[0 .. n-1]             (n, d)  E: token_embedding; P: the
                                                       learned or sinusoidal table
    q, k, v = x W_q,  x W_k,  x W_v            (n, d)  RoPE turns q and k (chapter 5)
                                                       by theta_i; with_frequencies
                                                       stretches them (chapter 7)
    scores  = q k^T / sqrt(d) + alibi + mask   (n, n)  ALiBi: -|i - j| / 2 (chapter 6)
    weights = softmax(scores), row by row      (n, n)
    h       = weights v                        (n, d)
    logits  = h W_out                          (n, vocab_size)
    loss    = mean over the targets t != -100 of -log softmax(logits)[t]

Backpropagation runs the same lines backwards, one function per line. dX
is dloss/dX, a table of the shape of X:

    dlogits  = (softmax(logits) - onehot(t)) / count      _cross_entropy
    dh       = dlogits W_out^T,  dW_out = h^T dlogits     _matmul_backward
    dweights = dh v^T,           dv = weights^T dh        _matmul_backward
    dscores  = weights * (dweights - rowsum(weights * dweights))   _softmax_backward
    dq, dk   = dscores k / sqrt(d),  dscores^T q / sqrt(d)         (RoPE: turned back)
    dx       = dq W_q^T + dk W_k^T + dv W_v^T,  dW_q = x^T dq ...   _matmul_backward
    dE[id]   = the sum of the rows of dx whose token is id          _lookup_backward
    dP[t]    = the sum over the batch of row t of dx                _broadcast_backward

The last line is lecture 001's broadcast run backwards: the one table P is
added to every sequence, so each sequence's dx flows back into the same
rows. A sinusoidal table gets the same dx, and nothing holds it: it is a
formula, not a parameter, so `parameters()` has no entry for it.

The sequences of a batch are stacked row after row into one (N, d) table X,
so that x W_q for all of them is one matmul, and x^T dq summed over the
batch is one too. Attention itself runs sequence by sequence.

Training (chapter 9's second module, minipe/lab.py) repeats: loss and
gradients, then a step of Adam.

Left out: layers, heads, layer norm, MLPs, dropout, biases. One head is
enough to show what positions do.
"""

from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass, field
from typing import Mapping

from minipe.arrays import Matrix, Vector
from minipe.attention import scaled_dot_product_attention
from minipe.checks import (
    check_frequencies,
    check_parameters,
    check_sequences,
    check_targets,
    checked_base,
    checked_flag,
    checked_number,
    checked_size,
)
from minipe.context import rope_frequencies
from minipe.embedding import Embedding
from minipe.positional import LearnedPositionalEmbedding, sinusoidal_encoding
from minipe.relative import alibi_bias
from minipe.rotary import apply_rotary

POSITIONS = ("none", "learned", "sinusoidal", "rope", "alibi")
IGNORE = -100  # a target that counts for nothing: PyTorch's ignore_index
ALIBI_SLOPE = 0.5  # m in -m * |i - j|


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
    `run()`. `context_length` bounds only the learned table; the other kinds
    read sequences of any length. A model never changes: training makes new
    ones (`with_parameters`), and so does stretching RoPE (`with_frequencies`).
    """

    vocab_size: int
    d_model: int
    context_length: int
    positions: str = field(default="learned", kw_only=True)
    causal: bool = field(default=True, kw_only=True)
    base: float = field(default=10000.0, kw_only=True)
    seed: int = field(default=0, kw_only=True)
    _weights: dict[str, Matrix] = field(init=False)
    frequencies: Vector | None = field(init=False)  # RoPE's theta_i; None without RoPE
    attention_scale: float = field(init=False)  # q and k are multiplied by it (YaRN's)
    alibi_slopes: tuple[float, ...] | None = field(init=False)  # m; None without ALiBi

    def __post_init__(self) -> None:
        checked_size(self.vocab_size, "vocab_size")
        checked_size(self.d_model, "d_model")
        checked_size(self.context_length, "context_length")
        checked_size(self.seed, "seed", minimum=0)
        checked_flag(self.causal, "causal")
        object.__setattr__(self, "base", checked_base(self.base))
        if self.positions not in POSITIONS:
            raise ValueError(f"positions must be one of {', '.join(POSITIONS)}; "
                             f"got {self.positions!r}")
        if self.positions == "rope" and self.d_model % 2:
            raise ValueError(f"RoPE turns q and k two numbers at a time, so d_model must be "
                             f"even; got d_model={self.d_model}")
        object.__setattr__(self, "_weights", self._initial_weights())
        thetas = rope_frequencies(self.d_model, base=self.base)[0] \
            if self.positions == "rope" else None  # base**(-2i/d), as in chapter 5
        object.__setattr__(self, "frequencies", thetas)
        object.__setattr__(self, "attention_scale", 1.0)
        slopes = (ALIBI_SLOPE,) if self.positions == "alibi" else None  # one head, one m
        object.__setattr__(self, "alibi_slopes", slopes)

    def _initial_weights(self) -> dict[str, Matrix]:
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
        return dict(self._weights)

    def with_parameters(self, parameters: Mapping[str, Matrix]) -> TinyModel:
        """A new model with the same settings and these tables (names and shapes as now)."""
        check_parameters(parameters, {name: W.shape for name, W in self._weights.items()},
                         Matrix)
        model = copy.copy(self)
        object.__setattr__(model, "_weights", {name: parameters[name] for name in self._weights})
        return model

    def with_frequencies(self, frequencies: Vector, *,
                         attention_scale: float = 1.0) -> TinyModel:
        """The same model, its RoPE turning q and k by these theta_i (and scaling them).

        >>> model = TinyModel(5, 4, 8, positions="rope")
        >>> model.frequencies                    # 10000**(-2i/4), i = 0, 1
        Vector([1.0, 0.01], shape=(2,))
        >>> model.with_frequencies(Vector([0.25, 0.0025])).frequencies   # / 4: PI
        Vector([0.25, 0.0025], shape=(2,))

        `rope_frequencies` (chapter 7) makes both: a model trained at T reads
        4T with, say, rope_frequencies(d, method="linear", factor=4). q and k
        are each multiplied by attention_scale, so the scores by its square.
        """
        if self.frequencies is None:
            raise ValueError(f"only a RoPE model turns q and k by frequencies theta_i; this "
                             f"one has positions={self.positions!r}")
        check_frequencies(frequencies, self.d_model // 2, Vector, "d_model/2")
        scale = checked_number(attention_scale, "attention_scale")
        if not 0 < scale < math.inf:
            raise ValueError(f"attention_scale multiplies q and k, so it must be a finite "
                             f"number > 0 (1.0 leaves them alone), got {scale}")
        model = copy.copy(self)
        object.__setattr__(model, "frequencies", frequencies)
        object.__setattr__(model, "attention_scale", float(scale))
        return model

    def with_alibi_slopes(self, slopes: tuple[float, ...]) -> TinyModel:
        """The same model, its ALiBi scores getting -m |i - j| with m = slopes[0].

        >>> TinyModel(5, 4, 8, positions="alibi").alibi_slopes
        (0.5,)
        >>> TinyModel(5, 4, 8, positions="alibi").with_alibi_slopes((2.0,)).alibi_slopes
        (2.0,)

        One slope per head: this model has one head. Training keeps the slopes.
        """
        if self.alibi_slopes is None:
            raise ValueError(f"only an ALiBi model has slopes m; this one has "
                             f"positions={self.positions!r}")
        if not isinstance(slopes, (tuple, list)) or len(slopes) != len(self.alibi_slopes):
            raise ValueError(f"slopes must be a tuple of {len(self.alibi_slopes)} number(s), "
                             f"one m per head, such as (0.5,); got {slopes!r:.60}")
        checked = tuple(checked_number(m, f"slopes[{h}]") for h, m in enumerate(slopes))
        if not all(0 < m < math.inf for m in checked):
            raise ValueError(f"each ALiBi slope m must be a finite number > 0 (the penalty "
                             f"-m |i - j| grows with distance), got {slopes!r}")
        model = copy.copy(self)
        object.__setattr__(model, "alibi_slopes", checked)
        return model

    def logits(self, ids: list[int]) -> Matrix:
        """The scores of every token kind at every position: shape (len(ids), vocab_size)."""
        check_sequences([ids], "ids", self.vocab_size, self._rows_of_positions())
        return _forward(self, [ids]).logits

    def loss_and_gradients(
        self, inputs: list[list[int]], targets: list[list[int]]
    ) -> tuple[float, dict[str, Matrix]]:
        """The mean cross-entropy over every target that is not -100, and its gradients."""
        result = self.backprop(inputs, targets)
        return result.loss, result.gradients

    def backprop(self, inputs: list[list[int]], targets: list[list[int]]) -> Backprop:
        """Forward, then backward: the loss, every gradient, and dloss/dx of each sequence.

        inputs[b] is a sequence of IDs; targets[b][t] is the ID to predict at
        position t of it, or -100 to skip that position.
        """
        check_sequences(inputs, "inputs", self.vocab_size, self._rows_of_positions())
        check_targets(inputs, targets, self.vocab_size)
        forward = _forward(self, inputs)
        return _backward(self, forward, targets)

    def _rows_of_positions(self) -> int | None:
        """How many positions the model can read: a learned table's rows, else no limit."""
        return self.context_length if self.positions == "learned" else None

    def __repr__(self) -> str:
        text = (f"TinyModel(vocab_size={self.vocab_size}, d_model={self.d_model}, "
                f"context_length={self.context_length}, positions={self.positions!r}")
        plain_rope = (rope_frequencies(self.d_model, base=self.base)[0], 1.0)
        if self.frequencies is not None and \
                (self.frequencies, self.attention_scale) != plain_rope:  # with_frequencies
            text += (f", frequencies={self.frequencies!r}, "
                     f"attention_scale={self.attention_scale:.5g}")
        if self.alibi_slopes is not None and self.alibi_slopes != (ALIBI_SLOPE,):
            text += f", alibi_slopes={self.alibi_slopes!r}"
        return text + ")"


# ---------------------------------------------------------------------------
# Forward: the lines of the module docstring, for a batch of sequences
# ---------------------------------------------------------------------------


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
    weights = model._weights
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
        n = stop - start
        bias = (alibi_bias(n, model.alibi_slopes[0], causal=False)
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
    spans, start = [], 0
    for ids in inputs:
        spans.append((start, start + len(ids)))
        start += len(ids)
    return spans


# ---------------------------------------------------------------------------
# Backward: the same lines in reverse, one function per line
# ---------------------------------------------------------------------------


def _backward(model: TinyModel, forward: _Forward, targets: list[list[int]]) -> Backprop:
    weights = model._weights
    d = model.d_model
    flat_targets = [target for wanted in targets for target in wanted]
    loss, d_logits = _cross_entropy(forward.logits, flat_targets)
    d_H, d_W_out = _matmul_backward(forward.h, weights["W_out"], d_logits)
    d_qs, d_ks, d_vs = [], [], []
    for b, (start, stop) in enumerate(_spans(forward.ids)):
        q, k, v, w = forward.q[b], forward.k[b], forward.v[b], forward.weights[b]
        d_w, d_v = _matmul_backward(w, v, d_H[start:stop])  # h = weights v
        d_scores = _softmax_backward(w, d_w)  # the mask and ALiBi are constants: no gradient
        d_scaled = d_scores / math.sqrt(d)  # scores = (q k^T) / sqrt(d)
        d_q = d_scaled @ k  # (q k^T): dq = d(q k^T) k,  dk = d(q k^T)^T q
        d_k = d_scaled.T @ q
        if model.frequencies is not None:
            thetas, scale = list(model.frequencies), model.attention_scale
            d_q = _rotary_backward(d_q, thetas, scale)
            d_k = _rotary_backward(d_k, thetas, scale)
        d_qs.append(d_q)
        d_ks.append(d_k)
        d_vs.append(d_v)
    X = forward.x
    d_X_q, d_W_q = _matmul_backward(X, weights["W_q"], _stack(d_qs))  # Q = X W_q
    d_X_k, d_W_k = _matmul_backward(X, weights["W_k"], _stack(d_ks))
    d_X_v, d_W_v = _matmul_backward(X, weights["W_v"], _stack(d_vs))
    d_X = d_X_q + d_X_k + d_X_v  # x feeds all three: their gradients add
    d_inputs = [d_X[start:stop] for start, stop in _spans(forward.ids)]
    gradients = {"token_embedding": _lookup_backward(forward.ids, d_X, model.vocab_size)}
    if model.positions == "learned":
        gradients["position_embedding"] = _broadcast_backward(d_inputs, model.context_length)
    # sinusoidal: the same d_inputs reach PE, but PE is a formula, not a parameter: no update
    gradients.update(W_q=d_W_q, W_k=d_W_k, W_v=d_W_v, W_out=d_W_out)
    return Backprop(loss, gradients, d_inputs)


def _cross_entropy(logits: Matrix, targets: list[int]) -> tuple[float, Matrix]:
    """loss = mean over rows with t != -100 of -log softmax(z)[t] = log sum_j e^z_j - z_t;
    dloss/dz = (softmax(z) - onehot(t)) / count, and 0 on skipped rows."""
    count = len(targets) - targets.count(IGNORE)
    total = 0.0
    d_rows = []
    for z, t in zip(logits.rows, targets):
        if t == IGNORE:
            d_rows.append([0.0] * len(z))
            continue
        top = max(z)  # e^(z_j - top) <= 1: no overflow, and top comes back in the log
        exps = [math.exp(z_j - top) for z_j in z]
        total_exp = sum(exps)
        total += top + math.log(total_exp) - z[t]  # log sum_j e^z_j - z_t
        p = [e / total_exp for e in exps]  # softmax(z)
        p[t] -= 1.0  # softmax(z) - onehot(t)
        d_rows.append([p_j / count for p_j in p])
    return total / count, Matrix(d_rows)


def _matmul_backward(a: Matrix, b: Matrix, d_out: Matrix) -> tuple[Matrix, Matrix]:
    """out = a b  ->  da = d_out b^T,  db = a^T d_out."""
    return d_out @ b.T, a.T @ d_out


def _softmax_backward(weights: Matrix, d_weights: Matrix) -> Matrix:
    """w = softmax(s) per row  ->  ds_j = w_j (dw_j - sum_k w_k dw_k)."""
    rows = []
    for w, dw in zip(weights.rows, d_weights.rows):
        through = sum(w_k * dw_k for w_k, dw_k in zip(w, dw))  # sum_k w_k dw_k
        rows.append([w_j * (dw_j - through) for w_j, dw_j in zip(w, dw)])
    return Matrix(rows)


def _rotary_backward(d_turned: Matrix, thetas: list[float], scale: float) -> Matrix:
    """RoPE turns pair i of row pos by a = pos * theta_i, then scales by s (YaRN's, else 1);
    the gradient scales by s and turns back, by -a, with the forward pass's theta_i:
        dx[2i]   = s ( dx'[2i] cos a + dx'[2i+1] sin a)
        dx[2i+1] = s (-dx'[2i] sin a + dx'[2i+1] cos a)"""
    rows = []
    for pos, row in enumerate(d_turned.rows):
        turned_back = list(row)
        for i, theta in enumerate(thetas):
            angle = pos * theta
            cos_a, sin_a = scale * math.cos(angle), scale * math.sin(angle)
            first, second = row[2 * i], row[2 * i + 1]
            turned_back[2 * i] = first * cos_a + second * sin_a
            turned_back[2 * i + 1] = -first * sin_a + second * cos_a
        rows.append(turned_back)
    return Matrix(rows)


def _lookup_backward(ids: list[list[int]], d_X: Matrix, vocab_size: int) -> Matrix:
    """x = E[id] copies row id of E: dE[id] = the sum of the rows of dx whose token is id."""
    d_E = [[0.0] * d_X.shape[1] for _ in range(vocab_size)]
    all_ids = [token_id for sequence in ids for token_id in sequence]
    for token_id, d_x in zip(all_ids, d_X.rows):
        d_E[token_id] = [total + part for total, part in zip(d_E[token_id], d_x)]
    return Matrix(d_E)  # (vocab_size, d); rows of IDs not in the batch stay 0


def _broadcast_backward(d_inputs: list[Matrix], context_length: int) -> Matrix:
    """x_b = E[ids_b] + P for every sequence b: the one table P was broadcast over the
    batch, so dP[t] = sum over b of dx_b[t] (rows past the longest sequence stay 0)."""
    d_P = [[0.0] * d_inputs[0].shape[1] for _ in range(context_length)]
    for d_x in d_inputs:  # every sequence in the batch ...
        for t, d_x_t in enumerate(d_x.rows):  # ... sends row t back into row t of P
            d_P[t] = [total + part for total, part in zip(d_P[t], d_x_t)]
    return Matrix(d_P)  # (context_length, d)
