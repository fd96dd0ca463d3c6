"""Pictures in the terminal: a heatmap of a table, and a text line chart.

Each cell of a heatmap is one or more characters. Where its value falls on
the colour scale (colors.py: t = 0 at the bottom, 1 at the top) picks its look:

- plain: a shade block from " ░▒▓█", one per fifth of the scale - safe in a
  log file, a pipe or a test;
- colour: a 256-colour ANSI background, white -> dark blue for amounts from
  0, blue -> white -> red for signed values, used only when the output is a
  terminal and NO_COLOR is not set.

Of a table wider than the terminal, or longer than `height` rows, every k-th
row and column is kept (see table.py: nothing is averaged), and the picture
says so.
"""

from __future__ import annotations

import os
import textwrap
from typing import Mapping, Sequence, TextIO

from minipe.arrays import ShapeError
from minipe.checks import checked_flag, checked_size
from minipe.plot.colors import RESET, ansi_background, color_scale, fraction
from minipe.plot.table import (
    Table,
    checked_mask,
    checked_series,
    checked_table,
    downsample,
    nice_step,
    number_text,
    unmasked,
)

SHADES = " ░▒▓█"  # bottom fifth of the colour scale ... top fifth
MASKED = "╱"  # a masked cell: no value, so no shade
MARKERS = "*o+x#@%&=~"  # one per series of a text line chart
MIN_WIDTH = 24
LABEL_WIDTH = 10  # row labels (tokens) are cut to this


def use_color(stream: TextIO) -> bool:
    """Colour only for a terminal that has it: never when NO_COLOR is set
    (https://no-color.org), nor on TERM=dumb (Emacs's shell, some CI logs)."""
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def shade(t: float) -> str:
    """The block for t in [0, 1]: ' ' for [0, 0.2), '░' for [0.2, 0.4), ..., '█' for [0.8, 1]."""
    return SHADES[min(4, int(t * 5))]


def heatmap_text(table: Table, *, width: int = 80, height: int = 64, color: bool = False,
                 title: str = "", row_labels: Sequence[str] | None = None,
                 x_name: str = "column", y_name: str = "row", column_pairs: bool = False,
                 palette: str | None = None, color_range: tuple[float, float] | None = None,
                 masked: Sequence[Sequence[bool]] | None = None) -> str:
    """The table as lines of at most `width` characters, one line per (kept) row.

    >>> print(heatmap_text([[0.0, 0.5, 1.0]], title="three values"))
    three values
    0     ▒▒▒▒████
    legend: ' ' = 0  ░ ▒ ▓  █ = 1; 5 equal steps
    rows: row (0..0), top to bottom; columns: column (0..2), left to right

    With color=True the cells are ANSI backgrounds instead of shades.
    `palette`, `color_range` and `masked` work as for heatmap_svg: a masked
    cell is drawn ╱ and the legend says so.
    """
    rows = checked_table(table)
    checked_size(width, "width", minimum=MIN_WIDTH)
    checked_size(height, "height", minimum=1)
    checked_flag(color, "color")
    n_rows, n_cols = len(rows), len(rows[0])
    hidden = checked_mask(masked, (n_rows, n_cols))
    labels = _row_labels(row_labels, n_rows)
    label_width = max(len(label) for label in labels)
    room = width - label_width - 1  # characters left for the cells
    cell_width = max(1, min(4, room // n_cols))  # up to 4 characters a cell, if they fit
    cells, row_indices, col_indices, note = downsample(rows, height, room // cell_width,
                                                       column_pairs=column_pairs)
    scale, low, high = color_scale(unmasked(rows, hidden), palette, color_range)
    lines = _wrapped(title, width) + _wrapped(note, width)
    for index, row in zip(row_indices, cells):
        off = [hidden is not None and hidden[index][j] for j in col_indices]
        fractions = [fraction(x, low, high) for x in row]
        if color:
            line = "".join((RESET + MASKED if masked_cell else ansi_background(t, scale) + " ")
                           + (MASKED if masked_cell else " ") * (cell_width - 1)
                           for t, masked_cell in zip(fractions, off)) + RESET
        else:
            line = "".join((MASKED if masked_cell else shade(t)) * cell_width
                           for t, masked_cell in zip(fractions, off))
        lines.append(f"{labels[index]:<{label_width}} {line}")
    bottom, top = f"{low:.4g}", f"{high:.4g}"
    if color:
        ramp = "".join(ansi_background(step / 10, scale) + " " for step in range(11)) + RESET
        lines.append("legend: " + ramp)  # 19 characters wide on screen
        legend = (f"white = {bottom}, dark blue = {top}" if scale == "sequential" else
                  f"blue = {bottom}, white = {(low + high) / 2:.4g}, red = {top}")
    else:
        legend = f"legend: ' ' = {bottom}  ░ ▒ ▓  █ = {top}; 5 equal steps"
    if hidden is not None:
        legend += f"; {MASKED} = masked"
    lines += _wrapped(legend, width)
    lines += _wrapped(f"rows: {y_name} (0..{n_rows - 1}), top to bottom; "
                      f"columns: {x_name} (0..{n_cols - 1}), left to right", width)
    return "\n".join(lines)


def _row_labels(row_labels: Sequence[str] | None, n_rows: int) -> list[str]:
    if row_labels is None:
        return [str(pos) for pos in range(n_rows)]
    if isinstance(row_labels, str):
        raise TypeError("row_labels must be a list of labels, one per row, not one str")
    labels = [str(label)[:LABEL_WIDTH] for label in row_labels]
    if len(labels) != n_rows:
        raise ShapeError(f"got {len(labels)} row labels for {n_rows} rows; give one per row")
    return labels


def _wrapped(text: str, width: int) -> list[str]:
    """`text` broken into lines of at most `width` characters; [] for ''."""
    return textwrap.wrap(text, width, break_on_hyphens=False) if text else []


def line_chart_text(x: Sequence[float], series: Mapping[str, Sequence[float]], *,
                    width: int = 80, height: int = 20, title: str = "",
                    x_name: str = "x") -> str:
    """A line chart drawn with characters: each series in its own marker (* o + x ...).

    Column c shows the point whose x is nearest to c's place on the x axis;
    row r the y value rounded to the nearest of `height` levels. Rough, but
    enough to see a wave's period or where a curve falls. Where two lines
    meet, the marker of the later one shows.
    """
    xs, ys_by_name = checked_series(x, series)
    checked_size(width, "width", minimum=MIN_WIDTH)
    checked_size(height, "height", minimum=3)
    lowest = min(min(ys) for ys in ys_by_name.values())
    highest = max(max(ys) for ys in ys_by_name.values())
    if highest == lowest:
        lowest, highest = lowest - 1.0, highest + 1.0
    step = nice_step(highest - lowest) / 10  # one more decimal than round ticks would need
    y_labels = [number_text(y, step) for y in (highest, (lowest + highest) / 2, lowest)]
    label_width = max(map(len, y_labels))
    plot_width = width - label_width - 2  # "label |" then the plot
    canvas = [[" "] * plot_width for _ in range(height)]
    for marker, ys in zip(MARKERS, ys_by_name.values()):
        for column in range(plot_width):
            x_here = xs[0] + (xs[-1] - xs[0]) * column / (plot_width - 1)
            index = min(range(len(xs)), key=lambda k: abs(xs[k] - x_here))
            level = round((highest - ys[index]) / (highest - lowest) * (height - 1))
            canvas[level][column] = marker
    label_at = {0: y_labels[0], (height - 1) // 2: y_labels[1], height - 1: y_labels[2]}
    lines = _wrapped(title, width)
    for level, characters in enumerate(canvas):
        lines.append(f"{label_at.get(level, ''):>{label_width}} |" + "".join(characters))
    first, last = f"{xs[0]:.4g}", f"{xs[-1]:.4g}"
    axis = f"{first}{x_name:^{plot_width - len(first) - len(last)}}{last}"
    lines.append(" " * (label_width + 2) + axis[:plot_width])
    for marker, name in zip(MARKERS, ys_by_name):
        lines += _wrapped(f"{marker} {name}", width)
    return "\n".join(lines)
