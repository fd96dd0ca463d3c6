"""Chapter 10 - what a model starts from: its tables drawn, theta_i and slopes made.

A TinyModel given no tables draws them from its seed, as the chapters before
drew theirs, and given no theta_i or slopes makes them from its settings:

    E, P          chapters 2 and 3's tables (Embedding, LearnedPositionalEmbedding)
    W             U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in its rows, as in chapter 4
    norms         weight ones, bias zeros (torch's, GPT-2's): at first they only normalise
    theta_i       base**(-2i/rotary_dims) (chapter 5)
    m per head    1/2 for one head (chapter 9), alibi_slopes(h) for h (chapter 6)

What was made, not given, is marked: dataclasses.replace passes a model's fields
to the new one, and the model's door (minipe/training/checks.py) makes these again
from the new settings, so that `replace(model, base=500.0)` turns by base 500's theta_i.
"""

from __future__ import annotations

import math
import random
from typing import Protocol

from minipe.arrays import Matrix, Vector
from minipe.embedding import Embedding
from minipe.positional import LearnedPositionalEmbedding
from minipe.training.layers import BlockModel, block_shapes, is_plain


class Drawn(BlockModel, Protocol):
    """What drawing reads of a model: its settings and its seed (TinyModel has them)."""

    @property
    def seed(self) -> int: ...


def table_shapes(model: BlockModel) -> dict[str, tuple[int, int]]:
    """The shape of every table, by name: what the model's `parameters()` holds."""
    d = model.d_model
    shapes = {"token_embedding": (model.vocab_size, d)}
    if model.positions == "learned":
        shapes["position_embedding"] = (model.context_length, d)
    if is_plain(model):
        shapes.update(W_q=(d, d), W_k=(d, d), W_v=(d, d), W_out=(d, model.vocab_size))
        return shapes
    return shapes | block_shapes(model)  # layer0.W_q, ..., norm_final.weight, W_out


def drawn_tables(model: Drawn) -> dict[str, Matrix]:
    """The tables of chapters 2 and 3, and W ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)) as in
    chapter 4, fan_in its rows (d_model; 4 d_model for W_2), in the order of table_shapes;
    a norm's weight is ones and its bias zeros (torch's, GPT-2's)."""
    d, seed = model.d_model, model.seed
    weights = {"token_embedding": Embedding(model.vocab_size, d, seed=seed).weight}
    if model.positions == "learned":
        weights["position_embedding"] = LearnedPositionalEmbedding(
            model.context_length, d, seed=seed + 1).weight
    rng = random.Random(seed + 2)  # this model's own generator for its matrices
    for name, (rows, cols) in table_shapes(model).items():
        limit = 1 / math.sqrt(rows)  # fan_in
        if name.endswith((".weight", ".bias")):  # a norm's: x' * weight + bias
            weights[name] = Matrix([[1.0 if name.endswith(".weight") else 0.0] * cols])
        elif name not in weights:
            weights[name] = Matrix([[rng.uniform(-limit, limit) for _ in range(cols)]
                                    for _ in range(rows)])  # (rows, cols)
    return weights


class ThetasOfBase(Vector):
    """theta_i a model made from its base (none were given). dataclasses.replace passes a
    model's fields to the new one; these it makes again from the new settings, so that
    `replace(model, base=500.0)` turns by base 500's theta_i, not the old ones."""

    __slots__ = ()
    made_from_settings = True  # the door's mark: not given

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vector) and self.values == other.values  # equal numbers

    __hash__ = Vector.__hash__

    def __reduce__(self) -> tuple[type[Vector], tuple[tuple[float, ...]]]:
        return (ThetasOfBase, (self.values,))  # pickled, still made from the base


class SlopesOfHeads(tuple[float, ...]):
    """ALiBi's m per head a model made from num_heads (none were given): made again by
    dataclasses.replace, as ThetasOfBase."""

    __slots__ = ()
    made_from_settings = True
