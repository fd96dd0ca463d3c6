"""Appendix A, part 2 - Batch: b sequences of one shape, and + - across all three kinds.

Lecture 001's token embeddings are a Batch of shape (8, 4, 256): 8 sequences
of 4 tokens, 256 numbers each. `batch[b]` is sequence b, a Matrix. Like
Vector and Matrix (minipe/arrays/matrix.py) it is a frozen dataclass over a tuple
(`batch.matrices`), built one way, by its constructor.

A Batch does its own arithmetic, with anything on either side:

    batch + position_table       (8, 4, 256) + (4, 256) -> (8, 4, 256)
    position_table + batch       the same numbers: Matrix + Batch asks Batch.__radd__

Row t of the table is added to token t of every sequence - appendix B's
broadcasting rule (minipe/arrays/broadcast.py). `add`, `subtract` and `allclose`
live here too, since this is where all three kinds are known.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Mapping, Set as AbstractSet  # isinstance: quicker
from dataclasses import dataclass
from typing import Any, Iterator, Union

from minipe.arrays.checks import checked_index
from minipe.arrays.matrix import Matrix, Number, Vector, computed_matrices, has_three_axes, nested
from minipe.arrays.broadcast import ShapeError
from minipe.checks import checked_at_least, checked_number
from minipe.display import edges, format_number, short_list


@dataclass(frozen=True, repr=False)
class Batch:
    """An immutable stack of b matrices of one shape (n, d): shape (b, n, d).

    >>> batch = Batch([[[1, 2], [3, 4]], [[10, 20], [30, 40]]])   # 2 sequences of 2 tokens
    >>> (batch + Matrix([[0.5, 0.5], [0.0, 0.0]]))[1]             # row t + table row t
    Matrix([[10.5, 20.5], [30.0, 40.0]], shape=(2, 2))
    """

    matrices: tuple[Matrix, ...]
    __slots__ = ("matrices",)  # one slot, no __dict__: a small object

    def __init__(self, matrices: Iterable[Matrix | Iterable[Iterable[Number]]]) -> None:
        object.__setattr__(self, "matrices", _checked_matrices(matrices))

    @property
    def shape(self) -> tuple[int, int, int]:
        return (len(self.matrices),) + self.matrices[0].shape

    def __len__(self) -> int:
        return len(self.matrices)

    def __iter__(self) -> Iterator[Matrix]:
        return iter(self.matrices)

    def __getitem__(self, index: int) -> Matrix:
        return self.matrices[checked_index(index, len(self.matrices), "Batch")]

    def __add__(self, other: Number | Array) -> Batch:
        return Batch(computed_matrices(operator.add, self, other, "add"))

    def __radd__(self, other: Number | Vector | Matrix) -> Batch:
        return Batch(computed_matrices(operator.add, other, self, "add"))

    def __sub__(self, other: Number | Array) -> Batch:
        return Batch(computed_matrices(operator.sub, self, other, "subtract"))

    def __rsub__(self, other: Number | Vector | Matrix) -> Batch:
        return Batch(computed_matrices(operator.sub, other, self, "subtract"))

    def __mul__(self, factor: Number) -> Batch:
        return Batch([matrix * factor for matrix in self.matrices])

    __rmul__ = __mul__

    def __truediv__(self, factor: Number) -> Batch:
        return Batch([matrix / factor for matrix in self.matrices])

    def __neg__(self) -> Batch:
        return self * -1

    def __reduce__(self) -> tuple[type[Batch], tuple[tuple[Matrix, ...]]]:
        return (Batch, (self.matrices,))  # pickle and copy rebuild it by its constructor

    def tolist(self) -> list[list[list[float]]]:
        return [matrix.tolist() for matrix in self.matrices]

    def __repr__(self) -> str:
        """The first row of the first matrix and the last row of the last, then the shape."""
        first_row = short_list(self.matrices[0].rows[0], format_number, edge=2)
        if self.shape[:2] == (1, 1):
            return f"Batch([[{first_row}]], shape={self.shape})"
        last_row = short_list(self.matrices[-1].rows[-1], format_number, edge=2)
        return f"Batch([[{first_row}, ...], ..., [..., {last_row}]], shape={self.shape})"

    def __str__(self) -> str:
        blocks = edges(self.matrices, str, "...")
        return "Batch of " + " x ".join(map(str, self.shape)) + ":\n" + "\n\n".join(blocks)


Array = Union[Vector, Matrix, Batch]


def _checked_matrices(matrices: object) -> tuple[Matrix, ...]:
    """The matrices of a Batch, all of one shape; a sentence naming the first bad one."""
    if isinstance(matrices, (str, bytes, AbstractSet, Mapping)) or not isinstance(matrices,
                                                                               Iterable):
        raise TypeError(f"Batch needs a list of matrices, in order, got "
                        f"{type(matrices).__name__}")
    listed = list(matrices)
    if not listed:
        raise ValueError("Batch needs at least one matrix")
    try:
        checked = tuple([m if type(m) is Matrix else Matrix(m) for m in listed])
    except (TypeError, ValueError):  # say which matrix: build them again, one by one
        for b, matrix in enumerate(listed):
            try:
                Matrix(matrix)
            except (TypeError, ValueError) as error:
                raise type(error)(f"Batch[{b}]: {error}") from None
        raise
    for b, matrix in enumerate(checked):
        if matrix.shape != checked[0].shape:
            raise ShapeError(f"ragged batch: Batch[0] has shape {checked[0].shape} but "
                             f"Batch[{b}] has {matrix.shape}; a Batch stacks "
                             f"matrices of one shape")
    return checked


def add(a: Number | Array, b: Number | Array) -> Number | Array:
    """a + b, element by element, broadcasting by NumPy's rule (minipe/arrays/broadcast.py).

    >>> add(Matrix([[1, 2], [3, 4]]), Vector([10, 20]))  # the Vector is added to every row
    Matrix([[11.0, 22.0], [13.0, 24.0]], shape=(2, 2))

    Shape (8, 4, 256) + (4, 256) -> (8, 4, 256): row t of the (4, 256)
    operand is added to row t of every one of the 8 matrices. add(a, b) is a + b.
    """
    _check_operands(a, b, "add")
    return a + b


def subtract(a: Number | Array, b: Number | Array) -> Number | Array:
    """a - b, element by element, broadcasting like `add`. subtract(a, b) is a - b."""
    _check_operands(a, b, "subtract")
    return a - b


def _check_operands(a: object, b: object, verb: str) -> None:
    """A sentence for anything that cannot be added or subtracted."""
    for operand in (a, b):
        if not has_three_axes(operand):
            nested(operand, verb)


def allclose(a: object, b: object, *, rel_tol: float = 1e-9, abs_tol: float = 1e-12) -> bool:
    """True if a and b have one shape and every pair of numbers is close (math.isclose).

    a and b may be numbers, Vector, Matrix, Batch, or plain (nested) lists:

    >>> allclose(Vector([0.1 + 0.2]), [0.3])
    True

    Different shapes are a mistake, not a "no": they raise ShapeError.
    """
    _check_tolerances(rel_tol, abs_tol)
    a_numbers, a_shape = _flat(_as_array(a, "a"))
    b_numbers, b_shape = _flat(_as_array(b, "b"))
    if a_shape != b_shape:
        raise ShapeError(f"allclose needs two equal shapes, got {a_shape} and {b_shape}")
    return all(math.isclose(x, y, rel_tol=rel_tol, abs_tol=abs_tol)
               for x, y in zip(a_numbers, b_numbers))


def _check_tolerances(rel_tol: object, abs_tol: object) -> None:
    """math.isclose's two tolerances: finite numbers >= 0."""
    for name, tolerance in (("rel_tol", rel_tol), ("abs_tol", abs_tol)):
        checked_at_least(tolerance, name, 0, "a tolerance says how far apart two numbers may "
                         "be and still count as close (rel_tol=1e-9 and abs_tol=1e-12 by default)")


def _flat(value: object) -> tuple[list[float], tuple[int, ...]]:
    """Every number of `value`, row by row, and its shape."""
    if isinstance(value, (Vector, Matrix, Batch)):
        numbers: list[Any] = value.tolist()
        for _ in value.shape[1:]:
            numbers = [x for part in numbers for x in part]  # one axis fewer
        return numbers, value.shape
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
