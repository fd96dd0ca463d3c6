"""What every figure needs from a table of numbers: checked values, a smaller copy, ticks.

A 1024 x 768 table has 786,432 cells: more than a terminal has characters or a
readable SVG has rectangles. `downsample` shrinks it by *keeping* one row in
k and one column in k, and says so. It never averages: the average of a sine
column and its cosine neighbour, (sin a + cos a) / 2, is a number the table
does not hold. A table of (sin, cos) pairs keeps each pair whole, so sines
stay next to their cosines. The price of keeping every k-th row is aliasing:
a column whose wave is shorter than 2k rows looks like a slower wave.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence, Union

from minipe.arrays import ShapeError
from minipe.checks import checked_values
from minipe.arrays import Matrix

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
    rows = table.rows  # (rows, columns): tuples of floats
    for pos, row in enumerate(rows):
        if not all(map(math.isfinite, row)):
            column = next(j for j, x in enumerate(row) if not math.isfinite(x))
            raise ValueError(f"{what}[{pos}, {column}] is {row[column]}: a colour scale "
                             f"needs finite numbers (NaN and inf have no colour)")
    return rows


Mask = tuple[tuple[bool, ...], ...]  # masked[i][j] True: cell (i, j) is masked, not a value


def checked_mask(masked: object, shape: tuple[int, int]) -> Mask | None:
    """The cells a mask hides, as tuples of bools of the table's shape; None for no mask.

    A causal head's query i cannot see key j > i: its scores there are never
    used, so a figure draws those cells as masked, not as numbers.

    >>> checked_mask([[False, True], [False, False]], (2, 2))
    ((False, True), (False, False))
    """
    if masked is None:
        return None
    n_rows, n_cols = shape
    if (isinstance(masked, (str, bytes)) or not isinstance(masked, Sequence)
            or len(masked) != n_rows
            or not all(isinstance(row, Sequence) and len(row) == n_cols for row in masked)):
        raise ValueError(f"masked must be {n_rows} rows of {n_cols} bools, one per cell of "
                         f"the table, e.g. [[j > i for j in range({n_cols})] for i in "
                         f"range({n_rows})] for a causal mask")
    if not all(isinstance(value, bool) for row in masked for value in row):
        raise TypeError("masked must hold bools: True where a cell is masked")
    return tuple(tuple(row) for row in masked)


def unmasked(rows: Rows, masked: Mask | None) -> Rows:
    """The values a colour scale must cover: every cell that is not masked (one row).

    >>> unmasked(((1.0, 9.0), (2.0, 3.0)), ((False, True), (False, False)))
    ((1.0, 2.0, 3.0),)
    """
    if masked is None:
        return rows
    values = tuple(value for row, hidden in zip(rows, masked)
                   for value, off in zip(row, hidden) if not off)
    return (values,) if values else rows  # all masked: any scale will do


def sampling_stride(size: int, keep: int, width: int = 1) -> int:
    """The smallest k such that keeping every k-th item of `size` leaves at most `keep`.

    Items are taken `width` at a time: width=2 keeps every k-th pair (2i, 2i+1).

    >>> sampling_stride(1024, 128), sampling_stride(768, 128, width=2)   # 384 pairs, 64 fit
    (8, 6)
    """
    groups = math.ceil(size / width)
    return math.ceil(groups / max(1, keep // width))


def kept_indices(size: int, stride: int, width: int = 1) -> list[int]:
    """Indices 0..size-1 of every `stride`-th group of `width` neighbours.

    >>> kept_indices(10, 3), kept_indices(12, 3, width=2)   # the pairs (0, 1) and (6, 7)
    ([0, 3, 6, 9], [0, 1, 6, 7])
    """
    starts = range(0, size, stride * width)  # the first index of each kept group
    return [index for start in starts for index in range(start, min(size, start + width))]


def downsample(rows: Rows, max_rows: int, max_cols: int, *, column_pairs: bool = False
               ) -> tuple[Rows, list[int], list[int], str]:
    """Keep every k-th row and column until the table has at most max_rows x max_cols cells.

    Returns the smaller rows, which original row and column each one is (for
    labels), and a note for the figure: "" if nothing changed, else e.g.
    "downsampled from 1024 x 768 to 128 x 128 by keeping 1 row in 8 and 1
    column pair (2i, 2i+1) in 6; no cell is averaged". column_pairs=True keeps
    columns 2i and 2i+1 together, like the sine and cosine of a PE table.

    >>> downsample(((1.0, 3.0, 5.0, 7.0),), 1, 2)[0]   # columns 0 and 2, nothing averaged
    ((1.0, 5.0),)
    """
    n_rows, n_cols = len(rows), len(rows[0])
    width = 2 if column_pairs and max_cols >= 2 else 1  # columns kept together
    row_stride = sampling_stride(n_rows, max_rows)
    col_stride = sampling_stride(n_cols, max_cols, width)
    row_indices = kept_indices(n_rows, row_stride)
    col_indices = kept_indices(n_cols, col_stride, width)
    if row_stride == col_stride == 1:
        return rows, row_indices, col_indices, ""
    smaller = tuple(tuple([rows[r][c] for c in col_indices])
                    for r in row_indices)  # (kept rows, kept columns)
    columns = "column pair (2i, 2i+1)" if width == 2 else "column"
    note = (f"downsampled from {n_rows} x {n_cols} to {len(row_indices)} x {len(col_indices)} "
            f"by keeping {_one_in(row_stride, 'row')} and {_one_in(col_stride, columns)}; "
            f"no cell is averaged")
    return smaller, row_indices, col_indices, note


def _one_in(stride: int, what: str) -> str:
    """'1 row in 8' for the note of downsample; 'every row' when all are kept."""
    return f"every {what.split()[0]}" if stride == 1 else f"1 {what} in {stride}"


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


def checked_marks(xs: tuple[float, ...], marks_at: object) -> list[int]:
    """Where in xs each x of marks_at is: a dot is drawn on a point of its line.

    >>> checked_marks((0.0, 0.5, 1.0, 1.5, 2.0), [0, 1, 2])
    [0, 2, 4]
    """
    if isinstance(marks_at, (list, tuple)) and not marks_at:
        return []
    wanted = checked_values(marks_at, "marks_at")
    index_of = {x: index for index, x in enumerate(xs)}
    for x in wanted:
        if x not in index_of:
            raise ValueError(f"marks_at holds {x:g}, which is not one of the x values: "
                             f"a mark sits on a point of its line")
    return [index_of[x] for x in wanted]


def nice_ticks(lowest: float, highest: float, count: int = 8) -> list[float]:
    """Round numbers from lowest to highest, at most `count` steps: steps of 1, 2 or 5 x 10**n.

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
    """The smallest of 1, 2, 5 x 10**n that cuts `span` into at most `count` steps."""
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
