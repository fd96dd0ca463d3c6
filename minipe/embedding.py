"""Chapter 2 - embedding: token IDs -> vectors, by looking up rows of a table.

An embedding is a table with one row per ID. Looking up ID 5 means taking
row 5; nothing is multiplied. The table holds `num_embeddings` rows of `dim`
numbers each:

    token table     vocab_size rows       x dim columns
    position table  context_length rows   x dim columns   (chapter 3)

In a real model the rows are learned by backpropagation; before training they
are random. Here they stay at their starting values, drawn from N(0, 1) - the
default of torch.nn.Embedding - by the table's own `random.Random(seed)`, so
the same seed gives the same table on every machine.

>>> table = Embedding(num_embeddings=10, dim=4, seed=0)
>>> table([3, 1, 3]).shape        # 3 IDs -> 3 rows
(3, 4)
>>> table([3, 1, 3])[0] == table([3, 1, 3])[2]   # same ID, same vector
True
>>> table([[3, 1], [2, 0]]).shape  # a batch of 2 sequences of 2 IDs
(2, 2, 4)

Left out: training (the table never changes), padding_idx, max_norm.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Sequence, cast, overload

from minipe.arrays import Matrix, Vector
from minipe.batch import Batch
from minipe.broadcast import ShapeError
from minipe.checks import check_ids, checked_size


@dataclass(frozen=True, repr=False)
class Embedding:
    """A seeded lookup table of shape (num_embeddings, dim): row i is the vector of ID i."""

    num_embeddings: int
    dim: int
    seed: int = field(default=0, kw_only=True)
    weight: Matrix = field(init=False)  # (num_embeddings, dim)
    _rows: tuple[Vector, ...] = field(init=False)  # _rows[i] is the Vector of ID i

    def __post_init__(self) -> None:
        checked_size(self.num_embeddings, "num_embeddings")
        checked_size(self.dim, "dim")
        checked_size(self.seed, "seed", minimum=0)
        rng = random.Random(self.seed)  # this table's own generator: no global state
        mu, sigma = [0.0] * self.dim, [1.0] * self.dim
        rows = [list(map(rng.gauss, mu, sigma))  # dim draws of rng.gauss(0.0, 1.0): N(0, 1)
                for _ in range(self.num_embeddings)]
        weight = Matrix(rows)  # (num_embeddings, dim)
        object.__setattr__(self, "weight", weight)
        object.__setattr__(self, "_rows", tuple(weight))

    @overload
    def __call__(self, ids: Sequence[int]) -> Matrix: ...
    @overload
    def __call__(self, ids: Sequence[Sequence[int]]) -> Batch: ...
    def __call__(self, ids: Sequence[int] | Sequence[Sequence[int]]) -> Matrix | Batch:
        """Look up rows: a list of n IDs -> Matrix (n, dim); b lists of n -> Batch (b, n, dim)."""
        if _checked_ids(ids, self.num_embeddings) == "batch":
            return Batch([self._lookup(sequence)
                          for sequence in cast("Sequence[Sequence[int]]", ids)])  # (b, n, dim)
        return self._lookup(cast("Sequence[int]", ids))

    def _lookup(self, ids: Sequence[int]) -> Matrix:
        """Row ids[t] of the table for every t, shape (n, dim): nothing is multiplied."""
        return Matrix([self._rows[token_id] for token_id in ids])  # (n, dim)

    def __repr__(self) -> str:
        return f"Embedding(num_embeddings={self.num_embeddings}, dim={self.dim})"


def _checked_ids(ids: object, num_embeddings: int) -> str:
    """"batch" for a list of lists of IDs, "sequence" for one list, or a sentence.

    Every ID must be an int in 0 .. num_embeddings - 1, and a batch's sequences
    must have one length.
    """
    out_of_range = f"is out of range: this table has num_embeddings={num_embeddings} rows, so"
    if isinstance(ids, (list, tuple)) and ids and isinstance(ids[0], (list, tuple)):
        for b, sequence in enumerate(ids):
            check_ids(sequence, num_embeddings, f"ids[{b}]", out_of_range)
            if len(sequence) != len(ids[0]):
                raise ShapeError(f"every sequence in a batch needs the same length: ids[0] has "
                                 f"{len(ids[0])} IDs but ids[{b}] has {len(sequence)}")
        return "batch"
    check_ids(ids, num_embeddings, "ids", out_of_range)
    return "sequence"
