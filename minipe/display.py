"""How numbers are shown: a short repr at any size, and aligned grids for print().

A debugger's variable pane shows repr(); a 1024 x 768 table must not fill it.
Long sequences are cut to their edges - the first and last few items - with
"..." between, the way NumPy prints large arrays. The cut comes first and only
the items that are shown get formatted, so printing costs the same at any size.

Not a chapter of the pipeline: the printing the chapters share.
"""

from __future__ import annotations

from typing import Callable, Iterable, Protocol, Sequence, TypeVar

from minipe.checks import ShapeError

EDGE = 3  # a long axis is shown as its first EDGE and last EDGE items

Item = TypeVar("Item")


def format_number(x: float) -> str:
    """For repr: 1.0 -> '1.0', 0.9999500004 -> '0.99995', sin(1) -> '0.84147'."""
    text = f"{x:.5g}"
    if text.lstrip("-").isdigit():
        text += ".0"  # so a float never looks like an int
    return text


def edges(items: Sequence[Item], show: Callable[[Item], str], ellipsis: str,
          edge: int = EDGE) -> list[str]:
    """The shown items, formatted: all of them if there are few, else the first `edge`,
    `ellipsis`, and the last `edge`. Only what is shown is formatted.

    >>> edges(range(100), str, "...")
    ['0', '1', '2', '...', '97', '98', '99']
    """
    if len(items) <= 2 * edge + 2:  # hiding one or two items would save nothing
        return [show(item) for item in items]
    first = [show(item) for item in items[:edge]]
    last = [show(item) for item in items[-edge:]]
    return first + [ellipsis] + last


def short_list(items: Sequence[Item], show: Callable[[Item], str], edge: int = EDGE) -> str:
    """'[a, b, c, ..., x, y, z]' - the edges of a long sequence, for repr."""
    return "[" + ", ".join(edges(items, show, "...", edge)) + "]"


def counted(n: int, noun: str) -> str:
    """'1 token', '6 tokens': a count and its noun, plural unless the count is 1."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def grid_line(values: Sequence[float]) -> str:
    """One row for print(): fixed-width columns, 4 decimals, '...' in the middle of long rows."""
    return "[" + " ".join(edges(values, "{:7.4f}".format, "    ...")) + "]"


def grid(rows: Sequence[Sequence[float]], row_labels: Sequence[str] | None = None) -> str:
    """Rows of numbers as aligned lines, long rows and columns cut to their edges."""
    if row_labels is None:
        return "[" + "\n ".join(edges(rows, grid_line, "   ...")) + "]"
    width = max(map(len, row_labels))
    labelled = list(zip(row_labels, rows))

    def line(label_and_row: tuple[str, Sequence[float]]) -> str:
        label, row = label_and_row
        return f"{label:<{width}}  {grid_line(row)}"

    return "\n".join(edges(labelled, line, " " * width + "   ..."))


class _Table(Protocol):
    @property
    def rows(self) -> tuple[tuple[float, ...], ...]: ...


def format_matrix(matrix: _Table, row_labels: Iterable[str] | None = None) -> str:
    """A Matrix as lines of fixed-width numbers, long rows and columns cut to their edges.

    With `row_labels` (one per row, e.g. the tokens) each line starts with its label:

    >>> from minipe import Matrix
    >>> print(format_matrix(Matrix([[0, 1], [0.8415, 0.5403]]), row_labels=["pos 0", "pos 1"]))
    pos 0  [ 0.0000  1.0000]
    pos 1  [ 0.8415  0.5403]
    """
    if not hasattr(matrix, "rows") or type(matrix).__name__ != "Matrix":
        raise TypeError(f"format_matrix needs a Matrix, got {type(matrix).__name__}")
    if isinstance(row_labels, str):
        raise TypeError("row_labels must be a list of labels, one per row, not one str")
    labels = None if row_labels is None else [str(label) for label in row_labels]
    if labels is not None and len(labels) != len(matrix.rows):
        raise ShapeError(f"format_matrix got {len(labels)} row labels for "
                         f"{len(matrix.rows)} rows")
    return grid(matrix.rows, labels)
