"""How minipe's commands behave: support for minipe/__main__.py and the other commands.

The commands (`python -m minipe`, `train`, `book`, `exercises`, `python -m minipe.plot`)
share what this module holds, so that each behaves as a learner expects:

- options read by argparse types (`count`, `index`, `rate`), so a bad value is refused
  naming the option typed: "argument --seq-len: must be >= 1, got 0";
- long work says, on a terminal, that it has started and how long it took (`working`);
- `train`'s progress (`Progress`): a line that redraws itself on a terminal, a line every
  tenth of the run when piped; a run the first step shows would take over a day is
  refused, and a run whose reader has gone (`| head -3`) stops at the next step;
- every command ends quietly (`ends_quietly`): Ctrl-C prints one line and exits with 130,
  a closed pipe ends it with status 1 and no traceback, and a character the output's
  encoding lacks is written as ?;
- every file a command writes (the book's pages, the notebooks, a stub's DONE line, a
  figure) is written whole or not at all (`write_whole`), and what could not be written
  is said in one sentence that names it: "cannot write 'build/book/index.html': No space
  left on device".
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import select
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterator, TextIO

BAR = 30  # characters in the progress bar
LONG = 2_000_000  # numbers to hold: past this, a terminal is told the work has started
LONGEST_RUN = 24 * 3600  # seconds: a run past a day is a typo, not a lesson


def count(text: str) -> int:
    """An option that counts (steps, tokens, columns): a whole number >= 1. argparse names
    the option in the usage error: "argument --seq-len: must be >= 1, got 0"."""
    return _whole(text, 1)


def index(text: str) -> int:
    """An option that numbers from 0 (a seed, a position): a whole number >= 0."""
    return _whole(text, 0)


def rate(text: str) -> float:
    """A learning rate: a number > 0 and finite, such as 0.05."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number such as 0.05, got {text!r}") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a number > 0 such as 0.05, got {text}")
    return value


def _whole(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be >= {least}, got {value}")
    return value


def check_run_time(first_step: float, steps: int) -> None:
    """Refuse, after its first step, a run that would take more than a day, with the estimate."""
    estimate = first_step * steps
    if estimate > LONGEST_RUN:
        raise ValueError(f"--steps {steps:,} would take about {estimate / 86400:,.0f} days at "
                         f"{first_step * 1000:.0f} ms a step (the first step's time); the "
                         f"lab's runs take seconds to minutes: try --steps 300")


def _pipe_reader(stream: TextIO) -> select.poll | None:
    """A poll of the stream's pipe, which flags POLLERR once its reader has gone (`| head`
    took its lines): without it, a run would go on until its next progress line, a tenth
    of the run away. None where there is no poll (Windows) or no file descriptor."""
    if not hasattr(select, "poll"):
        return None
    try:
        reader = select.poll()
        reader.register(stream.fileno(), select.POLLOUT)
    except (OSError, ValueError, io.UnsupportedOperation):  # a StringIO, a closed stream
        return None
    return reader


class Progress:
    """on_step for `train`: a redrawn line on a terminal, plain lines otherwise. After the
    first step it refuses a run that would take over a day (check_run_time); piped, it
    stops the run once the reader has gone (_pipe_reader)."""

    def __init__(self, steps: int, stream: TextIO) -> None:
        self.steps = steps
        self.stream = stream
        self.live = stream.isatty()
        self.every = max(1, steps // 10)  # piped: ten lines per run
        self.step = 0  # the last step done, for the line that Ctrl-C prints
        self.start = time.perf_counter()
        self.reader = _pipe_reader(stream) if not self.live else None

    def __call__(self, step: int, loss: float) -> None:
        self.step = step
        if self.reader is not None and any(events & select.POLLERR
                                           for _, events in self.reader.poll(0)):
            raise BrokenPipeError("the reader of the output has gone")  # `| head -3`: done
        if step == 1:  # the first step's time, times the steps: a run that cannot finish?
            check_run_time(time.perf_counter() - self.start, self.steps)
        filled = BAR * step // self.steps
        line = (f"step {step:>{len(str(self.steps))}}/{self.steps}  loss {loss:7.4f}  "
                f"[{'#' * filled}{'.' * (BAR - filled)}]")
        if self.live:
            self.stream.write("\r" + line + ("\n" if step == self.steps else ""))
            self.stream.flush()
        elif step % self.every == 0 or step in (1, self.steps):
            self.stream.write(line + "\n")
            self.stream.flush()  # a reader sees each line as it comes


@contextlib.contextmanager
def working(what: str, size: int) -> Iterator[None]:
    """On a terminal, say on stderr that work of `size` numbers (past LONG) is under way.

    When the work is done the line says how long it took; if it fails or is
    stopped, the line is erased, and what stopped it speaks. Piped or small:
    nothing is said.
    """
    shown = size > LONG and sys.stderr.isatty()
    line = f"{what}: working ..."
    if shown:
        sys.stderr.write(line)
        sys.stderr.flush()
    start = time.perf_counter()
    try:
        yield
    except BaseException:  # a refusal, Ctrl-C: the line goes, the reason follows
        if shown:
            sys.stderr.write("\r" + " " * len(line) + "\r")
        raise
    if shown:
        sys.stderr.write(f" done in {time.perf_counter() - start:.1f} s\n")


def ends_quietly(command: Callable[[list[str]], int], argv: list[str]) -> int:
    """command(argv)'s status; 130 after Ctrl-C (one line), 1 if stdout's reader left.

    A character the output's encoding lacks (a shade block or a · sent to a file on a
    Windows code page) is written as ?, not raised: the picture survives, a little worn."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="replace")
    try:
        status = command(argv)
        sys.stdout.flush()  # flush now: a closed pipe shows up here, not at exit
    except KeyboardInterrupt:  # before or after the command's own handling
        print("\nstopped by Ctrl-C", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `python -m minipe | head -1`: the reader stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 1  # as Python's documentation of SIGPIPE advises; and no traceback
    return status


def why_unwritable(folder: Path) -> str:
    """"" if a file can be made in `folder` (made if missing), else why not ("Read-only
    file system"). A command asks before its long work (the book's lessons run for 20 s),
    so that a folder it cannot write into costs nothing."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        return str(error.strerror or error)
    return ""


def write_whole(path: Path, data: str | bytes, mode: int | None = None,
                folders: bool = False) -> Path:
    """Write `data` (text as UTF-8, or bytes) to `path` whole or not at all; returns `path`.

    The data goes to a temporary file in the same folder first; only when all of it is
    there does os.replace put it at `path`, in one step: a reader, or the next run, finds
    the old file or the new one, never half of either (a full disk, Ctrl-C). On failure
    the temporary file is removed and an OSError says, in a sentence, which file could
    not be written and why. The file gets `mode`, else the mode of the file it replaces,
    else 0o644 (mkstemp's own 0o600 would hide a page from its readers). With `folders`,
    missing folders above `path` are made first.
    """
    text = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if folders:
            path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                             suffix=".tmp")
    except OSError as error:
        raise OSError(f"cannot write {str(path)!r}: {error.strerror or error} (is "
                      f"{str(path.parent)!r} an existing, writable folder?)") from error
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(text)
        if mode is None:
            mode = path.stat().st_mode & 0o7777 if path.is_file() else 0o644
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise OSError(f"cannot write {str(path)!r}: {error.strerror or error}") from error
        raise
    return path
