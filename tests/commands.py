"""Run a command once a session and keep what it printed: the one helper tests share.

    from commands import minipe, lesson, lesson_with_figures, ran
    done = minipe("train", "--steps", "5")   # `python -m minipe train --steps 5`
    done.returncode, done.stdout, done.stderr

Every test that asks for the same command gets the same result, run once: a
lesson that trains for seconds is read by many tests but runs one time. A
lesson's one run is `lesson_with_figures(path)`: the book's tests, the
walkthroughs' and any other test that reads a lesson share it. conftest.py may
`start` commands early on a second thread; `ran` then takes that run's result.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import Executor, Future
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the clone: minipe/ runs from here, installed or not
LESSONS = sorted((ROOT / "walkthroughs").glob("[0-9][0-9]_*.py"))
# where the lessons draw, new and empty each session (so a test sees only what a lesson wrote)
FIGURES = Path(tempfile.mkdtemp(prefix="minipe-test-figures-"))
atexit.register(shutil.rmtree, FIGURES, ignore_errors=True)

Environment = tuple[tuple[str, str], ...]
_started: dict[tuple[tuple[str, ...], Environment], Future[subprocess.CompletedProcess[str]]] = {}


def _run(args: tuple[str, ...], env: Environment) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **dict(env)}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=environment, text=True,
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=600)


@functools.cache
def ran(*args: str, env: Environment = ()) -> subprocess.CompletedProcess[str]:
    """`python ARGS` from the clone with stdin closed, `env` set on top of this process's."""
    early = _started.pop((args, env), None)
    if early is not None and not early.cancel():  # running or done: its result
        return early.result()
    return _run(args, env)


def start(pool: Executor, *args: str, env: Environment = ()) -> None:
    """Begin `python ARGS` on the pool now; `ran(*args, env=env)` waits for it if it has
    begun, or runs it itself if it has not."""
    _started[(args, env)] = pool.submit(_run, args, env)


def minipe(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m minipe ARGS`, once a session."""
    return ran("-m", "minipe", *args)


def lesson(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python walkthroughs/NN_topic.py ARGS`, once a session."""
    return ran(str(path), *args)


def with_figures(path: Path) -> tuple[str, str, str]:
    """The arguments of a lesson's one run: `walkthroughs/NN_topic.py --svg FIGURES/NN_topic`."""
    return str(path), "--svg", str(FIGURES / path.stem)


def lesson_with_figures(path: Path) -> subprocess.CompletedProcess[str]:
    """`python walkthroughs/NN_topic.py --svg FIGURES/NN_topic`, once a session: what the
    lesson prints, and a "   [figure written: FILE]" line for each figure it draws there."""
    return ran(*with_figures(path))
