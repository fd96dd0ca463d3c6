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

from minipe.arrays import Matrix
from minipe.arrays import Batch
from minipe.arrays import ShapeError
from minipe.checks import check_table_size, checked_size

# What an ID past the table is told, after "the table has n rows": how big a token table must be.
TOKEN_TABLE = (" (num_embeddings; a token table needs one row per token of the vocabulary, "
               "num_embeddings = vocab_size, and one built with context_length rows is the "
               "usual mix-up)")


@dataclass(frozen=True, repr=False)
class Embedding:
    """A seeded lookup table of shape (num_embeddings, dim): row i is the vector of ID i."""

    num_embeddings: int
    dim: int
    seed: int = field(default=0, kw_only=True)
    weight: Matrix = field(init=False)  # (num_embeddings, dim)

    def __post_init__(self) -> None:
        checked_size(self.num_embeddings, "num_embeddings")
        checked_size(self.dim, "dim")
        checked_size(self.seed, "seed", minimum=0)
        check_table_size(self.num_embeddings * self.dim, f"{self!r}")
        rng = random.Random(self.seed)  # this table's own generator: no global state
        mu, sigma = [0.0] * self.dim, [1.0] * self.dim
        rows = [tuple(map(rng.gauss, mu, sigma))  # dim draws of rng.gauss(0.0, 1.0): N(0, 1)
                for _ in range(self.num_embeddings)]  # tuples: Matrix keeps them, no copy
        object.__setattr__(self, "weight", Matrix(rows))  # (num_embeddings, dim)

    @overload
    def __call__(self, ids: Sequence[int]) -> Matrix: ...
    @overload
    def __call__(self, ids: Sequence[Sequence[int]]) -> Batch: ...
    def __call__(self, ids: Sequence[int] | Sequence[Sequence[int]]) -> Matrix | Batch:
        """Look up rows: a list of n IDs -> Matrix (n, dim); b lists of n -> Batch (b, n, dim)."""
        if _is_batch(ids):
            sequences = cast("Sequence[Sequence[int]]", ids)
            return Batch([self._lookup(sequence, f"ids[{b}]")
                          for b, sequence in enumerate(sequences)])  # (b, n, dim)
        return self._lookup(cast("Sequence[int]", ids), "ids")

    def _lookup(self, ids: Sequence[int], name: str) -> Matrix:
        """Row ids[t] of the table for every t, shape (n, dim): nothing is multiplied."""
        return self.weight.take(ids, name=name, why=TOKEN_TABLE)  # (n, dim): row ids[t]

    def __repr__(self) -> str:
        return f"Embedding(num_embeddings={self.num_embeddings}, dim={self.dim})"


def _is_batch(ids: object) -> bool:
    """True for a list of lists of IDs, all of one length; False for one list of IDs."""
    if not (isinstance(ids, (list, tuple)) and ids and isinstance(ids[0], (list, tuple))):
        return False  # one sequence: Matrix.take checks its IDs
    for b, sequence in enumerate(ids):
        if not isinstance(sequence, (list, tuple)):
            raise TypeError(f"ids[{b}] must be a list of int IDs, like ids[0], got {sequence!r}")
        if len(sequence) != len(ids[0]):
            raise ShapeError(f"every sequence in a batch needs the same length: ids[0] has "
                             f"{len(ids[0])} IDs but ids[{b}] has {len(sequence)}")
    return True
