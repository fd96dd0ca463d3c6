"""Chapter 11 - pictures: see the encodings instead of reading a 1024 x 768 table.

    table.py     what every picture needs: checked numbers, sampling down, round ticks
    colors.py    colour scales: sequential from 0 for amounts, diverging around 0 for signs
    terminal.py  a heatmap of shade blocks (or ANSI colours) and a text line chart
    svg.py       SVG written by hand: a heatmap with a colour bar, a line chart
    files.py     write_svg: the SVG text into a file, all at once
    figures.py   the lectures' pictures: pe_table, curves, dot_products, attention_weights
    __main__.py  python -m minipe.plot pe | curves | dot | attention

In Python:

    from minipe.plot import pe_table, write_svg
    print(pe_table(64, 32).text())                 # in the terminal
    write_svg("pe.svg", pe_table(64, 32).svg())    # an SVG file, written all at once

or for any table or lines of your own, `heatmap_svg(matrix, title=...)` and
`line_chart_svg(x, {"name": ys}, title=...)`. Only the standard library is
used; `import minipe` does not import this package.

Left out: raster images, interactive zoom, anything a plotting library does better.
"""

from minipe.plot.figures import (
    Heatmap,
    LineChart,
    attention_weights,
    curves,
    dot_products,
    pe_table,
)
from minipe.plot.files import write_svg
from minipe.plot.svg import heatmap_svg, line_chart_svg
from minipe.plot.terminal import heatmap_text, line_chart_text, use_color

__all__ = [
    "Heatmap",
    "LineChart",
    "attention_weights",
    "curves",
    "dot_products",
    "heatmap_svg",
    "heatmap_text",
    "line_chart_svg",
    "line_chart_text",
    "pe_table",
    "use_color",
    "write_svg",
]
