"""What every figure needs from a table of numbers: checked values, their range, a smaller copy.

A figure colours each cell by where its value falls between the smallest and
the largest value of the table:

    t = (x - lowest) / (highest - lowest)        0 for the lowest, 1 for the highest

A 1024 x 768 table has 786,432 cells: more than a terminal has characters or a
readable SVG has rectangles. `downsample` shrinks it by *averaging* blocks of
neighbouring cells (not by keeping every k-th cell, which would invent slow
waves out of the fast columns of a PE table), and says so.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence, Union

from minipe import Matrix, ShapeError
from minipe.checks import checked_values

Rows = tuple[tuple[float, ...], ...]
Table = Union[Matrix, Sequence[Sequence[float]]]  # a Matrix, or a list of rows to make one


def checked_table(table: object, what: str = "the table") -> Rows:
    """The rows of `table` (a Matrix or a list of rows) as tuples; finite numbers only.

    >>> checked_table([[0, 1], [2, 3]])
    ((0.0, 1.0), (2.0, 3.0))
    """
    if isinstance(table, (list, tuple)):
        if not table or not all(isinstance(row, (list, tuple)) and row for row in table):
            raise ValueError(f"{what} is empty or has an empty row: a picture needs at least "
                             f"one row of at least one number, e.g. [[0.0, 1.0]]")
        table = Matrix(table)  # checks: numbers only, no NaN, rows of one length
    if not isinstance(table, Matrix):
        raise TypeError(f"{what} must be a Matrix or a list of rows of numbers, "
                        f"got {type(table).__name__}")
    rows = tuple(map(tuple, table.tolist()))  # (rows, columns), copied out of the Matrix
    for pos, row in enumerate(rows):
        if not all(map(math.isfinite, row)):
            column = next(j for j, x in enumerate(row) if not math.isfinite(x))
            raise ValueError(f"{what}[{pos}, {column}] is {row[column]}: a colour scale "
                             f"needs finite numbers (NaN and inf have no colour)")
    return rows


def value_range(rows: Rows) -> tuple[float, float]:
    """(lowest, highest) value of the table."""
    return min(map(min, rows)), max(map(max, rows))


def shade_fraction(x: float, lowest: float, highest: float) -> float:
    """t = (x - lowest) / (highest - lowest), in [0, 1]; 0.5 when every value is equal."""
    if highest == lowest:
        return 0.5
    return (x - lowest) / (highest - lowest)


def block_edges(size: int, blocks: int) -> list[int]:
    """Where each of `blocks` near-equal blocks of 0..size-1 starts, then `size` itself.

    >>> block_edges(10, 4)    # blocks 0-1, 2-4, 5-6, 7-9
    [0, 2, 5, 7, 10]
    """
    return [block * size // blocks for block in range(blocks + 1)]


def downsample(rows: Rows, max_rows: int, max_cols: int) -> tuple[Rows, list[int], list[int], str]:
    """Average blocks of cells until the table has at most max_rows x max_cols cells.

    Returns the smaller rows, the first original row and column of each block
    (for axis labels), and a note for the figure: "" if nothing changed, else
    e.g. "downsampled from 1024 x 768 to 128 x 96 by averaging blocks of 8 x 8 cells".

    >>> downsample(((1.0, 3.0, 5.0, 7.0),), 1, 2)[0]   # (1 + 3) / 2, (5 + 7) / 2
    ((2.0, 6.0),)
    """
    n_rows, n_cols = len(rows), len(rows[0])
    out_rows, out_cols = min(n_rows, max_rows), min(n_cols, max_cols)
    row_edges = block_edges(n_rows, out_rows)
    col_edges = block_edges(n_cols, out_cols)
    if (out_rows, out_cols) == (n_rows, n_cols):
        return rows, row_edges[:-1], col_edges[:-1], ""
    col_spans = list(zip(col_edges, col_edges[1:]))
    narrow = [tuple([sum(row[a:b]) / (b - a) for a, b in col_spans])
              for row in rows]  # (n_rows, out_cols): each row averaged across its column blocks
    smaller = []
    for a, b in zip(row_edges, row_edges[1:]):
        block = narrow[a:b]  # (b - a, out_cols): the rows of one row block
        smaller.append(tuple([sum(column) / (b - a) for column in zip(*block)]))
    exact = n_rows % out_rows == 0 and n_cols % out_cols == 0
    size = f"{n_rows / out_rows:.3g} x {n_cols / out_cols:.3g}"  # "8 x 8", or "1.56 x 1"
    note = (f"downsampled from {n_rows} x {n_cols} to {out_rows} x {out_cols} by averaging "
            f"blocks of {'' if exact else 'about '}{size} cells")
    return tuple(smaller), row_edges[:-1], col_edges[:-1], note


MAX_SERIES = 10  # more lines than this on one chart is a tangle, not a picture


def checked_series(x: object, series: object) -> tuple[tuple[float, ...],
                                                       dict[str, tuple[float, ...]]]:
    """x (increasing numbers) and series ({name: one y per x}), checked for a line chart.

    >>> checked_series([0, 1, 2], {"k": [3, 4, 5]})
    ((0.0, 1.0, 2.0), {'k': (3.0, 4.0, 5.0)})
    """
    xs = checked_values(x, "x")
    if len(xs) < 2:
        raise ValueError(f"a line needs at least 2 points, got x = {list(xs)}")
    if any(b <= a for a, b in zip(xs, xs[1:])):
        raise ValueError("x must increase from left to right, e.g. the positions 0, 1, 2, ...")
    if not isinstance(series, Mapping):
        raise TypeError(f"series must be a dict of {{name: values}}, "
                        f"got {type(series).__name__}")
    if not 1 <= len(series) <= MAX_SERIES:
        raise ValueError(f"a line chart draws 1 to {MAX_SERIES} series, got {len(series)}")
    checked = {}
    for name, values in series.items():
        if not isinstance(name, str):
            raise TypeError(f"series names must be str (they go in the legend), got {name!r}")
        ys = checked_values(values, f"series {name!r}")
        if len(ys) != len(xs):
            raise ShapeError(f"series {name!r} has {len(ys)} values for {len(xs)} x values; "
                             f"a line chart needs one y per x")
        for x_value, y in zip(xs, ys):
            if not (math.isfinite(x_value) and math.isfinite(y)):
                raise ValueError(f"series {name!r} has the point ({x_value}, {y}): "
                                 f"a chart needs finite numbers")
        checked[name] = ys
    return xs, checked


def nice_ticks(lowest: float, highest: float, count: int = 8) -> list[float]:
    """Round numbers from lowest to highest, at most `count` steps: steps of 1, 2 or 5 x 10^n.

    >>> nice_ticks(0, 63)
    [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
    >>> nice_ticks(-1, 1)
    [-1.0, -0.5, 0.0, 0.5, 1.0]
    """
    step = nice_step(highest - lowest, count)
    first = math.ceil(lowest / step - 1e-9)
    last = math.floor(highest / step + 1e-9)
    return [k * step + 0.0 for k in range(first, last + 1)]  # k * step: no rounding drift


def nice_step(span: float, count: int = 8) -> float:
    """The smallest of 1, 2, 5 x 10^n that cuts `span` into at most `count` steps."""
    if span <= 0:
        return 1.0
    magnitude = 10.0 ** math.floor(math.log10(span / count))
    for factor in (1.0, 2.0, 5.0, 10.0):
        if span / (factor * magnitude) <= count:
            break
    return factor * magnitude


def number_text(x: float, step: float) -> str:
    """x with as many decimals as a tick step of `step` needs: 0.5 -> '0.5', 20 -> '20'.

    >>> number_text(-0.00004, 0.5), number_text(40.0, 10.0), number_text(0.25, 0.05)
    ('0.0', '40', '0.25')
    """
    decimals = max(0, -math.floor(math.log10(step))) if step > 0 else 2
    text = f"{x:.{decimals}f}"
    return text.lstrip("-") if float(text) == 0 else text  # never "-0.0"
