"""Chapter 10 - the block: layers of attention and MLPs on a residual stream.

TinyModel with num_layers=1, mlp=False and norm=None is one attention layer
(minipe/training/passes.py). Any other setting makes a block model, GPT-2's
pre-norm residual stack (nanoGPT's `Block`):

    x       = E[ids] + P[pos]                      (N, d)  P added once, at the bottom
    for each layer l = 0 .. num_layers - 1:
        a   = norm_1(x)                            (N, d)  layer_norm, rms_norm, or x itself
        x   = x + heads(a W_q, a W_k, a W_v)       (N, d)  RoPE, ALiBi, masks in every layer
        m   = norm_2(x)                            (N, d)  if mlp:
        x   = x + gelu(m W_1) W_2                  (N, d)  through (N, 4d)
    logits  = norm_final(x) W_out                  (N, vocab_size)

x is the residual stream: each layer reads it and adds to it, and what it
added stays for every layer above to read. Backpropagation runs the lines in
reverse (minipe/training/block.py holds the norm and GELU rules). A residual
line x = x + f(x) passes dx down untouched and adds what f's branch sends:

    dg, dW_2  = dx W_2^T,  g^T dx                  matmul_backward (g = gelu(u))
    du        = gelu_backward(u, dg);  dm, dW_1 = du W_1^T, m^T du
    dx       += norm_backward(dm)                  x fed both the branch and the sum
    dq, dk, dv = attend_backward(dx)               the heads, as in passes.py
    dx       += norm_backward(dq W_q^T + dk W_k^T + dv W_v^T)

Parameters are named by layer: "layer0.W_q", "layer0.norm_1.weight", ..., and
"norm_final.weight", "W_out" on top; a norm's weight and bias are (1, d).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Protocol

from minipe.arrays import Matrix
from minipe.training.block import (gelu, gelu_backward, layer_norm, layer_norm_backward,
                                   rms_norm, rms_norm_backward)
from minipe.training.gradients import cross_entropy, matmul_backward
from minipe.training.heads import HeadsPass, attend, attend_backward
from minipe.training.passes import (Backprop, ForwardPass, Inputs, Model, embedded,
                                    embedding_gradients, spans)

LAYER_NORM_EPS, RMS_NORM_EPS = 1e-5, 1e-6  # torch's F.layer_norm's, Llama's rms_norm's


class BlockModel(Model, Protocol):
    """What a block model's passes read (TinyModel has all of it)."""

    @property
    def num_layers(self) -> int: ...
    @property
    def mlp(self) -> bool: ...
    @property
    def norm(self) -> str | None: ...  # "layer", "rms", or None


@dataclass(frozen=True)
class LayerPass:
    """One layer, forward: what its backward pass reads."""

    x: Matrix  # (N, d): the stream coming in
    a: Matrix  # (N, d): norm_1(x), what the heads read
    heads: HeadsPass  # q, k, v, weights per head (minipe/training/heads.py)
    mid: Matrix  # (N, d): x + the heads' output
    m: Matrix | None  # (N, d): norm_2(mid), the MLP's input (None: no MLP)
    u: Matrix | None  # (N, 4d): m W_1
    g: Matrix | None  # (N, 4d): gelu(u)
    out: Matrix  # (N, d): the stream going out, mid + g W_2 (mid without an MLP)


@dataclass(frozen=True)
class BlockPass:
    """A block model's batch forward: the inputs, every layer, the top."""

    given: Inputs
    rows_at: list[int]  # (N,): the position of every row
    x: Matrix  # (N, d): E[ids] + P[pos]
    layers: list[LayerPass]
    top: Matrix  # (N, d): norm_final(x) after the last layer
    logits: Matrix  # (N, vocab_size)


def is_plain(model: BlockModel) -> bool:
    """One attention layer, no MLP, no norm: passes.py's model, number for number."""
    return model.num_layers == 1 and not model.mlp and model.norm is None


def block_shapes(model: BlockModel) -> dict[str, tuple[int, int]]:
    """The shape of every table of a block model above its embeddings, by name, bottom up."""
    d = model.d_model
    norms = {"layer": (".weight", ".bias"), "rms": (".weight",), None: ()}[model.norm]
    shapes = {}
    for layer in range(model.num_layers):  # layer0.norm_1.weight, layer0.W_q, ...
        block = {"norm_1" + part: (1, d) for part in norms}
        block.update(W_q=(d, d), W_k=(d, d), W_v=(d, d))
        if model.mlp:
            block.update({"norm_2" + part: (1, d) for part in norms})
            block.update(W_1=(d, 4 * d), W_2=(4 * d, d))  # d -> 4d -> d
        shapes.update({f"layer{layer}.{name}": shape for name, shape in block.items()})
    shapes.update({"norm_final" + part: (1, d) for part in norms})
    shapes["W_out"] = (d, model.vocab_size)
    return shapes


def forward_block(model: BlockModel, given: Inputs) -> BlockPass:
    weights = model.parameters()
    rows_at, X = embedded(model, given)  # (N,), (N, d): x = E[ids] + P[pos], once
    stream, layers = X, []
    for layer in range(model.num_layers):
        passed = layer_forward(model, f"layer{layer}.", stream, given, rows_at)
        layers.append(passed)
        stream = passed.out  # (N, d): what the next layer reads
    top = normed(model, "norm_final", stream)  # (N, d)
    logits = top @ weights["W_out"]  # (N, vocab_size)
    return BlockPass(given, rows_at, X, layers, top, logits)


def layer_forward(model: BlockModel, name: str, x: Matrix, given: Inputs,
                  rows_at: list[int]) -> LayerPass:
    """One layer of the stack: x + heads(norm_1(x)), then + gelu(norm_2 W_1) W_2."""
    weights = model.parameters()
    a = normed(model, name + "norm_1", x)  # (N, d)
    Q, K, V = a @ weights[name + "W_q"], a @ weights[name + "W_k"], a @ weights[name + "W_v"]
    heads = attend(model, Q, K, V, spans(given.sequences), given.masks,
                   given.each_position(), rows_at)  # per head, as the one-layer model's
    mid = x + heads.output  # (N, d): the residual line
    if not model.mlp:
        return LayerPass(x, a, heads, mid, None, None, None, mid)
    m = normed(model, name + "norm_2", mid)  # (N, d)
    u = m @ weights[name + "W_1"]  # (N, 4d)
    g = gelu(u)  # (N, 4d)
    return LayerPass(x, a, heads, mid, m, u, g, mid + g @ weights[name + "W_2"])


def normed(model: BlockModel, name: str, x: Matrix) -> Matrix:
    """norm(x) with the tables called name: layer_norm, rms_norm, or x itself (norm=None)."""
    if model.norm is None:
        return x
    weights = model.parameters()
    if model.norm == "layer":
        return layer_norm(x, weights[name + ".weight"], weights[name + ".bias"], LAYER_NORM_EPS)
    return rms_norm(x, weights[name + ".weight"], RMS_NORM_EPS)


def backward_block(model: BlockModel, recorded: BlockPass, targets: list[list[int]]
                   ) -> Backprop:
    weights = model.parameters()
    flat_targets = list(itertools.chain.from_iterable(targets))  # (N,): row by row
    loss, d_logits = cross_entropy(recorded.logits, flat_targets)
    d_top, d_W_out = matmul_backward(recorded.top, weights["W_out"], d_logits)
    gradients: dict[str, Matrix] = {}
    last = recorded.layers[-1].out  # the stream norm_final read
    d_x = normed_backward(model, "norm_final", last, d_top, gradients)
    for layer, passed in reversed(list(enumerate(recorded.layers))):
        d_x = layer_backward(model, f"layer{layer}.", passed, d_x, recorded.rows_at, gradients)
    d_inputs = [d_x[start:stop] for start, stop in spans(recorded.given.sequences)]
    gradients.update(embedding_gradients(model, recorded.given, d_x, d_inputs), W_out=d_W_out)
    return Backprop(loss, {name: gradients[name] for name in weights}, d_inputs)


def layer_backward(model: BlockModel, name: str, passed: LayerPass, d_out: Matrix,
                   rows_at: list[int], gradients: dict[str, Matrix]) -> Matrix:
    """One layer backwards: dloss/d(out) (N, d) -> dloss/dx (N, d), its gradients added
    to `gradients` by name."""
    weights = model.parameters()
    d_mid = d_out  # out = mid + g W_2: the residual passes d_out to mid as it is
    if passed.m is not None and passed.u is not None and passed.g is not None:
        d_g, gradients[name + "W_2"] = matmul_backward(passed.g, weights[name + "W_2"], d_out)
        d_u = gelu_backward(passed.u, d_g)  # g = gelu(u)
        d_m, gradients[name + "W_1"] = matmul_backward(passed.m, weights[name + "W_1"], d_u)
        d_mid = d_out + normed_backward(model, name + "norm_2", passed.mid, d_m, gradients)
    d_Q, d_K, d_V = attend_backward(model, passed.heads, d_mid, rows_at)  # mid = x + heads
    d_a_q, gradients[name + "W_q"] = matmul_backward(passed.a, weights[name + "W_q"], d_Q)
    d_a_k, gradients[name + "W_k"] = matmul_backward(passed.a, weights[name + "W_k"], d_K)
    d_a_v, gradients[name + "W_v"] = matmul_backward(passed.a, weights[name + "W_v"], d_V)
    d_a = d_a_q + d_a_k + d_a_v  # a feeds all three: their gradients add
    return d_mid + normed_backward(model, name + "norm_1", passed.x, d_a, gradients)


def normed_backward(model: BlockModel, name: str, x: Matrix, d_out: Matrix,
                    gradients: dict[str, Matrix]) -> Matrix:
    """`normed` backwards: dloss/dx, the norm's weight and bias gradients added by name."""
    if model.norm is None:
        return d_out
    weight = model.parameters()[name + ".weight"]  # (1, d)
    if model.norm == "layer":
        d_x, gradients[name + ".weight"], gradients[name + ".bias"] = layer_norm_backward(
            x, weight, d_out, LAYER_NORM_EPS)
        return d_x
    d_x, gradients[name + ".weight"] = rms_norm_backward(x, weight, d_out, RMS_NORM_EPS)
    return d_x


# What a lesson reads: the residual stream and the attention weights of every layer


def residuals(passed: ForwardPass | BlockPass) -> list[Matrix]:
    """[x_0, the stream after layer 0, ..., after the last]: for the one-layer model,
    [x, h] (its heads' output, which it reads out without a residual)."""
    if isinstance(passed, ForwardPass):
        return [passed.x, passed.heads.output]
    return [passed.x] + [layer.out for layer in passed.layers]


def layer_weights(passed: ForwardPass | BlockPass) -> list[list[Matrix]]:
    """Per layer, per head, the (n, n) attention weights of the first sequence."""
    heads = [passed.heads] if isinstance(passed, ForwardPass) else [
        layer.heads for layer in passed.layers]
    return [[weights[0] for weights in passed_heads.weights] for passed_heads in heads]
