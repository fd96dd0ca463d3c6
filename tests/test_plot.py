"""Chapter 11: the pictures. SVGs are parsed back with xml.etree and counted; terminal
pictures are measured; expected numbers come from the formulas, worked here by hand."""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from commands import ran

from minipe import Matrix, ShapeError, run, sinusoidal_encoding
from minipe.plot import (
    Heatmap,
    LineChart,
    attention_weights,
    curves,
    dot_products,
    heatmap_svg,
    heatmap_text,
    line_chart_svg,
    line_chart_text,
    pe_table,
    use_color,
    write_svg,
)
from minipe.plot.__main__ import build_parser, figure_for, main
from minipe.plot.table import downsample

ROOT = Path(__file__).resolve().parent.parent
SVG = "{http://www.w3.org/2000/svg}"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@cache
def gpt2_table() -> Matrix:
    """sinusoidal_encoding(1024, 768), GPT-2's size: computed once (0.1 s), read by several
    tests (a Matrix cannot be changed, so sharing it is safe)."""
    return sinusoidal_encoding(1024, 768)


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert root.get("width") == "800" and root.get("viewBox", "").startswith("0 0 800 ")
    return root


def group(root: ET.Element, name: str) -> ET.Element:
    found = root.find(f"{SVG}g[@id='{name}']")
    assert found is not None, f"no <g id={name!r}>"
    return found


def texts(root: ET.Element) -> list[str]:
    return [element.text or "" for element in root.iter(f"{SVG}text")]


def polyline_points(line: ET.Element) -> list[tuple[float, float]]:
    pairs = (pair.split(",") for pair in line.get("points", "").split())
    return [(float(x), float(y)) for x, y in pairs]


# --- SVG heatmaps ----------------------------------------------------------------

def test_pe_table_svg_has_one_cell_per_number_and_its_axis_names() -> None:
    root = parse(pe_table(64, 32).svg())
    cells = group(root, "cells").findall(f"{SVG}rect")
    assert len(cells) == 64 * 32
    # row 0 is PE(0) = [sin 0, cos 0, ...] = [0, 1, ...]; the table's range is -1 .. 1, so
    # 0 sits in the middle of the scale (grey, 242,242,242) and 1 at the top (red, 180,4,38)
    assert cells[0].get("fill") == "#f2f2f2"
    assert cells[1].get("fill") == "#b40426"
    words = texts(root)
    assert "position pos" in words and "dimension j (even j: sine, odd j: cosine)" in words
    assert "Sinusoidal position encodings: 64 positions x 32 dimensions" in words
    assert len(group(root, "colorbar").findall(f"{SVG}text")) == 3  # highest, middle, lowest


def test_cells_are_laid_out_row_by_row() -> None:
    root = parse(heatmap_svg([[0, 2, 3], [4, 5, 6]], title="t"))
    cells = group(root, "cells").findall(f"{SVG}rect")
    xs = [float(cell.get("x", "")) for cell in cells]
    ys = [float(cell.get("y", "")) for cell in cells]
    assert xs[0] < xs[1] < xs[2] and xs[0] == xs[3]  # three columns, left to right
    assert ys[0] == ys[1] == ys[2] < ys[3]  # two rows, the first on top
    # no negative number: a sequential scale from 0 (white) to the highest, 6 (dark blue)
    assert (cells[0].get("fill"), cells[5].get("fill")) == ("#ffffff", "#08306b")


@pytest.mark.slow  # a GPT-2-sized table, or a lesson's whole run
def test_gpt2_sized_table_is_sampled_and_says_so() -> None:
    root = parse(pe_table(1024, 768).svg())
    # at most 128 cells per axis: 1024 / 128 = 8, so 1 row in 8; 768 columns are 384 (sin, cos)
    # pairs, of which 128 / 2 = 64 fit: 384 / 64 = 6, so 1 pair in 6
    assert "downsampled from 1024 x 768 to 128 x 128 by keeping 1 row in 8 and 1 column pair " \
        "(2i, 2i+1) in 6; no cell is averaged" in texts(root)
    # past 4,096 cells, one <path> per colour, a cell 1 x 1: "M3 0h2v1h-2z" is cells 3, 4 of
    # row 0. Every cell is drawn once, and row 0 is sin 0 = 0 (grey), cos 0 = 1 (dark red)
    paths = group(root, "cells").findall(f"{SVG}path")
    drawn = {}
    for path in paths:
        for x, y, width in re.findall(r"M(\d+) (\d+)h(\d+)v1h-\3z", path.get("d", "")):
            for column in range(int(x), int(x) + int(width)):
                assert (int(y), column) not in drawn
                drawn[int(y), column] = path.get("fill")
    assert sorted(drawn) == [(row, column) for row in range(128) for column in range(128)]
    assert [drawn[0, column] for column in range(4)] == ["#f2f2f2", "#b40426"] * 2
    assert len(pe_table(1024, 768).svg()) < 300_000  # a fifth of a <rect> per cell


def test_every_sampled_cell_is_a_value_of_the_table() -> None:
    rows = tuple(map(tuple, gpt2_table().tolist()))
    smaller, kept_rows, kept_cols, _ = downsample(rows, 128, 128, column_pairs=True)
    assert kept_rows == list(range(0, 1024, 8))
    assert kept_cols[:6] == [0, 1, 12, 13, 24, 25] and len(kept_cols) == 128
    for r, pos in enumerate(kept_rows):
        for c, j in enumerate(kept_cols):
            # PE(pos, 2i) = sin(pos / 10000**(2i/768)), PE(pos, 2i+1) = cos(the same angle)
            angle = pos / 10000 ** (2 * (j // 2) / 768)
            expected = math.sin(angle) if j % 2 == 0 else math.cos(angle)
            assert math.isclose(smaller[r][c], expected, abs_tol=1e-12), (pos, j)
    # averaging columns 0 and 1 of row 0 would have drawn (sin 0 + cos 0) / 2 = 0.5, a value
    # that row 0 = [0, 1, 0, 1, ...] never holds; the sampled row 0 holds only 0s and 1s
    assert set(smaller[0]) == {0.0, 1.0}


def test_sampling_keeps_every_kth_row_and_column() -> None:
    rows = tuple(tuple(float(10 * r + c) for c in range(6)) for r in range(4))
    smaller, kept_rows, kept_cols, note = downsample(rows, 2, 3)
    # 4 rows into 2: rows 0 and 2; 6 columns into 3: columns 0, 2 and 4; cell = 10 r + c
    assert smaller == ((0.0, 2.0, 4.0), (20.0, 22.0, 24.0))
    assert (kept_rows, kept_cols) == ([0, 2], [0, 2, 4])
    assert note == "downsampled from 4 x 6 to 2 x 3 by keeping 1 row in 2 and 1 column in 2; " \
        "no cell is averaged"
    # in pairs: 3 pairs (0, 1), (2, 3), (4, 5), of which 4 columns hold 2: pairs 0 and 2
    paired, _, kept_cols, _ = downsample(rows, 2, 4, column_pairs=True)
    assert kept_cols == [0, 1, 4, 5] and paired[1] == (20.0, 21.0, 24.0, 25.0)
    assert downsample(rows, 10, 10) == (rows, [0, 1, 2, 3], [0, 1, 2, 3, 4, 5], "")


def test_a_stride_that_does_not_divide_keeps_fewer_cells() -> None:
    rows = ((1.0, 2.0, 3.0, 4.0, 5.0),)
    smaller, _, kept_cols, note = downsample(rows, 1, 2)
    # 5 columns into at most 2: every 2nd would keep 3, so every 3rd: columns 0 and 3
    assert smaller == ((1.0, 4.0),) and kept_cols == [0, 3]
    assert "by keeping every row and 1 column in 3" in note


def rgb(fill: str | None) -> tuple[int, int, int]:
    assert fill is not None and re.fullmatch(r"#[0-9a-f]{6}", fill), fill
    return int(fill[1:3], 16), int(fill[3:5], 16), int(fill[5:7], 16)


def test_attention_weights_sit_on_a_scale_from_0_to_1() -> None:
    trace = run("The cat sat on the mat", d_model=8, causal=True)
    root = parse(attention_weights(trace).svg())
    assert texts(group(root, "colorbar")) == ["1.00", "0.50", "0.00"]  # top, middle, bottom
    cells = group(root, "cells").findall(f"{SVG}rect")
    weights = [w for row in trace.attention.weights.tolist() for w in row]
    for i in range(6):
        for j in range(i + 1, 6):  # above the diagonal the causal mask: striped, not a colour
            assert cells[6 * i + j].get("fill") == "url(#masked)"
    assert texts(group(root, "masked-legend")) == ["masked"]
    assert cells[0].get("fill") == "#08306b"  # token 0 sees only itself: weight 1, darkest
    # sequential: a larger weight is never lighter (a smaller sum of red, green and blue)
    live = [(w, cell) for n, (w, cell) in enumerate(zip(weights, cells)) if n % 6 <= n // 6]
    assert len(live) == 21  # 1 + 2 + ... + 6 cells at or below the diagonal
    by_weight = sorted((w, sum(rgb(cell.get("fill")))) for w, cell in live)
    lightness = [light for _, light in by_weight]
    assert lightness == sorted(lightness, reverse=True) and len(set(lightness)) > 5


def test_figures_that_are_compared_share_one_scale() -> None:
    # 0.5 is the top of its own scale in the second table, the middle in the first: two
    # colours for one number. With one color_range, one colour.
    first, second = [[0.5, 1.0]], [[0.5, 0.25]]
    apart = [group(parse(heatmap_svg(t, title="t")), "cells")[0].get("fill")
             for t in (first, second)]
    assert apart[0] != apart[1]
    shared = [group(parse(heatmap_svg(t, title="t", color_range=(0.0, 1.0))), "cells")[0]
              .get("fill") for t in (first, second)]
    assert shared[0] == shared[1]
    # attention figures take the range too, e.g. (0, the largest weight of the set)
    figure = attention_weights(run("The cat sat"), color_range=(0.0, 0.75))
    assert texts(group(parse(figure.svg()), "colorbar")) == ["0.75", "0.38", "0.00"]


def test_signed_values_are_grey_at_0() -> None:
    # a diverging scale from -m to m, m = max |x| = 2: 0 is in its middle (grey), -2 at the
    # bottom (blue), however far the highest value (1) falls short of 2
    cells = group(parse(heatmap_svg([[-2.0, 0.0, 1.0]], title="t")), "cells")
    assert [cell.get("fill") for cell in cells][:2] == ["#3b4cc0", "#f2f2f2"]


def test_terminal_colours_follow_the_scale() -> None:
    # 256-colour cube code 16 + 36 r + 6 g + b: white (5, 5, 5) = 231, dark blue (0, 0, 1) = 17
    coloured = heatmap_text([[0.0, 1.0]], color=True)
    assert "\x1b[48;5;231m" in coloured and "\x1b[48;5;17m" in coloured
    assert "white = 0, dark blue = 1" in coloured


def test_attention_svg_names_every_token() -> None:
    trace = run("The cat sat on the mat", d_model=8)
    root = parse(attention_weights(trace).svg())
    assert len(group(root, "cells").findall(f"{SVG}rect")) == 6 * 6
    labels = texts(group(root, "axes"))
    expected = ["0 the", "1 cat", "2 sat", "3 on", "4 the", "5 mat"]
    assert labels.count("0 the") == 2  # once for the rows, once for the columns
    assert all(label in labels for label in expected)
    # few cells: each carries its weight, to 3 decimals
    values = texts(group(root, "values"))
    assert values[0] == f"{trace.attention.weights[0, 0]:.3f}"


def test_text_is_escaped_so_a_token_cannot_break_the_xml() -> None:
    labels = ["<|endoftext|>", 'say "hi"', "a & b"]
    svg = heatmap_svg([[0.0, 1.0, 0.5]] * 3, title='tokens like "<|endoftext|>" & co',
                      row_labels=labels, col_labels=labels)
    assert "&lt;|endoftext|&gt;" in svg and "&quot;hi&quot;" in svg and "a &amp; b" in svg
    assert "<|endoftext|>" not in svg
    words = texts(parse(svg))  # and the parser gives the text back as it was
    assert all(words.count(label) == 2 for label in labels)
    assert 'tokens like "<|endoftext|>" & co' in words


def test_a_figure_keeps_its_own_copy() -> None:
    rows = [[0.0, 1.0], [2.0, 3.0]]
    labels = ["a", "b"]
    figure = Heatmap(rows, title="t", x_name="x", y_name="y",  # type: ignore[arg-type]
                     row_labels=labels)  # type: ignore[arg-type]
    rows[0][0] = 99.0  # changing the caller's lists changes nothing inside
    labels[0] = "z"
    assert figure.table == Matrix([[0.0, 1.0], [2.0, 3.0]]) and figure.row_labels == ("a", "b")
    with pytest.raises(ValueError, match="row_labels must be a list of 2 labels"):
        Heatmap(Matrix(rows), title="t", x_name="x", y_name="y", row_labels=("a",))
    chart = LineChart([0, 1], {"line": [2, 3]}, title="t", x_name="x",  # type: ignore[arg-type]
                      y_name="y")
    assert chart.series == (("line", (2.0, 3.0)),) and chart.x == (0.0, 1.0)


def test_the_same_input_gives_the_same_bytes() -> None:
    assert pe_table(16, 8).svg() == pe_table(16, 8).svg()
    assert curves().svg() == curves().svg()


# --- SVG line charts ---------------------------------------------------------------

def axis_maps(root: ET.Element) -> tuple[Any, Any]:
    """data x -> canvas x and data y -> canvas y, read off the chart's tick labels."""
    x_at, y_at = {}, {}
    for label in group(root, "axes").iter(f"{SVG}text"):
        if not re.fullmatch(r"-?[0-9.]+", label.text or ""):
            continue  # an axis name
        if label.get("text-anchor") == "end":  # left of the plot: a y tick, 4 px above its line
            y_at[float(label.text or "")] = float(label.get("y", "")) - 4
        else:
            x_at[float(label.text or "")] = float(label.get("x", ""))
    (x_a, px_a), (x_b, px_b) = min(x_at.items()), max(x_at.items())
    (y_a, py_a), (y_b, py_b) = min(y_at.items()), max(y_at.items())
    return (lambda x: px_a + (x - x_a) / (x_b - x_a) * (px_b - px_a),
            lambda y: py_a + (y - y_a) / (y_b - y_a) * (py_b - py_a))


def test_curves_are_continuous_waves_with_the_table_marked_on_them() -> None:
    chart = curves((0, 1, 8, 16), 64, 32)
    root = parse(chart.svg())
    lines = group(root, "series").findall(f"{SVG}polyline")
    # 8 points per position: 8 * 63 + 1 = 505 points a line, for 64 positions
    assert len(lines) == 4 and all(len(polyline_points(line)) == 505 for line in lines)
    # column 16 = 2i with i = 8: sin(pos / 10000**(16/32)) = sin(pos / 100), by hand
    name, values = chart.series[3]
    assert name == "PE(pos, 16) = sin(pos / 100), wavelength 628"  # 2 pi 100 = 628.3
    assert values[8 * 5 + 4] == pytest.approx(math.sin(5.5 / 100), abs=1e-12)  # between 5 and 6
    # at the whole positions the line passes through the table's own numbers, exactly
    assert [values[8 * pos] for pos in range(64)] == sinusoidal_encoding(64, 32).T[16].tolist()
    assert texts(group(root, "legend")) == [name for name, _ in chart.series]
    # one dot per line at each whole position, where the table's number is
    to_x, to_y = axis_maps(root)
    dots = group(root, "marks").findall(f"{SVG}circle")
    assert len(dots) == 4 * 64
    for number, denominator, wave in ((0, 1, math.sin), (1, 1, math.cos), (2, 10, math.sin),
                                      (3, 100, math.sin)):  # 10000**(2i/32) for i = 0, 0, 4, 8
        for pos in range(64):
            dot = dots[64 * number + pos]
            assert float(dot.get("cx", "")) == pytest.approx(to_x(pos), abs=0.011)
            assert float(dot.get("cy", "")) == pytest.approx(to_y(wave(pos / denominator)),
                                                             abs=0.011)


def test_curves_default_dims_follow_d_model() -> None:
    # 0, 1, d_model/4 and d_model/2, rounded down to even: for 16, columns 0, 1, 4 and 8
    chart = curves(d_model=16)
    assert [name.split(" =")[0] for name, _ in chart.series] == \
        ["PE(pos, 0)", "PE(pos, 1)", "PE(pos, 4)", "PE(pos, 8)"]
    assert [name.split(" =")[0] for name, _ in curves(d_model=4).series] == \
        ["PE(pos, 0)", "PE(pos, 1)", "PE(pos, 2)"]


def test_many_positions_draw_the_rows_only() -> None:
    chart = curves((0,), 1000, 8)  # 1024 // 1000 = 1 point per position: nothing between
    assert len(chart.x) == 1000 and chart.marks_at == ()
    assert len(curves((0,), 256, 8).x) == 4 * 255 + 1  # 1024 // 256 = 4 points per position


def test_points_go_up_when_values_go_up() -> None:
    root = parse(line_chart_svg([0, 1, 2, 3], {"tent": [0, 2, 1, 0]}, title="t"))
    points = polyline_points(group(root, "series").findall(f"{SVG}polyline")[0])
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    assert xs == sorted(xs) and len(set(xs)) == 4
    assert ys[1] < ys[2] < ys[0] == ys[3]  # y grows downwards in SVG: the peak is smallest


def test_dot_product_depends_only_on_the_offset() -> None:
    chart = dot_products(20, 16, at=(0, 10))
    (_, from_0), (_, from_10) = chart.series
    for k in range(21):
        # sum_i sin(a) sin(b) + cos(a) cos(b) = sum_i cos(k / 10000**(2i/16)), worked by hand
        expected = sum(math.cos(k / 10000 ** (2 * i / 16)) for i in range(8))
        assert math.isclose(from_0[k], expected, abs_tol=1e-12)
        assert math.isclose(from_10[k], expected, abs_tol=1e-12)
    assert from_0[0] == pytest.approx(8.0)  # k = 0: |PE(p)|^2 = d_model / 2
    assert len(group(parse(chart.svg()), "series").findall(f"{SVG}polyline")) == 2



def test_the_dot_product_at_a_billion_needs_two_rows_not_a_table() -> None:
    chart = dot_products(4, 8, at=(10**9,))  # a table would need 10**9 + 5 rows
    (_, dots), = chart.series
    p = 10**9
    for k in range(5):
        # PE(p) . PE(p + k) at p = 10^9, written out from the formula, pair by pair
        a = [p / 10000 ** (2 * i / 8) for i in range(4)]  # PE(p)'s angles
        b = [(p + k) / 10000 ** (2 * i / 8) for i in range(4)]  # PE(p + k)'s angles
        by_hand = sum(math.sin(a[i]) * math.sin(b[i]) + math.cos(a[i]) * math.cos(b[i])
                      for i in range(4))
        assert math.isclose(dots[k], by_hand, abs_tol=1e-9)
        # and it is still sum_i cos(k / 10000**(2i/8)): the offset alone
        assert math.isclose(dots[k], sum(math.cos(k / 10000 ** (2 * i / 8)) for i in range(4)),
                            abs_tol=1e-6)


@pytest.mark.parametrize("call, words", [
    # 2 copies x 10^6 x 768 = 1,536,000,000 numbers x 32 bytes = 49.152 GB
    (lambda: pe_table(10**6, 768), r"pe_table\(1,000,000, 768\) would hold 1,536,000,000 "
     r"numbers, about 49 GB"),
    # 2 copies x 10^8 positions x (4 default lines + x) = 10^9 numbers = 32 GB
    (lambda: curves(None, 10**8, 32), "curves over 100,000,000 positions would hold "
     "1,000,000,000 numbers, about 32 GB"),
    # 2 copies x (10^9 + 1) offsets x (2 lines + x) = 6,000,000,006 numbers
    (lambda: dot_products(10**9, 32), "would hold 6,000,000,006 numbers"),
    (lambda: dot_products(64, 32, at=(2**53 - 64,)), r"p \+ max_offset = 9,007,199,254,740,992 "
     r"is past 2\*\*53"),
    (lambda: curves((0, 1), 1, 8), "num_positions must be >= 2, got 1"),
])
def test_sizes_that_cannot_finish_are_refused_with_the_estimate(call: Any, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        call()

# --- the terminal --------------------------------------------------------------------

def test_shades_step_through_the_range() -> None:
    # t = 0, .25, .5, .75, 1 fall in fifths 0, 1, 2, 3, 4; 5 columns fit 4 characters each
    lines = heatmap_text([[0.0, 0.25, 0.5, 0.75, 1.0]]).splitlines()
    assert lines[0] == "0 " + "    ░░░░▒▒▒▒▓▓▓▓████"
    assert lines[1] == "legend: ' ' = 0  ░ ▒ ▓  █ = 1; 5 equal steps"


@pytest.mark.parametrize("width", [24, 40, 80, 132])
def test_the_terminal_heatmap_fits_its_width(width: int) -> None:
    for table in (gpt2_table(), sinusoidal_encoding(10, 4)):
        picture = heatmap_text(table, width=width, title="a long title " * 10)
        assert all(len(line) <= width for line in picture.splitlines())
        assert "\x1b" not in picture
    big = heatmap_text(gpt2_table(), width=width, height=32)
    assert "downsampled from 1024 x 768 to 32 x" in " ".join(big.splitlines())


def test_colour_only_for_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert use_color(Terminal()) and not use_color(io.StringIO())  # a pipe, a file
    monkeypatch.setenv("TERM", "dumb")  # a terminal without colours
    assert not use_color(Terminal())
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(Terminal())
    for width in (24, 60):
        coloured = heatmap_text(sinusoidal_encoding(300, 64), width=width, color=True)
        assert "\x1b[48;5;" in coloured
        assert all(len(ANSI.sub("", line)) <= width for line in coloured.splitlines())


def test_text_line_chart_fits_and_names_its_lines() -> None:
    picture = curves().text(width=70)
    lines = picture.splitlines()
    assert all(len(line) <= 70 for line in lines)
    assert [line[0] for line in lines[-4:]] == ["*", "o", "+", "x"]  # one marker per series
    top = lines[1]  # the highest value, 1.0, is reached by sin(pos) near pos = 8 and 14
    assert top.split("|")[0].strip() == "1.00" and "*" in top
    assert "\x1b" not in picture


# --- bad input -------------------------------------------------------------------------

@pytest.mark.parametrize("call, error, words", [
    (lambda: heatmap_svg([], title="t"), ValueError, "empty"),
    (lambda: heatmap_svg([[]], title="t"), ValueError, "empty"),
    (lambda: heatmap_svg([[1.0, math.nan]], title="t"), ValueError, "NaN"),
    (lambda: heatmap_svg(Matrix([[1.0, math.inf]]), title="t"), ValueError,
     r"the table\[0, 1\] is inf: a colour scale needs finite numbers"),
    (lambda: heatmap_text("1 2 3"),  # type: ignore[arg-type]
     TypeError, "Matrix or a list of rows"),
    (lambda: heatmap_text([[1.0]], width=10), ValueError, "width must be >= 24"),
    (lambda: heatmap_svg([[1.0]], title="t", max_cells=0), ValueError, "max_cells must be >= 1"),
    (lambda: heatmap_svg([[1.0], [2.0]], title="t", row_labels=["a"]), ValueError,
     "row_labels must be a list of 2 labels"),
    (lambda: heatmap_svg([[1.0]], title=None), TypeError,  # type: ignore[arg-type]
     "title must be a str, got None"),
    (lambda: line_chart_svg([0, 1], {"a": [1.0]}, title="t"), ShapeError, "1 values for 2 x"),
    (lambda: line_chart_svg([0, 1], {"a": [1.0, math.inf]}, title="t"), ValueError, "finite"),
    (lambda: line_chart_svg([1, 0], {"a": [1.0, 2.0]}, title="t"), ValueError, "increase"),
    (lambda: line_chart_svg([0, 1], [[1.0, 2.0]], title="t"),  # type: ignore[arg-type]
     TypeError, "dict"),
    (lambda: line_chart_text([0, 1], {str(n): [0, 1] for n in range(11)}), ValueError,
     "1 to 10 series"),
    (lambda: curves((0, 32), 8, 32), ValueError, "dimension 32 is out of range: d_model = 32"),
    (lambda: curves((3, 3)), ValueError, "twice"),
    (lambda: line_chart_svg([0, 0.5, 1], {"a": [0, 1, 0]}, title="t", marks_at=[0.25]),
     ValueError, "marks_at holds 0.25, which is not one of the x values"),
    (lambda: dot_products(8, 4, at=(-1,)), ValueError, ">= 0"),
    (lambda: attention_weights("The cat"),  # type: ignore[arg-type]
     TypeError, "the Trace that minipe.run"),
    (lambda: heatmap_svg([[0.5, 1.5]], title="t", color_range=(0.0, 1.0)), ValueError,
     r"holds 1.5, outside color_range \(0, 1\)"),
    (lambda: heatmap_text([[0.5]], color_range=(1.0, 0.0)), ValueError, "low < high"),
    (lambda: heatmap_svg([[0.5]], title="t", palette="rainbow"), ValueError, "palette must be"),
])
def test_bad_input_is_explained(call: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        call()


# --- writing files -----------------------------------------------------------------------

def leftovers(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


def test_write_svg_writes_the_text(tmp_path: Path) -> None:
    svg = pe_table(8, 4).svg()
    path = write_svg(tmp_path / "pe.svg", svg)
    assert path == tmp_path / "pe.svg" and path.read_text(encoding="utf-8") == svg
    assert leftovers(tmp_path) == ["pe.svg"]  # no temporary file left behind


def test_an_unwritable_path_is_named(tmp_path: Path) -> None:
    not_a_directory = tmp_path / "notes.txt"
    not_a_directory.write_text("hello")
    target = not_a_directory / "pe.svg"
    with pytest.raises(OSError, match=re.escape(f"cannot write {str(target)!r}")):
        write_svg(target, pe_table(8, 4).svg())
    with pytest.raises(ValueError, match="must end in .svg"):
        write_svg(tmp_path, pe_table(8, 4).svg())  # a directory is not a file
    (tmp_path / "figures.svg").mkdir()
    with pytest.raises(ValueError, match="is a directory: name the .svg file"):
        write_svg(tmp_path / "figures.svg", pe_table(8, 4).svg())
    assert leftovers(tmp_path) == ["figures.svg", "notes.txt"]


def test_a_failed_write_leaves_no_half_written_file(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    real_fdopen = os.fdopen

    class DiskFull:
        """Writes the first half of the text, then fails, like a full disk."""

        def __init__(self, handle: int, *args: Any, **kwargs: Any) -> None:
            self.stream = real_fdopen(handle, *args, **kwargs)

        def __enter__(self) -> DiskFull:
            return self

        def __exit__(self, *exc: object) -> None:
            self.stream.close()

        def write(self, text: str) -> int:
            self.stream.write(text[: len(text) // 2])
            self.stream.flush()
            raise OSError(28, "No space left on device")

    monkeypatch.setattr("minipe.command_line.os.fdopen", DiskFull)
    with pytest.raises(OSError, match="No space left on device"):
        write_svg(tmp_path / "pe.svg", pe_table(8, 4).svg())
    assert leftovers(tmp_path) == []  # neither pe.svg nor a temporary file


def test_a_failed_replace_keeps_the_old_file(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    old = write_svg(tmp_path / "pe.svg", pe_table(8, 4).svg()).read_bytes()

    def refuse(source: str, target: str) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("minipe.command_line.os.replace", refuse)
    with pytest.raises(OSError, match="Permission denied"):
        write_svg(tmp_path / "pe.svg", pe_table(16, 8).svg())
    assert (tmp_path / "pe.svg").read_bytes() == old
    assert leftovers(tmp_path) == ["pe.svg"]


def test_out_on_a_full_disk_is_one_sentence_and_no_file(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """`--out` when the disk fills mid-write (simulated in-process: the first half of the SVG
    reaches the temporary file, then ENOSPC): status 2, the usage line and one sentence that
    names the file, no traceback, and nothing left in the folder."""
    real_fdopen = os.fdopen

    def full(handle: int, mode: str = "r") -> Any:
        stream = real_fdopen(handle, mode)
        stream.write(b"<svg")  # the start of a figure, never finished
        stream.flush()
        stream.close()
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("minipe.command_line.os.fdopen", full)
    out = tmp_path / "pe.svg"
    with pytest.raises(SystemExit) as stopped:
        main(["pe", "--positions", "4", "--d-model", "4", "--out", str(out)])
    assert stopped.value.code == 2
    said = capsys.readouterr()
    assert said.err.strip().splitlines()[-1].endswith(
        f"error: cannot write {str(out)!r}: No space left on device")
    assert "Traceback" not in said.err and said.out == ""
    assert leftovers(tmp_path) == []


def test_write_svg_wants_svg_text(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="svg must be the SVG text"):
        write_svg(tmp_path / "pe.svg", pe_table(8, 4))  # type: ignore[arg-type]


# --- python -m minipe.plot -------------------------------------------------------------------

def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m minipe.plot ARGS` from the clone, NO_COLOR set, once a session
    (tests/commands.py: two tests read `curves --help`)."""
    return ran("-m", "minipe.plot", *args, env=(("NO_COLOR", ""),))


def cli_here(*args: str) -> subprocess.CompletedProcess[str]:
    """What `python -m minipe.plot ARGS` does, as main(ARGS) in this process (its module's
    one line under `if __name__ == "__main__"`): its status and what it prints to a pipe.
    No interpreter to start, 0.2 s less each: for the figures and the refusals; the tests
    of help, pipes and colour run the real command (cli)."""
    out, errors = io.StringIO(), io.StringIO()  # not terminals: no colour, as piped
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errors):
        try:
            status = main(list(args))
        except SystemExit as end:  # argparse's refusals exit 2
            status = end.code if isinstance(end.code, int) else 1
    return subprocess.CompletedProcess(["minipe.plot", *args], status, out.getvalue(),
                                       errors.getvalue())


@pytest.mark.parametrize("args, cells, lines", [
    (["pe", "--positions", "64", "--d-model", "32"], 64 * 32, 0),
    (["attention", "The cat sat on the mat", "--causal"], 6 * 6, 0),
    (["attention", "The cat sat", "--position-kind", "alibi", "--d-model", "4"], 3 * 3, 0),
    (["curves", "--dims", "0", "5", "--positions", "40"], 0, 2),
    (["curves", "--d-model", "16"], 0, 4),  # default columns 0, 1, 4, 8 of a 16-wide table
    (["dot", "--max-offset", "30", "--at", "0", "7", "100"], 0, 3),
])
def test_the_command_writes_a_figure(tmp_path: Path, args: list[str], cells: int,
                                     lines: int) -> None:
    out = tmp_path / "figure.svg"
    done = cli_here(*args, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {out}\n"
    root = parse(out.read_text(encoding="utf-8"))
    if cells:
        assert len(group(root, "cells").findall(f"{SVG}rect")) == cells
    else:
        assert len(group(root, "series").findall(f"{SVG}polyline")) == lines


def test_without_out_the_picture_is_printed_plainly_when_piped() -> None:
    done = cli("attention", "A dog bites a man", "--width", "60")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and all(len(line) <= 60 for line in done.stdout.splitlines())
    assert done.stdout.splitlines()[1].startswith("0 a   ")  # the tokens label the rows
    assert "legend:" in cli("pe").stdout and "* PE(pos, 0)" in cli("curves").stdout


def test_a_reader_that_stops_early_ends_the_picture_quietly() -> None:
    command = f"{shlex.quote(sys.executable)} -m minipe.plot pe --positions 1024 " \
        "--d-model 768 | head -n 1"
    done = subprocess.run(["sh", "-c", command], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "NO_COLOR": ""})
    assert done.stdout == "Sinusoidal position encodings: 1024 positions x 768 dimensions\n"
    assert done.stderr == ""  # no "Broken pipe" error, no traceback


@pytest.mark.parametrize("args, words", [
    (["pe", "--positions", "0"], "argument --positions: must be >= 1, got 0"),
    (["dot", "--at", "-5"], "argument --at: must be >= 0, got -5"),
    (["curves", "--d-model", "x"], "argument --d-model: must be a whole number, got 'x'"),
    (["curves", "--dims", "40"], "dimension 40 is out of range"),
    (["attention", "--position-kind", "absolute"], "invalid choice: 'absolute'"),
    (["attention", "--positions", "rope"], "choose the encoding with --position-kind rope"),
    (["histogram"], "invalid choice: 'histogram'"),
    ([], "the following arguments are required: KIND"),
    (["pe", "--out", "no/such/directory/pe.svg"], "cannot write 'no/such/directory/pe.svg'"),
    (["curves", "--width", "1000000"], "--width must be at most 1000 columns, got 1,000,000"),
    (["pe", "--positions", "1000000", "--d-model", "768"], "would hold 1,536,000,000 numbers"),
    (["dot", "--max-offset", "1000000000"], "would hold 6,000,000,006 numbers"),
    (["attention", "--d-model", "100000"], "at d_model = 100000 would hold"),
])
def test_bad_arguments_exit_2_with_a_message(args: list[str], words: str) -> None:
    done = cli_here(*args)
    assert done.returncode == 2
    assert words in done.stderr and done.stdout == ""


def test_out_replaces_only_an_svg(tmp_path: Path) -> None:
    """--out writes a name ending in .svg, and replaces a file there only if it is an SVG
    (a figure written before): a typo must not overwrite a learner's script."""
    script = tmp_path / "notes.py"
    script.write_text("keep me\n")
    for out, words in ((script, "must end in .svg, got"), (tmp_path / "x.png", "must end in"),
                       ("", "must end in .svg, got ''"), (tmp_path, "must end in .svg")):
        done = cli_here("pe", "--positions", "4", "--d-model", "4", "--out", str(out))
        assert done.returncode == 2 and words in done.stderr, (out, done.stderr)
    assert script.read_text() == "keep me\n"
    not_svg = tmp_path / "old.svg"
    not_svg.write_text("a text file that only looks like a figure by name\n")
    done = cli_here("pe", "--positions", "4", "--d-model", "4", "--out", str(not_svg))
    assert done.returncode == 2 and "exists and is not an SVG file" in done.stderr
    figure = tmp_path / "pe.svg"
    for _ in range(2):  # written, then replaced: it is a figure
        done = cli_here("pe", "--positions", "4", "--d-model", "4", "--out", str(figure))
        assert done.returncode == 0 and figure.read_text().startswith("<svg"), done.stderr


def test_the_picture_fits_a_terminal_narrower_than_80(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """On a terminal of 40 columns the default width is 40 (80 on a wider one or a pipe)."""
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(shutil, "get_terminal_size", lambda: os.terminal_size((40, 24)))
    assert main(["curves"]) == 0
    assert max(map(len, capsys.readouterr().out.splitlines())) == 40
    monkeypatch.setattr(shutil, "get_terminal_size", lambda: os.terminal_size((200, 24)))
    assert main(["curves"]) == 0
    assert max(map(len, capsys.readouterr().out.splitlines())) == 80


def test_help_explains_each_kind() -> None:
    done = cli("--help")
    assert done.returncode == 0
    listed = [line.split()[0] for line in done.stdout.splitlines()
              if re.match(r"    \w", line)]  # "    pe        the sinusoidal table ..."
    assert listed[:4] == ["pe", "curves", "dot", "attention"]
    assert "--dims J [J ...]" in cli("curves", "--help").stdout


def options_of(kind: str) -> dict[str, str]:
    """{option: its metavar} from `python -m minipe.plot KIND --help`."""
    found = re.findall(r"^  (--[\w-]+)(?: (\S+))?", cli(kind, "--help").stdout, re.MULTILINE)
    return {option: metavar for option, metavar in found}


def test_one_option_name_per_idea_across_the_kinds() -> None:
    options = {kind: options_of(kind) for kind in ("pe", "curves", "dot", "attention")}
    assert set(options["pe"]) == {"--positions", "--d-model", "--base", "--out", "--width"}
    # an option shared by several kinds takes the same kind of value in each
    for option in set().union(*options.values()):
        metavars = {kind_options[option] for kind_options in options.values()
                    if option in kind_options}
        assert len(metavars) == 1, (option, metavars)
    # --positions is a number of positions wherever it is shown; the encoding has its own name
    assert options["curves"]["--positions"] == "N" and "--positions" not in options["attention"]
    assert options["attention"]["--d-model"] == "D" and "--position-kind" in options["attention"]


# --- the README's figure ---------------------------------------------------------------------

def test_the_readme_figure_is_what_its_command_makes() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = next(line.strip() for line in readme.splitlines()
                   if line.strip().startswith("python -m minipe.plot pe "))
    argv = shlex.split(command)[3:]
    out = argv[argv.index("--out") + 1]
    assert out == "walkthroughs/figures/pe_table.svg"
    assert f"({out})" in readme  # the README shows the file it names
    svg = figure_for(build_parser().parse_args(argv)).svg()
    assert (ROOT / out).read_bytes() == svg.encode("utf-8"), \
        f"the committed figure is stale: run `{command}`"


def test_masked_cells_are_striped_and_left_out_of_the_scale() -> None:
    # A causal 2 x 2 table: cell (0, 1) is masked. Its value, 100, is no score anyone uses,
    # so the scale runs over the other three only: diverging, |largest| = 2, ends -2 and 2.
    table = [[-2.0, 100.0], [1.0, 2.0]]
    masked = [[False, True], [False, False]]
    root = parse(heatmap_svg(table, title="causal", masked=masked))
    fills = [cell.get("fill") for cell in group(root, "cells").findall(f"{SVG}rect")]
    assert fills[1] == "url(#masked)" and "url(#masked)" not in fills[:1] + fills[2:]
    assert texts(group(root, "colorbar")) == ["2.00", "0.00", "-2.00"]  # a tenth of a tick
    assert "100.000" not in texts(group(root, "values"))  # no number in a masked cell
    assert texts(group(root, "masked-legend")) == ["masked"]
    # without a mask nothing is striped, and there is no such legend
    plain = heatmap_svg(table, title="plain")
    assert "url(#masked)" not in plain and "masked-legend" not in plain
    # in the terminal: a masked cell is drawn with its own character, named in the legend
    drawn = heatmap_text(table, title="causal", masked=masked)
    assert drawn.splitlines()[1].endswith("╱╱╱╱") and "╱ = masked" in drawn
    with pytest.raises(ValueError, match="masked must be 2 rows of 2 bools"):
        heatmap_svg(table, title="t", masked=[[False, True]])


def test_every_line_of_a_chart_has_its_own_dash_and_marker() -> None:
    # Two identical lines: the second is drawn on the first. Each still shows: its own
    # dash pattern, and 8 markers of its own shape at other points than the first line's.
    svg = line_chart_svg([float(x) for x in range(81)], {"a": [1.0] * 81, "b": [1.0] * 81},
                         title="one on the other")
    root = parse(svg)
    lines = group(root, "series").findall(f"{SVG}polyline")
    assert [line.get("stroke-dasharray") for line in lines] == [None, "8 4"]
    markers = group(root, "marks").findall(f"{SVG}path")
    shapes = [marker.get("d") for marker in markers]
    assert len(markers) == 16 and len(set(shapes)) == 2
    places = [marker.get("transform") for marker in markers]
    assert len(set(places)) == 16  # no two markers on one spot
    # one line alone needs no markers
    single = line_chart_svg([0.0, 1.0], {"a": [0.0, 1.0]}, title="one")
    assert "<path" not in single
