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
from minipe.checks import check_ids, check_table, checked_size


@dataclass(frozen=True, repr=False)
class Embedding:
    """A seeded lookup table of shape (num_embeddings, dim): row i is the vector of ID i."""

    num_embeddings: int
    dim: int
    seed: int = field(default=0, kw_only=True)
    weight: Matrix = field(init=False)  # (num_embeddings, dim)

    def __post_init__(self) -> None:
        _check_table(self)
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
        is_batch = _checked_ids(ids, self.num_embeddings)
        if is_batch:
            sequences = cast("Sequence[Sequence[int]]", ids)
            return Batch([self._lookup(sequence) for sequence in sequences])  # (b, n, dim)
        return self._lookup(cast("Sequence[int]", ids))

    def _lookup(self, ids: Sequence[int]) -> Matrix:
        """Row ids[t] of the table for every t, shape (n, dim): nothing is multiplied."""
        table = self.weight.rows  # (num_embeddings, dim): row i is the vector of ID i
        rows = [table[token_id] for token_id in ids]  # row ids[t] of the table, for every t
        return self.weight.picked(rows)  # (n, dim): the table's own rows, shared, not copied

    def __repr__(self) -> str:
        return f"Embedding(num_embeddings={self.num_embeddings}, dim={self.dim})"


# ---------------------------------------------------------------------------
# The door: what Embedding refuses, and the sentences it says
# ---------------------------------------------------------------------------

# What an ID past the table is told, after "the table has n rows": how big a token table must be.
TOKEN_TABLE = (" (num_embeddings; a token table needs one row per token of the vocabulary, "
               "num_embeddings = vocab_size, and one built with context_length rows is the "
               "usual mix-up)")


def _check_table(table: Embedding) -> None:
    """Sizes >= 1, a seed >= 0, and a table that fits in memory."""
    check_table(f"{table!r}", num_embeddings=table.num_embeddings, dim=table.dim)
    checked_size(table.seed, "seed", minimum=0)


def _checked_ids(ids: object, size: int) -> bool:
    """True for a list of lists of IDs, all of one length; False for one list of IDs.

    Every ID must be an int in 0 .. size - 1; a bad one is named as ids[t] or ids[b][t].
    """
    why = f"is out of range: the table has {size} rows{TOKEN_TABLE}, so"
    if not (isinstance(ids, (list, tuple)) and ids and isinstance(ids[0], (list, tuple))):
        check_ids(ids, size, "ids", why)
        return False
    for b, sequence in enumerate(ids):
        if not isinstance(sequence, (list, tuple)):
            raise TypeError(f"ids[{b}] must be a list of int IDs, like ids[0], got {sequence!r}")
        if len(sequence) != len(ids[0]):
            raise ShapeError(f"every sequence in a batch needs the same length: ids[0] has "
                             f"{len(ids[0])} IDs but ids[{b}] has {len(sequence)}")
        check_ids(sequence, size, f"ids[{b}]", why)
    return True
