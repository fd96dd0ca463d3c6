"""What the whole session shares: its bytecode, and the lessons started early.

The slow tests read every lesson's one run (commands.lesson_with_figures: the book, the
walkthroughs), about 13 s of their 20 s of CPU. A session that runs slow tests starts
those runs on a second thread as it begins, while pytest runs the quick tests on the
other core (3-4 s less wall time for the whole suite on two busy cores); a test that reads
a lesson nobody has begun runs it itself.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from commands import LESSONS, ROOT, start, with_figures


def pytest_configure(config: pytest.Config) -> None:
    """Where PYTHONDONTWRITEBYTECODE is set, every interpreter the tests start would compile
    minipe afresh, and pytest the tests: bytecode goes under build/pycache instead (git
    ignores build/), for this process and the ones it starts, not next to the sources:
    about 3.5 s of CPU less for `python -m pytest -m "not slow"`."""
    if sys.flags.dont_write_bytecode:
        prefix = os.environ.get("PYTHONPYCACHEPREFIX") or str(ROOT / "build" / "pycache")
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix = prefix
        sys.dont_write_bytecode = False


@pytest.fixture(scope="session", autouse=True)
def lessons_begun(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every lesson's run, begun in turn on one more thread if any selected test is slow:
    from the last lesson back, as the tests read them from the first, so that the two
    threads meet in the middle instead of one waiting on the other."""
    if not any(item.get_closest_marker("slow") for item in request.session.items):
        yield
        return
    pool = ThreadPoolExecutor(1)
    for path in reversed(LESSONS):
        start(pool, *with_figures(path))
    yield
    pool.shutdown(cancel_futures=True)
