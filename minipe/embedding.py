"""Chapter 4 - embedding: token IDs -> vectors, by looking up rows of a table.

An embedding is a table with one row per ID. Looking up ID 5 means taking
row 5; nothing is multiplied. The table holds `num_embeddings` rows of `dim`
numbers each:

    token table     vocab_size rows       x dim columns
    position table  context_length rows   x dim columns   (chapter 5)

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
from typing import overload

from minipe.broadcast import ShapeError
from minipe.checks import Frozen, checked_size
from minipe.linalg import Batch, Matrix


class Embedding(Frozen):
    """A seeded lookup table of shape (num_embeddings, dim)."""

    __slots__ = ("_weight",)
    _weight: Matrix

    def __init__(self, num_embeddings: int, dim: int, *, seed: int = 0) -> None:
        checked_size(num_embeddings, "num_embeddings")
        checked_size(dim, "dim")
        checked_size(seed, "seed", minimum=0)
        rng = random.Random(seed)  # this table's own generator: no global state
        rows = []
        for _ in range(num_embeddings):
            row = tuple([rng.gauss(0.0, 1.0) for _ in range(dim)])  # N(0, 1), like torch
            rows.append(row)
        self._set("_weight", Matrix._trusted(tuple(rows)))  # (num_embeddings, dim)

    @property
    def weight(self) -> Matrix:
        """The whole table: row i is the vector of ID i."""
        return self._weight

    @property
    def num_embeddings(self) -> int:
        return self._weight.shape[0]

    @property
    def dim(self) -> int:
        return self._weight.shape[1]

    @overload
    def __call__(self, ids: list[int]) -> Matrix: ...
    @overload
    def __call__(self, ids: list[list[int]]) -> Batch: ...
    def __call__(self, ids: list[int] | list[list[int]]) -> Matrix | Batch:
        """Look up rows: a list of n IDs -> Matrix (n, dim); b lists of n -> Batch (b, n, dim)."""
        _check_id_list(ids, "ids")
        if isinstance(ids[0], (list, tuple)):
            return self._lookup_batch(ids)
        return self.lookup(ids)

    def lookup(self, ids: list[int], where: str = "ids") -> Matrix:
        """Row ids[t] of the table for every t: shape (len(ids), dim)."""
        _check_id_list(ids, where)
        table = self._weight._rows
        rows = []
        for t, token_id in enumerate(ids):
            self._check_id(token_id, f"{where}[{t}]")
            rows.append(table[token_id])  # row token_id of the table (a tuple: shared safely)
        return Matrix._trusted(tuple(rows))  # (n, dim)

    def _lookup_batch(self, batch_ids: list[list[int]]) -> Batch:
        matrices = []
        for b, ids in enumerate(batch_ids):
            _check_id_list(ids, f"ids[{b}]")
            if len(ids) != len(batch_ids[0]):
                raise ShapeError(f"every sequence in a batch needs the same length: ids[0] has "
                                 f"{len(batch_ids[0])} IDs but ids[{b}] has {len(ids)}")
            matrices.append(self.lookup(ids, where=f"ids[{b}]"))  # (n, dim)
        return Batch._trusted(tuple(matrices))  # (b, n, dim)

    def _check_id(self, token_id: object, where: str) -> None:
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TypeError(f"{where} must be an int ID, got {token_id!r}")
        if not 0 <= token_id < self.num_embeddings:
            raise IndexError(
                f"{where} = {token_id} is out of range: this table has num_embeddings="
                f"{self.num_embeddings} rows, so valid IDs are 0..{self.num_embeddings - 1}"
                + (" (negative IDs do not wrap around)" if token_id < 0 else "")
            )

    def __repr__(self) -> str:
        return f"Embedding(num_embeddings={self.num_embeddings}, dim={self.dim})"


def _check_id_list(ids: object, where: str) -> None:
    if isinstance(ids, (str, bytes)) or not isinstance(ids, (list, tuple)):
        raise TypeError(f"{where} must be a list of int IDs (or, for a batch, a list of such "
                        f"lists), got {type(ids).__name__}")
    if not ids:
        raise ValueError(f"{where} is empty; a lookup needs at least one ID")
