"""Appendix A, part 1 - Vector: one token's embedding, an immutable list of floats.

minipe/arrays/matrix.py opens the appendix (what Vector, Matrix and Batch are, and how
they combine) and holds Matrix; this module holds its smallest array. A Vector
knows numbers and other Vectors; with a Matrix or a Batch on the other side of
`+` or `-`, it steps aside (returns NotImplemented) and the bigger array
answers, in its `__radd__` or `__rsub__`.

>>> Vector([1, 2]) + Vector([10, 20])
Vector([11.0, 22.0], shape=(2,))

Every product in minipe - `v.dot(w)`, each entry of `@`, each attention
score - is one dot product, `dot(a, b)` below: sum_j a[j] * b[j]; a row of
`@` takes one row against every column at once, `dots(row, columns)`.
"""

from __future__ import annotations

import math
import operator
import sys
from dataclasses import dataclass
from math import isnan
from operator import countOf
from typing import Callable, Iterable, Iterator, Sequence, Union, overload

from minipe.arrays.checks import checked_factor, checked_index, non_empty_slice
from minipe.arrays.broadcast import Nested, ShapeError, broadcast_elementwise
from minipe.checks import checked_number, checked_values
from minipe.display import format_number, grid_line, short_list

Number = Union[int, float]


def dot_by_map(a: Iterable[float], b: Iterable[float]) -> float:
    """sum_j a[j] * b[j], the products made and added by C loops (map, then sum)."""
    total: float = sum(map(operator.mul, a, b))
    return total


def dots_by_map(row: Sequence[float], columns: Iterable[Sequence[float]]) -> list[float]:
    """row . column for every column, each sum_j row[j] * column[j] as in dot_by_map."""
    return [sum(map(operator.mul, row, column)) for column in columns]


# The dot product, sum_j a[j] * b[j]: written here once, used by every product in minipe.
# There are two forms because the interpreters differ. CPython 3.12 added math.sumprod,
# the whole sum in C: 2 to 3 times faster than sum(map(operator.mul, a, b)) (benchmarks/);
# on 3.10 and 3.11 that map-and-sum is the fastest pure Python has. Both give the same sum
# up to rounding (sumprod keeps extra precision while it adds: if anything, it is closer).
# `dots(row, columns)` is one row against many columns, a row of a matrix product: on
# 3.10 and 3.11 it writes the map-and-sum out, so that no Python call is made per entry.
if sys.version_info >= (3, 12):
    from math import sumprod

    dot = sumprod

    def dots_by_sumprod(row: Sequence[float], columns: Iterable[Sequence[float]]
                        ) -> list[float]:
        """row . column for every column, each by math.sumprod."""
        return [sumprod(row, column) for column in columns]

    dots = dots_by_sumprod
else:
    dot = dot_by_map
    dots = dots_by_map


@dataclass(frozen=True, repr=False)
class Vector:
    """An immutable list of floats, shape (d,).

    >>> v = Vector([3, 4])
    >>> v.norm(), v.dot(Vector([1, 1])), v * 2
    (5.0, 7.0, Vector([6.0, 8.0], shape=(2,)))
    """

    values: tuple[float, ...]
    __slots__ = ("values",)  # one slot, no __dict__: a small object

    def __init__(self, values: Iterable[Number]) -> None:
        numbers = tuple(values) if isinstance(values, (list, tuple, Vector)) else ()
        floats = countOf(map(type, numbers), float)  # a quick look: how many are floats ...
        if not 0 < floats == len(numbers) or isnan(sum(numbers)):  # ... and is one NaN?
            numbers = checked_values(values, "Vector values")  # a closer one: names the culprit
        object.__setattr__(self, "values", numbers)

    @property
    def shape(self) -> tuple[int]:
        return (len(self.values),)

    def __len__(self) -> int:
        return len(self.values)

    def __iter__(self) -> Iterator[float]:
        return iter(self.values)

    @overload
    def __getitem__(self, index: int) -> float: ...
    @overload
    def __getitem__(self, index: slice) -> Vector: ...
    def __getitem__(self, index: int | slice) -> float | Vector:
        """v[j] is the number at j; v[a:b] is a shorter Vector."""
        if isinstance(index, slice):
            return Vector(non_empty_slice(self.values[index], index, len(self), "Vector"))
        return self.values[checked_index(index, len(self.values), "Vector")]

    def dot(self, other: Vector) -> float:
        """sum_j self[j] * other[j]; both vectors must have the same length."""
        if not isinstance(other, Vector):
            raise TypeError(f"dot needs a Vector, got {type(other).__name__}")
        if len(other) != len(self):
            raise ShapeError(f"cannot dot shapes {self.shape} and {other.shape}: "
                             f"axis -1 has {len(self)} vs {len(other)}")
        return dot(self.values, other.values)

    def norm(self) -> float:
        """The Euclidean length sqrt(v . v)."""
        return math.sqrt(self.dot(self))

    def __add__(self, other: Number | Vector) -> Vector:
        if len(getattr(other, "shape", ())) > 1:
            return NotImplemented  # a Matrix or a Batch answers, in its __radd__
        return Vector(broadcast_vectors(operator.add, self, other, "add"))

    def __sub__(self, other: Number | Vector) -> Vector:
        if len(getattr(other, "shape", ())) > 1:
            return NotImplemented  # a Matrix or a Batch answers, in its __rsub__
        return Vector(broadcast_vectors(operator.sub, self, other, "subtract"))

    def __radd__(self, number: Number) -> Vector:
        return self + number  # number + v: addition commutes

    def __rsub__(self, number: Number) -> Vector:
        return -self + number  # number - v

    def __mul__(self, factor: Number) -> Vector:
        number = checked_factor(self, factor, "*")
        return Vector([x * number for x in self.values])

    __rmul__ = __mul__

    def __truediv__(self, factor: Number) -> Vector:
        number = checked_factor(self, factor, "/")
        return Vector([x / number for x in self.values])

    def __neg__(self) -> Vector:
        return self * -1

    def __reduce__(self) -> tuple[type[Vector], tuple[tuple[float, ...]]]:
        return (Vector, (self.values,))  # pickle and copy rebuild it by its constructor

    def tolist(self) -> list[float]:
        return list(self.values)

    def __repr__(self) -> str:
        return f"Vector({short_list(self.values, format_number)}, shape={self.shape})"

    def __str__(self) -> str:
        return grid_line(self.values)


def operand(value: object, verb: str) -> tuple[Nested, tuple[int, ...]]:
    """The numbers of a number or a Vector, an operand of + or -, with its shape."""
    if isinstance(value, Vector):
        return value.values, value.shape
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return checked_number(value, f"the number to {verb}"), ()
    raise TypeError(f"cannot {verb} {type(value).__name__}: minipe's {verb} works on numbers, "
                    f"Vector, Matrix and Batch (wrap a list first, e.g. Vector([...]))")


def broadcast_vectors(op: Callable[[float, float], float], a: object, b: object,
                      verb: str) -> Nested:
    """op(a, b) for every pair of numbers of two Vectors, or a Vector and a number."""
    a_numbers, a_shape = operand(a, verb)
    b_numbers, b_shape = operand(b, verb)
    return broadcast_elementwise(op, a_numbers, a_shape, b_numbers, b_shape, verb=verb)
