"""Run a command once a session and keep what it printed: the one helper tests share.

    from commands import minipe, lesson, ran
    done = minipe("train", "--steps", "5")   # `python -m minipe train --steps 5`
    done.returncode, done.stdout, done.stderr

Every test that asks for the same command gets the same result, run once: a
lesson that trains for seconds is read by many tests but runs one time.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the clone: minipe/ runs from here, installed or not


@functools.cache
def ran(*args: str, env: tuple[tuple[str, str], ...] = ()) -> subprocess.CompletedProcess[str]:
    """`python ARGS` from the clone with stdin closed, `env` set on top of this process's."""
    environment = {**os.environ, **dict(env)}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=environment, text=True,
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=600)


def minipe(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m minipe ARGS`, once a session."""
    return ran("-m", "minipe", *args)


def lesson(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python walkthroughs/NN_topic.py ARGS`, once a session."""
    return ran(str(path), *args)
