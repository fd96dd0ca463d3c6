"""Hugging Face transformers, tests/models/roformer/test_modeling_roformer.py (Apache 2.0).

The numbers below are copied from that file's assertions; minipe computes its own answer
through the public API and must land within the tolerance the source test used:
torch.allclose(actual, desired, atol=1e-4), whose rtol default is 1e-5, that is
|actual - desired| <= 1e-4 + 1e-5 * |desired| for every number.

Two conventions differ, and each test converts where you can see it:
- RoFormer's sinusoidal table puts every sine first, then every cosine: a row is
  [sin(p w_0), ..., sin(p w_(d/2-1)) | cos(p w_0), ..., cos(p w_(d/2-1))].
  minipe's `sinusoidal_encoding` interleaves them, [sin, cos, sin, cos, ...] as in
  "Attention Is All You Need", so RoFormer's row is minipe's even columns, then its odd ones.
- RoFormer rotates the pairs (x[2i], x[2i+1]) (its rotate_half stacks -x[1::2] with x[::2]):
  that is minipe's `layout="interleaved"`, the default, so no conversion is needed there.
"""

from __future__ import annotations

from collections.abc import Sequence

from minipe import Matrix, apply_rotary, sinusoidal_encoding

ATOL, RTOL = 1e-4, 1e-5  # the source's `tolerance = 1e-4`; torch.allclose's default rtol


def _sin_then_cos(row: Sequence[float]) -> list[float]:
    """minipe's interleaved row [s0, c0, s1, c1, ...] -> RoFormer's [s0, s1, ... | c0, c1, ...]."""
    return list(row[0::2]) + list(row[1::2])


def _far(actual: Sequence[Sequence[float]], desired: Sequence[Sequence[float]]) -> list[str]:
    """Every number outside torch.allclose(actual, desired, atol=1e-4), as readable lines."""
    assert [len(row) for row in actual] == [len(row) for row in desired]
    return [f"[{r}][{c}]: {a} against {d}"
            for r, (arow, drow) in enumerate(zip(actual, desired))
            for c, (a, d) in enumerate(zip(arow, drow)) if abs(a - d) > ATOL + RTOL * abs(d)]


def test_basic() -> None:
    """RoFormerSinusoidalPositionalEmbeddingTest.test_basic: 6 positions x 6 dims, the rows
    for an input of shape [1, 2] (positions 0 and 1)."""
    desired = [[0.0000, 0.0000, 0.0000, 1.0000, 1.0000, 1.0000],
               [0.8415, 0.0464, 0.0022, 0.5403, 0.9989, 1.0000]]
    table = sinusoidal_encoding(6, 6).tolist()
    assert _far([_sin_then_cos(row) for row in table[:2]], desired) == []


def test_positional_emb_weights_against_roformer() -> None:
    """RoFormerSinusoidalPositionalEmbeddingTest.test_positional_emb_weights_against_roformer:
    the 512 x 512 table, weight[:3, :5] - rows 0-2, the first five sines."""
    desired = [[0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
               [0.8415, 0.8219, 0.8020, 0.7819, 0.7617],
               [0.9093, 0.9364, 0.9581, 0.9749, 0.9870]]
    table = sinusoidal_encoding(512, 512).tolist()
    assert _far([_sin_then_cos(row)[:5] for row in table[:3]], desired) == []


def test_apply_rotary_position_embeddings() -> None:
    """RoFormerSelfAttentionRotaryPositionEmbeddingTest.test_apply_rotary_position_embeddings:
    query = arange(2*12*16*64).reshape(2, 12, 16, 64) / 100, key = -query, head_dim 64,
    positions 0 .. 15; it asserts [0, 0, :6, :8] - batch 0, head 0, positions 0-5, dims 0-7.
    Head (0, 0) is the first 16 x 64 block of the arange: q[p][j] = (64 p + j) / 100."""
    desired_query = [
        [0.0000, 0.0100, 0.0200, 0.0300, 0.0400, 0.0500, 0.0600, 0.0700],
        [-0.2012, 0.8897, 0.0263, 0.9401, 0.2074, 0.9463, 0.3481, 0.9343],
        [-1.7057, 0.6271, -1.2145, 1.3897, -0.6303, 1.7647, -0.1173, 1.8985],
        [-2.1731, -1.6397, -2.7358, 0.2854, -2.1840, 1.7183, -1.3018, 2.4871],
        [0.2717, -3.6173, -2.9206, -2.1988, -3.6638, 0.3858, -2.9155, 2.2980],
        [3.9859, -2.1580, -0.7984, -4.4904, -4.1181, -2.0252, -4.4782, 1.1253],
    ]
    desired_key = [
        [0.0000, -0.0100, -0.0200, -0.0300, -0.0400, -0.0500, -0.0600, -0.0700],
        [0.2012, -0.8897, -0.0263, -0.9401, -0.2074, -0.9463, -0.3481, -0.9343],
        [1.7057, -0.6271, 1.2145, -1.3897, 0.6303, -1.7647, 0.1173, -1.8985],
        [2.1731, 1.6397, 2.7358, -0.2854, 2.1840, -1.7183, 1.3018, -2.4871],
        [-0.2717, 3.6173, 2.9206, 2.1988, 3.6638, -0.3858, 2.9155, -2.2980],
        [-3.9859, 2.1580, 0.7984, 4.4904, 4.1181, 2.0252, 4.4782, -1.1253],
    ]
    query = [[(64 * p + j) / 100 for j in range(64)] for p in range(16)]
    key = [[-value for value in row] for row in query]
    turned_query = apply_rotary(Matrix(query), layout="interleaved").tolist()
    turned_key = apply_rotary(Matrix(key), layout="interleaved").tolist()
    assert _far([row[:8] for row in turned_query[:6]], desired_query) == []
    assert _far([row[:8] for row in turned_key[:6]], desired_key) == []


def test_the_layouts_are_told_apart() -> None:
    """Without the conversion the first test's row 1 is far from RoFormer's: the check can fail."""
    row = sinusoidal_encoding(6, 6).tolist()[1]
    assert _far([row], [[0.8415, 0.0464, 0.0022, 0.5403, 0.9989, 1.0000]]) != []
