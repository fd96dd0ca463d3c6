"""A lesson's run, and what each of its cells printed and drew.

The book does not import the lessons: it runs each one as a learner does,
`python walkthroughs/NN_topic.py --svg DIR`, and reads what it printed. Every
`lesson.stage(...)` prints a blank line and its numbered heading, "k. ...", so
the text from one heading to the next is what the cell that calls it printed;
the title before the first heading belongs to the first of those cells, which
makes the Lesson. Each `   [figure written: ...]` line marks where a figure was
drawn: the page shows the SVG file from DIR there.

One number changes from run to run: a time that a lesson measured and reports
as such ("built in 0.49 s here", lesson 05). The book writes it "built in … s
here", so that the same lessons give the same bytes.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from minipe.book.sources import Lesson

FIGURE_LINE = "   [figure written: "
STAGE = "lesson.stage("
MEASURED = re.compile(r"\b\d+(\.\d+)? s here\b")  # a time the lesson measured on this machine


@dataclass(frozen=True)
class LessonRun:
    """What `python walkthroughs/NN_topic.py --svg DIR` printed, and DIR (None: no figures)."""

    stdout: str
    figures: Path | None


@dataclass(frozen=True)
class Part:
    """A piece of a cell's output: printed text, or a figure drawn there (`figure` is the
    SVG file's name, `text` its content)."""

    text: str
    figure: str = ""


def cell_outputs(lesson: Lesson, run: LessonRun) -> list[list[Part]]:
    """For each cell of the lesson, what it printed and drew, in order."""
    staged = [at for at, cell in enumerate(lesson.cells) if STAGE in cell.code]
    starts = [0]
    for number in range(2, len(staged) + 1):
        found = run.stdout.find(f"\n\n{number}. ", starts[-1])
        if found < 0:
            raise ValueError(f"{lesson.path}: its output has no heading '{number}. ...', but "
                             f"{len(staged)} cells call lesson.stage(): did the lesson fail?")
        starts.append(found + 1)  # the blank line that stage() prints starts the cell
    outputs: list[list[Part]] = [[] for _ in lesson.cells]
    for at, start, end in zip(staged, starts, starts[1:] + [len(run.stdout)]):
        printed = MEASURED.sub("… s here", run.stdout[start:end])
        outputs[at] = _parts(printed, run.figures)
    return outputs


def _parts(text: str, figures: Path | None) -> list[Part]:
    """The text, cut at each figure line into text and the figure it names."""
    parts: list[Part] = []
    lines: list[str] = []
    for line in text.splitlines(keepends=True):
        if not line.startswith(FIGURE_LINE):
            lines.append(line)
            continue
        if lines:
            parts.append(Part("".join(lines)))
            lines = []
        name = Path(line[len(FIGURE_LINE):].rstrip().removesuffix("]")).name
        if figures is None or not (figures / name).is_file():
            raise ValueError(f"the lesson wrote figure {name}, but it is not in {figures}")
        parts.append(Part((figures / name).read_text(encoding="utf-8"), name))
    if lines:
        parts.append(Part("".join(lines)))
    return parts


def run_lessons(root: Path, paths: list[Path], figures: Path,
                say: Callable[[str], None]) -> dict[str, LessonRun]:
    """Run every lesson once with `--svg figures/NN_topic`, two at a time (those that train
    first); `say` hears of each as it ends. A lesson that fails stops the book with its
    error."""

    def one(path: Path) -> tuple[str, LessonRun]:
        start = time.perf_counter()
        out = figures / path.stem
        done = subprocess.run([sys.executable, str(path), "--svg", str(out)], cwd=root,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"{path.name} failed (status {done.returncode}):\n"
                               f"{done.stderr}")
        say(f"ran {path.name} in {time.perf_counter() - start:.1f} s")
        return path.stem, LessonRun(done.stdout, out if out.is_dir() else None)

    def trains(path: Path) -> bool:  # those that train take seconds: they start first
        return "train(" in path.read_text(encoding="utf-8")

    with ThreadPoolExecutor(max_workers=2) as pool:
        done = dict(pool.map(one, sorted(paths, key=lambda path: not trains(path))))
    return {path.stem: done[path.stem] for path in paths}
