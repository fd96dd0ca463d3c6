"""Appendix B: NumPy's broadcasting rule.

The expected shapes are the examples of NumPy's broadcasting documentation
(plus lecture 001's (8, 4, 256) + (4, 256)); test_reference.py checks many of
them against what numpy.broadcast_shapes itself returned.
"""

from __future__ import annotations

import itertools
import operator
from typing import Any

import pytest

from minipe import ShapeError, broadcast_shapes
from minipe.arrays.broadcast import broadcast_elementwise

COMPATIBLE = [
    ((8, 4, 256), (4, 256), (8, 4, 256)),  # lecture 001: a position table over a batch
    ((256, 256, 3), (3,), (256, 256, 3)),  # NumPy docs: an image scaled per channel
    ((8, 1, 6, 1), (7, 1, 5), (8, 7, 6, 5)),
    ((5, 4), (1,), (5, 4)),
    ((5, 4), (4,), (5, 4)),
    ((15, 3, 5), (15, 1, 5), (15, 3, 5)),
    ((15, 3, 5), (3, 5), (15, 3, 5)),
    ((15, 3, 5), (3, 1), (15, 3, 5)),
    ((4, 1), (3,), (4, 3)),  # both operands stretch
    ((1,), (1,), (1,)),
    ((1, 1, 1), (7,), (1, 1, 7)),
    ((), (4, 256), (4, 256)),  # a plain number broadcasts to anything
]

# (left, right, the axis the error must name, counted from the right)
INCOMPATIBLE = [
    ((3,), (4,), -1),
    ((2, 1), (8, 4, 3), -2),
    ((8, 4, 256), (4, 255), -1),
    ((8, 4, 256), (8, 256), -2),  # the batch size is not the sequence length
    ((4, 3), (4,), -1),  # a (4,) vector cannot be added to every *column*
]


@pytest.mark.parametrize("left, right, expected", COMPATIBLE)
def test_broadcast_shapes_follows_numpy(left: tuple[int, ...], right: tuple[int, ...],
                                        expected: tuple[int, ...]) -> None:
    assert broadcast_shapes(left, right) == expected
    assert broadcast_shapes(right, left) == expected  # the rule is symmetric


@pytest.mark.parametrize("left, right, axis", INCOMPATIBLE)
def test_mismatch_names_both_shapes_and_the_axis(left: tuple[int, ...], right: tuple[int, ...],
                                                 axis: int) -> None:
    with pytest.raises(ShapeError) as caught:
        broadcast_shapes(left, right)
    message = str(caught.value)
    assert str(left) in message and str(right) in message
    assert f"axis {axis} " in message
    assert "equal sizes or a 1" in message


def test_the_lecture_mismatch_reads_as_a_lesson() -> None:
    with pytest.raises(ShapeError, match=r"cannot add shapes \(8, 4, 256\) and \(4, 255\): "
                       r"axis -1 has 256 vs 255"):
        broadcast_shapes((8, 4, 256), (4, 255), verb="add")


def test_shape_error_is_a_value_error() -> None:
    assert issubclass(ShapeError, ValueError)


def test_more_than_two_shapes() -> None:
    assert broadcast_shapes((8, 1, 1), (4, 1), (256,)) == (8, 4, 256)
    with pytest.raises(ShapeError, match=r"cannot broadcast shapes \(1, 2\), \(3, 1\) "
                       r"\(together \(3, 2\)\) and \(4,\): axis -1 has 2 vs 4"):
        broadcast_shapes((1, 2), (3, 1), (4,))
    assert broadcast_shapes((3,)) == (3,)
    assert broadcast_shapes() == ()


@pytest.mark.parametrize("bad", [(4, 0), (4, -1), (4.0,), (True, 2)])
def test_sizes_must_be_positive_ints(bad: Any) -> None:
    with pytest.raises(ValueError, match="every size must be an int >= 1"):
        broadcast_shapes(bad, (4,))


def test_a_shape_must_be_a_tuple() -> None:
    with pytest.raises(TypeError, match="tuple of ints"):
        broadcast_shapes(4, (4,))  # type: ignore[arg-type]


def _numbered(shape: tuple[int, ...], start: float) -> Any:
    """A nested list of the given shape holding start, start + 1, start + 2, ... row-major."""
    if not shape:
        return start
    step = 1
    for size in shape[1:]:
        step *= size
    return [_numbered(shape[1:], start + k * step) for k in range(shape[0])]


def _naive_broadcast_add(a: Any, a_shape: tuple[int, ...], b: Any,
                         b_shape: tuple[int, ...]) -> Any:
    """A second, index-by-index implementation: out[idx] = a[idx mapped] + b[idx mapped]."""
    ndim = max(len(a_shape), len(b_shape))
    out_shape = tuple(max(x, y) for x, y in zip((1,) * (ndim - len(a_shape)) + a_shape,
                                                (1,) * (ndim - len(b_shape)) + b_shape))

    def read(value: Any, shape: tuple[int, ...], index: tuple[int, ...]) -> float:
        own = index[ndim - len(shape):]  # drop the axes this operand does not have
        for k, size in zip(own, shape):
            value = value[0 if size == 1 else k]  # size 1: always item 0
        return float(value)

    flat = {index: read(a, a_shape, index) + read(b, b_shape, index)
            for index in itertools.product(*(range(n) for n in out_shape))}

    def build(prefix: tuple[int, ...]) -> Any:
        if len(prefix) == ndim:
            return flat[prefix]
        return [build(prefix + (k,)) for k in range(out_shape[len(prefix)])]

    return build(())


def _as_tuples(value: Any) -> Any:
    return tuple(_as_tuples(item) for item in value) if isinstance(value, list) else value


@pytest.mark.parametrize("left, right, expected", [c for c in COMPATIBLE if c[2] != (256, 256, 3)
                                                   and c[2] != (8, 4, 256)])
def test_elementwise_walk_agrees_with_index_by_index(left: tuple[int, ...],
                                                     right: tuple[int, ...],
                                                     expected: tuple[int, ...]) -> None:
    a = _numbered(left, 0.0)
    b = _numbered(right, 1000.0)
    result = broadcast_elementwise(operator.add, a, left, b, right)
    assert broadcast_shapes(left, right) == expected
    assert result == _as_tuples(_naive_broadcast_add(a, left, b, right))


def test_position_t_is_added_to_every_sequence() -> None:
    # Lecture 001 at a size you can check by eye: 2 sequences of 3 tokens, 2 dims.
    batch = [[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
             [[10.0, 10.0], [20.0, 20.0], [30.0, 30.0]]]
    positions = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]  # row t for position t
    result = broadcast_elementwise(operator.add, batch, (2, 3, 2), positions, (3, 2))
    assert result == (((1.0, 2.0), (3.0, 4.0), (5.0, 6.0)),
                      ((11.0, 12.0), (23.0, 24.0), (35.0, 36.0)))
