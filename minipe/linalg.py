"""Chapter 2 - Vector, Matrix, Batch: the three shapes a transformer's input takes.

    Vector   shape (d,)        one token's embedding
    Matrix   shape (n, d)      a sequence: one row per token (or a weight W_q)
    Batch    shape (b, n, d)   a stack of b sequences, all of one shape

All three are immutable: the numbers are copied into tuples when the object is
built, and every operation returns a new object. `+` and `-` broadcast by the
rule of chapter 1 (`minipe/broadcast.py`), so `batch + position_table` adds row
t of the table to token t of every sequence.

>>> Matrix([[1, 2], [3, 4]]) @ Vector([1, 1])
Vector([3.0, 7.0], shape=(2,))

Speed: the constructors check every number (a learner's list may hold a
string or a NaN). Results the library computes itself skip those checks
through `_trusted` - the numbers came from float arithmetic, so they are floats.

Left out: anything above three axes, in-place updates, dtypes other than float.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Iterable, Iterator, TypeVar, Union, overload

from minipe.broadcast import Nested, Shape, ShapeError, broadcast_elementwise
from minipe.checks import (
    Frozen,
    checked_index,
    checked_number,
    checked_rows,
    checked_size,
    checked_values,
)
from minipe.display import edges, format_number, grid, grid_line, short_list

Operand = Union[float, "_Array"]  # a number, Vector, Matrix or Batch


class _Array(Frozen):
    """What Vector, Matrix and Batch share: immutability and the operators.

    +, - broadcast (see `add`); * and / take a number; == compares every value.
    """

    __slots__ = ()

    def _scaled(self, number: float, op: Callable[[float, float], float]) -> Any:
        """op(x, number) for every x: op is operator.mul or operator.truediv."""
        raise NotImplementedError

    def tolist(self) -> Any:
        raise NotImplementedError

    def __add__(self, other: Operand) -> Any:
        return add(self, other)

    def __radd__(self, other: Operand) -> Any:
        return add(other, self)

    def __sub__(self, other: Operand) -> Any:
        return subtract(self, other)

    def __rsub__(self, other: Operand) -> Any:
        return subtract(other, self)

    def __mul__(self, factor: float) -> Any:
        return _scale(self, factor, "*")

    def __rmul__(self, factor: float) -> Any:
        return _scale(self, factor, "*")

    def __truediv__(self, factor: float) -> Any:
        return _scale(self, factor, "/")

    def __neg__(self) -> Any:
        return self._scaled(-1.0, operator.mul)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Array) and type(self) is type(other) \
            and bool(self.tolist() == other.tolist())

    __hash__ = None  # type: ignore[assignment]  # unhashable, like list: == compares values


class Vector(_Array):
    """An immutable list of floats, shape (d,).

    >>> v = Vector([3, 4])
    >>> v.norm(), v.dot(Vector([1, 1])), v * 2
    (5.0, 7.0, Vector([6.0, 8.0], shape=(2,)))
    """

    __slots__ = ("_values",)
    _values: tuple[float, ...]

    def __init__(self, values: Iterable[float]) -> None:
        self._set("_values", checked_values(values, "Vector values"))

    @classmethod
    def _trusted(cls, values: tuple[float, ...]) -> Vector:
        vector = object.__new__(cls)
        vector._set("_values", values)
        return vector

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
            return Vector._trusted(_checked_slice(self._values, index, "Vector"))
        return self._values[checked_index(index, len(self._values), "Vector")]

    def dot(self, other: Vector) -> float:
        """sum_j self[j] * other[j]; both vectors must have the same length."""
        if not isinstance(other, Vector):
            raise TypeError(f"dot needs a Vector, got {type(other).__name__}")
        if len(other) != len(self):
            raise ShapeError(f"cannot dot shapes {self.shape} and {other.shape}: "
                             f"axis -1 has {len(self)} vs {len(other)}")
        total: float = sum(map(operator.mul, self._values, other._values))
        if total != total:
            raise ValueError(f"the dot product is NaN: {self!r} . {other!r} met inf - inf "
                             f"or inf * 0; minipe refuses NaN so it cannot spread silently")
        return total

    def norm(self) -> float:
        """The Euclidean length sqrt(v . v)."""
        return math.sqrt(self.dot(self))

    def tolist(self) -> list[float]:
        return list(self._values)

    def _scaled(self, number: float, op: Callable[[float, float], float]) -> Vector:
        return Vector._trusted(tuple([op(x, number) for x in self._values]))

    def __repr__(self) -> str:
        return f"Vector({short_list(self._values, format_number)}, shape={self.shape})"

    def __str__(self) -> str:
        return grid_line(self._values)


class Matrix(_Array):
    """An immutable table of floats, shape (rows, cols); m[i] is row i as a Vector.

    >>> m = Matrix([[1, 2, 3], [4, 5, 6]])
    >>> m.shape, m[1], m.T.shape
    ((2, 3), Vector([4.0, 5.0, 6.0], shape=(3,)), (3, 2))
    """

    __slots__ = ("_rows",)
    _rows: tuple[tuple[float, ...], ...]

    def __init__(self, rows: Iterable[Iterable[float]]) -> None:
        self._set("_rows", checked_rows(rows, "Matrix rows"))

    @classmethod
    def _trusted(cls, rows: tuple[tuple[float, ...], ...]) -> Matrix:
        matrix = object.__new__(cls)
        matrix._set("_rows", rows)
        return matrix

    @classmethod
    def zeros(cls, rows: int, cols: int) -> Matrix:
        """A rows x cols Matrix of 0.0."""
        checked_size(rows, "rows")
        checked_size(cols, "cols")
        return cls._trusted(((0.0,) * cols,) * rows)

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self._rows), len(self._rows[0]))

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[Vector]:
        return (Vector._trusted(row) for row in self._rows)

    @overload
    def __getitem__(self, index: int) -> Vector: ...
    @overload
    def __getitem__(self, index: tuple[int, int]) -> float: ...
    @overload
    def __getitem__(self, index: slice) -> Matrix: ...
    def __getitem__(self, index: int | tuple[int, int] | slice) -> Vector | float | Matrix:
        """m[i] is row i (a Vector); m[i, j] the number in row i, column j; m[a:b] rows a..b-1."""
        if isinstance(index, slice):
            return Matrix._trusted(_checked_slice(self._rows, index, "Matrix"))
        if isinstance(index, tuple) and len(index) == 2:
            row = self._rows[checked_index(index[0], len(self._rows), "Matrix row")]
            return row[checked_index(index[1], len(row), "Matrix column")]
        return Vector._trusted(self._rows[checked_index(index, len(self._rows), "Matrix row")])

    @property
    def T(self) -> Matrix:
        """The transpose: row j of m.T is column j of m."""
        return Matrix._trusted(tuple(zip(*self._rows)))

    @overload
    def __matmul__(self, other: Matrix) -> Matrix: ...
    @overload
    def __matmul__(self, other: Vector) -> Vector: ...
    def __matmul__(self, other: Matrix | Vector) -> Matrix | Vector:
        """(n, k) @ (k, m) -> (n, m): entry (i, j) is row i of self . column j of other."""
        if isinstance(other, Vector):
            if len(other) != self.shape[1]:
                raise ShapeError(_matmul_message(self.shape, other.shape))
            column = other._values
            entries = Vector._trusted(tuple(sum(map(operator.mul, row, column))
                                            for row in self._rows))  # (n,)
            return _refuse_nan(entries, self, other)
        if not isinstance(other, Matrix):
            raise TypeError(f"@ needs a Matrix or a Vector on the right, "
                            f"got {type(other).__name__}")
        if other.shape[0] != self.shape[1]:
            raise ShapeError(_matmul_message(self.shape, other.shape))
        columns = tuple(zip(*other._rows))  # (m, k): column j of other, as a tuple
        product = Matrix._trusted(tuple(
            tuple([sum(map(operator.mul, row, column)) for column in columns])
            for row in self._rows
        ))  # (n, m)
        return _refuse_nan(product, self, other)

    def __rmatmul__(self, other: Vector) -> Vector:
        """v @ m, v of shape (n,), m of shape (n, d) -> (d,): one token through a weight."""
        if not isinstance(other, Vector):
            return NotImplemented
        if len(other) != self.shape[0]:
            raise ShapeError(_matmul_message(other.shape, self.shape))
        return (self.T @ other)

    def tolist(self) -> list[list[float]]:
        return [list(row) for row in self._rows]

    def _scaled(self, number: float, op: Callable[[float, float], float]) -> Matrix:
        return Matrix._trusted(tuple(tuple([op(x, number) for x in row]) for row in self._rows))

    def __repr__(self) -> str:
        rows = short_list(self._rows, lambda row: short_list(row, format_number, edge=2), edge=1)
        return f"Matrix({rows}, shape={self.shape})"

    def __str__(self) -> str:
        return format_matrix(self)


class Batch(_Array):
    """An immutable stack of b matrices of one shape (n, d): shape (b, n, d).

    b[i] is sequence i as a Matrix. Lecture 001's token embeddings have
    shape (8, 4, 256): 8 sequences of 4 tokens, 256 numbers each.
    """

    __slots__ = ("_matrices",)
    _matrices: tuple[Matrix, ...]

    def __init__(self, matrices: Iterable[Matrix | Iterable[Iterable[float]]]) -> None:
        if isinstance(matrices, (str, bytes)) or not isinstance(matrices, Iterable):
            raise TypeError(f"Batch needs a list of matrices, got {type(matrices).__name__}")
        checked = []
        for index, matrix in enumerate(matrices):
            if not isinstance(matrix, Matrix):
                matrix = Matrix._trusted(checked_rows(matrix, f"Batch[{index}]"))
            checked.append(matrix)
        if not checked:
            raise ValueError("Batch needs at least one matrix")
        for index, matrix in enumerate(checked):
            if matrix.shape != checked[0].shape:
                raise ShapeError(f"ragged batch: Batch[0] has shape {checked[0].shape} but "
                                 f"Batch[{index}] has {matrix.shape}; a Batch stacks "
                                 f"matrices of one shape")
        self._set("_matrices", tuple(checked))

    @classmethod
    def _trusted(cls, matrices: tuple[Matrix, ...]) -> Batch:
        batch = object.__new__(cls)
        batch._set("_matrices", matrices)
        return batch

    @property
    def shape(self) -> tuple[int, int, int]:
        return (len(self._matrices),) + self._matrices[0].shape

    def __len__(self) -> int:
        return len(self._matrices)

    def __iter__(self) -> Iterator[Matrix]:
        return iter(self._matrices)

    def __getitem__(self, index: int) -> Matrix:
        return self._matrices[checked_index(index, len(self._matrices), "Batch")]

    def tolist(self) -> list[list[list[float]]]:
        return [matrix.tolist() for matrix in self._matrices]

    def _scaled(self, number: float, op: Callable[[float, float], float]) -> Batch:
        return Batch._trusted(tuple(matrix._scaled(number, op) for matrix in self._matrices))

    def __repr__(self) -> str:
        """The first row of the first matrix and the last row of the last, then the shape."""
        first_row = short_list(self._matrices[0]._rows[0], format_number, edge=2)
        if self.shape[:2] == (1, 1):
            return f"Batch([[{first_row}]], shape={self.shape})"
        last_row = short_list(self._matrices[-1]._rows[-1], format_number, edge=2)
        return f"Batch([[{first_row}, ...], ..., [..., {last_row}]], shape={self.shape})"

    def __str__(self) -> str:
        blocks = edges([str(matrix) for matrix in self._matrices], "...")
        return "Batch of " + " x ".join(map(str, self.shape)) + ":\n" + "\n\n".join(blocks)


# ---------------------------------------------------------------------------
# The element-wise operators, shared by all three classes.
# ---------------------------------------------------------------------------

def add(a: Operand, b: Operand) -> Any:
    """a + b, element by element, broadcasting by NumPy's rule (minipe/broadcast.py).

    >>> add(Matrix([[1, 2], [3, 4]]), Vector([10, 20]))  # the Vector is added to every row
    Matrix([[11.0, 22.0], [13.0, 24.0]], shape=(2, 2))

    Shape (8, 4, 256) + (4, 256) -> (8, 4, 256): row t of the (4, 256)
    operand is added to row t of every one of the 8 matrices.
    """
    return _elementwise(operator.add, a, b, "add")


def subtract(a: Operand, b: Operand) -> Any:
    """a - b, element by element, broadcasting like `add`."""
    return _elementwise(operator.sub, a, b, "subtract")


def _elementwise(op: Callable[[float, float], float], a: Operand, b: Operand, verb: str) -> Any:
    a_data, a_shape = _unpack(a, verb)
    b_data, b_shape = _unpack(b, verb)
    data, shape = broadcast_elementwise(op, a_data, a_shape, b_data, b_shape, verb=verb)
    return _pack(data, shape, verb)


def _unpack(value: object, verb: str) -> tuple[Nested, Shape]:
    if isinstance(value, Vector):
        return value._values, value.shape
    if isinstance(value, Matrix):
        return value._rows, value.shape
    if isinstance(value, Batch):
        return [matrix._rows for matrix in value._matrices], value.shape
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return checked_number(value, f"the number to {verb}"), ()
    raise TypeError(f"cannot {verb} {type(value).__name__}: minipe's {verb} works on numbers, "
                    f"Vector, Matrix and Batch (wrap a list first, e.g. Vector([...]))")


def _pack(data: Nested, shape: Shape, verb: str) -> Operand:
    """The nested tuples of a result as a float, Vector, Matrix or Batch; NaN is refused."""
    packed: Operand
    if len(shape) == 0:
        packed = float(data)
    elif len(shape) == 1:
        packed = Vector._trusted(data)
    elif len(shape) == 2:
        packed = Matrix._trusted(data)
    else:
        packed = Batch._trusted(tuple(Matrix._trusted(rows) for rows in data))
    total = _sum_of_all(data, len(shape))
    if total != total:
        # NaN somewhere (or infinities that cancel in the sum): look closer
        numbers = [packed] if isinstance(packed, float) else _flat(packed)[0]
        if any(x != x for x in numbers):
            raise ValueError(f"cannot {verb}: the result holds NaN (inf and -inf cancelled); "
                             f"minipe refuses NaN so it cannot spread silently")
    return packed


def _sum_of_all(data: Nested, ndim: int) -> float:
    """The sum of every number in nested tuples: NaN if any of them is NaN. A quick test."""
    if ndim == 0:
        return float(data)
    if ndim == 1:
        return sum(data)
    return sum(_sum_of_all(part, ndim - 1) for part in data)


def allclose(a: object, b: object, *, rel_tol: float = 1e-9, abs_tol: float = 1e-12) -> bool:
    """True if a and b have one shape and every pair of numbers is close (math.isclose).

    a and b may be numbers, Vector, Matrix, Batch, or plain (nested) lists:

    >>> allclose(Vector([0.1 + 0.2]), [0.3])
    True

    Different shapes are a mistake, not a "no": they raise ShapeError.
    """
    a_numbers, a_shape = _flat(_as_operand(a, "a"))
    b_numbers, b_shape = _flat(_as_operand(b, "b"))
    if a_shape != b_shape:
        raise ShapeError(f"allclose needs two equal shapes, got {a_shape} and {b_shape}")
    return all(math.isclose(x, y, rel_tol=rel_tol, abs_tol=abs_tol)
               for x, y in zip(a_numbers, b_numbers))


def _flat(value: object) -> tuple[list[float], Shape]:
    """Every number of `value`, row by row, and its shape."""
    if isinstance(value, Vector):
        return list(value._values), value.shape
    if isinstance(value, Matrix):
        return [x for row in value._rows for x in row], value.shape
    if isinstance(value, Batch):
        return [x for m in value._matrices for row in m._rows for x in row], value.shape
    return [checked_number(value, "a number given to allclose")], ()


def _as_operand(value: object, name: str) -> object:
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


def _checked_slice(items: tuple[Any, ...], index: slice, what: str) -> tuple[Any, ...]:
    kept = items[index]
    if not kept:
        start = "" if index.start is None else index.start
        stop = "" if index.stop is None else index.stop
        raise IndexError(f"{what}[{start}:{stop}] would be empty: the {what} has "
                         f"{len(items)} {'rows' if what == 'Matrix' else 'values'}")
    return kept


_Product = TypeVar("_Product", "Vector", "Matrix")


def _refuse_nan(product: _Product, left: _Array, right: _Array) -> _Product:
    """`product` itself, unless a NaN came out of the sums (inf - inf, inf * 0)."""
    numbers = _flat(product)[0]
    total = sum(numbers)
    if total != total and any(x != x for x in numbers):
        raise ValueError(f"{left!r} @ {right!r} holds NaN: an inf met a 0 or a -inf; "
                         f"minipe refuses NaN so it cannot spread silently")
    return product


def _matmul_message(left: Shape, right: Shape) -> str:
    inner_left = left[-1]
    inner_right = right[0]
    return (f"cannot multiply {left} @ {right}: the left has {inner_left} columns but the "
            f"right has {inner_right} rows; (n, k) @ (k, m) needs the same k on both sides")


def _scale(value: _Array, factor: object, symbol: str) -> Any:
    """value * factor or value / factor, for a number factor, element by element."""
    number = _checked_factor(value, factor, symbol)
    op = operator.truediv if symbol == "/" else operator.mul
    scaled = value._scaled(number, op)
    if number == 0.0 or math.isinf(number):  # inf * 0 and inf / inf are NaN
        if any(x != x for x in _flat(scaled)[0]):
            raise ValueError(f"{type(value).__name__} {symbol} {number} gives NaN (inf times 0, "
                             f"or inf / inf); minipe refuses NaN so it cannot spread silently")
    return scaled


def _checked_factor(value: object, factor: object, symbol: str) -> float:
    """The number in `value * factor` or `value / factor`, checked."""
    name = type(value).__name__
    if isinstance(factor, _Array):
        hint = "use @ for a matrix product, or .dot for two Vectors" if symbol == "*" else \
            "divide by a number"
        raise TypeError(f"{name} {symbol} {type(factor).__name__} is not defined here: {hint}")
    number = checked_number(factor, f"the number in {name} {symbol} number")
    if symbol == "/" and number == 0.0:
        raise ZeroDivisionError(f"cannot divide a {name} by 0")
    return number


def format_matrix(matrix: Matrix, row_labels: Iterable[str] | None = None) -> str:
    """A Matrix as lines of fixed-width numbers, long rows and columns cut to their edges.

    With `row_labels` (one per row, e.g. the tokens) each line starts with its label:

    >>> print(format_matrix(Matrix([[0, 1], [0.8415, 0.5403]]), row_labels=["pos 0", "pos 1"]))
    pos 0  [ 0.0000  1.0000]
    pos 1  [ 0.8415  0.5403]
    """
    if not isinstance(matrix, Matrix):
        raise TypeError(f"format_matrix needs a Matrix, got {type(matrix).__name__}")
    labels = None
    if isinstance(row_labels, str):
        raise TypeError("row_labels must be a list of labels, one per row, not one str")
    if row_labels is not None:
        labels = [str(label) for label in row_labels]
        if len(labels) != len(matrix):
            raise ShapeError(f"format_matrix got {len(labels)} row labels for "
                             f"{len(matrix)} rows")
    return grid(matrix._rows, labels)
