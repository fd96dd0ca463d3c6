"""mypy --strict on the package, the tests, the walkthroughs and the benchmarks, so that
one `python -m pytest` checks everything.

mypy runs as `python -m mypy --strict ...` from the clone, with its cache in
build/mypy_cache (git ignores build/): about 7 s the first time in a clone, under a
second after.
"""

from __future__ import annotations

import pytest
from commands import ROOT, ran

TARGETS = [name for name in ("minipe", "tests", "walkthroughs", "benchmarks")
           if (ROOT / name).exists()]


@pytest.mark.slow
def test_mypy_strict_passes() -> None:
    pytest.importorskip("mypy.api", reason="mypy is a dev dependency: pip install -e .[dev]")
    done = ran("-m", "mypy", "--strict", "--config-file", "pyproject.toml",
               "--cache-dir", "build/mypy_cache", *TARGETS)
    assert done.returncode == 0, done.stdout + done.stderr
