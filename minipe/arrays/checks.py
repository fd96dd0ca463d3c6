"""Appendix A, part 3 - what Vector, Matrix and Batch check, and the sentences they say.

The constructors and operators of minipe/arrays/matrix.py and minipe/arrays/batch.py are
the appendix's doors: a list that is not numbers, a row of the wrong length,
an index past the end, a NaN. Their checks live here so that the appendix
reads as the arrays first; nothing here knows the classes themselves (they
come after this module), only the plain tuples and lists they are built from.

>>> checked_rows([[1, 2], [3]], "Matrix rows")
Traceback (most recent call last):
minipe.checks.ShapeError: ragged rows: Matrix rows[0] has 2 values but Matrix rows[1] \
has 1; every row of a Matrix needs the same length
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Mapping, Set as AbstractSet  # isinstance: quicker
from typing import Any, Sequence, TypeVar

from minipe.checks import ShapeError
from minipe.checks import checked_number, checked_values

Item = TypeVar("Item")
Rows = tuple[tuple[float, ...], ...]


def checked_rows(rows: object, what: str) -> Rows:
    """The rows as tuples of floats, all of one length; a sentence naming a bad one otherwise.

    Reads the rows number by number, so that the sentence can name the culprit;
    ints become floats. The constructors call this only for rows that their
    quick look at C speed (minipe/arrays/matrix.py's float_rows) did not pass.
    """
    if isinstance(rows, (str, bytes, AbstractSet, Mapping)) or not isinstance(rows, Iterable):
        raise TypeError(f"{what} must be a list of rows, in order, got {type(rows).__name__}")
    listed = list(rows)
    if not listed:
        raise ValueError(f"{what} has no rows; it needs at least one")
    numbers = tuple([checked_values(row, f"{what}[{i}]") for i, row in enumerate(listed)])
    return same_width(numbers, what)  # ints became floats; a bad number was named


def same_width(numbers: Rows, what: str) -> Rows:
    """`numbers` if every row has the length of the first; a sentence naming one that does not."""
    width = len(numbers[0])
    if operator.countOf(map(len, numbers), width) != len(numbers):
        i = next(i for i, row in enumerate(numbers) if len(row) != width)
        raise ShapeError(f"ragged rows: {what}[0] has {width} values but {what}[{i}] "
                         f"has {len(numbers[i])}; every row of a Matrix needs the same length")
    return numbers


def checked_index(index: object, size: int, what: str) -> int:
    """`index` if it is an int in -size .. size - 1 (negative ones count from the end)."""
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"{what} index must be an int, got {index!r}")
    if not -size <= index < size:
        raise IndexError(f"{what} index {index} is out of range: valid are 0..{size - 1} "
                         f"(or -{size}..-1 counting from the end)")
    return index


def non_empty_slice(items: Sequence[Item], index: slice, size: int, what: str) -> Sequence[Item]:
    """items, a slice of a Vector or Matrix, unless it is empty (an array has at least one item)."""
    if not items:
        start = "" if index.start is None else index.start
        stop = "" if index.stop is None else index.stop
        raise IndexError(f"{what}[{start}:{stop}] would be empty: the {what} has "
                         f"{size} {'rows' if what == 'Matrix' else 'values'}")
    return items


def matmul_message(left: tuple[int, ...], right: tuple[int, ...]) -> str:
    """What went wrong in left @ right: the inner sizes differ."""
    return (f"cannot multiply {left} @ {right}: the left has {left[-1]} columns but the "
            f"right has {right[0]} rows; (n, k) @ (k, m) needs the same k on both sides")


def checked_factor(value: object, factor: object, symbol: str) -> float:
    """The number in `value * factor` or `value / factor` (symbol is "*" or "/")."""
    name = type(value).__name__
    if hasattr(factor, "shape"):  # a Vector, Matrix or Batch
        hint = ("use @ for a matrix product, or .dot for two Vectors" if symbol == "*"
                else "divide by a number")
        raise TypeError(f"{name} {symbol} {type(factor).__name__} is not defined here: {hint}")
    number = checked_number(factor, f"the number in {name} {symbol} number")
    if symbol == "/" and number == 0.0:
        raise ZeroDivisionError(f"cannot divide a {name} by 0")
    return number


def concatenated_shape(shapes: Sequence[tuple[int, int]], axis: object) -> tuple[int, int]:
    """The shape of matrices of these shapes joined along axis 0 (rows one after another)
    or 1 (columns side by side); a sentence when they do not fit."""
    if axis not in (0, 1) or isinstance(axis, bool):
        raise ValueError(f"axis must be 0 (rows one after another) or 1 (columns side by "
                         f"side), got {axis!r}")
    kept = 1 - axis  # the axis every matrix must agree on
    for b, shape in enumerate(shapes):
        if shape[kept] != shapes[0][kept]:
            raise ShapeError(f"cannot concatenate shapes {shapes[0]} and {shape} (matrix "
                             f"{b}) along axis {axis}: axis {kept} has {shapes[0][kept]} vs "
                             f"{shape[kept]}; the matrices must agree on every other axis")
    joined = sum(shape[axis] for shape in shapes)
    return (joined, shapes[0][1]) if axis == 0 else (shapes[0][0], joined)
