"""Pictures as SVG: XML text written by hand, one element per line, readable at 800 px.

An SVG file is a list of shapes on a canvas of `viewBox` units:

    <svg xmlns="http://www.w3.org/2000/svg" width="800" height="H" viewBox="0 0 800 H">
      <rect x="..." y="..." width="..." height="..." fill="#rrggbb"/>   a heatmap cell
      <polyline points="x0,y0 x1,y1 ..." .../>                          a line of a chart
      <text x="..." y="...">pos</text>                                  a label
      <circle cx="..." cy="..." r="2.5" .../>                          a dot on a line
    </svg>

y grows downwards. Every coordinate is written with 2 decimals, so the same
numbers give byte-identical files. Text is escaped (<, & and " become &lt;,
&amp; and &quot;), so a token like <|endoftext|> is a label, not a tag. A
subtitle may hold several lines, split at "\n".

A heatmap has at most `max_cells` cells per axis; of a bigger table, every
k-th row and column is kept (table.py: nothing is averaged), and the
subtitle says so. The colour bar shows the scale (colors.py): white to dark
blue for amounts from 0, blue through grey (0) to red for signed values.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence
from xml.sax.saxutils import escape, quoteattr

from minipe.checks import checked_size
from minipe.plot.colors import Palette, color, color_scale, fraction, is_dark
from minipe.plot.table import (
    Table,
    checked_marks,
    checked_mask,
    checked_series,
    checked_table,
    downsample,
    nice_step,
    nice_ticks,
    number_text,
    unmasked,
)

WIDTH = 800
LINE_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
               "#7f7f7f", "#bcbd22", "#17becf")
DASHES = ("", "8 4", "2 3", "10 3 2 3")  # a second cue besides colour, for overlapping lines
MARKERS = ("M0,-4 L4,0 L0,4 L-4,0 Z", "M-3.5,-3.5 H3.5 V3.5 H-3.5 Z", "M0,-4.5 L4,3 L-4,3 Z",
           "M-4,-4 L4,4 M4,-4 L-4,4", "M-4,0 A4,4 0 1,0 4,0 A4,4 0 1,0 -4,0 Z",
           "M0,4.5 L4,-3 L-4,-3 Z", "M-4.5,0 H4.5 M0,-4.5 V4.5")
# a third cue: diamond, square, triangle, cross, circle, triangle down, plus; with 4 dashes,
# no two of the first 28 lines share both
MARKS_PER_LINE = 8  # markers along each line, staggered so two lines' never overlap
HATCH = ('<defs><pattern id="masked" width="6" height="6" patternUnits="userSpaceOnUse" '
         'patternTransform="rotate(45)"><rect width="6" height="6" fill="#f2f2f2"/>'
         '<line x1="0" y1="0" x2="0" y2="6" stroke="#9a9a9a" stroke-width="1.5"/>'
         '</pattern></defs>')  # grey stripes: a masked cell, which has no value
FONT = 'font-family="sans-serif" font-size="12"'
CHAR = 7.0  # about how wide one character of 12 px sans-serif is
LABEL_LENGTH = 16  # longer row and column labels are cut, so the grid keeps its room
TITLED_CELLS = 4096  # up to this many cells, each carries its value as a hover <title>


def _cell_paths(fills: list[list[str]], left: float, top: float, cell_width: float,
                cell_height: float) -> list[str]:
    """A grid of colours as one <path> per colour, scaled so a cell is 1 x 1 and
    neighbours of one colour along a row are one run: "M3 0h2v1h-2z" is cells 3 and 4 of
    row 0. The same picture as a <rect> per cell, in a fifth of the bytes (a GPT-2-sized
    table, 16,384 cells, in about 250 KB rather than 1.2 MB)."""
    runs: dict[str, list[str]] = {}
    for y, row in enumerate(fills):
        x = 0
        while x < len(row):
            end = x + 1
            while end < len(row) and row[end] == row[x]:
                end += 1
            runs.setdefault(row[x], []).append(f"M{x} {y}h{end - x}v1h-{end - x}z")
            x = end
    return ([f'<g id="cells" shape-rendering="crispEdges" transform="translate({left:.2f} '
             f'{top:.2f}) scale({cell_width:.4f} {cell_height:.4f})">']
            + [f'<path fill="{fill}" d="{"".join(parts)}"/>'
               for fill, parts in sorted(runs.items())]
            + ["</g>"])


def text(x: float, y: float, content: str, attributes: str = "") -> str:
    """A <text> element; content escaped, including ", so no label can break the XML."""
    escaped = escape(content, {'"': "&quot;"})  # escape() itself does &, < and >
    return f'<text x="{x:.2f}" y="{y:.2f}"{attributes}>{escaped}</text>'


def _open(height: float, title: str, subtitles: Sequence[str]) -> list[str]:
    lines = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
             f'viewBox="0 0 {WIDTH} {height:.0f}" {FONT}>',
             f'<rect width="{WIDTH}" height="{height:.0f}" fill="white"/>',
             text(WIDTH / 2, 26, title, ' font-size="17" text-anchor="middle"')]
    for number, subtitle in enumerate(subtitles):
        lines.append(text(WIDTH / 2, 46 + 16 * number, subtitle,
                          ' fill="#555" text-anchor="middle"'))
    return lines


def heatmap_svg(table: Table, *, title: str, x_name: str = "column", y_name: str = "row",
                row_labels: Sequence[str] | None = None, col_labels: Sequence[str] | None = None,
                subtitle: str = "", max_cells: int = 128, column_pairs: bool = False,
                palette: str | None = None, color_range: tuple[float, float] | None = None,
                masked: Sequence[Sequence[bool]] | None = None) -> str:
    """The table as a grid of coloured cells, with axis labels and a colour bar.

    `masked[i][j]` True draws cell (i, j) striped grey, with no number and
    no colour, and adds "masked" to the legend: a causal head's scores above
    the diagonal are never used. The colour scale covers the other cells.

    `palette` and `color_range` pick the colour scale (see colors.py): by
    default white to dark blue from 0 to the largest value if none is
    negative, else blue - grey - red with grey at 0. Give figures that are
    compared the same color_range, e.g. (0.0, 1.0) for attention weights.

    Rows run down (row 0 at the top), columns across. Without labels the axes
    get round-number ticks; with `row_labels` / `col_labels` (e.g. the tokens)
    every row or column is named.

    >>> svg = heatmap_svg([[0.0, 1.0]], title="two cells")
    >>> svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    True
    >>> first_cell = svg.splitlines()[4]   # 0 on a scale from 0: white
    >>> print(first_cell.split("<title>")[0])
    <rect x="64.00" y="44.00" width="313.00" height="313.00" fill="#ffffff">
    """
    rows = checked_table(table)
    checked_size(max_cells, "max_cells")
    checked_words(title=title, x_name=x_name, y_name=y_name, subtitle=subtitle)
    n_rows, n_cols = len(rows), len(rows[0])
    hidden = checked_mask(masked, (n_rows, n_cols))
    row_labels = _checked_labels(row_labels, n_rows, "row")
    col_labels = _checked_labels(col_labels, n_cols, "column")
    cells, row_indices, col_indices, note = downsample(rows, max_cells, max_cells,
                                                       column_pairs=column_pairs)
    scale, low, high = color_scale(unmasked(rows, hidden), palette, color_range)
    subtitles = [*subtitle.splitlines(), *([note] if note else [])]
    longest_label = max((len(label) for label in row_labels or ["0000"]), default=4)
    left = 36 + CHAR * longest_label
    top = 44 + 16 * len(subtitles)
    plot_width = WIDTH - left - 110  # the colour bar and its numbers on the right
    cell_width = plot_width / len(cells[0])
    cell_height = min(cell_width, 560 / len(cells))  # square cells, unless that is too tall
    plot_height = cell_height * len(cells)
    bottom = 44 + (CHAR * max(map(len, col_labels)) * 0.7 if col_labels else 0)
    height = top + plot_height + bottom
    lines = _open(height, title, subtitles)

    def is_masked(r: int, c: int) -> bool:  # r, c: a kept row and column
        return hidden is not None and hidden[row_indices[r]][col_indices[c]]

    if hidden is not None:
        lines.append(HATCH)
    hover = len(cells) * len(cells[0]) <= TITLED_CELLS
    compact = not hover and hidden is None  # a big table: a path per colour (see below)
    if compact:
        lines += _cell_paths([[color(fraction(value, low, high), scale) for value in row]
                              for row in cells], left, top, cell_width, cell_height)
    else:
        lines.append('<g id="cells" shape-rendering="crispEdges">')
    for r, row in enumerate([] if compact else cells):
        y = top + r * cell_height
        for c, value in enumerate(row):
            x = left + c * cell_width
            fill = "url(#masked)" if is_masked(r, c) else color(fraction(value, low, high),
                                                                scale)
            shape = f'<rect x="{x:.2f}" y="{y:.2f}" width="{cell_width:.2f}" ' \
                    f'height="{cell_height:.2f}" fill="{fill}"'
            shown = "masked" if is_masked(r, c) else f"{value:.4f}"
            if hover:  # the browser shows the value when the pointer rests on the cell
                shape += f"><title>[{row_indices[r]}, {col_indices[c]}] {shown}</title></rect>"
            else:
                shape += "/>"
            lines.append(shape)
    if not compact:
        lines.append("</g>")
    if cell_width >= 40 and cell_height >= 18:  # room to print each number in its cell
        lines.append('<g id="values" text-anchor="middle">')
        for r, row in enumerate(cells):
            for c, value in enumerate(row):
                if is_masked(r, c):
                    continue  # a masked cell has no number to print
                dark = is_dark(fraction(value, low, high), scale)
                ink = ' fill="white"' if dark else ""  # dark cells, light ink
                lines.append(text(left + (c + 0.5) * cell_width,
                                  top + (r + 0.5) * cell_height + 4, f"{value:.3f}", ink))
        lines.append("</g>")

    lines.append('<g id="axes">')
    right, foot = left + plot_width, top + plot_height
    if row_labels is not None and len(cells) == n_rows:
        for r, label in enumerate(row_labels):
            lines.append(text(left - 6, top + (r + 0.5) * cell_height + 4, label,
                              ' text-anchor="end"'))
    else:
        for index in nice_ticks(0, n_rows - 1):
            y = top + (index + 0.5) * plot_height / n_rows
            lines.append(text(left - 6, y + 4, f"{index:.0f}", ' text-anchor="end"'))
    if col_labels is not None and len(cells[0]) == n_cols:
        for c, label in enumerate(col_labels):
            x, y = left + (c + 0.5) * cell_width, foot + 14
            lines.append(text(x, y, label, f' text-anchor="end" transform="rotate(-45 '
                                           f'{x:.2f} {y:.2f})"'))
    else:
        for index in nice_ticks(0, n_cols - 1):
            x = left + (index + 0.5) * plot_width / n_cols
            lines.append(text(x, foot + 16, f"{index:.0f}", ' text-anchor="middle"'))
    lines.append(text(left + plot_width / 2, height - 10, x_name, ' text-anchor="middle"'))
    lines.append(text(14, top + plot_height / 2, y_name, ' text-anchor="middle" '
                      f'transform="rotate(-90 14 {top + plot_height / 2:.2f})"'))
    lines.append("</g>")

    bar_height = min(plot_height, 300.0)
    lines += _colour_bar(right + 24, top, bar_height, scale, low, high)
    if hidden is not None:  # the legend's entry for the striped cells
        lines += ['<g id="masked-legend">',
                  f'<rect x="{right + 24:.2f}" y="{top + bar_height + 16:.2f}" width="16" '
                  f'height="16" fill="url(#masked)" stroke="#999"/>',
                  text(right + 46, top + bar_height + 28, "masked"), "</g>"]
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def checked_words(**words: object) -> None:
    """Titles and axis names must be str: they are written into the picture."""
    for name, word in words.items():
        if not isinstance(word, str):
            raise TypeError(f"{name} must be a str, got {word!r}")


def _checked_labels(labels: Sequence[str] | None, size: int, axis: str) -> list[str] | None:
    """One label per row (or column) as str, each cut to LABEL_LENGTH characters."""
    if labels is None:
        return None
    if isinstance(labels, str) or not isinstance(labels, Sequence) or len(labels) != size:
        raise ValueError(f"{axis}_labels must be a list of {size} labels, one per {axis}")
    return [str(label)[:LABEL_LENGTH] for label in labels]


def _colour_bar(x: float, top: float, height: float, scale: Palette, low: float,
                high: float) -> list[str]:
    """A vertical bar, the top of the scale at the top, with three numbers beside it."""
    stops = [f'<stop offset="{offset}" stop-color="{color(t, scale)}"/>'
             for offset, t in (("0", 1.0), ("0.5", 0.5), ("1", 0.0))]
    lines = ['<g id="colorbar">', '<defs><linearGradient id="scale" x1="0" y1="0" x2="0" y2="1">',
             *stops, "</linearGradient></defs>",
             f'<rect x="{x:.2f}" y="{top:.2f}" width="16" height="{height:.2f}" '
             f'fill="url(#scale)" stroke="#999"/>']
    step = nice_step(high - low) / 10  # one more decimal than the round ticks need
    for down, value in ((0.0, high), (0.5, (low + high) / 2), (1.0, low)):
        lines.append(text(x + 22, top + down * height + 4, number_text(value, step)))
    lines.append("</g>")
    return lines


def line_chart_svg(x: Sequence[float], series: Mapping[str, Sequence[float]], *, title: str,
                   x_name: str = "x", y_name: str = "y", subtitle: str = "",
                   marks_at: Sequence[float] = ()) -> str:
    """Several lines over one x axis, with axes, round-number ticks and a legend below.

    `series` maps each line's name (its legend entry) to one y value per x.
    Each line has its colour, its dash pattern and, when there are several,
    its marker shape at MARKS_PER_LINE points, staggered from line to line:
    a line drawn on top of another hides neither its markers nor the other's.
    Every line gets a dot at each x of `marks_at` (each must be one of x):
    e.g. a wave drawn through many points, with its integer positions marked.

    >>> svg = line_chart_svg([0, 1, 2], {"k": [0.0, 1.0, 0.0]}, title="a tent")
    >>> svg.count("<polyline"), 'points="' in svg
    (1, True)
    """
    xs, ys_by_name = checked_series(x, series)
    checked_words(title=title, x_name=x_name, y_name=y_name, subtitle=subtitle)
    marked = checked_marks(xs, marks_at)  # indices into xs
    x_ticks = nice_ticks(xs[0], xs[-1])
    y_step = nice_step(max(map(max, ys_by_name.values())) - min(map(min, ys_by_name.values())))
    y_low = y_step * math.floor(min(map(min, ys_by_name.values())) / y_step)
    y_high = y_step * math.ceil(max(map(max, ys_by_name.values())) / y_step)
    if y_high == y_low:  # one flat line: give it room above and below
        y_low, y_high = y_low - y_step, y_high + y_step
    subtitles = subtitle.splitlines()
    left, top = 72.0, 44.0 + 16 * len(subtitles)
    plot_width, plot_height = WIDTH - left - 24, 380.0
    foot = top + plot_height
    height = foot + 56 + 18 * len(ys_by_name)

    def to_x(value: float) -> float:  # data x -> canvas x
        return left + (value - xs[0]) / (xs[-1] - xs[0]) * plot_width

    def to_y(value: float) -> float:  # data y -> canvas y (y grows downwards)
        return foot - (value - y_low) / (y_high - y_low) * plot_height

    lines = _open(height, title, subtitles)
    lines.append('<g id="axes">')
    for tick in nice_ticks(y_low, y_high):
        y = to_y(tick)
        lines.append(f'<line x1="{left:.2f}" y1="{y:.2f}" x2="{left + plot_width:.2f}" '
                     f'y2="{y:.2f}" stroke="{"#888" if tick == 0 else "#e4e4e4"}"/>')
        lines.append(text(left - 6, y + 4, number_text(tick, y_step), ' text-anchor="end"'))
    for tick in x_ticks:
        x_here = to_x(tick)
        lines.append(f'<line x1="{x_here:.2f}" y1="{foot:.2f}" x2="{x_here:.2f}" '
                     f'y2="{foot + 5:.2f}" stroke="#333"/>')
        lines.append(text(x_here, foot + 18, number_text(tick, nice_step(xs[-1] - xs[0])),
                          ' text-anchor="middle"'))
    lines.append(f'<rect x="{left:.2f}" y="{top:.2f}" width="{plot_width:.2f}" '
                 f'height="{plot_height:.2f}" fill="none" stroke="#333"/>')
    lines.append(text(left + plot_width / 2, foot + 36, x_name, ' text-anchor="middle"'))
    lines.append(text(16, top + plot_height / 2, y_name, ' text-anchor="middle" '
                      f'transform="rotate(-90 16 {top + plot_height / 2:.2f})"'))
    lines.append("</g>")

    lines.append('<g id="series" fill="none" stroke-width="2">')
    legend = ['<g id="legend">']
    dots = ['<g id="marks">']
    for number, (name, ys) in enumerate(ys_by_name.items()):
        stroke = f'stroke={quoteattr(LINE_COLORS[number])}'
        dash = DASHES[number % len(DASHES)]
        if dash:
            stroke += f' stroke-dasharray="{dash}"'
        points = " ".join(f"{to_x(a):.2f},{to_y(b):.2f}" for a, b in zip(xs, ys))
        lines.append(f'<polyline {stroke} points="{points}"/>')
        dots += [f'<circle cx="{to_x(xs[k]):.2f}" cy="{to_y(ys[k]):.2f}" r="2.5" '
                 f'fill={quoteattr(LINE_COLORS[number])}/>' for k in marked]
        y = foot + 58 + 18 * number
        legend.append(f'<line x1="{left:.2f}" y1="{y - 4:.2f}" x2="{left + 30:.2f}" '
                      f'y2="{y - 4:.2f}" stroke-width="2" {stroke}/>')
        legend.append(text(left + 38, y, name))
        if len(ys_by_name) > 1:  # markers tell apart lines that lie on one another
            shape = _marker(number, LINE_COLORS[number])
            spots = _marker_indices(len(xs), number, len(ys_by_name))
            dots += [shape.format(x=to_x(xs[k]), y=to_y(ys[k])) for k in spots]
            legend.append(shape.format(x=left + 15, y=y - 4))
    lines += ["</g>", *dots, "</g>", *legend, "</g>", "</svg>"]
    return "\n".join(lines) + "\n"


def _marker(number: int, stroke: str) -> str:
    """Line `number`'s marker as a template of x and y: a hollow shape of its colour."""
    path = MARKERS[number % len(MARKERS)]
    return (f'<path d="{path}" transform="translate({{x:.2f}} {{y:.2f}})" fill="white" '
            f'stroke={quoteattr(stroke)} stroke-width="1.5"/>')


def _marker_indices(points: int, number: int, lines: int) -> list[int]:
    """Where line `number` of `lines` gets its markers: MARKS_PER_LINE points, shifted by
    (number + 1) / (lines + 1) of the gap between two, so no two lines share one.

    >>> _marker_indices(81, 0, 2), _marker_indices(81, 1, 2)
    ([3, 13, 23, 33, 43, 53, 63, 73], [7, 17, 27, 37, 47, 57, 67, 77])
    """
    gap = (points - 1) / MARKS_PER_LINE
    shift = (number + 1) / (lines + 1)
    return sorted({round((m + shift) * gap) for m in range(MARKS_PER_LINE)})
