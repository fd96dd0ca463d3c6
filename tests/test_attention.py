"""Chapter 4: softmax and attention, checked by hand and against a loop-by-loop version."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from minipe.attention import causal_mask
from minipe import (
    Batch,
    Embedding,
    Matrix,
    ShapeError,
    RotaryAttention,
    SingleHeadAttention,
    Vector,
    alibi_bias,
    allclose,
    scaled_dot_product_attention,
    sinusoidal_encoding,
    softmax,
    softmax_naive,
)

# softmax([1, 2, 3]) = [e, e^2, e^3] / (e + e^2 + e^3), to 5 decimals
SOFTMAX_1_2_3 = [0.09003, 0.24473, 0.66524]


def naive_attention(q: list[list[float]], k: list[list[float]],
                    v: list[list[float]]) -> list[list[float]]:
    """softmax(Q K^T / sqrt(d_k)) V with explicit loops: a second implementation."""
    d_k = len(q[0])
    out = []
    for q_row in q:
        scores = [sum(q_row[c] * k_row[c] for c in range(d_k)) / math.sqrt(d_k) for k_row in k]
        exps = [math.exp(s) for s in scores]
        weights = [e / sum(exps) for e in exps]
        out.append([sum(weights[j] * v[j][c] for j in range(len(v))) for c in range(len(v[0]))])
    return out


# --- softmax ----------------------------------------------------------------

def test_softmax_by_hand() -> None:
    assert allclose(softmax([0.0, math.log(3.0)]), [0.25, 0.75])  # 1 and 3 out of 4
    assert allclose(softmax([1.0, 2.0, 3.0]), SOFTMAX_1_2_3, abs_tol=5e-6)
    assert softmax([5.0]).tolist() == [1.0]


def test_softmax_survives_large_scores_where_the_naive_one_overflows() -> None:
    # subtracting the max (1002) changes nothing: the same weights as [1, 2, 3]
    assert allclose(softmax([1000.0, 1001.0, 1002.0]), SOFTMAX_1_2_3, abs_tol=5e-6)
    with pytest.raises(OverflowError):
        softmax_naive([1000.0, 1001.0, 1002.0])
    # and very negative scores underflow: every exp is 0.0, so 0 / 0
    assert allclose(softmax([-1000.0, -1000.0]), [0.5, 0.5])
    with pytest.raises(ZeroDivisionError):
        softmax_naive([-1000.0, -1000.0])


def test_stable_and_naive_softmax_agree_where_both_work() -> None:
    rng = random.Random(0)
    for _ in range(20):
        scores = [rng.uniform(-20, 20) for _ in range(7)]
        assert allclose(softmax(scores), softmax_naive(scores), rel_tol=1e-12)
        assert math.isclose(sum(softmax(scores)), 1.0)


def test_masked_scores_get_weight_exactly_zero() -> None:
    weights = softmax([0.0, -math.inf, 0.0])
    assert weights.tolist() == [0.5, 0.0, 0.5]


@pytest.mark.parametrize("bad, error, words", [
    ([], ValueError, "at least one value"),
    ([1.0, math.nan], ValueError, "NaN"),
    ([1.0, math.inf], ValueError, r"\+inf"),
    ([-math.inf, -math.inf], ValueError, "only -inf"),
    ("abc", TypeError, "list of numbers or a Vector"),
    ([1.0, "2"], TypeError, "must be a number"),
])
def test_softmax_bad_input(bad: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        softmax(bad)


def test_softmax_takes_a_vector_or_any_iterable() -> None:
    assert softmax(Vector([1.0, 1.0])).tolist() == [0.5, 0.5]
    assert softmax(x for x in [1.0, 1.0]).tolist() == [0.5, 0.5]


# --- scaled dot-product attention -------------------------------------------

def test_attention_by_hand() -> None:
    q = k = Matrix([[1, 0], [0, 1]])
    v = Matrix([[1, 2], [3, 4]])
    result = scaled_dot_product_attention(q, k, v)
    s = 1 / math.sqrt(2)  # q_0 . k_0 / sqrt(d_k), and q_0 . k_1 = 0
    assert allclose(result.scores, [[s, 0], [0, s]])
    w = math.exp(s) / (math.exp(s) + 1)  # softmax([s, 0])[0] = 0.66976...
    assert allclose(result.weights, [[w, 1 - w], [1 - w, w]])
    assert allclose(result.output, [[w * 1 + (1 - w) * 3, w * 2 + (1 - w) * 4],
                                    [(1 - w) * 1 + w * 3, (1 - w) * 2 + w * 4]])
    assert math.isclose(w, 0.66976, abs_tol=5e-6)


def test_attention_agrees_with_the_loop_by_loop_version() -> None:
    rng = random.Random(1)
    q = [[rng.gauss(0, 1) for _ in range(8)] for _ in range(5)]  # (5, 8)
    k = [[rng.gauss(0, 1) for _ in range(8)] for _ in range(6)]  # (6, 8)
    v = [[rng.gauss(0, 1) for _ in range(3)] for _ in range(6)]  # (6, 3)
    result = scaled_dot_product_attention(Matrix(q), Matrix(k), Matrix(v))
    assert result.output.shape == (5, 3)
    assert result.weights.shape == (5, 6)
    assert allclose(result.output, naive_attention(q, k, v), rel_tol=1e-12, abs_tol=1e-12)
    for row in result.weights:
        assert math.isclose(sum(row), 1.0)


def test_causal_weights_above_the_diagonal_are_exactly_zero() -> None:
    x = Embedding(5, 4, seed=0).weight  # (5, 4)
    result = scaled_dot_product_attention(x, x, x, causal=True)
    for i in range(5):
        for j in range(5):
            if j > i:
                assert result.weights[i, j] == 0.0
                assert result.scores[i, j] == -math.inf
            else:
                assert result.weights[i, j] > 0.0
        assert math.isclose(sum(result.weights[i]), 1.0)
    assert result.weights[0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]  # token 0 sees only itself
    assert result.output[0] == x[0]  # ... so its output is its own value row
    # token i's output is attention over the first i + 1 tokens alone
    prefix = Matrix(x.tolist()[:3])
    prefix_result = scaled_dot_product_attention(prefix, prefix, prefix)
    assert allclose(result.output[2], prefix_result.output[2])


def test_attention_shape_mistakes() -> None:
    a = Matrix.zeros(4, 8)
    with pytest.raises(ShapeError, match=r"q has shape \(4, 8\) and k has shape \(4, 6\): "
                       r"axis -1 \(d_k\) has 8 vs 6"):
        scaled_dot_product_attention(a, Matrix.zeros(4, 6), a)
    with pytest.raises(ShapeError, match=r"k has shape \(4, 8\) and v has shape \(5, 8\): "
                       r"axis 0 has 4 vs 5; every key needs its value"):
        scaled_dot_product_attention(a, a, Matrix.zeros(5, 8))
    with pytest.raises(ShapeError, match="causal mask needs as many queries as keys"):
        scaled_dot_product_attention(Matrix.zeros(3, 8), a, a, causal=True)
    with pytest.raises(TypeError, match="q must be a Matrix"):
        scaled_dot_product_attention([[1.0]], a, a)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="causal must be True or False, got 1"):
        scaled_dot_product_attention(a, a, a, causal=1)  # type: ignore[arg-type]


def test_scores_that_overflow_are_refused_not_turned_into_nan() -> None:
    # Refused at the door: |q_i . k_j| <= d_k * max|q| * max|k| = 2 * 1e200 * 1e200 = 2e400,
    # more than a float holds (about 1.8e308), so a score could be inf or inf - inf = NaN.
    huge = Matrix([[1e200, 1e200]])
    with pytest.raises(ValueError, match=r"q and k hold numbers as large as 1e\+200 and "
                                         r"1e\+200: a score q_i . k_j, a sum of d_k = 2 "
                                         r"products, could reach inf"):
        scaled_dot_product_attention(huge, huge, huge)
    with pytest.raises(ValueError, match="as large as inf and 1"):  # inf * 0 would be NaN
        scaled_dot_product_attention(Matrix([[math.inf]]), Matrix([[1.0]]), Matrix([[1.0]]))
    with pytest.raises(ValueError, match="v holds inf: a weight of 0 times inf is NaN"):
        scaled_dot_product_attention(Matrix([[1.0]]), Matrix([[1.0]]), Matrix([[math.inf]]))
    # 1e150 * 1e150 * 2 = 2e300 fits: computed, not refused; q . k / sqrt(2) = 2e300 / sqrt(2)
    large = Matrix([[1e150, 1e150]])
    scores = scaled_dot_product_attention(large, large, large).scores
    assert math.isclose(scores[0, 0], 2e300 / math.sqrt(2), rel_tol=1e-12)
    # a bias that masks every key still says so, row by row
    with pytest.raises(ValueError, match="or only -inf"):
        scaled_dot_product_attention(large, large, large, bias=Matrix([[-math.inf]]))


# --- the single head --------------------------------------------------------

def test_head_weights_are_seeded_uniform_in_the_linear_range() -> None:
    head = SingleHeadAttention(d_in=16, d_out=4, seed=7)
    for weight in (head.W_q, head.W_k, head.W_v):
        assert weight.shape == (16, 4)
        assert all(abs(x) <= 1 / math.sqrt(16) for row in weight for x in row)
    rng = random.Random(7)  # drawn in order: W_q, then W_k, then W_v, row by row
    expected_w_q = [[rng.uniform(-0.25, 0.25) for _ in range(4)] for _ in range(16)]
    assert head.W_q.tolist() == expected_w_q
    assert SingleHeadAttention(16, 4, seed=7).W_v == head.W_v
    assert SingleHeadAttention(16, 4, seed=8).W_v != head.W_v


def test_head_projects_then_attends() -> None:
    head = SingleHeadAttention(d_in=6, d_out=3, seed=0)
    x = Embedding(4, 6, seed=1).weight  # (4, 6)
    q, k, v = head.qkv(x)
    for projected, weight in ((q, head.W_q), (k, head.W_k), (v, head.W_v)):
        # Q = x W_q, K = x W_k, V = x W_v, entry by entry
        assert allclose(projected, [[sum(x[t, c] * weight[c, j] for c in range(6))
                                     for j in range(3)] for t in range(4)])
    assert q != k and k != v and q != v  # three different weights, three projections
    expected = naive_attention(q.tolist(), k.tolist(), v.tolist())
    assert allclose(head(x).output, expected)


def _permute_rows(m: Matrix, order: list[int]) -> Matrix:
    return Matrix([m[i].tolist() for i in order])


def test_attention_without_positions_is_permutation_equivariant() -> None:
    head = SingleHeadAttention(d_in=8, d_out=8, seed=0)
    x = Embedding(5, 8, seed=3).weight  # 5 tokens
    order = [3, 0, 4, 1, 2]
    shuffled_then_attended = head(_permute_rows(x, order)).output
    attended_then_shuffled = _permute_rows(head(x).output, order)
    assert allclose(shuffled_then_attended, attended_then_shuffled, abs_tol=1e-12)


def test_with_sinusoidal_positions_order_matters() -> None:
    head = SingleHeadAttention(d_in=8, d_out=8, seed=0)
    x = Embedding(5, 8, seed=3).weight
    positions = sinusoidal_encoding(5, 8)  # row t is added to whichever token stands at t
    order = [3, 0, 4, 1, 2]
    shuffled_then_attended = head(_permute_rows(x, order) + positions).output
    attended_then_shuffled = _permute_rows(head(x + positions).output, order)
    assert not allclose(shuffled_then_attended, attended_then_shuffled, abs_tol=1e-6)


def test_head_input_mistakes() -> None:
    head = SingleHeadAttention(d_in=8, d_out=4)
    with pytest.raises(ShapeError, match=r"x has shape \(3, 7\) and W_q has shape \(8, 4\): "
                       r"x's axis 1 \(d_in\) has 7 but W_q's axis 0 has 8; x needs d_in=8 columns"):
        head(Matrix.zeros(3, 7))
    with pytest.raises(TypeError, match=r"for a Batch, call the head on each batch\[b\]"):
        head(Batch([Matrix.zeros(3, 8)]))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="d_in must be >= 1"):
        SingleHeadAttention(0, 4)
    with pytest.raises(TypeError, match="d_out must be an int"):
        SingleHeadAttention(4, 2.5)  # type: ignore[arg-type]


# --- positions inside attention: a bias on the scores, or rotated q and k ----------

def test_bias_is_added_to_the_scores_before_the_softmax() -> None:
    q = k = Matrix([[1, 0], [0, 1]])
    v = Matrix([[1, 2], [3, 4]])
    bias = Matrix([[0.0, 2.0], [-1.0, 0.5]])
    result = scaled_dot_product_attention(q, k, v, bias=bias)
    s = 1 / math.sqrt(2)  # the plain scores are [[s, 0], [0, s]], as in test_attention_by_hand
    assert allclose(result.scores, [[s + 0.0, 0 + 2.0], [0 - 1.0, s + 0.5]])
    assert allclose(result.weights[0], softmax_naive([s, 2.0]))
    assert allclose(result.weights[1], softmax_naive([-1.0, s + 0.5]))


def test_a_zero_bias_changes_nothing_and_minus_inf_hides_a_key() -> None:
    x = Embedding(4, 4, seed=2).weight
    plain = scaled_dot_product_attention(x, x, x)
    assert scaled_dot_product_attention(x, x, x, bias=Matrix.zeros(4, 4)) == plain
    # -inf above the diagonal is the causal mask, written as a bias
    mask = Matrix([[0.0 if j <= i else -math.inf for j in range(4)] for i in range(4)])
    assert scaled_dot_product_attention(x, x, x, bias=mask) == \
        scaled_dot_product_attention(x, x, x, causal=True)


def test_bias_mistakes() -> None:
    a = Matrix.zeros(4, 8)
    with pytest.raises(ShapeError, match=r"bias has shape \(3, 4\) and the score table has shape "
                       r"\(4, 4\): axis 0 has 3 vs 4; B\[i, j\] is added to score\(i, j\) of "
                       r"query i and key j"):
        scaled_dot_product_attention(a, a, a, bias=Matrix.zeros(3, 4))
    with pytest.raises(TypeError, match=r"bias must be a Matrix of shape \(4, 4\)"):
        scaled_dot_product_attention(a, a, a, bias=[[0.0] * 4] * 4)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="the bias holds \\+inf or masks every key of row 0"):
        scaled_dot_product_attention(a, a, a, bias=Matrix([[-math.inf] * 4] + [[0.0] * 4] * 3))


def _rotate_by_hand(rows: list[list[float]]) -> list[list[float]]:
    """Interleaved RoPE written out: pair (2i, 2i+1) of row pos turns by pos / 10000**(2i/d)."""
    d = len(rows[0])
    out = []
    for pos, row in enumerate(rows):
        turned = []
        for i in range(d // 2):
            a = pos / 10000 ** (2 * i / d)
            x, y = row[2 * i], row[2 * i + 1]
            turned += [x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)]
        out.append(turned)
    return out


def test_a_rotary_head_rotates_q_and_k_but_not_v() -> None:
    x = Embedding(5, 6, seed=1).weight  # (5, 6)
    plain = SingleHeadAttention(6, 4, seed=0)
    rotary = RotaryAttention(6, 4, seed=0)
    assert rotary.W_q == plain.W_q and rotary.W_v == plain.W_v  # the same seeded weights
    q, k, v = plain.qkv(x)
    expected = naive_attention(_rotate_by_hand(q.tolist()), _rotate_by_hand(k.tolist()),
                               v.tolist())
    assert allclose(rotary(x).output, expected, rel_tol=1e-12, abs_tol=1e-12)
    assert not allclose(rotary(x).output, plain(x).output)
    # token 0 is not turned at all: its query and key are the plain ones
    assert allclose(rotary(x).scores[0, 0], plain(x).scores[0, 0])
    assert repr(rotary) == "RotaryAttention(d_in=6, d_out=4)"


def test_a_rotary_head_tells_repeated_tokens_apart() -> None:
    same = Embedding(1, 8, seed=4).weight[0].tolist()
    x = Matrix([same, same, same])  # one token three times: equal rows, nothing added
    plain = SingleHeadAttention(d_in=8, d_out=8, seed=0)(x).weights
    # without positions the three keys are one key: every row of weights is 1/3, 1/3, 1/3
    assert allclose(plain, [[1 / 3] * 3] * 3)
    # with RoPE key j is turned by j * theta_i: the three keys differ, and so do the weights
    rotary = RotaryAttention(d_in=8, d_out=8, seed=0)(x).weights
    for i in range(3):
        assert not allclose(rotary[i], [1 / 3] * 3, abs_tol=1e-3)


def test_rotary_head_mistakes() -> None:
    with pytest.raises(ValueError, match="RotaryAttention needs an even d_out, got d_out=5"):
        RotaryAttention(4, 5)
    with pytest.raises(ValueError, match="base must be a finite number > 0"):
        RotaryAttention(4, 4, base=0.0)
    assert SingleHeadAttention(4, 5).d_out == 5  # odd d_out is fine without RoPE


def test_with_rope_order_matters() -> None:
    head = RotaryAttention(d_in=8, d_out=8, seed=0)
    x = Embedding(5, 8, seed=3).weight  # nothing added: the rotation is inside the head
    order = [3, 0, 4, 1, 2]
    shuffled_then_attended = head(_permute_rows(x, order)).output
    attended_then_shuffled = _permute_rows(head(x).output, order)
    assert not allclose(shuffled_then_attended, attended_then_shuffled, abs_tol=1e-6)


def test_with_alibi_order_matters() -> None:
    head = SingleHeadAttention(d_in=8, d_out=8, seed=0)
    x = Embedding(5, 8, seed=3).weight
    bias = alibi_bias(5, 0.5, causal=False)  # the same bias, whichever token stands at i
    order = [3, 0, 4, 1, 2]
    shuffled_then_attended = head(_permute_rows(x, order), bias=bias).output
    attended_then_shuffled = _permute_rows(head(x, bias=bias).output, order)
    assert not allclose(shuffled_then_attended, attended_then_shuffled, abs_tol=1e-6)
    # a bias that is the same for every pair (i, j) keeps attention blind to order
    flat = Matrix([[0.3] * 5] * 5)
    assert allclose(head(_permute_rows(x, order), bias=flat).output,
                    _permute_rows(head(x, bias=flat).output, order), abs_tol=1e-12)


def test_tables_too_big_for_a_laptop_are_refused_with_the_estimate() -> None:
    # n x n numbers at ~32 bytes each; the limit is about 4 GB (125,000,000 numbers)
    with pytest.raises(ValueError, match=r"causal_mask\(1000000\) would hold "
                                         r"1,000,000,000,000 numbers, about 32,000 GB"):
        causal_mask(10**6)  # 10**12 numbers * 32 bytes = 3.2e13 bytes
    # 3 * 10**5 * 10**5 = 3e10 numbers, about 960 GB
    with pytest.raises(ValueError, match=r"W_q, W_k and W_v would hold 30,000,000,000 numbers, "
                                         r"about 960 GB"):
        SingleHeadAttention(10**5, 10**5)
    assert causal_mask(2000).shape == (2000, 2000)  # 4e6 numbers, 128 MB: built


# --- a boolean mask: which keys each query may attend ----------------------------------

def naive_masked_attention(q: list[list[float]], k: list[list[float]], v: list[list[float]],
                           may: list[list[bool]]) -> tuple[list[list[float]], list[list[float]]]:
    """Loops again, over the allowed keys only; a query with none gets zero weights."""
    d_k = len(q[0])
    outputs, weights = [], []
    for i, q_row in enumerate(q):
        allowed = [j for j in range(len(k)) if may[i][j]]
        exps = {j: math.exp(sum(q_row[c] * k[j][c] for c in range(d_k)) / math.sqrt(d_k))
                for j in allowed}
        row = [exps[j] / sum(exps.values()) if j in exps else 0.0 for j in range(len(k))]
        weights.append(row)
        outputs.append([sum(row[j] * v[j][c] for j in range(len(v))) for c in range(len(v[0]))])
    return outputs, weights


def _random_table(rng: random.Random, rows: int, cols: int) -> list[list[float]]:
    return [[rng.uniform(-2, 2) for _ in range(cols)] for _ in range(rows)]


def test_a_mask_lets_each_query_see_only_its_keys_as_the_loops_do() -> None:
    rng = random.Random(19)
    q, k, v = _random_table(rng, 3, 4), _random_table(rng, 5, 4), _random_table(rng, 5, 2)
    may = [[True, False, True, True, False],
           [False, False, False, False, True],
           [True, True, True, True, True]]
    result = scaled_dot_product_attention(Matrix(q), Matrix(k), Matrix(v), mask=may)
    outputs, weights = naive_masked_attention(q, k, v, may)
    assert allclose(result.output, outputs, rel_tol=1e-12, abs_tol=1e-15)
    assert allclose(result.weights, weights, rel_tol=1e-12, abs_tol=0.0)  # zeros exactly 0
    assert result.scores[0][1] == -math.inf and result.scores[0][0] > -math.inf


def test_a_mask_and_causal_must_both_let_a_key_through() -> None:
    rng = random.Random(8)
    q, k, v = _random_table(rng, 4, 2), _random_table(rng, 4, 2), _random_table(rng, 4, 3)
    may = [[True, True, True, True],
           [False, True, True, False],
           [True, False, True, True],
           [False, True, False, True]]
    both = [[may[i][j] and j <= i for j in range(4)] for i in range(4)]  # written out
    result = scaled_dot_product_attention(Matrix(q), Matrix(k), Matrix(v), causal=True, mask=may)
    outputs, weights = naive_masked_attention(q, k, v, both)
    assert allclose(result.output, outputs, rel_tol=1e-12, abs_tol=1e-15)
    assert allclose(result.weights, weights, rel_tol=1e-12, abs_tol=0.0)
    # a lower-triangular mask is the causal mask, and 1/0 read as True/False
    lower = [[1 if j <= i else 0 for j in range(4)] for i in range(4)]
    assert scaled_dot_product_attention(Matrix(q), Matrix(k), Matrix(v), mask=lower) == \
        scaled_dot_product_attention(Matrix(q), Matrix(k), Matrix(v), causal=True)


def test_a_query_that_may_see_no_key_gets_zeros_not_nan() -> None:
    rng = random.Random(3)
    x = Matrix(_random_table(rng, 3, 2))
    may = [[True, False, False], [False, False, False], [True, True, True]]
    result = scaled_dot_product_attention(x, x, x, mask=may)
    assert result.weights[1].tolist() == [0.0, 0.0, 0.0]
    assert result.output[1].tolist() == [0.0, 0.0]
    assert result.output[0].tolist() == x[0].tolist()  # its one key: weight exactly 1
    # causal hides keys 1 and 2 from query 0, the mask hides key 0: nothing is left
    blocked = scaled_dot_product_attention(x, x, x, causal=True, mask=[[False, True, True]] * 3)
    assert blocked.output[0].tolist() == [0.0, 0.0]
    assert blocked.weights[0].tolist() == [0.0, 0.0, 0.0]


def test_heads_pass_the_mask_on() -> None:
    x = Embedding(5, 4, seed=1).weight
    may = [[j != 2 for j in range(5)] for _ in range(5)]  # nobody sees token 2
    for head in (SingleHeadAttention(4, 2, seed=3), RotaryAttention(4, 2, seed=3)):
        masked = head(x, mask=may)
        assert all(row[2] == 0.0 for row in masked.weights.tolist())
        assert masked.weights != head(x).weights


def test_mask_mistakes() -> None:
    a = Matrix.zeros(2, 3)
    cases: list[tuple[Any, type[Exception], str]] = [
        ([[True, True]], ShapeError, r"mask has 1 rows but there are 2 queries: mask\[i\]\[j\] "
         r"says whether query i may attend key j, so it needs shape \(2, 2\)"),
        ([[True, True], [True]], ShapeError, r"mask\[1\] has 1 entries but there are 2 keys"),
        ([[True, 2], [True, True]], ValueError, r"mask\[0\]\[1\] = 2: a mask holds True"),
        ([[True, 1.0], [True, True]], ValueError, r"mask\[0\]\[1\] = 1.0"),
        (Matrix.zeros(2, 2), TypeError, r"not a Matrix; an additive table of 0.0 and -inf "
         r"goes in bias="),
        ("TT", TypeError, r"mask must be a list of 2 rows \(one per query\)"),
        ([True, True], TypeError, r"mask\[0\] must be a list of 2 booleans"),
    ]
    for mask, error, words in cases:
        with pytest.raises(error, match=words):
            scaled_dot_product_attention(a, a, a, mask=mask)


def test_a_mask_matches_pytorchs_boolean_attn_mask() -> None:
    # Numbers from torch.nn.functional.scaled_dot_product_attention in float64, saved by
    # tests/reference/make_batches_reference.py; its row 2 sees no key: torch gives zeros.
    reference = json.loads((Path(__file__).parent / "reference" /
                            "batches_reference.json").read_text())["attention_mask"]
    result = scaled_dot_product_attention(Matrix(reference["q"]), Matrix(reference["k"]),
                                          Matrix(reference["v"]), mask=reference["mask"])
    assert allclose(result.output, reference["output"], rel_tol=1e-12, abs_tol=1e-14)
    assert result.output[2].tolist() == reference["output"][2] == [0.0, 0.0]
    case = reference["causal"]  # torch got the mask and the lower triangle combined
    result = scaled_dot_product_attention(Matrix(case["q"]), Matrix(case["k"]), Matrix(case["v"]),
                                          causal=True, mask=case["mask"])
    assert allclose(result.output, case["output"], rel_tol=1e-12, abs_tol=1e-14)
