"""Chapter 10 - the KV cache: what a model keeps of the tokens it has read, and whose it is.

A cache holds, per head, the keys and values of every token so far
(minipe/training/generation.py fills it, one token at a time). It holds what it
has checked: `KVCache(keys, values)` looks at what it is given once, and a new
token adds its own key row and its value without a look at the n rows before it,
so a token costs its own row. V is kept as V^T, so that a new query's output is
one dot product of n per column.

A cache serves the model that filled it: it carries that model's mark, made from
the model's settings and every number of its tables written out (`mark_of`), so
that another model is refused, in this process or in any other (hash() would not
do: it salts a string differently in each process).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Mapping, Sequence

from minipe.arrays import Matrix


@dataclass(frozen=True, init=False)
class KVCache:
    """The keys (RoPE's already turned) and values of every token so far, per head.

        keys[h]      (n, head_dim): row j is the key of the token at position j
        values_T[h]  (head_dim, n): V^T, column j the value of the token at position j
                     (a new query's output is V^T weights: one dot product of n per column)

    A block model's cache holds every layer's heads, layer by layer: keys[l num_heads + h]
    is layer l's head h.

    `KVCache(keys, values)` checks what it is given, once (values[h] is (n, head_dim)
    like the keys); next_logits and evict add or drop rows of a cache already checked,
    so a token costs its own row, not a look at the n rows before it.
    """

    keys: tuple[Matrix, ...]
    values_T: tuple[Matrix, ...]
    filled_by: int | None  # the mark of the model that filled it (None: made by hand)

    def __init__(self, keys: Sequence[Matrix], values: Sequence[Matrix]) -> None:
        _check_cache(keys, values)
        object.__setattr__(self, "keys", tuple(keys))
        object.__setattr__(self, "values_T", tuple(V.T for V in values))  # (head_dim, n)
        object.__setattr__(self, "filled_by", None)

    @property
    def values(self) -> tuple[Matrix, ...]:
        """values[h] (n, head_dim): row j is the value of the token at position j."""
        return tuple(V_T.T for V_T in self.values_T)

    def __len__(self) -> int:
        return len(self.keys[0]) if self.keys else 0  # n: the next token's position

    def __repr__(self) -> str:
        return f"KVCache(heads={len(self.keys)}, tokens={len(self)})"


LARGEST_CACHED = 1e100  # a model's q is at most about d 1e60 (its weights at most 1e30)


def filled(keys: Sequence[Matrix], values_T: Sequence[Matrix], mark: int | None) -> KVCache:
    """The cache of these keys and V^T, made without KVCache's look: only for next_logits'
    and evict's rows, taken from a cache and a model already checked (its mark)."""
    cache = object.__new__(KVCache)
    object.__setattr__(cache, "keys", tuple(keys))
    object.__setattr__(cache, "values_T", tuple(values_T))
    object.__setattr__(cache, "filled_by", mark)
    return cache


EMPTY = filled((), (), None)  # before the first token: KVCache((), ())


def mark_of(settings: tuple[object, ...], tables: Mapping[str, Matrix]) -> int:
    """A model's mark: 64 bits of the digest of its settings and tables, written out (a
    float's repr gives back that float), so equal models have equal marks everywhere."""
    written = repr((settings, [(name, tables[name].rows) for name in sorted(tables)]))
    return int.from_bytes(hashlib.blake2b(written.encode(), digest_size=8).digest(), "big")


# The door


def _check_cache(keys: object, values: object) -> None:
    """As many heads of keys as of values, each a Matrix; every head n rows, its keys and
    values one width, every number at most LARGEST_CACHED in size."""
    for name, tables in (("keys", keys), ("values", values)):
        if not isinstance(tables, (list, tuple)) or not all(
                isinstance(table, Matrix) for table in tables):
            raise TypeError(f"{name} must be a tuple of Matrix, one (n, head_dim) per head, "
                            f"got {tables!r:.60}")
    assert isinstance(keys, (list, tuple)) and isinstance(values, (list, tuple))  # for mypy
    shapes = {table.shape for table in (*keys, *values)}
    if len(keys) != len(values) or len(shapes) > 1:
        raise ValueError(f"a cache needs the keys and values of every head, all of one shape "
                         f"(n, head_dim), got {len(keys)} heads of keys and {len(values)} of "
                         f"values, of shapes {sorted(shapes)}")
    largest = max((max(max(map(abs, row)) for row in table.rows)
                   for table in (*keys, *values)), default=0.0)  # inf if any is
    if not largest <= LARGEST_CACHED:
        raise ValueError(f"the cache holds a number of size {largest:g}; keys and values must "
                         f"be at most {LARGEST_CACHED:g}, so that a query's scores q . k_j "
                         f"stay below a float's limit, about 1.8e308")
