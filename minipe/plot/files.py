"""Writing a figure to a file all at once: a failed write leaves no half-written file."""

from __future__ import annotations

import os
from pathlib import Path

from minipe.command_line import write_whole


def checked_svg_path(path: object) -> Path:
    """`path` as a Path, if a figure may be written there: a name ending in .svg, and
    nothing there yet but, at most, an SVG file (a figure written before, replaced).

    Anything else is refused with a sentence, before any work is done: a typo
    such as `--out notes.py` must not replace a file that is not a figure.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or Path), got {type(path).__name__}")
    target = Path(path)
    if not str(path) or target.suffix.lower() != ".svg":
        raise ValueError(f"the figure's file name must end in .svg, got {str(path)!r}")
    if target.is_dir():
        raise ValueError(f"{str(target)!r} is a directory: name the .svg file to write in it")
    if target.exists():
        with open(target, "rb") as existing:
            start = existing.read(256).lstrip()
        if not start.startswith((b"<svg", b"<?xml")):
            raise ValueError(f"{str(target)!r} exists and is not an SVG file: a figure "
                             f"replaces only an SVG (one written before); choose another name")
    return target


def write_svg(path: str | os.PathLike[str], svg: str) -> Path:
    """Write `svg` to `path` all at once: a failed write leaves no half-written file.

    `path` must end in .svg and hold nothing but, at most, an SVG already
    (checked_svg_path). It is written as every command writes a file
    (minipe.command_line.write_whole): to a temporary file in the same directory
    first, which only when complete os.replace puts at `path` (one step, even if
    `path` existed); on any error the temporary file is removed and an OSError
    names the path. Returns the path.
    """
    if not isinstance(svg, str) or not svg.startswith("<svg"):
        raise TypeError("svg must be the SVG text (a str starting with '<svg') that "
                        "heatmap_svg or line_chart_svg returned")
    return write_whole(checked_svg_path(path), svg, mode=0o644)  # a figure is for all
