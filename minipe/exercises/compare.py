"""How a learner's answer is compared with minipe's, and shown where they differ.

Answers become plain nested lists of floats (a Matrix, tuples, ints and a mask's
booleans are welcome); two agree when every number agrees to 9 digits. Where they
differ, the grid shows the first rows that do: expected, yours and their difference.
"""

from __future__ import annotations

import math
from typing import Any

from minipe.display import format_number, grid_line

SHOWN_ROWS = 3  # the differing rows shown in a grid


def plain(value: Any) -> Any:
    """Nested lists of floats (a Matrix, tuples and ints are welcome); otherwise a TypeError
    that says what was found: 'a str', 'a list holding a str', 'an int too large ...'."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, bool):  # a mask's True and False: 1.0 and 0.0
        return float(value)
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:  # an int past 1.8e308
            raise TypeError("an int too large for a float") from None
    if isinstance(value, (list, tuple)):
        try:
            return [plain(item) for item in value]
        except TypeError as error:
            raise TypeError(f"a {type(value).__name__} holding {error}") from None
    raise TypeError(f"a {type(value).__name__}")


def shape_of(value: Any) -> tuple[int, ...] | None:
    """The shape of nested lists of floats; None when rows differ in length."""
    if isinstance(value, float):
        return ()
    inner = {shape_of(item) for item in value}
    if len(inner) > 1 or None in inner:
        return None
    rest = inner.pop() if inner else ()
    return None if rest is None else (len(value),) + rest


def rows_of(value: Any, shape: tuple[int, ...]) -> list[tuple[str, list[float]]]:
    """(label, row) pairs: a number is one row of one, a table its rows, a batch [b][t]."""
    if len(shape) == 0:
        return [("", [value])]
    if len(shape) == 1:
        return [("", value)]
    if len(shape) == 2:
        return [(f"[{i}]", row) for i, row in enumerate(value)]
    return [(f"[{b}][{t}]", row) for b, matrix in enumerate(value) for t, row in enumerate(matrix)]


def close(a: float, b: float) -> bool:
    """Equal to 9 digits; nan is close to nan (a known mistake's nan row is the learner's)."""
    return a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) or (a != a and b != b)


def same(expected: Any, yours: Any) -> bool:
    if isinstance(expected, float):
        return isinstance(yours, float) and close(expected, yours)
    return (isinstance(yours, list) and len(expected) == len(yours)
            and all(same(e, y) for e, y in zip(expected, yours)))


def difference(e: float, y: float) -> float:
    return 0.0 if close(e, y) else y - e


def grid(expected: Any, yours: Any, shape: tuple[int, ...]) -> list[str]:
    """The first rows that differ, each as three lines: expected, yours, yours - expected.
    One number is shown with all its digits (a bfloat16 subnormal is 9e-41)."""
    if shape == ():
        return [f"  expected    {expected!r}", f"  yours       {yours!r}",
                f"  difference  {difference(expected, yours)!r}"]
    pairs = list(zip(rows_of(expected, shape), rows_of(yours, shape)))
    differing = [(label, e, y) for (label, e), (_, y) in pairs if not same(e, y)]
    width = max(len(label) for label, _, _ in differing)
    lines = []
    for label, e, y in differing[:SHOWN_ROWS]:
        lines.append(f"  {label:<{width}}  expected    {grid_line(e)}")
        lines.append(f"  {'':<{width}}  yours       {grid_line(y)}")
        lines.append(f"  {'':<{width}}  difference  {grid_line(list(map(difference, e, y)))}")
    if len(differing) > SHOWN_ROWS:
        lines.append(f"  ... {len(differing) - SHOWN_ROWS} more differing (of {len(pairs)} "
                     f"rows)")
    return lines


def describe_arg(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        shape = shape_of(plain(value)) if not any(isinstance(v, str) for v in value) else None
        if shape is None:
            return f"<{len(value)} items>"
        numbers = _numbers(value)
        if len(shape) == 1 and shape[0] <= 8:  # a few numbers: shown, floats to 5 digits
            return "[" + ", ".join(map(_number, numbers)) + "]"
        if len(numbers) <= 24 and all(isinstance(x, int) for x in numbers):  # a small mask
            return repr(value)
        return "<" + " x ".join(map(str, shape)) + " list>"
    return repr(value)


def _number(x: Any) -> str:
    return format_number(x) if isinstance(x, float) else repr(x)


def _numbers(value: Any) -> list[Any]:
    return [x for item in value for x in _numbers(item)] if isinstance(value, list) else [value]
