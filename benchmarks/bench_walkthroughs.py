"""How long each walkthrough takes, against its budget: 2 s, 5 for the lab's, 10 for the block's.

Each lesson runs as a learner runs it, `python walkthroughs/NN_name.py`, in a
fresh interpreter; the time includes starting Python, which is measured on its
own (`python -c pass`) and printed beside, in the same run.

A lesson that trains models (chapter 10's lab: lessons 07, 15, 16 and 18-21) gets 5
seconds: training is pure-Python backpropagation, a few hundred steps per
model, and issue 11 asks for each experiment in under about 5 s. A lesson
that only inspects a model (17) keeps the 2 s of every other lesson. Lesson 15
has 6 s of its own: issue 30 asked for its claims on three seeds, and three
seeds take about 5.5 s on CPython 3.11. The block's lessons (27 and 28) get
10 s: each trains thirty models (in 28, half of them of one layer), and
issue 35 asks for about 10 s each on a quiet 2-core machine.

    python benchmarks/bench_walkthroughs.py             # median of 3 runs each
    python benchmarks/bench_walkthroughs.py --strict    # exit 1 if one is over budget
    python benchmarks/bench_walkthroughs.py --only 01_text_to_ids.py --repeats 1  # quick
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET_SECONDS = 2.0
TRAINING_BUDGET_SECONDS = 5.0  # the lessons that train models in the lab (see above)
BLOCK_BUDGET_SECONDS = 10.0  # the block's lessons, which train many two-layer models
TRAINING_LESSONS = ("07_fixed_vs_learned.py", "15_does_attention_need_positions.py",
                    "16_what_the_learned_table_learned.py", "18_train_short_test_long.py",
                    "19_padded_batches.py", "20_generation_with_a_cache.py", "21_several_heads.py")
BLOCK_LESSONS = ("27_where_positions_live.py", "28_induction_heads.py")
OWN_BUDGETS = {"15_does_attention_need_positions.py": 6.0}  # issue 30's three seeds: ~5.5 s


def budget_of(lesson: Path) -> float:
    """The seconds a lesson may take: its own if it has one (lesson 15: 6), 10 for the
    block's lessons, 5 if it trains models, 2 otherwise."""
    if lesson.name in OWN_BUDGETS:
        return OWN_BUDGETS[lesson.name]
    if lesson.name in BLOCK_LESSONS:
        return BLOCK_BUDGET_SECONDS
    return TRAINING_BUDGET_SECONDS if lesson.name in TRAINING_LESSONS else BUDGET_SECONDS


def seconds_to_run(command: list[str], repeats: int) -> float:
    """The median wall-clock time of `repeats` runs of `command`, which must succeed."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def lessons(only: list[str] | None = None) -> list[Path]:
    """Every lesson, in order; or only those named (file names, e.g. 01_text_to_ids.py)."""
    every = sorted((ROOT / "walkthroughs").glob("[0-9][0-9]_*.py"))
    if not only:
        return every
    unknown = sorted(set(only) - {lesson.name for lesson in every})
    if unknown:
        raise ValueError(f"--only names lessons that do not exist: {', '.join(unknown)}")
    return [lesson for lesson in every if lesson.name in only]


def row(lesson: Path, seconds: float) -> str:
    """The table's line for a lesson that took `seconds`: its time, its budget, ok or OVER."""
    verdict = "ok" if seconds <= budget_of(lesson) else "OVER"
    return f"{lesson.name:45} {seconds:6.3f} s  of {budget_of(lesson):g} s  {verdict}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="runs per lesson (default 3)")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 if a lesson takes more than its budget "
                        f"({BUDGET_SECONDS:g} s; {TRAINING_BUDGET_SECONDS:g} s if it trains, "
                        f"{BLOCK_BUDGET_SECONDS:g} s for lessons 27 and 28, 6 s for 15)")
    parser.add_argument("--only", nargs="+", metavar="LESSON",
                        help="time only these lessons (file names), e.g. for a quick check")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    try:
        chosen = lessons(args.only)
    except ValueError as error:
        parser.error(str(error))

    startup = seconds_to_run([sys.executable, "-c", "pass"], args.repeats)
    print(f"starting Python alone: {startup:.3f} s (included in every time below)")
    over = []
    for lesson in chosen:
        line = row(lesson, seconds_to_run([sys.executable, str(lesson)], args.repeats))
        if line.endswith("OVER"):
            over.append(lesson.name)
        print(line, flush=True)
    print(f"budget: {BUDGET_SECONDS:g} s per lesson, {TRAINING_BUDGET_SECONDS:g} s for "
          f"{len(TRAINING_LESSONS)} that train; over budget: {len(over)}")
    return 1 if args.strict and over else 0


if __name__ == "__main__":
    sys.exit(main())
