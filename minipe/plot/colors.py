"""Colour scales: which colours, and which values sit at the two ends.

A heatmap paints each value x at the point t of its colour scale:

    t = (x - low) / (high - low)        0 at the bottom of the scale, 1 at the top

Two palettes, chosen by what the numbers mean:

- sequential, white (t = 0) -> blue -> dark blue (t = 1), for amounts that
  start at 0, like attention weights: white means "none", and a darker cell
  always means more;
- diverging, blue (t = 0) -> light grey (t = 0.5) -> red (t = 1), for signed
  values, like a PE table's sines and cosines: grey is 0, blue below, red above.

Unless the figure fixes `color_range`, the scale runs from 0 to the largest
value (sequential) or from -m to m, m the largest |x| (diverging), so grey is
0. Figures meant to be compared share one `color_range`, e.g. (0, 1) for
attention weights, so one colour means one number in all of them.
"""

from __future__ import annotations

import math
from typing import Literal, Sequence

Palette = Literal["sequential", "diverging"]
PALETTES: tuple[Palette, ...] = ("sequential", "diverging")
STOPS: dict[str, tuple[tuple[int, int, int], ...]] = {  # the colours at t = 0, 0.5 and 1
    "sequential": ((255, 255, 255), (107, 174, 214), (8, 48, 107)),  # white, blue, dark blue
    "diverging": ((59, 76, 192), (242, 242, 242), (180, 4, 38)),  # blue, grey, red
}


def color_scale(rows: Sequence[Sequence[float]], palette: str | None = None,
                color_range: object = None, what: str = "the table"
                ) -> tuple[Palette, float, float]:
    """The palette, and the values (low, high) at its two ends, for these rows.

    palette=None picks "sequential" for a table without negative numbers, else
    "diverging". A given color_range must hold every value: a scale that
    clipped would paint different numbers the same colour, and hide them.

    >>> color_scale([[0.2, 0.5]]), color_scale([[-0.5, 0.25]])
    (('sequential', 0.0, 0.5), ('diverging', -0.5, 0.5))
    """
    lowest, highest = min(map(min, rows)), max(map(max, rows))
    if palette is None:
        palette = "sequential" if lowest >= 0 else "diverging"
    if palette not in PALETTES:
        raise ValueError(f"palette must be one of {PALETTES}, got {palette!r}")
    chosen: Palette = "sequential" if palette == "sequential" else "diverging"
    if color_range is None:
        if chosen == "sequential":
            return chosen, min(0.0, lowest), highest
        largest = max(-lowest, highest)  # m = the largest |x|
        return chosen, -largest, largest
    low, high = _checked_range(color_range)
    if lowest < low or highest > high:
        outside = lowest if lowest < low else highest
        raise ValueError(f"{what} holds {outside:.6g}, outside color_range ({low:g}, {high:g}):"
                         f" widen the range, or leave it out to fit the values")
    return chosen, low, high


def _checked_range(color_range: object) -> tuple[float, float]:
    if not isinstance(color_range, (tuple, list)) or len(color_range) != 2 or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in color_range):
        raise TypeError(f"color_range must be a pair of numbers (low, high), e.g. (0.0, 1.0), "
                        f"got {color_range!r}")
    low, high = float(color_range[0]), float(color_range[1])
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"color_range must be finite with low < high, got ({low}, {high})")
    return low, high


def fraction(x: float, low: float, high: float) -> float:
    """t = (x - low) / (high - low), in [0, 1]; 0.5 when low == high (every value equal)."""
    if high == low:
        return 0.5
    return (x - low) / (high - low)


def color(t: float, palette: Palette = "diverging") -> str:
    """The colour at t in [0, 1] as '#rrggbb': its palette's 3 stops, mixed linearly in RGB."""
    bottom, middle, top = STOPS[palette]
    start, end, u = (bottom, middle, 2 * t) if t <= 0.5 else (middle, top, 2 * t - 1)
    red, green, blue = (round(a + (b - a) * u) for a, b in zip(start, end))
    return f"#{red:02x}{green:02x}{blue:02x}"


def is_dark(t: float, palette: Palette) -> bool:
    """Whether a cell at t is dark enough to need white ink for its number."""
    return t > 0.6 if palette == "sequential" else t < 0.2 or t > 0.8


def ansi_background(t: float, palette: Palette = "diverging") -> str:
    """An ANSI escape for a background colour from the 6 x 6 x 6 cube of the 256 colours.

    Code 16 + 36 r + 6 g + b, with r, g, b in 0..5. Diverging: (0, 0, 5) blue at
    t = 0, (5, 5, 5) white at 0.5, (5, 0, 0) red at 1, in 11 steps. Sequential:
    (5, 5, 5) white at t = 0, (0, 0, 5) blue, (0, 0, 1) dark blue at 1, in 10 steps.
    """
    if palette == "sequential":
        step = round(t * 9)  # 0 .. 9
        r, g, b = (5 - step, 5 - step, 5) if step <= 5 else (0, 0, 10 - step)
    else:
        step = round(t * 10)  # 0 .. 10
        r, g, b = (step, step, 5) if step <= 5 else (5, 10 - step, 10 - step)
    return f"\x1b[48;5;{16 + 36 * r + 6 * g + b}m"


RESET = "\x1b[0m"
