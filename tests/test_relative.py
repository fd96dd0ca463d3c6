"""Chapter 6: relative positions - ALiBi, T5 buckets, Shaw et al.'s clipped offsets -
checked against the issue's numbers, hand calculation, and second implementations
written the way the papers' own code writes them."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from minipe import (
    Matrix,
    RelativePositionEmbedding,
    ShapeError,
    alibi_bias,
    alibi_slopes,
    allclose,
    clipped_relative_positions,
    scaled_dot_product_attention,
    t5_relative_bucket,
)


def paper_alibi_slopes(n: int) -> list[float]:
    """ALiBi's slopes as the authors' code computes them: start * ratio**i, recursing
    to 2 * closest_power_of_2 for head counts that are not powers of two."""
    def power_of_2(n: int) -> list[float]:
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        ratio = start
        return [start * ratio ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + paper_alibi_slopes(2 * closest)[0::2][:n - closest]


def hf_t5_bucket(relative_position: int, bidirectional: bool, num_buckets: int,
                 max_distance: int) -> int:
    """T5's bucket as Hugging Face's transformers writes it (with tensors there, with
    ints here): offset the upper half for keys after the query, then exact or log."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0) * num_buckets
        relative_position = abs(relative_position)
    else:
        relative_position = -min(relative_position, 0)
    max_exact = num_buckets // 2
    if relative_position < max_exact:
        return relative_buckets + relative_position
    if_large = max_exact + int(math.log(relative_position / max_exact)
                               / math.log(max_distance / max_exact) * (num_buckets - max_exact))
    return relative_buckets + min(if_large, num_buckets - 1)


# --- ALiBi slopes -------------------------------------------------------------

def test_alibi_slopes_of_8_heads() -> None:
    # from the issue: 1/2, 1/4, ..., 1/256, exactly (powers of two)
    assert alibi_slopes(8) == [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]


def test_alibi_slopes_of_6_heads() -> None:
    # from the issue: the 4-head slopes, then every other 8-head slope
    assert alibi_slopes(6) == [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125]


def test_one_head_gets_the_gentlest_slope() -> None:
    assert alibi_slopes(1) == [2 ** -8]  # 2**(-8/1): the rule is made for 8 heads and more


@pytest.mark.parametrize("num_heads", list(range(1, 41)) + [64, 96, 128])
def test_alibi_slopes_agree_with_the_papers_code(num_heads: int) -> None:
    ours = alibi_slopes(num_heads)
    assert len(ours) == num_heads
    assert allclose(ours, paper_alibi_slopes(num_heads), rel_tol=1e-12)


# --- ALiBi bias -------------------------------------------------------------------

def test_alibi_bias_by_hand() -> None:
    inf = math.inf
    # -m (i - j) below the diagonal, -inf above it (causal), m = 1/4
    assert alibi_bias(4, 0.25).tolist() == [[0.0, -inf, -inf, -inf],
                                            [-0.25, 0.0, -inf, -inf],
                                            [-0.5, -0.25, 0.0, -inf],
                                            [-0.75, -0.5, -0.25, 0.0]]
    # not causal: the symmetric -m |i - j|
    assert alibi_bias(3, 0.5, causal=False).tolist() == [[0.0, -0.5, -1.0],
                                                         [-0.5, 0.0, -0.5],
                                                         [-1.0, -0.5, 0.0]]


def test_alibi_bias_at_positions_by_hand() -> None:
    from minipe.relative import alibi_bias_at

    # queries at positions 3 and 5, keys at 0 and 4, m = 1/4: -m |p_i - p_j|
    assert alibi_bias_at([3, 5], [0, 4], 0.25).tolist() == [[-0.75, -0.25], [-1.25, -0.25]]
    # two packed documents restart at 0: position 0 again is distance 0, not 2
    assert alibi_bias_at([0, 1, 0], [0, 1, 0], 0.5).tolist() == [[0.0, -0.5, 0.0],
                                                                  [-0.5, 0.0, -0.5],
                                                                  [0.0, -0.5, 0.0]]
    with pytest.raises(ValueError, match=r"key_positions\[1\] must be >= 0, got -1"):
        alibi_bias_at([0, 1], [0, -1], 0.5)
    with pytest.raises(TypeError, match="query_positions must be a non-empty list"):
        alibi_bias_at([], [0], 0.5)
    with pytest.raises(ValueError, match="slope must be a finite number >= 0"):
        alibi_bias_at([0], [0], -1.0)


def test_alibi_bias_depends_only_on_the_offset() -> None:
    bias = alibi_bias(20, 0.125, causal=False)
    for i in range(15):
        for j in range(15):
            assert bias[i + 5, j + 5] == bias[i, j]  # shifting both by 5 changes nothing


def test_alibi_equals_the_papers_plus_m_j_form_after_softmax() -> None:
    # The authors add +m * j (one row for all queries) instead of -m * (i - j): the two
    # differ by m * i in row i, a constant that the softmax removes.
    rng = random.Random(0)
    n, slope = 5, 0.5
    q = Matrix([[rng.gauss(0, 1) for _ in range(4)] for _ in range(n)])
    k = Matrix([[rng.gauss(0, 1) for _ in range(4)] for _ in range(n)])
    plus_m_j = Matrix([[slope * j if j <= i else -math.inf for j in range(n)] for i in range(n)])
    ours = scaled_dot_product_attention(q, k, k, bias=alibi_bias(n, slope))
    theirs = scaled_dot_product_attention(q, k, k, bias=plus_m_j)
    assert allclose(ours.weights, theirs.weights, rel_tol=1e-12, abs_tol=1e-15)
    assert ours.scores != theirs.scores  # the scores differ; only the weights agree


def test_a_steep_slope_looks_at_the_last_tokens() -> None:
    # With q = k = 0 every plain score is 0: the weights are softmax of the bias alone.
    n = 6
    zeros = Matrix.zeros(n, 4)
    values = Matrix([[float(j)] for j in range(n)])
    steep = scaled_dot_product_attention(zeros, zeros, values, bias=alibi_bias(n, 0.5))
    gentle = scaled_dot_product_attention(zeros, zeros, values, bias=alibi_bias(n, 1 / 256))
    # row 5: weights proportional to exp(-m * (5 - j)), j = 0..5
    expected = [math.exp(-0.5 * (5 - j)) for j in range(n)]
    assert allclose(steep.weights[5], [w / sum(expected) for w in expected])
    assert steep.weights[5, 5] > 0.39  # 1 / (1 + e^-0.5 + e^-1 + ...) = 0.3929...
    assert abs(gentle.weights[5, 5] - 1 / 6) < 0.01  # almost uniform


# --- T5 buckets -------------------------------------------------------------------

def test_t5_buckets_of_the_issue() -> None:
    # from the issue: bidirectional, 32 buckets, max_distance 128
    positions = [-200, -10, -1, 0, 1, 10, 200]
    assert [t5_relative_bucket(r) for r in positions] == [15, 8, 1, 0, 17, 24, 31]


def test_t5_buckets_by_hand() -> None:
    # one side has 16 buckets: 0..7 exact, then 8 + floor(log(n/8) / log(128/8) * 8),
    # that is 8 + floor(2 log2(n / 8)): n = 16 -> 10, n = 32 -> 12, n = 127 -> 15
    assert [t5_relative_bucket(-n) for n in [7, 8, 15, 16, 32, 64, 127, 128, 10 ** 6]] == \
        [7, 8, 9, 10, 12, 14, 15, 15, 15]
    assert t5_relative_bucket(16) == 16 + 10  # keys after the query: the upper half
    # decoder: 32 buckets on one side, 0..15 exact; keys after the query all in bucket 0
    assert [t5_relative_bucket(r, bidirectional=False) for r in [5, 0, -5, -15]] == \
        [0, 0, 5, 15]
    # 16 + floor(log(20 / 16) / log(128 / 16) * 16) = 16 + floor(1.717) = 17
    assert t5_relative_bucket(-20, bidirectional=False) == 17
    assert t5_relative_bucket(-500, bidirectional=False) == 31


@pytest.mark.parametrize("bidirectional, num_buckets, max_distance", [
    (True, 32, 128), (False, 32, 128), (True, 16, 64), (False, 8, 20), (True, 4, 10),
    (False, 2, 5), (True, 64, 256)])
def test_t5_buckets_agree_with_hugging_faces_code(bidirectional: bool, num_buckets: int,
                                                  max_distance: int) -> None:
    for r in range(-300, 301):
        expected = hf_t5_bucket(r, bidirectional, num_buckets, max_distance)
        got = t5_relative_bucket(r, bidirectional=bidirectional, num_buckets=num_buckets,
                                 max_distance=max_distance)
        assert got == expected, r


def test_t5_buckets_grow_with_distance_and_stay_in_range() -> None:
    back = [t5_relative_bucket(-n) for n in range(300)]
    assert back == sorted(back) and set(back) == set(range(16))  # every bucket used
    ahead = [t5_relative_bucket(n) for n in range(1, 300)]
    assert ahead == sorted(ahead) and set(ahead) == set(range(17, 32))


# --- clipped relative positions (Shaw et al.) -----------------------------------------

def test_clipped_positions_by_hand() -> None:
    assert clipped_relative_positions(5, max_distance=2) == ((0, 1, 2, 2, 2),
                                                             (-1, 0, 1, 2, 2),
                                                             (-2, -1, 0, 1, 2),
                                                             (-2, -2, -1, 0, 1),
                                                             (-2, -2, -2, -1, 0))
    assert clipped_relative_positions(1, max_distance=3) == ((0,),)


def test_the_learned_table_has_2k_plus_1_rows_looked_up_by_offset() -> None:
    table = RelativePositionEmbedding(max_distance=2, dim=3, seed=1)
    assert table.weight.shape == (5, 3)  # offsets -2, -1, 0, 1, 2
    vectors = table(6)
    assert vectors.shape == (6, 6, 3)
    for i in range(6):
        for j in range(6):
            c = max(-2, min(2, j - i))  # clip(j - i, -2, 2)
            assert vectors[i][j] == table.weight[c + 2]
    # the same offset gives the same vector, wherever the query stands
    assert vectors[0][1] == vectors[4][5]
    assert vectors[0][5] == vectors[0][3]  # 5 and 3 are both clipped to 2


def test_the_table_is_seeded() -> None:
    assert RelativePositionEmbedding(2, 3, seed=1).weight == \
        RelativePositionEmbedding(2, 3, seed=1).weight
    assert RelativePositionEmbedding(2, 3, seed=1).weight != \
        RelativePositionEmbedding(2, 3, seed=2).weight


def test_shaws_score_is_q_dot_k_plus_a_over_sqrt_d() -> None:
    rng = random.Random(2)
    n, d = 5, 4
    q = [[rng.gauss(0, 1) for _ in range(d)] for _ in range(n)]
    k = [[rng.gauss(0, 1) for _ in range(d)] for _ in range(n)]
    table = RelativePositionEmbedding(max_distance=2, dim=d, seed=3)
    a = table.weight.tolist()
    # e_ij = q_i . (k_j + a_clip(j-i)) / sqrt(d), Shaw et al.'s equation 5, loop by loop
    expected = [[sum(q[i][c] * (k[j][c] + a[max(-2, min(2, j - i)) + 2][c]) for c in range(d))
                 / math.sqrt(d) for j in range(n)] for i in range(n)]
    result = scaled_dot_product_attention(Matrix(q), Matrix(k), Matrix(k),
                                          bias=table.bias(Matrix(q)))
    assert allclose(result.scores, expected, rel_tol=1e-12, abs_tol=1e-12)


# --- bad input ------------------------------------------------------------------

@pytest.mark.parametrize("call, error, words", [
    (lambda: alibi_slopes(0), ValueError, "num_heads must be >= 1, got 0"),
    (lambda: alibi_slopes(2.0), TypeError, "num_heads must be an int"),  # type: ignore[arg-type]
    (lambda: alibi_bias(0, 0.5), ValueError, "seq_len must be >= 1, got 0"),
    (lambda: alibi_bias(3, -0.5), ValueError, "slope must be a finite number >= 0"),
    (lambda: alibi_bias(3, math.nan), ValueError, "slope is NaN"),
    (lambda: alibi_bias(3, 0.5, causal="yes"),  # type: ignore[arg-type]
     TypeError, "causal must be True or False"),
    (lambda: t5_relative_bucket(1.0), TypeError,  # type: ignore[arg-type]
     "relative_position must be an int"),
    (lambda: t5_relative_bucket(1, num_buckets=2), ValueError,
     r"num_buckets must be even and >= 4 when bidirectional .*, got 2"),
    (lambda: t5_relative_bucket(1, num_buckets=33), ValueError, "must be even"),
    (lambda: t5_relative_bucket(1, num_buckets=1, bidirectional=False), ValueError,
     "num_buckets must be >= 2"),
    (lambda: t5_relative_bucket(1, max_distance=0), ValueError, "max_distance must be >= 1"),
    (lambda: t5_relative_bucket(1, max_distance=8), ValueError,
     r"max_distance must be more than the 8 exact distances 0..7 \(num_buckets=32\), got 8"),
    (lambda: clipped_relative_positions(0, 2), ValueError, "seq_len must be >= 1"),
    (lambda: clipped_relative_positions(4, 0), ValueError, "max_distance must be >= 1, got 0"),
    (lambda: RelativePositionEmbedding(0, 4), ValueError, "max_distance must be >= 1"),
    (lambda: RelativePositionEmbedding(2, 4).bias(Matrix.zeros(3, 5)), ShapeError,
     r"q has shape \(3, 5\) but the table's vectors have dim=4"),
    (lambda: RelativePositionEmbedding(2, 4)(0), ValueError, "seq_len must be >= 1"),
])
def test_bad_input_is_explained(call: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        call()


def test_repr_is_short() -> None:
    assert repr(RelativePositionEmbedding(16, 64)) == \
        "RelativePositionEmbedding(max_distance=16, dim=64)"


@pytest.mark.parametrize("call, words", [
    # numbers = the table's size; bytes = numbers * 32, rounded to whole GB
    (lambda: alibi_bias(10**6, 0.5),  # 10**12 numbers, 32,000 GB
     r"alibi_bias\(1000000, ...\) would hold 1,000,000,000,000 numbers, about 32,000 GB"),
    (lambda: alibi_slopes(10**10), r"alibi_slopes\(10000000000\) would hold 10,000,000,000"),
    (lambda: clipped_relative_positions(10**5, 2), r"10,000,000,000 numbers, about 320 GB"),
    (lambda: RelativePositionEmbedding(10**10, 4),  # (2k + 1) * 4 = 80,000,000,004 numbers
     r"RelativePositionEmbedding\(max_distance=10000000000, dim=4\) would hold "
     r"80,000,000,004 numbers, about 2,560 GB"),
    (lambda: RelativePositionEmbedding(2, 4)(10**5),  # a vector per pair: 10**10 pairs
     r"RelativePositionEmbedding\(max_distance=2, dim=4\)\(100000\): a vector for each of "
     r"100000 x 100000 pairs would hold 10,000,000,000 numbers"),
])
def test_tables_too_big_for_a_laptop_are_refused_with_the_estimate(call: Any,
                                                                   words: str) -> None:
    with pytest.raises(ValueError, match=words):
        call()


def test_t5_buckets_of_huge_offsets_need_no_float_of_them() -> None:
    # before: OverflowError (integer division result too large for a float) in the log
    assert t5_relative_bucket(10**400) == 31  # bidirectional, key after: the last bucket, 31
    assert t5_relative_bucket(-10**400) == 15  # key before: the last of the lower half, 15
    assert t5_relative_bucket(-10**400, bidirectional=False) == 31
    assert t5_relative_bucket(128) == t5_relative_bucket(129) == 31  # from max_distance on
    with pytest.raises(ValueError, match=r"max_distance = ~10\*\*400 is past 2\*\*53"):
        t5_relative_bucket(5, max_distance=10**400)


def test_a_slope_whose_bias_would_overflow_to_minus_inf_is_refused() -> None:
    from minipe.relative import alibi_bias_at
    with pytest.raises(ValueError, match=r"slope must be a finite number >= 0 and at most "
                                         r"1e\+290, got 1e\+308: .* would overflow to -inf"):
        alibi_bias(5, 1e308)  # -1e308 x 2 was -inf: a finite slope, an infinite bias
    with pytest.raises(ValueError, match=r"at most 1e\+290, got 1e\+300"):
        alibi_bias_at([0], [5], 1e300)
    edge = alibi_bias_at([2**53], [0], 1e290)  # the largest slope at the largest distance
    assert edge.rows == ((-1e290 * 2**53,),) and math.isfinite(edge.rows[0][0])
