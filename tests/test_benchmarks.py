"""The timing script still runs, and its library and baseline results still agree.

(Timings are never asserted here: they live in benchmarks/README.md.)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_core_quick_runs_and_agrees() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_core.py"), "--quick"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    for job in ["sinusoidal_encoding", "@", "SingleHeadAttention"]:
        assert job in done.stdout


def test_bench_walkthroughs_times_every_lesson() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_walkthroughs.py"),
                           "--repeats", "1"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    for lesson in (ROOT / "walkthroughs").glob("[0-9][0-9]_*.py"):
        assert lesson.name in done.stdout
