"""The stub files: where they are, and the one line of each that records progress.

A stub carries the line `DONE = False`. When its exercise passes, the checker
writes `DONE = True` in its place, and `DONE = False` when a later check fails:
that word is the only thing it ever changes. It writes a new file beside the
stub and renames it over the old one (os.replace: all or nothing), and only if
the file still holds the text that was checked - an editor that saved in the
meantime wins. Nothing is written anywhere else. A stub that cannot be written (a
read-only clone, a full disk) stays as it was, and `check` says so in a sentence.
"""

from __future__ import annotations

import re
from pathlib import Path

from minipe.command_line import write_whole
from minipe.exercises.catalogue import Exercise

MARKER = re.compile(r"^DONE = (True|False)\b", re.MULTILINE)
CLONE_STUBS = Path(__file__).resolve().parent.parent.parent / "walkthroughs" / "exercises"


def default_folder() -> Path:
    """walkthroughs/exercises under the current directory if it is there, else the clone's."""
    here = Path("walkthroughs") / "exercises"
    return here if here.is_dir() else CLONE_STUBS


def stub_path(folder: Path, exercise: Exercise) -> Path:
    return folder / f"{exercise.stem}.py"


def read(path: Path) -> str:
    """The stub's text, line endings as they are (a Windows editor's \\r\\n stays)."""
    try:
        with open(path, encoding="utf-8", newline="") as file:
            return file.read()
    except UnicodeDecodeError as error:  # a file saved as Latin-1, say
        raise ValueError(f"{path} is not UTF-8 text (byte {error.start} is "
                         f"{error.object[error.start:error.start + 1]!r}): save it as UTF-8, "
                         f"the encoding Python reads") from None


def is_done(source: str) -> bool | None:
    """True or False as the marker line says; None if the stub has no marker line."""
    found = MARKER.search(source)
    return None if found is None else found.group(1) == "True"


def mark(path: Path, source: str, done: bool) -> str:
    """Set the marker of the stub whose text was `source`; what happened, as a sentence."""
    if is_done(source) is None:
        return (f"{path} has no line `DONE = False`, so its progress is not recorded: add "
                f"that line at the top of the file")
    if is_done(source) == done:
        return ""
    if read(path) != source:
        return f"{path} changed while it was checked: nothing written, check it again"
    text = MARKER.sub(f"DONE = {done}", source, count=1)
    # a link to the stub stays a link; the stub itself is replaced, its mode kept: the old
    # file or the new one, never half of either (a full disk, a read-only clone: OSError)
    write_whole(path.resolve(), text)
    return f"{path}: DONE = {done}"
