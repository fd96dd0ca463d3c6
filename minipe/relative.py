"""Chapter 6 - relative positions: the score of query i and key j sees only j - i.

Lectures 001-003 name the alternative to absolute positions: tell attention
how far apart two tokens are, not where each one stands. Nothing is added to
the token embeddings; instead score(i, j) gets a term that depends on the
offset j - i alone (key position minus query position, positions from 0):

    score(i, j) = q_i . k_j / sqrt(d_k) + bias(i, j)

Three published ways to make that term, from the simplest:

1. ALiBi (Press et al., 2022): bias(i, j) = -m * (i - j), a fixed penalty
   growing with distance, with a different slope m for every head. Nothing
   is learned, and the bias is defined at any distance. Its paper measured
   that models trained with it keep their perplexity on texts longer than
   the training length, where sinusoidal and rotary positions degraded.
2. T5's buckets (Raffel et al., 2020): one learned number per bucket of
   offsets - exact buckets for small distances, logarithmic ones up to
   max_distance, the last bucket for everything farther.
3. Clipped relative positions (Shaw et al., 2018): a learned vector a_c for
   each clipped offset c = clip(j - i, -k, k), 2k + 1 of them; the score
   gains q_i . a_c / sqrt(d_k).

Chapter 5 (RoPE) reaches the same goal by rotating q and k; this chapter adds
to the scores. Either way, `scaled_dot_product_attention(q, k, v, bias=...)`
is where they meet attention.

Left out: training the tables, Shaw's second table for the values (a^V),
T5's per-layer sharing.
"""

from __future__ import annotations

import math

from dataclasses import dataclass, field
from typing import Sequence

from minipe.arrays import Matrix
from minipe.arrays import Batch
from minipe.arrays import ShapeError
from minipe.checks import (
    check_table_size,
    check_type,
    checked_at_least,
    checked_flag,
    checked_position,
    checked_positions,
    checked_size,
)
from minipe.embedding import Embedding

# ---------------------------------------------------------------------------
# 1. ALiBi: a fixed linear penalty on distance
# ---------------------------------------------------------------------------


def _geometric_slopes(num_heads: int) -> list[float]:
    """2**(-8 (h + 1) / num_heads) for h = 0 .. num_heads - 1: from 2**(-8/n) to 2**-8."""
    return [2 ** (-8 * (h + 1) / num_heads) for h in range(num_heads)]


def alibi_slopes(num_heads: int) -> list[float]:
    """One slope m per head, by the rule of Press et al. (2022).

    For a power of two n, a geometric sequence that starts at 2**(-8/n) and
    multiplies by the same number each step:

    >>> alibi_slopes(8)     # 1/2, 1/4, ..., 1/256
    [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]

    For other n: the slopes of the power of two just below n, then every
    other slope of twice that power, until there are n:

    >>> alibi_slopes(6)     # alibi_slopes(4), then alibi_slopes(8)[0::2][:2]
    [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125]

    Steep heads look at the last few tokens; gentle ones see far back.
    """
    check_table_size(checked_size(num_heads, "num_heads"), f"alibi_slopes({num_heads})")
    power = 2 ** (num_heads.bit_length() - 1)  # the largest power of two <= num_heads
    slopes = _geometric_slopes(power)
    missing = num_heads - power
    if missing:
        slopes += _geometric_slopes(2 * power)[0::2][:missing]
    return slopes


def alibi_bias(seq_len: int, slope: float, *, causal: bool = True) -> Matrix:
    """The ALiBi bias of one head, shape (seq_len, seq_len): entry (i, j) is added to score(i, j).

        bias(i, j) = -slope * (i - j)     for j <= i (key j at or before query i)
        bias(i, j) = -inf                 for j > i, when causal (the mask)
        bias(i, j) = -slope * (j - i)     for j > i, when not causal

    >>> alibi_bias(3, 0.5).tolist()
    [[0.0, -inf, -inf], [-0.5, 0.0, -inf], [-1.0, -0.5, 0.0]]

    The paper is causal; causal=False gives the symmetric -slope * |i - j|
    that bidirectional encoders use. Because a softmax ignores a constant
    added to a whole row, -slope * (i - j) and +slope * j give the same weights.
    """
    _check_alibi(seq_len, slope, causal)
    penalty = [0.0 - slope * distance for distance in range(seq_len)]  # 0.0 - ...: no -0.0
    rows = []
    for i in range(seq_len):
        before = penalty[i::-1]  # keys j = 0 .. i, at distances |i - j| = i .. 0
        after = [-math.inf] * (seq_len - 1 - i) if causal else penalty[1:seq_len - i]
        rows.append(before + after)  # row i: -slope * |i - j| for every key j (or the mask)
    return Matrix(rows)  # (seq_len, seq_len)


def alibi_bias_at(query_positions: Sequence[int], key_positions: Sequence[int],
                  slope: float) -> Matrix:
    """ALiBi's bias between tokens at given positions (position_ids, a cache's), not 0..n-1:

        bias(i, j) = -slope * |p_i - p_j|      p_i: query i's position, p_j: key j's

    >>> alibi_bias_at([0, 1, 0], [0, 1, 0], 0.5).tolist()   # two documents packed
    [[0.0, -0.5, 0.0], [-0.5, 0.0, -0.5], [0.0, -0.5, 0.0]]

    At positions 0..n-1 on both sides it is alibi_bias(n, slope, causal=False).
    Only differences enter, so moving every position by the same amount changes
    nothing; a mask, not this bias, hides keys.
    """
    _check_alibi_at(query_positions, key_positions, slope)
    return Matrix([[0.0 - slope * abs(p_i - p_j) for p_j in key_positions]
                   for p_i in query_positions])  # (queries, keys); 0.0 - ...: no -0.0


# ---------------------------------------------------------------------------
# 2. T5: buckets of offsets, exact when near, logarithmic when far
# ---------------------------------------------------------------------------


def t5_relative_bucket(
    relative_position: int,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> int:
    """The bucket of the offset relative_position = key position - query position.

    Bidirectional (T5's encoder): half of the buckets for keys at or before
    the query, half for keys after it. Within one half, of B = num_buckets / 2
    buckets, the distance n = |relative_position| goes to

        n < E                   bucket n (exact), where E = B // 2 (max_exact)
        E <= n < max_distance   bucket E + floor(log(n / E) / log(max_distance / E) * (B - E))
        n >= max_distance       bucket B - 1 (the last)

    >>> [t5_relative_bucket(r) for r in [-200, -10, -1, 0, 1, 10, 200]]
    [15, 8, 1, 0, 17, 24, 31]

    Not bidirectional (T5's decoder): keys after the query are masked anyway,
    so every offset > 0 falls in bucket 0, and all num_buckets count back.
    Each bucket has a learned number per head, added to the scores.
    """
    _check_bucket(relative_position, bidirectional, num_buckets, max_distance)
    if bidirectional:
        buckets = num_buckets // 2  # B: the buckets of one side
        offset = buckets if relative_position > 0 else 0  # keys after the query: upper half
        distance = abs(relative_position)
    else:
        buckets = num_buckets
        offset = 0
        distance = max(-relative_position, 0)  # keys after the query: all in bucket 0
    max_exact = buckets // 2
    if distance < max_exact:
        return offset + distance  # an exact bucket
    if distance >= max_distance:
        return offset + buckets - 1  # everything from max_distance on: the last bucket
    log_fraction = math.log(distance / max_exact) / math.log(max_distance / max_exact)
    log_bucket = max_exact + int(log_fraction * (buckets - max_exact))
    return offset + min(log_bucket, buckets - 1)


# ---------------------------------------------------------------------------
# 3. Shaw et al.: a learned vector per clipped offset
# ---------------------------------------------------------------------------


def clipped_relative_positions(seq_len: int, max_distance: int) -> tuple[tuple[int, ...], ...]:
    """Entry (i, j) is clip(j - i, -k, k), k = max_distance: the offset, capped at k.

    >>> for row in clipped_relative_positions(4, max_distance=2):
    ...     print(row)
    (0, 1, 2, 2)
    (-1, 0, 1, 2)
    (-2, -1, 0, 1)
    (-2, -2, -1, 0)

    Every diagonal holds one offset: the same for every query, wherever it
    stands. Beyond k the exact distance no longer counts (Shaw et al. found
    k = 16 as good as larger values, for translation).
    """
    _check_clipped(seq_len, max_distance)
    k = max_distance
    rows = []
    for i in range(seq_len):
        row = tuple(max(-k, min(k, j - i)) for j in range(seq_len))  # clip(j - i, -k, k)
        rows.append(row)
    return tuple(rows)  # (seq_len, seq_len)


@dataclass(frozen=True, repr=False)
class RelativePositionEmbedding:
    """Shaw et al.'s learned table: 2k + 1 vectors a_c, one per clipped offset c = -k .. k.

    Row c + k holds a_c. The pair (query i, key j) uses a_c with
    c = clip(j - i, -k, k), and its score gains q_i . a_c / sqrt(d_k):

        score(i, j) = q_i . (k_j + a_c) / sqrt(d_k)

    >>> table = RelativePositionEmbedding(max_distance=2, dim=4, seed=0)
    >>> table.weight.shape          # 2k + 1 = 5 offsets: -2, -1, 0, 1, 2
    (5, 4)
    >>> table(3).shape              # a vector for every (i, j) of 3 tokens
    (3, 3, 4)

    Seeded N(0, 1) rows, like `Embedding`; never trained here.
    """

    max_distance: int
    dim: int
    seed: int = field(default=0, kw_only=True)
    _table: Embedding = field(init=False)  # (2k + 1, dim)

    def __post_init__(self) -> None:
        _check_table(self)
        k = self.max_distance
        object.__setattr__(self, "_table", Embedding(2 * k + 1, self.dim, seed=self.seed))

    @property
    def weight(self) -> Matrix:
        """The table, shape (2k + 1, dim): row c + k is a_c, for offset c = -k .. k."""
        return self._table.weight

    def __call__(self, seq_len: int) -> Batch:
        """a_(clip(j - i)) for every query i and key j: shape (seq_len, seq_len, dim)."""
        _check_square(seq_len, f"{self!r}({seq_len}): a vector for each of {seq_len} x "
                               f"{seq_len} pairs")
        k = self.max_distance
        rows_of_table = [[max(-k, min(k, j - i)) + k for j in range(seq_len)]
                         for i in range(seq_len)]  # row c + k for the offset c = clip(j - i, -k, k)
        return self._table(rows_of_table)  # (seq_len, seq_len, dim)

    def bias(self, q: Matrix) -> Matrix:
        """Shaw's extra score term q_i . a_(clip(j - i)) / sqrt(d_k): shape (n, n), for
        `scaled_dot_product_attention(q, k, v, bias=table.bias(q))`."""
        _check_queries(self, q)
        n, d_k = q.shape
        vectors = self(n)  # (n, n, d_k): a_(clip(j - i)) for every (i, j)
        sqrt_d_k = math.sqrt(d_k)
        rows = []
        for q_i, vectors_i in zip(q, vectors):
            row = [q_i.dot(a_ij) / sqrt_d_k for a_ij in vectors_i]  # q_i . a_ij / sqrt(d_k)
            rows.append(row)
        return Matrix(rows)  # (n, n)

    def __repr__(self) -> str:
        return f"RelativePositionEmbedding(max_distance={self.max_distance}, dim={self.dim})"


# ---------------------------------------------------------------------------
# The door: each argument checked once, with a sentence that teaches
# ---------------------------------------------------------------------------


LARGEST_SLOPE = 1e290  # m |i - j| stays below a float's limit at every distance up to 2**53
SLOPES = ("alibi_slopes gives one per head, e.g. 0.5; past 1e290, -m |i - j| would overflow "
          "to -inf at a distance up to 2**53")


def _check_alibi(seq_len: object, slope: object, causal: object) -> None:
    _check_square(seq_len, f"alibi_bias({seq_len}, ...)")
    checked_at_least(slope, "slope", 0, SLOPES, maximum=LARGEST_SLOPE)
    checked_flag(causal, "causal")


def _check_alibi_at(query_positions: object, key_positions: object, slope: object) -> None:
    checked_at_least(slope, "slope", 0, SLOPES, maximum=LARGEST_SLOPE)
    queries = len(checked_positions(query_positions, "query_positions", "positions (ints >= 0)"))
    keys = len(checked_positions(key_positions, "key_positions", "positions (ints >= 0)"))
    check_table_size(queries * keys, f"alibi_bias_at({queries} queries, {keys} keys, ...)")


def _check_bucket(relative_position: object, bidirectional: object, num_buckets: object,
                  max_distance: object) -> None:
    """An int offset; num_buckets enough for an exact and a logarithmic part (on each side,
    when bidirectional); max_distance past the exact distances (its log is taken in floats)."""
    if type(relative_position) is not int:
        raise TypeError(f"relative_position must be an int (key position - query position), "
                        f"got {relative_position!r}")
    both_sides = checked_flag(bidirectional, "bidirectional")
    buckets = checked_size(num_buckets, "num_buckets")
    if buckets < 2 or (both_sides and (buckets < 4 or buckets % 2)):
        raise ValueError("num_buckets must be " + (
            "even and >= 4 when bidirectional (half for keys before the query, half after, "
            "each with an exact and a logarithmic part)" if both_sides else
            ">= 2 (an exact and a logarithmic part)") + f", got {buckets}")
    max_exact = buckets // 4 if both_sides else buckets // 2
    if checked_position(max_distance, "max_distance", minimum=1) <= max_exact:
        raise ValueError(f"max_distance must be more than the {max_exact} exact distances "
                         f"0..{max_exact - 1} (num_buckets={buckets}), got {max_distance}")


def _check_clipped(seq_len: object, max_distance: object) -> None:
    _check_square(seq_len, f"clipped_relative_positions({seq_len}, {max_distance})")
    checked_size(max_distance, "max_distance")


def _check_table(table: RelativePositionEmbedding) -> None:
    k = checked_size(table.max_distance, "max_distance")
    check_table_size((2 * k + 1) * checked_size(table.dim, "dim"), f"{table!r}")


def _check_square(seq_len: object, what: str) -> None:
    """seq_len >= 1, and a (seq_len, seq_len) table `what` that fits in memory."""
    n = checked_size(seq_len, "seq_len")
    check_table_size(n * n, what)


def _check_queries(table: RelativePositionEmbedding, q: Matrix) -> None:
    check_type(q, Matrix, "q must be a Matrix of queries, shape (n, d_k)")
    if q.shape[1] != table.dim:
        raise ShapeError(f"q has shape {q.shape} but the table's vectors have dim="
                         f"{table.dim}: each q_i . a_c needs d_k == dim")
