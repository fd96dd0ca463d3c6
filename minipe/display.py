"""How numbers are shown: a short repr at any size, and aligned grids for print().

A debugger's variable pane shows repr(); a 1024 x 768 table must not fill it.
Long sequences are cut to their edges - the first and last few items - with
"..." between, the way NumPy prints large arrays.

Not a chapter of the pipeline: the printing the chapters share.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

EDGE = 3  # a long axis is shown as its first EDGE and last EDGE items


def format_number(x: float) -> str:
    """For repr: 1.0 -> '1.0', 0.9999500004 -> '0.99995', sin(1) -> '0.84147'."""
    text = f"{x:.5g}"
    if text.lstrip("-").isdigit():
        text += ".0"  # so a float never looks like an int
    return text


def edges(items: list[str], ellipsis: str, edge: int = EDGE) -> list[str]:
    """All items if there are few; else the first `edge`, `ellipsis`, the last `edge`."""
    if len(items) <= 2 * edge + 2:  # hiding one or two items would save nothing
        return items
    return items[:edge] + [ellipsis] + items[-edge:]


def short_list(items: Iterable[Any], show: Callable[[Any], str], edge: int = EDGE) -> str:
    """'[a, b, c, ..., x, y, z]' - the edges of a long sequence, for repr."""
    items = list(items)
    if len(items) > 2 * edge + 2:  # hiding one or two items would save nothing
        first = [show(x) for x in items[:edge]]
        last = [show(x) for x in items[-edge:]]
        return "[" + ", ".join(first + ["..."] + last) + "]"
    return "[" + ", ".join(show(x) for x in items) + "]"


def grid_line(values: tuple[float, ...]) -> str:
    """One row for print(): fixed-width columns, 4 decimals, '...' in the middle of long rows."""
    cells = edges([f"{x:7.4f}" for x in values], "    ...")
    return "[" + " ".join(cells) + "]"


def grid(rows: Iterable[tuple[float, ...]], row_labels: list[str] | None = None) -> str:
    """Rows of numbers as aligned lines, long rows and columns cut to their edges."""
    lines = [grid_line(row) for row in rows]
    if row_labels is not None:
        width = max(len(label) for label in row_labels)
        lines = [f"{label:<{width}}  {line}" for label, line in zip(row_labels, lines)]
        return "\n".join(edges(lines, " " * width + "   ..."))
    return "[" + "\n ".join(edges(lines, "   ...")) + "]"
