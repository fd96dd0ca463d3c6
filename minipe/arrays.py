"""Appendix A - Vector, Matrix, Batch: the three shapes a transformer's input takes.

The chapters stand on this appendix; read it when a chapter's `@` or `+`
makes you curious, not before.

    Vector   shape (d,)        one token's embedding
    Matrix   shape (n, d)      a sequence: one row (a Vector) per token, or a weight W_q
    Batch    shape (b, n, d)   a stack of b sequences, all of one shape

Each is a frozen dataclass over tuples, built one way: by its constructor,
which checks what it is given - numbers only, no NaN - and copies it, so
nothing a caller holds can change it later. The check looks at a whole row at
once (the set of its types, and its sum, which is NaN if any number is), and
only a row that fails is read number by number, to say which one.

The operators return new objects, and their types follow the shapes:

    Vector + Vector -> Vector          Matrix @ Matrix -> Matrix
    Matrix + Vector -> Matrix          Matrix @ Vector -> Vector
    Batch  + Matrix -> Batch           x * 2, x / 2, -x -> the type of x

`+` and `-` broadcast by appendix B's rule (minipe/broadcast.py), so
`batch + position_table` adds row t of the table to token t of every sequence.

>>> Matrix([[1, 2], [3, 4]]) @ Vector([1, 1])
Vector([3.0, 7.0], shape=(2,))

No object ever holds NaN: arithmetic follows IEEE (inf is a number like any
other, and a mask is -inf), but a result that would hold NaN (inf - inf,
inf * 0) is refused by the constructor that builds it, with a sentence.

Left out: anything above three axes, in-place updates, dtypes other than float.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, TypeVar, Union, overload

from minipe.broadcast import Nested, ShapeError, broadcast_elementwise
from minipe.checks import checked_index, checked_number, checked_size, checked_values
from minipe.display import edges, format_number, grid, grid_line, short_list

Number = Union[int, float]
_VALUES = operator.attrgetter("_values")  # a Vector's tuple of floats, for map()
_SHAPE = operator.attrgetter("shape")


@dataclass(frozen=True, repr=False)
class Vector:
    """An immutable list of floats, shape (d,).

    >>> v = Vector([3, 4])
    >>> v.norm(), v.dot(Vector([1, 1])), v * 2
    (5.0, 7.0, Vector([6.0, 8.0], shape=(2,)))
    """

    _values: tuple[float, ...]

    def __init__(self, values: Iterable[Number]) -> None:
        numbers = tuple(values) if isinstance(values, (list, tuple, Vector)) else ()
        floats = operator.countOf(map(type, numbers), float)  # how many are floats
        if floats != len(numbers) or not floats or math.isnan(sum(numbers)):  # a quick look
            numbers = checked_values(values, "Vector values")  # a closer one: names the culprit
        object.__setattr__(self, "_values", numbers)

    @property
    def shape(self) -> tuple[int]:
        return (len(self._values),)

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[float]:
        return iter(self._values)

    @overload
    def __getitem__(self, index: int) -> float: ...
    @overload
    def __getitem__(self, index: slice) -> Vector: ...
    def __getitem__(self, index: int | slice) -> float | Vector:
        """v[j] is the number at j; v[a:b] is a shorter Vector."""
        if isinstance(index, slice):
            return Vector(_non_empty(self._values[index], index, len(self), "Vector"))
        return self._values[checked_index(index, len(self._values), "Vector")]

    def dot(self, other: Vector) -> float:
        """sum_j self[j] * other[j]; both vectors must have the same length."""
        if not isinstance(other, Vector):
            raise TypeError(f"dot needs a Vector, got {type(other).__name__}")
        if len(other) != len(self):
            raise ShapeError(f"cannot dot shapes {self.shape} and {other.shape}: "
                             f"axis -1 has {len(self)} vs {len(other)}")
        total: float = sum(map(operator.mul, self._values, other._values))
        return total

    def norm(self) -> float:
        """The Euclidean length sqrt(v . v)."""
        return math.sqrt(self.dot(self))

    @overload
    def __add__(self, other: Number | Vector) -> Vector: ...
    @overload
    def __add__(self, other: Matrix) -> Matrix: ...
    @overload
    def __add__(self, other: Batch) -> Batch: ...
    def __add__(self, other: Number | Array) -> Array:
        return _combine(operator.add, self, other, "add")

    @overload
    def __sub__(self, other: Number | Vector) -> Vector: ...
    @overload
    def __sub__(self, other: Matrix) -> Matrix: ...
    @overload
    def __sub__(self, other: Batch) -> Batch: ...
    def __sub__(self, other: Number | Array) -> Array:
        return _combine(operator.sub, self, other, "subtract")

    def __radd__(self, number: Number) -> Vector:
        return self + number  # number + v: addition commutes

    def __rsub__(self, number: Number) -> Vector:
        return -self + number  # number - v

    def __mul__(self, factor: Number) -> Vector:
        number = _checked_factor(self, factor, "*")
        return Vector([x * number for x in self._values])

    __rmul__ = __mul__

    def __truediv__(self, factor: Number) -> Vector:
        number = _checked_factor(self, factor, "/")
        return Vector([x / number for x in self._values])

    def __neg__(self) -> Vector:
        return self * -1

    def tolist(self) -> list[float]:
        return list(self._values)

    def __repr__(self) -> str:
        return f"Vector({short_list(self._values, format_number)}, shape={self.shape})"

    def __str__(self) -> str:
        return grid_line(self._values)


@dataclass(frozen=True, repr=False)
class Matrix:
    """An immutable table of floats, shape (rows, cols); m[i] is row i, a Vector.

    >>> m = Matrix([[1, 2, 3], [4, 5, 6]])
    >>> m.shape, m[1], m.T.shape
    ((2, 3), Vector([4.0, 5.0, 6.0], shape=(3,)), (3, 2))
    """

    _rows: tuple[Vector, ...]

    def __init__(self, rows: Iterable[Vector | Iterable[Number]]) -> None:
        object.__setattr__(self, "_rows", _checked_rows(rows, "Matrix rows"))

    @classmethod
    def zeros(cls, rows: int, cols: int) -> Matrix:
        """A rows x cols Matrix of 0.0."""
        checked_size(rows, "rows")
        checked_size(cols, "cols")
        return cls([Vector([0.0] * cols)] * rows)  # one immutable row, shared

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self._rows), len(self._rows[0]._values))

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[Vector]:
        return iter(self._rows)

    @overload
    def __getitem__(self, index: int) -> Vector: ...
    @overload
    def __getitem__(self, index: tuple[int, int]) -> float: ...
    @overload
    def __getitem__(self, index: slice) -> Matrix: ...
    def __getitem__(self, index: int | tuple[int, int] | slice) -> Vector | float | Matrix:
        """m[i] is row i (a Vector); m[i, j] the number in row i, column j; m[a:b] rows a..b-1."""
        if isinstance(index, slice):
            return Matrix(_non_empty(self._rows[index], index, len(self), "Matrix"))
        if isinstance(index, tuple) and len(index) == 2:
            row = self._rows[checked_index(index[0], len(self._rows), "Matrix row")]
            return row._values[checked_index(index[1], len(row), "Matrix column")]
        return self._rows[checked_index(index, len(self._rows), "Matrix row")]

    @property
    def T(self) -> Matrix:
        """The transpose: row j of m.T is column j of m."""
        return Matrix(zip(*map(_VALUES, self._rows)))

    @overload
    def __matmul__(self, other: Matrix) -> Matrix: ...
    @overload
    def __matmul__(self, other: Vector) -> Vector: ...
    def __matmul__(self, other: Matrix | Vector) -> Matrix | Vector:
        """(n, k) @ (k, m) -> (n, m): entry (i, j) is row i of self . column j of other."""
        if not isinstance(other, (Matrix, Vector)):
            raise TypeError(f"@ needs a Matrix or a Vector on the right, "
                            f"got {type(other).__name__}")
        if len(other) != self.shape[1]:
            raise ShapeError(_matmul_message(self.shape, other.shape))
        if isinstance(other, Vector):
            column = other._values
            return Vector([sum(map(operator.mul, row, column))
                           for row in map(_VALUES, self._rows)])  # (n,)
        columns = list(zip(*map(_VALUES, other._rows)))  # (m, k): column j of other
        return Matrix([[sum(map(operator.mul, row, column)) for column in columns]
                       for row in map(_VALUES, self._rows)])  # (n, m)

    def __rmatmul__(self, other: Vector) -> Vector:
        """v @ m, v of shape (n,), m of shape (n, d) -> (d,): one token through a weight."""
        if not isinstance(other, Vector):
            return NotImplemented
        if len(other) != len(self):
            raise ShapeError(_matmul_message(other.shape, self.shape))
        return self.T @ other

    @overload
    def __add__(self, other: Number | Vector | Matrix) -> Matrix: ...
    @overload
    def __add__(self, other: Batch) -> Batch: ...
    def __add__(self, other: Number | Array) -> Array:
        return _combine(operator.add, self, other, "add")

    @overload
    def __sub__(self, other: Number | Vector | Matrix) -> Matrix: ...
    @overload
    def __sub__(self, other: Batch) -> Batch: ...
    def __sub__(self, other: Number | Array) -> Array:
        return _combine(operator.sub, self, other, "subtract")

    def __radd__(self, number: Number) -> Matrix:
        return self + number

    def __rsub__(self, number: Number) -> Matrix:
        return -self + number

    def __mul__(self, factor: Number) -> Matrix:
        number = _checked_factor(self, factor, "*")
        return Matrix([[x * number for x in row] for row in map(_VALUES, self._rows)])

    __rmul__ = __mul__

    def __truediv__(self, factor: Number) -> Matrix:
        number = _checked_factor(self, factor, "/")
        return Matrix([[x / number for x in row] for row in map(_VALUES, self._rows)])

    def __neg__(self) -> Matrix:
        return self * -1

    def tolist(self) -> list[list[float]]:
        return [list(row) for row in map(_VALUES, self._rows)]

    def __repr__(self) -> str:
        def show_row(row: Vector) -> str:
            return short_list(row._values, format_number, edge=2)
        return f"Matrix({short_list(self._rows, show_row, edge=1)}, shape={self.shape})"

    def __str__(self) -> str:
        return grid(tuple(map(_VALUES, self._rows)))


@dataclass(frozen=True, repr=False)
class Batch:
    """An immutable stack of b matrices of one shape (n, d): shape (b, n, d).

    b[i] is sequence i as a Matrix. Lecture 001's token embeddings have
    shape (8, 4, 256): 8 sequences of 4 tokens, 256 numbers each.
    """

    _matrices: tuple[Matrix, ...]

    def __init__(self, matrices: Iterable[Matrix | Iterable[Iterable[Number]]]) -> None:
        object.__setattr__(self, "_matrices", _checked_matrices(matrices))

    @property
    def shape(self) -> tuple[int, int, int]:
        return (len(self._matrices),) + self._matrices[0].shape

    def __len__(self) -> int:
        return len(self._matrices)

    def __iter__(self) -> Iterator[Matrix]:
        return iter(self._matrices)

    def __getitem__(self, index: int) -> Matrix:
        return self._matrices[checked_index(index, len(self._matrices), "Batch")]

    def __add__(self, other: Number | Array) -> Batch:
        return Batch(_broadcast(operator.add, self, other, "add"))  # a Batch has the most axes

    def __sub__(self, other: Number | Array) -> Batch:
        return Batch(_broadcast(operator.sub, self, other, "subtract"))

    def __radd__(self, number: Number) -> Batch:
        return self + number

    def __rsub__(self, number: Number) -> Batch:
        return -self + number

    def __mul__(self, factor: Number) -> Batch:
        return Batch([matrix * factor for matrix in self._matrices])

    __rmul__ = __mul__

    def __truediv__(self, factor: Number) -> Batch:
        return Batch([matrix / factor for matrix in self._matrices])

    def __neg__(self) -> Batch:
        return self * -1

    def tolist(self) -> list[list[list[float]]]:
        return [matrix.tolist() for matrix in self._matrices]

    def __repr__(self) -> str:
        """The first row of the first matrix and the last row of the last, then the shape."""
        first_row = short_list(self._matrices[0][0]._values, format_number, edge=2)
        if self.shape[:2] == (1, 1):
            return f"Batch([[{first_row}]], shape={self.shape})"
        last_row = short_list(self._matrices[-1][-1]._values, format_number, edge=2)
        return f"Batch([[{first_row}, ...], ..., [..., {last_row}]], shape={self.shape})"

    def __str__(self) -> str:
        blocks = edges(self._matrices, str, "...")
        return "Batch of " + " x ".join(map(str, self.shape)) + ":\n" + "\n\n".join(blocks)


Array = Union[Vector, Matrix, Batch]


# ---------------------------------------------------------------------------
# What the constructors check, and what the operators share.
# ---------------------------------------------------------------------------

def _checked_rows(rows: object, what: str) -> tuple[Vector, ...]:
    """The rows as Vectors of one length; a sentence naming the first bad row otherwise."""
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Iterable):
        raise TypeError(f"{what} must be a list of rows, got {type(rows).__name__}")
    listed = list(rows)
    if not listed:
        raise ValueError(f"{what} has no rows; it needs at least one")
    try:
        vectors = tuple([row if type(row) is Vector else Vector(row) for row in listed])
    except (TypeError, ValueError):  # say which row: check them again, naming each
        for i, row in enumerate(listed):
            checked_values(row, f"{what}[{i}]")
        raise
    widths = set(map(len, map(_VALUES, vectors)))
    if len(widths) > 1:
        i = next(i for i, row in enumerate(vectors) if len(row) != len(vectors[0]))
        raise ShapeError(f"ragged rows: {what}[0] has {len(vectors[0])} values but {what}[{i}] "
                         f"has {len(vectors[i])}; every row of a Matrix needs the same length")
    return vectors


def _checked_matrices(matrices: object) -> tuple[Matrix, ...]:
    """The matrices of a Batch, all of one shape."""
    if isinstance(matrices, (str, bytes)) or not isinstance(matrices, Iterable):
        raise TypeError(f"Batch needs a list of matrices, got {type(matrices).__name__}")
    listed = list(matrices)
    if not listed:
        raise ValueError("Batch needs at least one matrix")
    try:
        checked = tuple([m if type(m) is Matrix else Matrix(m) for m in listed])
    except (TypeError, ValueError):  # say which matrix: check them again, naming each
        for b, matrix in enumerate(listed):
            _checked_rows(matrix, f"Batch[{b}]")
        raise
    shapes = set(map(_SHAPE, checked))
    if len(shapes) > 1:
        b = next(b for b, matrix in enumerate(checked) if matrix.shape != checked[0].shape)
        raise ShapeError(f"ragged batch: Batch[0] has shape {checked[0].shape} but "
                         f"Batch[{b}] has {checked[b].shape}; a Batch stacks "
                         f"matrices of one shape")
    return checked


_Item = TypeVar("_Item", Vector, float)


def _non_empty(items: tuple[_Item, ...], index: slice, size: int, what: str) -> tuple[_Item, ...]:
    """items, a slice of something, unless it is empty (an array has at least one item)."""
    if not items:
        start = "" if index.start is None else index.start
        stop = "" if index.stop is None else index.stop
        raise IndexError(f"{what}[{start}:{stop}] would be empty: the {what} has "
                         f"{size} {'rows' if what == 'Matrix' else 'values'}")
    return items


def _matmul_message(left: tuple[int, ...], right: tuple[int, ...]) -> str:
    return (f"cannot multiply {left} @ {right}: the left has {left[-1]} columns but the "
            f"right has {right[0]} rows; (n, k) @ (k, m) needs the same k on both sides")


def _checked_factor(value: Array, factor: object, symbol: str) -> float:
    """The number in `value * factor` or `value / factor`."""
    name = type(value).__name__
    if isinstance(factor, (Vector, Matrix, Batch)):
        hint = "use @ for a matrix product, or .dot for two Vectors" if symbol == "*" else \
            "divide by a number"
        raise TypeError(f"{name} {symbol} {type(factor).__name__} is not defined here: {hint}")
    number = checked_number(factor, f"the number in {name} {symbol} number")
    if symbol == "/" and number == 0.0:
        raise ZeroDivisionError(f"cannot divide a {name} by 0")
    return number


def _nested(value: object, verb: str) -> tuple[Nested, tuple[int, ...]]:
    """The numbers of an operand as nested tuples, with its shape."""
    if isinstance(value, Vector):
        return value._values, value.shape
    if isinstance(value, Matrix):
        return tuple(map(_VALUES, value._rows)), value.shape
    if isinstance(value, Batch):
        return tuple([_nested(matrix, verb)[0] for matrix in value._matrices]), value.shape
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return checked_number(value, f"the number to {verb}"), ()
    raise TypeError(f"cannot {verb} {type(value).__name__}: minipe's {verb} works on numbers, "
                    f"Vector, Matrix and Batch (wrap a list first, e.g. Vector([...]))")


def _broadcast(op: Callable[[float, float], float], a: object, b: object, verb: str) -> Nested:
    """op(a, b) element by element, as nested tuples; the shapes broadcast by appendix B's rule."""
    a_numbers, a_shape = _nested(a, verb)
    b_numbers, b_shape = _nested(b, verb)
    return broadcast_elementwise(op, a_numbers, a_shape, b_numbers, b_shape, verb=verb)


def _combine(op: Callable[[float, float], float], a: object, b: object, verb: str) -> Array:
    """op(a, b) as a Vector, Matrix or Batch: as many axes as the larger operand."""
    numbers = _broadcast(op, a, b, verb)
    if isinstance(a, Batch) or isinstance(b, Batch):
        return Batch(numbers)
    if isinstance(a, Matrix) or isinstance(b, Matrix):
        return Matrix(numbers)
    return Vector(numbers)


def add(a: Number | Array, b: Number | Array) -> Array | float:
    """a + b, element by element, broadcasting by NumPy's rule (minipe/broadcast.py).

    >>> add(Matrix([[1, 2], [3, 4]]), Vector([10, 20]))  # the Vector is added to every row
    Matrix([[11.0, 22.0], [13.0, 24.0]], shape=(2, 2))

    Shape (8, 4, 256) + (4, 256) -> (8, 4, 256): row t of the (4, 256)
    operand is added to row t of every one of the 8 matrices.
    """
    if _both_numbers(a, b):  # add(1.5, 2) is 3.5
        return float(_broadcast(operator.add, a, b, "add"))
    return _combine(operator.add, a, b, "add")


def subtract(a: Number | Array, b: Number | Array) -> Array | float:
    """a - b, element by element, broadcasting like `add`."""
    if _both_numbers(a, b):
        return float(_broadcast(operator.sub, a, b, "subtract"))
    return _combine(operator.sub, a, b, "subtract")


def _both_numbers(a: object, b: object) -> bool:
    return not isinstance(a, (Vector, Matrix, Batch)) and not isinstance(b, (Vector, Matrix, Batch))


def allclose(a: object, b: object, *, rel_tol: float = 1e-9, abs_tol: float = 1e-12) -> bool:
    """True if a and b have one shape and every pair of numbers is close (math.isclose).

    a and b may be numbers, Vector, Matrix, Batch, or plain (nested) lists:

    >>> allclose(Vector([0.1 + 0.2]), [0.3])
    True

    Different shapes are a mistake, not a "no": they raise ShapeError.
    """
    a_numbers, a_shape = _flat(_as_array(a, "a"))
    b_numbers, b_shape = _flat(_as_array(b, "b"))
    if a_shape != b_shape:
        raise ShapeError(f"allclose needs two equal shapes, got {a_shape} and {b_shape}")
    return all(math.isclose(x, y, rel_tol=rel_tol, abs_tol=abs_tol)
               for x, y in zip(a_numbers, b_numbers))


def _flat(value: object) -> tuple[list[float], tuple[int, ...]]:
    """Every number of `value`, row by row, and its shape."""
    if isinstance(value, Vector):
        return list(value._values), value.shape
    if isinstance(value, Matrix):
        return [x for row in map(_VALUES, value._rows) for x in row], value.shape
    if isinstance(value, Batch):
        return [x for matrix in value for x in _flat(matrix)[0]], value.shape
    return [checked_number(value, "a number given to allclose")], ()


def _as_array(value: object, name: str) -> object:
    """A Vector, Matrix or Batch built from a plain nested list; anything else unchanged."""
    if not isinstance(value, (list, tuple)):
        return value
    depth = 0
    inner: object = value
    while isinstance(inner, (list, tuple)) and inner:
        depth, inner = depth + 1, inner[0]
    if depth == 1:
        return Vector(value)
    if depth == 2:
        return Matrix(value)
    if depth == 3:
        return Batch(value)
    raise ShapeError(f"{name} is nested {depth} deep; allclose compares 1 to 3 axes")


def format_matrix(matrix: Matrix, row_labels: Iterable[str] | None = None) -> str:
    """A Matrix as lines of fixed-width numbers, long rows and columns cut to their edges.

    With `row_labels` (one per row, e.g. the tokens) each line starts with its label:

    >>> print(format_matrix(Matrix([[0, 1], [0.8415, 0.5403]]), row_labels=["pos 0", "pos 1"]))
    pos 0  [ 0.0000  1.0000]
    pos 1  [ 0.8415  0.5403]
    """
    if not isinstance(matrix, Matrix):
        raise TypeError(f"format_matrix needs a Matrix, got {type(matrix).__name__}")
    if isinstance(row_labels, str):
        raise TypeError("row_labels must be a list of labels, one per row, not one str")
    labels = None if row_labels is None else [str(label) for label in row_labels]
    if labels is not None and len(labels) != len(matrix):
        raise ShapeError(f"format_matrix got {len(labels)} row labels for {len(matrix)} rows")
    return grid(tuple(map(_VALUES, matrix._rows)), labels)
