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


def test_every_lesson_with_the_training_budget_exists() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_walkthroughs
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    lessons = {path.name for path in (ROOT / "walkthroughs").glob("[0-9][0-9]_*.py")}
    assert set(bench_walkthroughs.TRAINING_LESSONS) <= lessons
    assert bench_walkthroughs.budget_of(ROOT / "walkthroughs" / "01_text_to_ids.py") == 2.0


def test_bench_steps_reaches_every_landmark() -> None:
    # --strict exits 1 if a landmark line is never reached: a renamed line would show here
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_steps.py"),
                           "--strict", "--guards"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not reached" not in done.stdout
    for chapter in ["tokenizer.py", "attention.py", "pipeline.py"]:
        assert chapter in done.stdout


def test_bench_printing_quick_runs() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_printing.py"),
                           "--quick"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "print(trace)" in done.stdout


def test_bench_train_quick_runs_and_agrees() -> None:
    # exit 2 if minipe's loss and gradients differ from the plain loop's, for any kind
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_train.py"),
                           "--quick"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    for kind in ["none", "learned", "sinusoidal", "rope", "alibi"]:
        assert kind in done.stdout
