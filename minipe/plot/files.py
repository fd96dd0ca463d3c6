"""Writing a figure to a file all at once: a failed write leaves no half-written file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_svg(path: str | os.PathLike[str], svg: str) -> Path:
    """Write `svg` to `path` all at once: a failed write leaves no half-written file.

    The text goes to a temporary file in the same directory first; only when
    it is complete does os.replace put it at `path` (one step, even if `path`
    existed). On any error the temporary file is removed. Returns the path.
    """
    if not isinstance(svg, str) or not svg.startswith("<svg"):
        raise TypeError("svg must be the SVG text (a str starting with '<svg') that "
                        "heatmap_svg or line_chart_svg returned")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or Path), got {type(path).__name__}")
    target = Path(path)
    try:
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                             suffix=".tmp")
    except OSError as error:
        raise OSError(f"cannot write {str(target)!r}: {error.strerror or error} (is "
                      f"{str(target.parent)!r} an existing, writable directory?)") from error
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(svg)
        os.chmod(temporary, 0o644)  # mkstemp made it private (0o600); a figure is for all
        os.replace(temporary, target)
    except BaseException as error:
        os.unlink(temporary)
        if isinstance(error, OSError):
            raise OSError(f"cannot write {str(target)!r}: {error.strerror or error}") from error
        raise
    return target
