"""The timing script still runs, and its library and baseline results still agree.

(Timings are never asserted here: they live in benchmarks/README.md.) Each script runs
in its quick mode, once per session (tests/commands.py).
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from types import ModuleType

import pytest
from commands import LESSONS, ROOT, ran

pytestmark = pytest.mark.slow


def benchmark(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`python benchmarks/NAME ARGS` from the clone, once a session."""
    return ran(str(ROOT / "benchmarks" / name), *args)


def test_bench_core_quick_runs_and_agrees() -> None:
    done = benchmark("bench_core.py", "--quick")
    assert done.returncode == 0, done.stdout + done.stderr
    for job in ["sinusoidal_encoding", "@", "SingleHeadAttention"]:
        assert job in done.stdout


def _bench_walkthroughs() -> ModuleType:
    """benchmarks/bench_walkthroughs.py, imported as a module."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        return importlib.import_module("bench_walkthroughs")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def test_bench_walkthroughs_times_every_lesson() -> None:
    # the script end to end, on one lesson (--only 01_text_to_ids.py --repeats 1) ...
    done = benchmark("bench_walkthroughs.py", "--repeats", "1",
                     "--only", "01_text_to_ids.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "01_text_to_ids.py" in done.stdout and "starting Python alone" in done.stdout
    # ... and its table for every lesson, a row each: 3 s is over lesson 01's budget (2 s,
    # it trains nothing), within lesson 15's (6 s of its own: three seeds) and 27's (10 s)
    bench_walkthroughs = _bench_walkthroughs()
    assert bench_walkthroughs.lessons() == LESSONS  # what it times without --only
    rows = {path.name[:2]: bench_walkthroughs.row(path, 3.0) for path in LESSONS}
    for path in (ROOT / "walkthroughs").glob("[0-9][0-9]_*.py"):
        assert rows[path.name[:2]].startswith(path.name + " ")
    assert rows["01"].endswith(" 3.000 s  of 2 s  OVER") and rows["15"].endswith(" of 6 s  ok")
    assert rows["07"].endswith(" of 5 s  ok") and rows["27"].endswith(" of 10 s  ok")


def test_every_lesson_with_the_training_budget_exists() -> None:
    bench_walkthroughs = _bench_walkthroughs()
    lessons = {path.name for path in (ROOT / "walkthroughs").glob("[0-9][0-9]_*.py")}
    assert set(bench_walkthroughs.TRAINING_LESSONS) <= lessons
    assert set(bench_walkthroughs.BLOCK_LESSONS) | set(bench_walkthroughs.OWN_BUDGETS) <= lessons
    assert bench_walkthroughs.budget_of(ROOT / "walkthroughs" / "01_text_to_ids.py") == 2.0


def test_bench_steps_reaches_every_landmark() -> None:
    # --strict exits 1 if a landmark line is never reached: a renamed line would show here
    done = benchmark("bench_steps.py", "--strict")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not reached" not in done.stdout
    for landmark in ["the tokenizer's regex", "the embedding lookup", "the batch sum"]:
        assert f"before {landmark}" in done.stdout


def test_bench_generate_quick_runs_and_agrees() -> None:
    # exit 2 if the cached step's logits differ from the plain loop's or the full pass's
    done = benchmark("bench_generate.py", "--quick")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every token's logits equal the plain loop's (rel 1e-9): True" in done.stdout
    assert "cached step's logits equal the full pass's last row: True" in done.stdout
    rows = re.findall(r"^ +(\d+)(?: +[\d.]+){4}$", done.stdout, flags=re.MULTILINE)
    assert rows == ["8", "16", "32", "64"], rows  # a row per cache length, --quick's


def test_bench_printing_quick_runs() -> None:
    done = benchmark("bench_printing.py", "--quick")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "print(trace)" in done.stdout


def test_bench_table_quick_runs_and_agrees() -> None:
    # a 500 x 16 token table (GPT-2's 50,257 x 768 only by hand): exit 2 if the lookup and
    # its baseline disagree
    done = benchmark("bench_table.py", "--quick")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "build: Embedding(500, 16)" in done.stdout and "lookup:" in done.stdout
    # the floor of pure Python's memory: a float object and a pointer, worked by hand
    assert f"({sys.getsizeof(1.0) + 8} is pure Python's floor" in done.stdout


def test_bench_train_quick_runs_and_agrees() -> None:
    # exit 2 if minipe's loss and gradients differ from the plain loop's, for any kind
    done = benchmark("bench_train.py", "--quick")
    assert done.returncode == 0, done.stdout + done.stderr
    for kind in ["none", "learned", "sinusoidal", "rope", "alibi"]:
        assert kind in done.stdout
    for several in ["none, 2 heads", "learned, 2 heads", "rope, 2 heads", "alibi, 4 heads"]:
        assert several in done.stdout  # the heads' rows, each checked against the plain loop


def test_bench_block_quick_runs_and_agrees() -> None:
    # exit 2 if minipe's block step (2 layers, MLPs, a norm) and the plain loop differ in
    # the loss or any parameter's gradient, for every row
    done = benchmark("bench_block.py", "--quick")
    assert done.returncode == 0, done.stdout + done.stderr
    for row in ["learned, layer", "rope, layer", "learned, rms", "rope, rms"]:
        assert f"\n{row} " in done.stdout, done.stdout
