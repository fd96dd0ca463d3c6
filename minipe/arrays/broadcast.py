"""Appendix B - broadcasting: how a (4, 256) table is added to an (8, 4, 256) batch.

Chapter 3 (minipe/positional.py) ends by adding a position table to a batch
of token embeddings; this appendix is the rule that makes that work.

Lecture 001 adds a position table of shape (4, 256) to token embeddings of
shape (8, 4, 256) and says PyTorch "broadcasts" the table over the batch:
row t of the table is added to token t of *every* sequence b. This chapter
spells out the rule NumPy and PyTorch use, so nothing about it is magic.

The rule, for two shapes:

1. Write the shapes one above the other, aligned on the right:

       (8, 4, 256)
          (4, 256)

   A shorter shape is treated as if padded on the left with 1s: (1, 4, 256).
2. Walk the axes. On each axis the two sizes must be equal, or one of them
   must be 1. A size of 1 is *stretched*: the same item is reused for every
   index along that axis.
3. The result takes the larger size on every axis: (8, 4, 256).

Nothing here knows about Vector or Matrix: the rule works on shapes (tuples of
ints) and on plain nested tuples of floats. Appendix A (minipe/arrays/matrix.py)
builds `+` and `-` on top of it.

Left out: broadcasting of more than two operands at once in the element-wise
walk (`broadcast_shapes` itself takes any number of shapes), and axes of size 0.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from minipe.checks import ShapeError as ShapeError  # kept with the checks: support raises it too

Shape = tuple[int, ...]
# A nested list of floats, as deep as its shape is long; a bare float for shape ().
Nested = Any


def broadcast_shapes(*shapes: Sequence[int], verb: str = "broadcast") -> Shape:
    """The shape that `shapes` broadcast to, by NumPy's rule (see the module docstring).

    >>> broadcast_shapes((8, 4, 256), (4, 256))
    (8, 4, 256)
    >>> broadcast_shapes((4, 1), (3,))
    (4, 3)

    Raises ShapeError naming both shapes and the axis (counted from the right,
    as -1, -2, ...) where the sizes are unequal and neither is 1. `verb` only
    changes the wording of that error ("cannot add shapes ...").
    """
    checked = [_check_shape(shape, position) for position, shape in enumerate(shapes)]
    result: Shape = ()
    for position, shape in enumerate(checked):
        if position < 2:
            left_text = str(result)
        else:  # name the shapes the caller gave, not only what they broadcast to
            left_text = f"{', '.join(map(str, checked[:position]))} (together {result})"
        result = _broadcast_pair(result, shape, verb, left_text)
    return result


def _broadcast_pair(left: Shape, right: Shape, verb: str, left_text: str) -> Shape:
    """The rule for two shapes, one axis at a time, from the right."""
    ndim = max(len(left), len(right))
    left_padded = (1,) * (ndim - len(left)) + left  # pad on the left with 1s
    right_padded = (1,) * (ndim - len(right)) + right
    result = []
    for axis in range(ndim):
        left_size = left_padded[axis]
        right_size = right_padded[axis]
        if left_size == right_size or right_size == 1:
            result.append(left_size)
        elif left_size == 1:
            result.append(right_size)
        else:
            axis_from_right = axis - ndim  # -1 is the last axis
            raise ShapeError(
                f"cannot {verb} shapes {left_text} and {right}: axis {axis_from_right} "
                f"has {left_size} vs {right_size}; broadcasting needs equal sizes "
                f"or a 1 (see minipe/arrays/broadcast.py){_swapped_hint(left, right)}"
            )
    return tuple(result)


def _swapped_hint(left: Shape, right: Shape) -> str:
    """A hint when the last two axes are (a, b) in one shape and (b, a) in the other.

    Such shapes never broadcast (a != b, neither is 1), and the usual cause is an
    argument order: the tutorials' PositionalEncoding(d_model, dropout, max_len)
    against sinusoidal_encoding(num_positions, d_model).
    """
    if len(left) < 2 or len(right) < 2:
        return ""
    a, b = left[-2:]
    if right[-2:] != (b, a) or a == b or 1 in (a, b):
        return ""
    return (f"; the last two axes look swapped, {(a, b)} against {(b, a)} (note: "
            f"sinusoidal_encoding takes num_positions first, then d_model)")


def _check_shape(shape: Sequence[int], position: int) -> Shape:
    if not isinstance(shape, (tuple, list)):
        raise TypeError(
            f"shape {position} must be a tuple of ints like (4, 256), "
            f"got {type(shape).__name__}"
        )
    for size in shape:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(
                f"shape {tuple(shape)} has size {size!r}: every size must be an int >= 1"
            )
    return tuple(shape)


def broadcast_elementwise(
    op: Callable[[float, float], float],
    a: Nested,
    a_shape: Shape,
    b: Nested,
    b_shape: Shape,
    *,
    verb: str = "broadcast",
) -> Nested:
    """Apply `op` to every pair of elements of two broadcast operands.

    `a` and `b` are nested tuples (or lists) of floats with shapes `a_shape`
    and `b_shape`, as Vector, Matrix and Batch hold them (their shapes are
    valid already); a bare float has shape (). Returns the results, as nested
    tuples of the broadcast shape.

    >>> broadcast_elementwise(lambda x, y: x + y, [[1.0], [2.0]], (2, 1), [10.0, 20.0], (2,))
    ((11.0, 21.0), (12.0, 22.0))

    The walk is the rule, step by step:
    - the operand with fewer axes gets leading axes of size 1 (it is wrapped
      in one-element lists), exactly like NumPy's padding with 1s;
    - on each axis, an operand of size 1 offers the same item for every index.
    """
    shape = _broadcast_pair(a_shape, b_shape, verb, str(a_shape))
    a_padded = _add_leading_axes(a, len(shape) - len(a_shape))  # now len(shape) axes deep
    b_padded = _add_leading_axes(b, len(shape) - len(b_shape))
    return _walk(op, a_padded, b_padded, len(shape))


def _add_leading_axes(value: Nested, count: int) -> Nested:
    """Wrap `value` in `count` one-element lists: shape (4, 256) -> (1, 4, 256) for count=1."""
    for _ in range(count):
        value = [value]
    return value


def _walk(op: Callable[[float, float], float], a: Nested, b: Nested, ndim: int) -> Nested:
    """Combine `a` and `b`, both `ndim` axes deep, stretching every axis of size 1."""
    if ndim == 0:
        return op(a, b)  # two numbers
    size = max(len(a), len(b))
    a_items = a * size if len(a) == 1 else a  # size 1: its one item, once for every index
    b_items = b * size if len(b) == 1 else b
    if ndim == 1:
        return tuple(map(op, a_items, b_items))  # the numbers themselves
    return tuple([_walk(op, x, y, ndim - 1) for x, y in zip(a_items, b_items)])
