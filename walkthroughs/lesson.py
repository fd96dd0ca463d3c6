"""What every walkthrough shares: its command line and the pause between stages.

A walkthrough is a script in `# %%` cells. Each cell opens with
`lesson.stage("...")`, which prints the stage's heading. With `--step` it
first waits for Enter, so you can read what the stage before printed. A
lesson of questions also calls `lesson.answer()` after each question: with
`--step` it waits again, so you can try the question before the answer shows.

    python walkthroughs/01_text_to_ids.py            # straight through
    python walkthroughs/01_text_to_ids.py --step     # pause after each stage
    python walkthroughs/04_sinusoidal_by_hand.py --svg   # and draw
    python walkthroughs/28_induction_heads.py --long     # and its long stage

A lesson with a stage too long for every run (minutes, not seconds) makes
`Lesson(__doc__, long="what it runs")`: only that lesson takes `--long`, and
runs the stage only when asked; its notebook is the run without it.

With `--svg DIR`, a lesson also writes its figures into DIR as SVG files
(`lesson.save_figure`), drawn by minipe.plot. `--svg` alone writes them into
build/figures/ in the clone, which git ignores.

The pause waits only when stdin is a terminal. Piped or redirected, the
lesson runs straight through, so it never hangs a script or a test.

A lesson checks what it claims, on the line that prints the claim:
`lesson.check("every row sums to 1", all(...))` prints nothing when the claim
holds; when it does not (minipe changed, or another seed told another story),
the lesson stops there with the claim on stderr and status 1, so no false
sentence goes on to the next line. Its tests compare what it prints with the
notebook beside it, and never read its sentences for numbers.

A lesson ends quietly, as the commands do: Ctrl-C prints one line and exits
with 130, and a reader that stops early (`| head -1`) ends it with status 1
and no traceback. `Lesson()` sets this up for the script that makes it.

This file is not a lesson; it keeps the lessons from repeating it. Each
lesson imports it first, so that it can also find minipe in a clone where
minipe is not installed (the package sits one directory up).
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import os
import sys
from pathlib import Path
from types import TracebackType
from typing import Callable, Protocol

CLONE = str(Path(__file__).resolve().parent.parent)  # the directory that holds minipe/
if importlib.util.find_spec("minipe") is None and CLONE not in sys.path:
    sys.path.append(CLONE)

PROMPT = "   ... press Enter for the next stage "
ANSWER_PROMPT = "   ... try it yourself, then press Enter for the answer "
FIGURES = Path(CLONE) / "build" / "figures"  # where `--svg` alone draws: git ignores build/


class FalseClaim(AssertionError):
    """A claim a lesson prints did not hold on the numbers it computed (see Lesson.check)."""


def end_quietly_on_ctrl_c_and_closed_pipes() -> None:
    """For the lesson script: Ctrl-C and a closed stdout end it with one line or none.

    Every line goes out as soon as it is printed, so a reader that left shows
    up at the print that meets it, not in Python's last flush at exit.
    """
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(line_buffering=True)
    sys.excepthook = _ended


def _ended(kind: type[BaseException], error: BaseException,
           traceback: TracebackType | None) -> None:
    """sys.excepthook: the uncaught Ctrl-C or closed pipe ends the lesson quietly."""
    if issubclass(kind, KeyboardInterrupt):
        print("\nstopped by Ctrl-C", file=sys.stderr)
        raise SystemExit(130)  # what a shell reports after Ctrl-C; Python exits with it
    if issubclass(kind, FalseClaim):  # the sentence says it all: no traceback
        sys.stdout.flush()
        print(f"\n{error}", file=sys.stderr)
        raise SystemExit(1)
    if issubclass(kind, BrokenPipeError):  # `| head -1`: the reader stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        raise SystemExit(1)  # as Python's documentation of SIGPIPE advises
    sys.__excepthook__(kind, error, traceback)  # any other error: its traceback, as always


def _directory(text: str) -> Path:
    """--svg's DIR as a Path; an empty name is refused (Path("") is the current directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("DIR is empty: name the directory for the figures, "
                                         "or leave DIR out for build/figures in the clone")
    return Path(text)


class Figure(Protocol):
    """Anything that can draw itself as SVG text, like minipe.plot's Heatmap and LineChart."""

    def svg(self) -> str: ...


class Lesson:
    """A lesson's state: its number of stages so far, and whether to pause.

    `doc` is the script's docstring: its first line is the title, printed
    first, and the whole of it is the `--help` text.
    """

    def __init__(self, doc: str | None, argv: list[str] | None = None,
                 long: str | None = None) -> None:
        doc = (doc or "").strip()
        end_quietly_on_ctrl_c_and_closed_pipes()
        parser = argparse.ArgumentParser(
            description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
        parser.add_argument("--step", action="store_true",
                            help="pause after each stage until Enter is pressed")
        parser.add_argument("--svg", metavar="DIR", type=_directory, nargs="?", const=FIGURES,
                            help="also write the lesson's figures into DIR, as SVG files "
                            "(DIR left out: build/figures in the clone, which git ignores)")
        if long is not None:  # only a lesson with a long stage takes --long
            parser.add_argument("--long", action="store_true", help=long)
        # parse_known_args: a notebook kernel passes arguments of its own (-f kernel.json);
        # an unknown --option is the learner's typo (--svgdir for --svg), refused.
        args, unknown = parser.parse_known_args(argv)
        typos = [word for word in unknown if word.startswith("--")]
        if typos:
            takes = ("a lesson takes --step and --svg [DIR]" if long is None
                     else "this lesson takes --step, --svg [DIR] and --long")
            parser.error(f"unrecognized arguments: {' '.join(typos)} ({takes})")
        if args.svg is not None and args.svg.exists() and not args.svg.is_dir():
            parser.error(f"--svg needs a directory for the figures, but {args.svg} is a file")
        if args.svg is not None:
            try:  # now, not at the first figure after a page of output
                args.svg.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                parser.error(f"--svg {args.svg}: cannot make the directory for the figures: "
                             f"{error.strerror or error}")
        self.step: bool = args.step
        self.svg_dir: Path | None = args.svg
        self.long: bool = long is not None and args.long
        self.stages = 0
        self.title = doc.partition("\n")[0]
        print(self.title)
        print("=" * len(self.title))
        if self.step and not sys.stdin.isatty():
            print("(--step: stdin is not a terminal, so the lesson will not pause)")
            self.step = False

    def stage(self, heading: str) -> None:
        """Pause (under --step) after the stage before, then print this one's heading."""
        if self.step and self.stages > 0:
            self.pause()
        self.stages += 1
        print()
        print(f"{self.stages}. {heading}")

    def answer(self) -> None:
        """Print "Answer:"; under --step, first wait, so the question stands alone.

        A lesson of questions calls it right after `stage(question)`, before it
        computes anything: what follows it is the answer.
        """
        if self.step:
            self.pause(ANSWER_PROMPT)
        print("Answer:")

    def check(self, claim: str, holds: bool) -> None:
        """Stop the lesson if `claim`, which it prints here, is false on its own numbers.

        Nothing is printed when the claim holds, so the lesson reads the same. When it
        does not, FalseClaim names the lesson, the stage and the claim; run as a
        script, the lesson ends with that sentence on stderr and status 1.
        """
        if holds:
            return
        raise FalseClaim(f"{self.title}, stage {self.stages}: the lesson claims that {claim}, "
                         f"but its own numbers say otherwise. The text printed above this "
                         f"is no longer true: something in minipe (or a seed) changed what "
                         f"this lesson computes.")

    def save_figure(self, filename: str, figure: Figure) -> None:
        """Under --svg DIR, draw `figure` into DIR/filename and say so; otherwise nothing."""
        if self.svg_dir is None:
            return
        from minipe.plot import write_svg  # only now: drawing is optional

        try:
            self.svg_dir.mkdir(parents=True, exist_ok=True)
            path = write_svg(self.svg_dir / filename, figure.svg())
        except OSError as error:  # a usage error: a sentence and status 2, not a traceback
            print(f"--svg {self.svg_dir}: cannot write the figures there "
                  f"({error.strerror or error})", file=sys.stderr)
            raise SystemExit(2) from None
        print(f"   [figure written: {path}]")

    def progress(self, label: str, steps: int) -> Callable[[int, float], None]:
        """An on_step(step, loss) for minipe.train that shows `label: step k/steps` on stderr.

        Only when stderr is a terminal: piped or redirected, the callback does
        nothing, so a lesson's output stays the same byte for byte. The line
        is redrawn in place (a carriage return) and wiped after the last step.
        """
        if not sys.stderr.isatty():
            return lambda step, loss: None

        def show(step: int, loss: float) -> None:
            line = f"   {label}: step {step}/{steps}, loss {loss:.4f}"
            end = "\r" + " " * len(line) + "\r" if step == steps else ""
            sys.stderr.write("\r" + line + end)
            sys.stderr.flush()

        return show

    def pause(self, prompt: str = PROMPT) -> None:
        """Wait for Enter. Ctrl-D (end of input) stops the pauses and runs on."""
        try:
            input(prompt)
        except EOFError:
            print()
            self.step = False

    def __repr__(self) -> str:
        return f"Lesson(stages={self.stages}, step={self.step}, svg_dir={self.svg_dir})"
