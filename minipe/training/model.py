"""Chapter 10 - training: a model small enough to read, and backpropagation written out.

The chapters before build a transformer's input from tables drawn at random.
Here the tables learn. `TinyModel` is attention over token embeddings, with
any kind of position from chapters 3, 5 and 6, and a linear read-out that
scores every token kind:

    x = E[ids] + P[pos];  q, k, v = x W_q, x W_k, x W_v;  h = attention, per head;
    logits = h W_out;  loss = the mean cross-entropy over the targets t != -100

num_layers, mlp and norm make it a block model: layers of attention (and
MLPs), each adding to a residual stream, normed before each (pre-norm, GPT-2's)
when norm is "layer" or "rms" (minipe/training/layers.py).

This module is the model: its settings, its tables, its door (the checks live in
minipe/training/checks.py; how its tables are first drawn, minipe/training/tables.py).
Its forward and backward passes, line by line with one rule of
minipe/training/gradients.py per line, are minipe/training/passes.py (a block model's,
minipe/training/layers.py); the heads, minipe/training/heads.py; writing a text with a
cache, minipe/training/generation.py; training with Adam, minipe/training/lab.py.

Left out: dropout, biases in the matrices, an output projection W_o after the heads.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Mapping, Sequence, overload

from minipe.arrays import Matrix, Vector
from minipe.arrays import Batch
from minipe.training.cache import mark_of
from minipe.training.generation import Columns, LayerColumns, generate_greedy, token_columns
from minipe.training.passes import Backprop as Backprop  # what backprop returns; exported
from minipe.training.passes import ForwardPass, Inputs, backward, forward, spans
from minipe.training.layers import (BlockPass, backward_block, forward_block,
                                    is_plain, layer_weights, residuals)
from minipe.pipeline import ALIBI_SLOPE
from minipe.relative import alibi_slopes
from minipe.rotary import rotary_thetas
from minipe.training.tables import SlopesOfHeads, ThetasOfBase, drawn_tables, table_shapes
from minipe.training.checks import (checked_examples, checked_generation, checked_inputs,
                                    checked_model, checked_sequence)


@dataclass(frozen=True, repr=False)
class TinyModel:
    """Attention with num_heads heads that predicts a token kind at every position.

    >>> model = TinyModel(vocab_size=5, d_model=8, context_length=8, positions="rope")
    >>> model.logits([0, 1, 2]).shape
    (3, 5)
    >>> sorted(model.parameters())
    ['W_k', 'W_out', 'W_q', 'W_v', 'token_embedding']

    `positions` is "none", "learned", "sinusoidal", "rope" or "alibi", as in
    `run()`; `context_length` bounds only the learned table (the other kinds
    read any length whose n x n weights fit in memory). A model never changes:
    training and stretching RoPE make new ones (`with_parameters`, `with_frequencies`).
    num_heads cuts d_model into heads (the tables stay the same); RoPE turns the
    first rotary_fraction of each head's columns. num_layers > 1, mlp=True or a norm
    ("layer", "rms") make a block model (minipe/training/layers.py): layers of heads, and
    of MLPs, each adding to a residual stream; `residuals` and `attention_weights` read
    it, layer by layer.

    The tables, RoPE's theta_i and scale and ALiBi's slopes are part of the
    value: `dataclasses.replace(trained, causal=False)` keeps what training
    learned. Left as None, each is made from the settings (tables drawn from
    `seed`, theta_i = base**(-2i/rotary_dims), m = 1/2 for one head and
    alibi_slopes(h) for h), and `dataclasses.replace` makes those again from the new
    settings (`replace(model, base=500.0)` turns by base 500's theta_i). What was given
    is kept: to draw new tables, `dataclasses.replace(model, seed=3, weights=None)`.
    """

    vocab_size: int
    d_model: int
    context_length: int
    positions: str = field(default="learned", kw_only=True)
    causal: bool = field(default=True, kw_only=True)
    base: float = field(default=10000.0, kw_only=True)
    seed: int = field(default=0, kw_only=True)  # draws the tables when weights is None
    num_heads: int = field(default=1, kw_only=True)  # head_dim = d_model / num_heads
    rotary_fraction: float = field(default=1.0, kw_only=True)  # of each head RoPE turns
    num_layers: int = field(default=1, kw_only=True)  # attention layers, stacked
    mlp: bool = field(default=False, kw_only=True)  # an MLP after each layer's heads
    norm: str | None = field(default=None, kw_only=True)  # "layer" or "rms": pre-norm
    weights: Mapping[str, Matrix] | None = field(default=None, kw_only=True)  # by name
    frequencies: Vector | None = field(default=None, kw_only=True)  # RoPE's theta_i
    attention_scale: float = field(default=1.0, kw_only=True)  # q and k times it (YaRN's)
    alibi_slopes: tuple[float, ...] | None = field(default=None, kw_only=True)  # m per head

    def __post_init__(self) -> None:
        base, scale, thetas, slopes = checked_model(self, self._shapes)  # training/checks.py
        tables = drawn_tables(self) if self.weights is None else self.weights
        own = MappingProxyType({name: tables[name] for name in self._shapes()})  # read-only
        if self.positions == "rope" and thetas is None:  # made from base, as replace asks
            thetas = ThetasOfBase(rotary_thetas(self._rotary_dims(), base))
        if self.positions == "alibi" and slopes is None:
            slopes = SlopesOfHeads(self._default_slopes())
        object.__setattr__(self, "frequencies", thetas)
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "weights", own)
        object.__setattr__(self, "attention_scale", scale)
        object.__setattr__(self, "alibi_slopes", slopes)

    @property
    def head_dim(self) -> int:
        """The columns of q, k and v each head takes: d_model / num_heads."""
        return self.d_model // self.num_heads

    def _rotary_dims(self) -> int:
        """The columns of each head RoPE turns, theta_i = base**(-2i/rotary_dims)."""
        return int(self.rotary_fraction * self.head_dim)

    def _default_slopes(self) -> tuple[float, ...]:
        """ALiBi's m per head unless given: the pipeline's 1/2 for one head (chapter 9),
        alibi_slopes(h) for h (the paper's)."""
        if self.num_heads == 1:
            return (ALIBI_SLOPE,)
        return tuple(alibi_slopes(self.num_heads))

    def _shapes(self) -> dict[str, tuple[int, int]]:
        """The shape of every table, by name: what `parameters()` holds."""
        return table_shapes(self)

    def parameters(self) -> dict[str, Matrix]:
        """Every table that training changes, by name (a new dict; the tables are immutable)."""
        assert self.weights is not None  # __post_init__ fills it
        return dict(self.weights)

    @cached_property
    def token_columns(self) -> tuple[tuple[LayerColumns, ...], Columns]:
        """The columns of each layer's [W_q | W_k | W_v], W_1 and W_2, and of W_out, that a
        generated token's row meets (minipe/training/generation.py), derived from the tables
        the first time a token asks and kept: the model never changes, and they are tuples,
        which nothing changes."""
        return token_columns(self.parameters(), self.num_layers, is_plain(self))

    @cached_property
    def cache_mark(self) -> int:
        """The mark this model leaves on the caches it fills, so that next_logits and evict
        refuse another model's cache: made from the settings and every table's numbers
        (minipe/training/cache.py), equal for equal models in every process."""
        return mark_of(self._settings(), self.parameters())

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
        """The same model, head h's ALiBi scores getting -m |i - j| with m = slopes[h].

        >>> TinyModel(5, 4, 8, positions="alibi").with_alibi_slopes((2.0,)).alibi_slopes
        (2.0,)

        One slope per head (1/2 for one head unless given). Training keeps them.
        """
        return dataclasses.replace(self, alibi_slopes=slopes)

    @overload
    def logits(self, ids: Sequence[int], *, attention_mask: Any = None,
               position_ids: Any = None) -> Matrix: ...
    @overload
    def logits(self, ids: Sequence[Sequence[int]], *, attention_mask: Any = None,
               position_ids: Any = None) -> Batch: ...
    def logits(self, ids: Sequence[int] | Sequence[Sequence[int]], *,
               attention_mask: Any = None, position_ids: Any = None) -> Matrix | Batch:
        """The scores of every token kind at every position: (n, vocab_size) for one
        sequence, a Batch (batch, n, vocab_size) for a padded batch, as Hugging Face's.

        attention_mask: per token, 1 = a real token and 0 = padding (hidden as a key),
        or for one sequence an (n, n) table of booleans, True where query i may attend
        key j; position_ids: the position of each token (0 .. n-1 unless given).
        """
        given = checked_inputs(self, ids, "ids", attention_mask, position_ids, same_length=True)
        logits = self._forward(given).logits
        if given.one:
            return logits
        return Batch([logits[start:stop] for start, stop in spans(given.sequences)])

    def loss_and_gradients(self, inputs: Sequence[int] | Sequence[Sequence[int]],
                           targets: Sequence[int] | Sequence[Sequence[int]], *,
                           attention_mask: Any = None, position_ids: Any = None
                           ) -> tuple[float, dict[str, Matrix]]:
        """The mean cross-entropy over every target that is not -100, and its gradients.

        inputs one sequence or a batch, targets alike; the mask and positions as `logits`'.
        """
        result = self.backprop(inputs, targets, attention_mask=attention_mask,
                               position_ids=position_ids)
        return result.loss, dict(result.gradients)  # a dict of the caller's own

    def backprop(self, inputs: Sequence[int] | Sequence[Sequence[int]],
                 targets: Sequence[int] | Sequence[Sequence[int]], *,
                 attention_mask: Any = None, position_ids: Any = None) -> Backprop:
        """Forward, then backward: the loss, every gradient, and dloss/dx of each sequence.

        inputs[b] is a sequence of IDs; targets[b][t] is the ID to predict at
        position t of it, or -100 to skip that position.
        """
        given, wanted = checked_examples(self, inputs, targets, attention_mask, position_ids)
        if is_plain(self):
            return backward(self, forward(self, given), wanted)
        return backward_block(self, forward_block(self, given), wanted)

    def _forward(self, given: Inputs) -> ForwardPass | BlockPass:
        """The forward pass: passes.py's for the one-layer model, layers.py's for a block."""
        return forward(self, given) if is_plain(self) else forward_block(self, given)

    def residuals(self, ids: Sequence[int], *, position_ids: Any = None) -> list[Matrix]:
        """The residual stream of one sequence, (n, d_model) each: [x_0 = E[ids] + P[pos],
        after layer 0, ..., after the last layer]. The one-layer model has no residual:
        [x, h], its heads' output, which W_out reads."""
        given = checked_sequence(self, ids, position_ids)
        return residuals(self._forward(given))

    def attention_weights(self, ids: Sequence[int], *,
                          position_ids: Any = None) -> list[list[Matrix]]:
        """Per layer, per head, the (n, n) attention weights of one sequence: row i holds
        what query i gives each key (masked keys 0)."""
        given = checked_sequence(self, ids, position_ids)
        return layer_weights(self._forward(given))

    def generate(self, ids: Sequence[int], max_new_tokens: int, *,
                 use_cache: bool = True) -> list[int]:
        """The prompt `ids` followed by max_new_tokens new IDs, each the top score (greedy).

        With the cache (minipe/training/generation.py) each new token costs O(n d): its keys and
        values are computed once, at position n = the cache's length, RoPE's keys stored
        already turned. use_cache=False runs the whole sequence again for every token.
        """
        count = checked_generation(self, ids, max_new_tokens, use_cache)
        return generate_greedy(self, list(ids), count, use_cache=use_cache)

    def __getstate__(self) -> dict[str, Any]:
        """For pickle and deepcopy: the fields, the tables as a dict (a read-only view
        cannot be pickled); not what cached_property kept (token_columns, cache_mark), which
        the copy makes again from its tables when asked."""
        fields = {field.name for field in dataclasses.fields(self)}
        return {name: value for name, value in self.__dict__.items() if name in fields} | {
            "weights": self.parameters()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, weights=MappingProxyType(state["weights"]))

    def _settings(self) -> tuple[object, ...]:
        """What makes a model beside its tables (not seed: it only draws them)."""
        return (self.vocab_size, self.d_model, self.context_length, self.positions,
                self.causal, self.base, self.num_heads, self.rotary_fraction, self.num_layers,
                self.mlp, self.norm, self.attention_scale,
                self.frequencies.values if self.frequencies is not None else None,
                tuple(self.alibi_slopes) if self.alibi_slopes is not None else None)

    def __hash__(self) -> int:
        """Equal models hash alike: the settings and every table, in order of name."""
        return hash((self._settings(), tuple(sorted(self.parameters().items()))))

    def __repr__(self) -> str:
        text = (f"TinyModel(vocab_size={self.vocab_size}, d_model={self.d_model}, "
                f"context_length={self.context_length}, positions={self.positions!r}")
        if self.num_heads != 1:
            text += f", num_heads={self.num_heads}"
        if self.rotary_fraction != 1.0:
            text += f", rotary_fraction={self.rotary_fraction:g}"
        if not is_plain(self):
            text += f", num_layers={self.num_layers}" + ", mlp=True" * self.mlp
            text += f", norm={self.norm!r}" if self.norm is not None else ""
        plain_rope = (rotary_thetas(self._rotary_dims(), self.base) if self.frequencies else None,
                      1.0)
        stretched = (self.frequencies, self.attention_scale) != plain_rope  # with_frequencies
        if self.frequencies is not None and stretched:
            text += (f", frequencies={self.frequencies!r}, "
                     f"attention_scale={self.attention_scale:.5g}")
        if self.alibi_slopes is not None and self.alibi_slopes != self._default_slopes():
            text += f", alibi_slopes={self.alibi_slopes!r}"
        return text + ")"
