"""The argument checks every chapter shares, and the sentences they fail with.

A learner's mistake should end in an error that names the argument, what it
got, and what is allowed - at the public function, not three frames down:

>>> checked_size(0, "d_model")
Traceback (most recent call last):
ValueError: d_model must be >= 1, got 0

`Frozen` is the other promise every chapter keeps: nothing a caller holds can
change an object after it is built.

Not a chapter of the pipeline: the plumbing each chapter would otherwise repeat.
"""

from __future__ import annotations

import math
from typing import Iterable

from minipe.broadcast import ShapeError


class Frozen:
    """A base class whose attributes cannot be set or deleted once the object is built.

    Subclasses list their attributes in __slots__ and set them in __init__
    with `self._set(name, value)`; after that, `obj.x = ...` and `del obj.x`
    raise AttributeError. Every value they hold is immutable too (tuples,
    Matrix, Vector), so nothing a caller holds can change the object.
    """

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: build a new one instead")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: its attributes stay")

    def _set(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)  # used only while building


def checked_number(value: object, where: str) -> float:
    """A float from `value`, or an error naming `where` it came from."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where} must be a number, got {value!r} ({type(value).__name__})")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"{where} = {value} is too large for a float (about 1.8e308 at most)") \
            from None
    if number != number:
        raise ValueError(f"{where} is NaN; minipe refuses NaN so it cannot spread silently")
    return number


def checked_values(values: object, what: str) -> tuple[float, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{what} must be a list of numbers, got {type(values).__name__}")
    checked = tuple(checked_number(x, f"{what}[{index}]") for index, x in enumerate(values))
    if not checked:
        raise ValueError(f"{what} is empty; it needs at least one number")
    return checked


def checked_rows(rows: object, what: str) -> tuple[tuple[float, ...], ...]:
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Iterable):
        raise TypeError(f"{what} must be a list of rows, got {type(rows).__name__}")
    checked = tuple(checked_values(row, f"{what}[{index}]") for index, row in enumerate(rows))
    if not checked:
        raise ValueError(f"{what} has no rows; it needs at least one")
    for index, row in enumerate(checked):
        if len(row) != len(checked[0]):
            raise ShapeError(
                f"ragged rows: {what}[0] has {len(checked[0])} values but {what}[{index}] "
                f"has {len(row)}; every row of a Matrix needs the same length"
            )
    return checked


def checked_base(base: object) -> float:
    """The base of the sinusoids' and RoPE's frequencies: a finite number > 0."""
    if isinstance(base, bool) or not isinstance(base, (int, float)):
        raise TypeError(f"base must be a number, got {base!r}")
    if not base > 0 or math.isinf(base):
        raise ValueError(f"base must be a finite number > 0 (the 2017 paper, RoFormer and "
                         f"Llama use 10000), got {base}")
    return float(base)


def checked_size(value: object, name: str, minimum: int = 1) -> int:
    """`value` if it is an int >= minimum; else an error naming the argument.

    Every chapter checks its sizes (d_model, num_embeddings, ...) with this.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {value!r} ({type(value).__name__})")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def checked_flag(value: object, name: str) -> bool:
    """`value` if it is True or False; a string like "no" would otherwise count as True."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def checked_index(index: object, size: int, what: str) -> int:
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"{what} index must be an int, got {index!r}")
    if not -size <= index < size:
        raise IndexError(f"{what} index {index} is out of range: valid are 0..{size - 1} "
                         f"(or -{size}..-1 counting from the end)")
    return index
