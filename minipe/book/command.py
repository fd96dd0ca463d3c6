"""`python -m minipe book [DIR] [--notebooks]`: run every lesson once, then write the book.

Progress goes to stderr, one line per lesson as it ends; the pages go into DIR
(build/book/ in the clone by default, which git ignores). With --notebooks the
lessons' notebooks beside the scripts are rewritten from the same runs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from minipe.book import ROOT, build_book, lesson_notebooks
from minipe.book.runs import run_lessons
from minipe.book.sources import lesson_paths
from minipe.command_line import why_unwritable, write_whole


NEEDS_A_CLONE = ("python -m minipe book needs a clone of the minipe repository, since it runs "
                 "the lessons in walkthroughs/ that an installed minipe does not hold: clone "
                 "the repository with git and run the command inside it")


def book_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m minipe book",
        description="Write minipe as a book to read without running it: the chapters as "
        "literate pages, each lesson with what it prints and draws, the chapter map, the "
        "sources and the errata. Static HTML, no network, no JavaScript. It runs every "
        "lesson once, so it needs the clone (walkthroughs/ beside minipe/).")
    parser.add_argument("dir", nargs="?", type=_directory, default=ROOT / "build" / "book",
                        metavar="DIR", help="where to write the pages (default: build/book "
                        "in the clone, which git ignores)")
    parser.add_argument("--notebooks", action="store_true",
                        help="also rewrite walkthroughs/NN_topic.ipynb, each lesson as a "
                        "Jupyter notebook with its outputs")
    return parser


def _directory(text: str) -> Path:
    """DIR as a Path; an empty name is refused (Path("") would be the current directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("DIR is empty: name the directory for the pages "
                                         "(made if missing)")
    return Path(text)


def book_command(argv: list[str]) -> int:
    """Build the book; 0 when written. A missing clone, or a folder that cannot be written
    into (DIR; walkthroughs/ with --notebooks), exits 2 before any lesson runs; a failing
    lesson, or a file that cannot be written (a full disk), exits 1 with one sentence. Every
    page and notebook is written whole or not at all (write_whole)."""
    parser = book_parser()
    args = parser.parse_args(argv)
    paths = lesson_paths(ROOT)
    if not paths:  # installed from a wheel: the lessons stay in the repository
        print(NEEDS_A_CLONE, file=sys.stderr)
        return 2
    if args.dir.exists() and not args.dir.is_dir():
        parser.error(f"{args.dir} is a file: DIR must be a directory (made if missing)")
    # before the lessons run (about 20 s): a folder that cannot be written costs nothing
    reason = why_unwritable(args.dir)
    if reason:
        parser.error(f"cannot write the pages into {args.dir}: {reason}")
    reason = why_unwritable(ROOT / "walkthroughs") if args.notebooks else ""
    if reason:
        parser.error(f"--notebooks cannot write into {ROOT / 'walkthroughs'}: {reason}")

    def say(line: str) -> None:
        print(f"book: {line}", file=sys.stderr, flush=True)

    start = time.perf_counter()
    say(f"running {len(paths)} lessons, two at a time")
    with tempfile.TemporaryDirectory(prefix="minipe-book-") as figures:
        try:
            runs = run_lessons(ROOT, paths, Path(figures), say)
        except RuntimeError as error:
            say(str(error))
            return 1
        notebooks = lesson_notebooks(runs) if args.notebooks else {}
        try:  # each file whole or not at all; a full disk stops at the file it names
            pages = build_book(args.dir, runs)
            for path, text in notebooks.items():
                write_whole(path, text)
        except OSError as error:
            say(f"{error}; the files written before it are whole, this one and the rest "
                f"are as they were")
            return 1
    say(f"wrote {len(pages)} pages in {time.perf_counter() - start:.1f} s"
        + (f" and {len(notebooks)} notebooks into walkthroughs/" if notebooks else ""))
    print(args.dir / "index.html")
    return 0
