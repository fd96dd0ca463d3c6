"""Appendix A - Vector and Matrix: the shapes a transformer's input takes.

The chapters stand on this appendix; read it when a chapter's `@` or `+`
makes you curious, not before. This module holds Matrix; Vector has a module
of its own (minipe/arrays/vector.py), and the second part, minipe/arrays/batch.py, stacks
matrices into a Batch.

    Vector   shape (d,)        one token's embedding (vector.py)
    Matrix   shape (n, d)      a sequence: one row (a Vector) per token, or a weight W_q
    Batch    shape (b, n, d)   a stack of b sequences, all of one shape (batch.py)

Each is a frozen dataclass over tuples (`v.values`, `m.rows`), with
`__slots__` (no dict per object: a table of 50,257 Vectors is not 50,257
dicts), built from a caller's numbers one way: by its constructor, which checks
what it is given - numbers only, no NaN - and copies it, so nothing a caller
holds can change it later. The check is a quick look at C speed, two C loops over the numbers (how
many values are floats, and the sum, which is NaN if any of them is; rows
that are Vectors were checked when they were built, so only their widths are
compared); only rows that fail it are read number by number, to say which
one (the checks and their sentences: minipe/arrays/checks.py).
Two kinds of results skip a look that could not fail. The numbers that the
operators compute (`+`, `-`, `*`, `/` and `@` of checked arrays) are floats
combined with floats, which are floats, so only the NaN look is made (inf - inf
is NaN). And four Matrices are made without reading their numbers again:
`m.take(ids)` and `m[a:b]` pick rows of m, `m.T` turns its columns into rows and
`Matrix.concatenate` joins matrices, numbers checked when each was built (only
the IDs, the slice and the shapes are checked).

The operators return new objects, and their types follow the shapes:

    Vector + Vector -> Vector          Matrix @ Matrix -> Matrix
    Matrix + Vector -> Matrix          Matrix @ Vector -> Vector
    Batch  + Matrix -> Batch           x * 2, x / 2, -x -> the type of x

`+` and `-` broadcast by appendix B's rule (minipe/arrays/broadcast.py), so
`batch + position_table` adds row t of the table to token t of every sequence.

>>> Matrix([[1, 2], [3, 4]]) @ Vector([1, 1])
Vector([3.0, 7.0], shape=(2,))

No object ever holds NaN: arithmetic follows IEEE (inf is a number like any
other, and a mask is -inf), but a result that would hold NaN (inf - inf,
inf * 0) is refused by the constructor that builds it, with a sentence.

Left out: anything above three axes, in-place updates, dtypes other than float.
"""

from __future__ import annotations

import collections.abc
import math
import operator
from itertools import chain
from math import isnan
from operator import countOf
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence, Union, overload

from minipe.arrays.checks import (
    Rows,
    checked_factor,
    checked_index,
    checked_rows,
    concatenated_shape,
    matmul_message,
    non_empty_slice,
)
from minipe.arrays.broadcast import Nested, ShapeError, broadcast_elementwise, broadcast_shapes
from minipe.checks import MAX_NUMBERS, check_ids, check_table_size, checked_size
from minipe.display import format_matrix, format_number, short_list
from minipe.arrays.vector import Number as Number, Vector as Vector, dot as dot, dots, operand

_VALUES = operator.attrgetter("values")  # a Vector's tuple of floats


@dataclass(frozen=True, repr=False)
class Matrix:
    """An immutable table of floats, shape (rows, cols); m[i] is row i, a Vector.

    >>> m = Matrix([[1, 2, 3], [4, 5, 6]])
    >>> m.shape, m[1], m.T.shape
    ((2, 3), Vector([4.0, 5.0, 6.0], shape=(3,)), (3, 2))

    `m.rows` holds the numbers, a tuple of rows, each a tuple of floats.
    """

    rows: tuple[tuple[float, ...], ...]
    __slots__ = ("rows",)  # one slot, no __dict__: a small object

    def __init__(self, rows: Iterable[Vector | Iterable[Number]]) -> None:
        if type(rows) is not list and isinstance(rows, collections.abc.Iterator):
            rows = list(rows)  # a generator, map or zip: read it once
        numbers = float_rows(rows)  # a quick look at C speed: None if anything is off
        if numbers is None:
            numbers = checked_rows(rows, "Matrix rows")  # a closer one: names the culprit
        object.__setattr__(self, "rows", numbers)

    @classmethod
    def zeros(cls, rows: int, cols: int) -> Matrix:
        """A rows x cols Matrix of 0.0."""
        checked_size(rows, "rows")
        checked_size(cols, "cols")
        check_table_size(rows * cols, f"Matrix.zeros({rows}, {cols})")
        return cls([[0.0] * cols] * rows)

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.rows), len(self.rows[0]))

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[Vector]:
        return map(Vector, self.rows)  # row by row, each a Vector

    @overload
    def __getitem__(self, index: int) -> Vector: ...
    @overload
    def __getitem__(self, index: tuple[int, int]) -> float: ...
    @overload
    def __getitem__(self, index: slice) -> Matrix: ...
    def __getitem__(self, index: int | tuple[int, int] | slice) -> Vector | float | Matrix:
        """m[i] is row i (a Vector); m[i, j] the number in row i, column j; m[a:b] rows a..b-1."""
        if isinstance(index, slice):  # rows a..b-1 of this Matrix, shared (see take)
            return self.picked(non_empty_slice(self.rows[index], index, len(self), "Matrix"))
        if isinstance(index, tuple) and len(index) == 2:
            row = self.rows[checked_index(index[0], len(self.rows), "Matrix row")]
            return row[checked_index(index[1], len(row), "Matrix column")]
        return Vector(self.rows[checked_index(index, len(self.rows), "Matrix row")])

    def take(self, ids: Sequence[int], *, name: str = "ids", why: str = "") -> Matrix:
        """Row ids[t] for every t, shape (len(ids), cols): NumPy's m[ids], PyTorch's index_select.

        >>> Matrix([[0, 0], [1, 1], [2, 2]]).take([2, 0, 2]).tolist()
        [[2.0, 2.0], [0.0, 0.0], [2.0, 2.0]]

        The rows are this Matrix's own, shared, not copied: their numbers were
        checked when it was built. Only the IDs are checked, all at once; a bad
        one is named as `name`[t], and `why` adds what the rows are to an ID
        out of range. An embedding lookup is exactly this.
        """
        table = self.rows  # (rows, cols): row i is the vector of ID i
        check_ids(ids, len(table), name, f"is out of range: the table has {len(table)} rows{why}, "
                                         f"so")
        rows = [table[token_id] for token_id in ids]  # row ids[t] of the table, for every t
        return self.picked(rows)  # (len(ids), cols)

    @classmethod
    def concatenate(cls, matrices: Sequence[Matrix], *, axis: int = 0) -> Matrix:
        """The matrices joined: NumPy's np.concatenate, PyTorch's torch.cat.

        >>> a, b = Matrix([[1, 2]]), Matrix([[3, 4]])
        >>> Matrix.concatenate([a, b]).tolist(), Matrix.concatenate([a, b], axis=1).tolist()
        ([[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0, 3.0, 4.0]])

        axis=0: their rows one after another; axis=1: their columns side by side.
        Like take, the numbers are the matrices' own, checked when each was built.
        """
        listed = isinstance(matrices, (list, tuple)) and len(matrices) > 0
        if not listed or not all(isinstance(m, Matrix) for m in matrices):
            raise TypeError(f"concatenate needs a non-empty list of Matrix, got "
                            f"{matrices!r:.60}")
        shape = concatenated_shape([m.shape for m in matrices], axis)
        check_table_size(shape[0] * shape[1], f"the concatenation, of shape {shape},")
        if axis == 0:
            return matrices[0].picked([row for m in matrices for row in m.rows])
        parts = zip(*(m.rows for m in matrices))  # row i of every matrix
        return matrices[0].picked([sum(row_parts, ()) for row_parts in parts])

    def picked(self, rows: Sequence[tuple[float, ...]]) -> Matrix:
        """A Matrix of rows picked from this one (take, m[a:b], m.T, concatenate, and chapter
        2's lookup `[m.rows[token_id] for token_id in ids]`), not Matrix(rows): a second look
        at their numbers would find what the first found when m was built. Only rows of m (or
        of other Matrices, as concatenate's) belong here; any other rows go to Matrix(rows)."""
        return _holding(tuple(rows))

    @property
    def T(self) -> Matrix:
        """The transpose: row j of m.T is column j of m (its numbers, checked when m was built)."""
        return self.picked(tuple(zip(*self.rows)))  # (cols, rows)

    @overload
    def __matmul__(self, other: Matrix) -> Matrix: ...
    @overload
    def __matmul__(self, other: Vector) -> Vector: ...
    def __matmul__(self, other: Matrix | Vector) -> Matrix | Vector:
        """(n, k) @ (k, m) -> (n, m): entry (i, j) is row i of self . column j of other."""
        if not isinstance(other, (Matrix, Vector)):
            raise TypeError(f"@ needs a Matrix or a Vector on the right, "
                            f"got {type(other).__name__}")
        if len(other) != len(self.rows[0]):  # k: the columns of self, the rows of other
            raise ShapeError(matmul_message(self.shape, other.shape))
        if isinstance(other, Vector):
            return Vector(dots(other.values, self.rows))  # (n,): row i . the column
        if len(self.rows) * len(other.rows[0]) > MAX_NUMBERS:  # (n, 1) @ (1, m) can be huge
            check_table_size(len(self) * len(other.rows[0]), f"{self.shape} @ {other.shape}")
        columns = list(zip(*other.rows))  # (m, k): column j of other
        return _computed([dots(row, columns)  # row i . column j, for every j
                          for row in self.rows])  # (n, m)

    def __rmatmul__(self, other: Vector) -> Vector:
        """v @ m, v of shape (n,), m of shape (n, d) -> (d,): one token through a weight."""
        if not isinstance(other, Vector):
            return NotImplemented
        if len(other) != len(self):
            raise ShapeError(matmul_message(other.shape, self.shape))
        return self.T @ other

    def __add__(self, other: Number | Array) -> Matrix:
        if isinstance(other, Matrix) and other.shape == self.shape:  # nothing to broadcast
            return _computed([tuple(map(operator.add, a, b))
                              for a, b in zip(self.rows, other.rows)])
        if has_three_axes(other):
            return NotImplemented  # a Batch answers, in Batch.__radd__
        return _computed(broadcast(operator.add, self, other, "add"))

    def __sub__(self, other: Number | Array) -> Matrix:
        if isinstance(other, Matrix) and other.shape == self.shape:  # nothing to broadcast
            return _computed([tuple(map(operator.sub, a, b))
                              for a, b in zip(self.rows, other.rows)])
        if has_three_axes(other):
            return NotImplemented  # a Batch answers, in Batch.__rsub__
        return _computed(broadcast(operator.sub, self, other, "subtract"))

    def __radd__(self, other: Number | Vector) -> Matrix:
        return _computed(broadcast(operator.add, other, self, "add"))  # other + m

    def __rsub__(self, other: Number | Vector) -> Matrix:
        return _computed(broadcast(operator.sub, other, self, "subtract"))  # other - m

    def __mul__(self, factor: Number) -> Matrix:
        number = checked_factor(self, factor, "*")
        return _computed([[x * number for x in row] for row in self.rows])

    __rmul__ = __mul__

    def __truediv__(self, factor: Number) -> Matrix:
        number = checked_factor(self, factor, "/")
        return _computed([[x / number for x in row] for row in self.rows])

    def __neg__(self) -> Matrix:
        return self * -1

    def __reduce__(self) -> tuple[type[Matrix], tuple[Rows]]:
        return (Matrix, (self.rows,))  # pickle and copy rebuild it by its constructor

    def tolist(self) -> list[list[float]]:
        return [list(row) for row in self.rows]

    def __repr__(self) -> str:
        def show_row(row: tuple[float, ...]) -> str:
            return short_list(row, format_number, edge=2)
        return f"Matrix({short_list(self.rows, show_row, edge=1)}, shape={self.shape})"

    def __str__(self) -> str:
        return format_matrix(self)


Array = Union[Vector, Matrix]


# ---------------------------------------------------------------------------
# What the constructors check, and what the operators share.
# ---------------------------------------------------------------------------

def float_rows(rows: object) -> Rows | None:
    """`rows` as a tuple of float tuples of one width, if a quick look finds nothing wrong.

    The look is two C loops over the numbers, no Python loop. Rows that are Vectors
    were checked when they were built: only their widths are compared. Rows
    that are lists or tuples are copied into tuples (a tuple is kept, not
    copied: it cannot change), then counted - one width, every number a
    float - and summed: the sum of sums is NaN if any number is. None means
    "look closer" (array_checks.checked_rows), not "wrong": a row holding
    inf and -inf sums to NaN too, and only the closer look tells it has none.
    """
    if (type(rows) is not list and type(rows) is not tuple) or not rows:
        return None
    if type(rows[0]) is Vector and countOf(map(type, rows), Vector) == len(rows):  # checked
        numbers = tuple(map(_VALUES, rows))  # (n, d): each Vector's own tuple
    elif _LIST_OR_TUPLE.issuperset(map(type, rows)):
        numbers = tuple(map(tuple, rows))  # (n, d): copied once
        count = len(numbers) * len(numbers[0])
        if countOf(map(type, chain.from_iterable(numbers)), float) != count or not count:
            return None  # an int, a bool, a string ... or rows of other widths
    else:
        return None
    width = len(numbers[0])
    if countOf(map(len, numbers), width) != len(numbers):
        return None  # rows of different widths
    if isnan(sum(map(sum, numbers))):
        return None  # NaN somewhere (or inf and -inf in one row)
    return numbers


_LIST_OR_TUPLE = frozenset([list, tuple])


def _computed(rows: Sequence[Sequence[float]]) -> Matrix:
    """A Matrix of the numbers an operator computed from checked floats, checked for NaN.

    Floats added, subtracted, multiplied or divided by floats, and their dot
    products, are floats: the constructor's type look would find nothing, so
    only its NaN look is made (inf - inf and inf * 0 are NaN). A NaN, or inf
    and -inf in one row, sends the rows to the constructor, which says which
    number is NaN (or finds none).
    """
    numbers = tuple(map(tuple, rows))  # (n, d): each row a tuple (a tuple is kept, not copied)
    if isnan(sum(map(sum, numbers))):
        return Matrix(numbers)  # the closer look: a sentence naming the NaN
    return _holding(numbers)


def computed_matrices(op: Callable[[float, float], float], a: object, b: object,
                      verb: str) -> list[Matrix] | Nested:
    """op(a, b), op being + or -, with three axes (a Batch's arithmetic, minipe/arrays/batch.py):
    one Matrix per sequence, made as _computed makes them; if NaN is among the numbers, the
    numbers themselves, for the Batch's constructor to name the sequence and the number."""
    sequences = broadcast(op, a, b, verb)  # (b, n, d) as nested tuples
    if isnan(sum([sum(map(sum, rows)) for rows in sequences])):
        return sequences
    return [_holding(rows) for rows in sequences]


def _holding(numbers: Rows) -> Matrix:
    """The Matrix that holds `numbers`, made without the constructor's look: only for
    picked's checked numbers and _computed's floats."""
    matrix = object.__new__(Matrix)
    object.__setattr__(matrix, "rows", numbers)
    return matrix


def nested(value: object, verb: str) -> tuple[Nested, tuple[int, ...]]:
    """The numbers of an operand of + or - as nested tuples, with its shape.

    A number, a Vector, a Matrix, or a Batch (minipe/arrays/batch.py, which comes
    after this module: it is known here by its three axes).
    """
    if has_three_axes(value):  # a Batch: the numbers of each of its matrices
        return tuple([nested(matrix, verb)[0] for matrix in getattr(value, "matrices")]), \
            getattr(value, "shape")
    if isinstance(value, Matrix):
        return value.rows, value.shape
    return operand(value, verb)  # a number or a Vector (minipe/arrays/vector.py), or a sentence


def broadcast(op: Callable[[float, float], float], a: object, b: object, verb: str) -> Nested:
    """op(a, b) for every pair of numbers, as nested tuples: the shapes broadcast by
    appendix B's rule (minipe/arrays/broadcast.py). `verb` names op in a ShapeError."""
    a_numbers, a_shape = nested(a, verb)
    b_numbers, b_shape = nested(b, verb)
    if math.prod(a_shape) * math.prod(b_shape) > MAX_NUMBERS:  # the result holds no more
        shape = broadcast_shapes(a_shape, b_shape, verb=verb)  # (20000, 1) + (20000,): 4e8
        check_table_size(math.prod(shape), f"the {verb} of shapes {a_shape} and {b_shape}")
    return broadcast_elementwise(op, a_numbers, a_shape, b_numbers, b_shape, verb=verb)


def has_three_axes(value: object) -> bool:
    """True for a Batch (shape (b, n, d)), which does its own arithmetic."""
    return len(getattr(value, "shape", ())) == 3
