"""mypy --strict on the package, the tests, the walkthroughs and the benchmarks, so that
one `python -m pytest` checks everything.

mypy runs once, as `python -m mypy --strict ...` (conftest.py's MYPY), started in the
background when the session begins, with its cache in build/mypy_cache (git ignores
build/): about 7 s the first time in a clone, under a second after.
"""

from __future__ import annotations

import pytest
from conftest import MYPY, run


def test_mypy_strict_passes() -> None:
    pytest.importorskip("mypy.api", reason="mypy is a dev dependency: pip install -e .[dev]")
    done = run(MYPY)
    assert done.returncode == 0, done.stdout + done.stderr
