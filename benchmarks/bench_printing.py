"""How long does printing take? str() of big arrays, and print(trace) as the text grows.

A learner prints whatever they hold: a 1024 x 768 table, an (8, 1024, 768)
batch, the trace of a long text. Printing cuts every long axis to its edges
before it formats a number (minipe/display.py), so it should take about the
same time at any size, and a trace should cost time in proportion to its
length (the labels and the checks of each token), not to its square.

    python benchmarks/bench_printing.py            # median of 5 runs each
    python benchmarks/bench_printing.py --quick    # smaller sizes, 1 run: a smoke test

Standard library only; it runs from the clone without an install. It reports
and never fails on a time: timings are not asserted anywhere.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

ROOT = Path(__file__).resolve().parent.parent


def milliseconds(call: Callable[[], object], repeats: int) -> float:
    """The median wall time of `repeats` calls, in ms."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return 1000.0 * statistics.median(times)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small sizes, one run each")
    arguments = parser.parse_args(argv)
    if sys.path[:1] != [str(ROOT)]:
        sys.path.insert(0, str(ROOT))
    from minipe import Batch, Matrix, run, sinusoidal_encoding

    repeats = 1 if arguments.quick else 5
    rows, cols, batch = (64, 48, 2) if arguments.quick else (1024, 768, 8)
    table = sinusoidal_encoding(rows, cols)  # built before the timing
    stack = Batch([table] * batch)
    print(f"str() of a Matrix {table.shape}: {milliseconds(lambda: str(table), repeats):.3f} ms")
    print(f"str() of a Batch {stack.shape}: {milliseconds(lambda: str(stack), repeats):.3f} ms")
    print(f"repr() of the same Batch: {milliseconds(lambda: repr(stack), repeats):.3f} ms")
    assert isinstance(table, Matrix)

    lengths = (100, 200, 300) if arguments.quick else (1000, 2000, 3000)
    print("print(trace) for a text of n tokens (run() itself not timed):")
    for n in lengths:
        words = " ".join(f"w{index % 50}" for index in range(n))  # 50 distinct words
        trace = run(words, d_model=8)
        ms = milliseconds(lambda: str(trace), repeats)
        print(f"  n = {n:>5}: {ms:8.3f} ms, {1000 * ms / n:6.2f} us per token")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
