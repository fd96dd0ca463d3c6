"""mypy --strict on the package, the tests, the walkthroughs and the benchmarks, so that
one `python -m pytest` checks everything."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_strict_passes() -> None:
    api = pytest.importorskip("mypy.api", reason="mypy is a dev dependency: pip install -e .[dev]")
    targets = [str(ROOT / name) for name in ("minipe", "tests", "walkthroughs", "benchmarks")
               if (ROOT / name).exists()]
    stdout, stderr, status = api.run(["--strict", "--config-file", str(ROOT / "pyproject.toml"),
                                      *targets])
    assert status == 0, stdout + stderr
