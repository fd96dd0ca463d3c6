"""The lectures' pictures: the PE table, its waves, PE(p) · PE(p + k), attention weights.

Each function returns a figure - the numbers and the words around them - that
can be drawn two ways:

    figure = pe_table(64, 32)
    print(figure.text())                                 # in the terminal
    write_svg("pe.svg", figure.svg())                    # as a picture

`curves` draws the plot lecture 003 leaves as a hole ("[Insert Plot: Multiple
sine/cosine curves demonstrating frequency changes]"): column j of the table
is a wave in pos, and its wavelength 2*pi * base**(2i / d_model) grows with i.
The lines are the continuous waves; the dots on them are what the table holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from minipe.checks import check_table_size, checked_size
from minipe.arrays import Matrix
from minipe.pipeline import Trace
from minipe.plot.colors import color_scale
from minipe.plot.svg import checked_words, heatmap_svg, line_chart_svg
from minipe.plot.table import (
    MAX_SERIES,
    checked_marks,
    checked_mask,
    checked_series,
    checked_table,
    unmasked,
)
from minipe.plot.terminal import heatmap_text, line_chart_text
from minipe.positional import sinusoidal_denominators, sinusoidal_encoding, sinusoidal_position

POINTS_PER_POSITION = 8  # curves: points of each line between two whole positions
EXACT_POSITIONS = 2**53  # past it, a float cannot tell pos from pos + 1
PE_FORMULA = "PE(pos, 2i) = sin(pos / base**(2i/d_model)), PE(pos, 2i+1) = cos(same angle)"


@dataclass(frozen=True)
class Heatmap:
    """A table to draw as coloured cells, with its title and axis names."""

    table: Matrix  # (rows, columns)
    title: str
    x_name: str
    y_name: str
    subtitle: str = ""
    row_labels: tuple[str, ...] | None = None  # one per row, e.g. the tokens
    col_labels: tuple[str, ...] | None = None
    column_pairs: bool = False  # columns (2i, 2i+1) are a (sin, cos) pair: sample them together
    palette: str | None = None  # "sequential", "diverging", or None: chosen by the signs
    color_range: tuple[float, float] | None = None  # the values at the scale's two ends
    masked: tuple[tuple[bool, ...], ...] | None = None  # True: a cell the mask hides

    def __post_init__(self) -> None:
        """Check what the caller gave, and copy it: a list of rows becomes a Matrix."""
        checked_words(title=self.title, x_name=self.x_name, y_name=self.y_name,
                      subtitle=self.subtitle)
        rows = checked_table(self.table)  # (rows, columns): finite numbers only
        table = self.table if isinstance(self.table, Matrix) else Matrix(rows)  # immutable
        object.__setattr__(self, "table", table)
        masked = checked_mask(self.masked, table.shape)  # (rows, columns) of bools, or None
        object.__setattr__(self, "masked", masked)
        _, low, high = color_scale(unmasked(rows, masked), self.palette,
                                   self.color_range)  # checks both
        if self.color_range is not None:
            object.__setattr__(self, "color_range", (low, high))
        for name, size in (("row_labels", table.shape[0]), ("col_labels", table.shape[1])):
            labels = getattr(self, name)
            if labels is None:
                continue
            if isinstance(labels, str) or len(labels) != size:
                raise ValueError(f"{name} must be a list of {size} labels, one each")
            object.__setattr__(self, name, tuple(str(label) for label in labels))

    def svg(self, *, max_cells: int = 128) -> str:
        """The SVG text; write it with write_svg(path, figure.svg())."""
        return heatmap_svg(self.table, title=self.title, subtitle=self.subtitle,
                           x_name=self.x_name, y_name=self.y_name, row_labels=self.row_labels,
                           col_labels=self.col_labels, max_cells=max_cells,
                           column_pairs=self.column_pairs, palette=self.palette,
                           color_range=self.color_range, masked=self.masked)

    def text(self, *, width: int = 80, color: bool = False) -> str:
        """The picture in characters, for print(); color=True for ANSI colours."""
        return heatmap_text(self.table, width=width, color=color, title=self.title,
                            row_labels=self.row_labels, x_name=self.x_name, y_name=self.y_name,
                            column_pairs=self.column_pairs, palette=self.palette,
                            color_range=self.color_range, masked=self.masked)


@dataclass(frozen=True, repr=False)
class LineChart:
    """Named lines over one x axis, with a title and axis names."""

    x: tuple[float, ...]
    series: tuple[tuple[str, tuple[float, ...]], ...]  # (name, one y per x), in legend order
    title: str
    x_name: str
    y_name: str
    subtitle: str = ""
    marks_at: tuple[float, ...] = ()  # x values where each line gets a dot, e.g. 0, 1, 2, ...

    def __post_init__(self) -> None:
        """Check what the caller gave, and copy it into tuples."""
        checked_words(title=self.title, x_name=self.x_name, y_name=self.y_name,
                      subtitle=self.subtitle)
        x, ys_by_name = checked_series(self.x, dict(self.series))
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "series", tuple(ys_by_name.items()))
        marked = checked_marks(x, self.marks_at)  # each one of x
        object.__setattr__(self, "marks_at", tuple(x[index] for index in marked))

    def svg(self) -> str:
        """The SVG text; write it with write_svg(path, figure.svg())."""
        return line_chart_svg(self.x, dict(self.series), title=self.title,
                              subtitle=self.subtitle, x_name=self.x_name, y_name=self.y_name,
                              marks_at=self.marks_at)

    def text(self, *, width: int = 80, height: int = 20) -> str:
        """The chart in characters, one marker per line, for print()."""
        return line_chart_text(self.x, dict(self.series), width=width, height=height,
                               title=self.title, x_name=self.x_name)

    def __repr__(self) -> str:
        names = [name for name, _ in self.series]
        return f"LineChart({self.title!r}, points={len(self.x)}, series={names})"


def pe_table(num_positions: int = 64, d_model: int = 32, *, base: float = 10000.0) -> Heatmap:
    """The sinusoidal table, row pos for position pos: fast waves on the left, slow on the right.

    >>> pe_table(64, 32).table.shape
    (64, 32)
    """
    checked_size(num_positions, "num_positions")
    checked_size(d_model, "d_model")
    check_table_size(2 * num_positions * d_model,  # the table, and the Heatmap's copy
                     f"pe_table({num_positions:,}, {d_model:,})")
    table = sinusoidal_encoding(num_positions, d_model, base=base)  # (num_positions, d_model)
    return Heatmap(table, title=f"Sinusoidal position encodings: {num_positions} positions x "
                   f"{d_model} dimensions", subtitle=f"{PE_FORMULA}, base = {base:g}",
                   x_name="dimension j (even j: sine, odd j: cosine)", y_name="position pos",
                   column_pairs=True, palette="diverging")  # grey = 0, as max |PE| = cos 0 = 1


def curves(dims: Sequence[int] | None = None, num_positions: int = 64, d_model: int = 32,
           *, base: float = 10000.0) -> LineChart:
    """Columns `dims` of the table as continuous waves, with the table's rows as dots on them.

    The table holds PE(pos, j) at whole positions pos = 0, 1, 2, ... only; the
    formula is a wave in pos, so each line draws it at POINTS_PER_POSITION
    points between two positions (fewer past 128 positions), and the dots mark
    the whole positions: the numbers the table holds. Without `dims`, columns
    0, 1, d_model/4 and d_model/2 (rounded down to even) are drawn.

    >>> [name for name, _ in curves((0, 16), 8, 32).series]
    ['PE(pos, 0) = sin(pos / 1), wavelength 6.28', 'PE(pos, 16) = sin(pos / 100), wavelength 628']
    """
    checked_size(d_model, "d_model")
    checked_size(num_positions, "num_positions", minimum=2)  # a wave needs two points
    checked = default_dims(d_model) if dims is None else _checked_list(dims, "dims", "dimension")
    check_table_size(2 * num_positions * (len(checked) + 1),  # x and the lines, copied once
                     f"curves over {num_positions:,} positions")
    for j in checked:
        if j >= d_model:
            raise ValueError(f"dimension {j} is out of range: d_model = {d_model} has "
                             f"dimensions 0..{d_model - 1}")
    steps = max(1, min(POINTS_PER_POSITION, 1024 // num_positions))  # points per position
    whole = tuple(map(float, range(num_positions)))  # pos = 0, 1, ..., num_positions - 1
    xs = [pos + step / steps for pos in range(num_positions - 1) for step in range(steps)]
    xs.append(num_positions - 1.0)  # (steps * (num_positions - 1) + 1,) points in all
    denominators = sinusoidal_denominators(d_model, base=base)
    series = []
    for j in checked:
        denominator = denominators[j // 2]  # base**(2i / d_model), i = j // 2
        wave = math.sin if j % 2 == 0 else math.cos  # PE(pos, 2i) = sin, PE(pos, 2i+1) = cos
        values = tuple(wave(pos / denominator) for pos in xs)  # the same formula as the table
        name = (f"PE(pos, {j}) = {wave.__name__}(pos / {denominator:.3g}), "
                f"wavelength {2 * math.pi * denominator:.3g}")
        series.append((name, values))
    if steps > 1:
        drawn = (f"lines: the formula at {steps} points per position; dots: the table's rows, "
                 f"pos = 0, 1, 2, ...")
    else:
        drawn = "lines through the table's rows only: too many positions for points between"
    return LineChart(tuple(xs), tuple(series),
                     title=f"Each dimension of the PE table is a wave (d_model = {d_model})",
                     subtitle=f"{PE_FORMULA}, base = {base:g}\n{drawn}",
                     x_name="position pos", y_name="PE(pos, j)",
                     marks_at=whole if steps > 1 else ())


def default_dims(d_model: int) -> tuple[int, ...]:
    """Columns 0, 1, d_model/4 and d_model/2, each rounded down to even (a sine), in range.

    >>> default_dims(32), default_dims(16), default_dims(4)
    ((0, 1, 8, 16), (0, 1, 4, 8), (0, 1, 2))
    """
    wanted = (0, 1, 2 * (d_model // 8), 2 * (d_model // 4))
    return tuple(sorted({j for j in wanted if j < d_model}))


def dot_products(max_offset: int = 64, d_model: int = 32, at: Sequence[int] = (0, 10),
                 *, base: float = 10000.0) -> LineChart:
    """PE(p) · PE(p + k) for k = 0 .. max_offset, one line per p in `at`.

    Only the rows it needs are computed, one at a time: a dot product at
    p = 10**9 needs PE(p) and PE(p + k), not the 10**9 rows before them.

    Each pair of columns adds sin(a) sin(b) + cos(a) cos(b) = cos(b - a), so the
    dot product is sum_i cos(k / base**(2i / d_model)): it depends on k only,
    and the lines for different p lie on top of each other.

    >>> dot_products(2, 4, at=(0,)).series[0][1][0]    # k = 0: |PE(p)|**2 = d_model / 2
    2.0
    """
    checked_size(max_offset, "max_offset")
    checked_size(d_model, "d_model")
    starts = _checked_list(at, "at", "position p (>= 0)")
    check_table_size(2 * (max_offset + 1) * (len(starts) + 1),  # x and the lines, copied once
                     f"dot products for k = 0 .. {max_offset:,}")
    last = max(starts) + max_offset
    if last >= EXACT_POSITIONS:
        raise ValueError(f"p + max_offset = {last:,} is past 2**53 = {EXACT_POSITIONS:,}: there "
                         f"a float cannot tell pos from pos + 1, so every k would look like 0")
    series = []
    for p in starts:  # two rows of the table at a time, never the p rows before them
        pe_p = sinusoidal_position(p, d_model, base=base)  # (d_model,)
        dots = tuple(pe_p.dot(sinusoidal_position(p + k, d_model, base=base))
                     for k in range(max_offset + 1))
        series.append((f"p = {p}: PE({p}) · PE({p} + k)", dots))
    title = f"PE(p) · PE(p + k) depends only on the offset k (d_model = {d_model})"
    return LineChart(tuple(map(float, range(max_offset + 1))), tuple(series), title=title,
                     subtitle="sum over i of cos(k / base**(2i/d_model)): the lines coincide; "
                     f"base = {base:g}", x_name="offset k", y_name="dot product")


def attention_weights(trace: Trace, *,
                      color_range: tuple[float, float] = (0.0, 1.0)) -> Heatmap:
    """The attention weights of `run(text, ...)`, with the tokens on both axes.

    Weights are amounts in [0, 1], so the scale is sequential from 0: white
    is "no attention", and darker is always more. By default it runs to 1,
    so every attention figure uses the same colours; figures compared side
    by side can share a tighter range, e.g. (0.0, their largest weight).

    >>> from minipe import run
    >>> attention_weights(run("The cat sat")).row_labels
    ('0 the', '1 cat', '2 sat')
    """
    if not isinstance(trace, Trace):
        raise TypeError(f"attention_weights needs the Trace that minipe.run(text) returns, "
                        f"got {type(trace).__name__}")
    labels = tuple(f"{pos} {token}" for pos, token in enumerate(trace.tokens))
    d_model = trace.input_embeddings.shape[1]
    settings = f"d_model = {d_model}, positions = {trace.positions}" + \
        (")\ncausal: no token sees a later one; the striped cells are masked" if trace.causal
         else ")")
    n = len(labels)
    masked = tuple(tuple(j > i for j in range(n)) for i in range(n)) if trace.causal else None
    return Heatmap(trace.attention.weights, title=f"Attention weights for {trace.text!r}",
                   subtitle=f"row i: how much token i attends to token j; each row sums to 1 "
                   f"({settings}", x_name="key: token j", y_name="query: token i",
                   row_labels=labels, col_labels=labels, palette="sequential",
                   color_range=color_range, masked=masked)


def _checked_list(values: object, name: str, what: str) -> tuple[int, ...]:
    """1 to MAX_SERIES distinct ints >= 0: the dimensions or positions a chart draws."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"{name} must be a list of ints, got {type(values).__name__}")
    checked = tuple(checked_size(value, f"each {what} in {name}", minimum=0) for value in values)
    if not 1 <= len(checked) <= MAX_SERIES:
        raise ValueError(f"{name} must hold 1 to {MAX_SERIES} values (one line each), "
                         f"got {len(checked)}")
    if len(set(checked)) != len(checked):
        raise ValueError(f"{name} lists a value twice: {list(checked)}")
    return checked
