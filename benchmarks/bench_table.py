"""GPT-2's token table (50,257 x 768): what it costs to build and to look rows up from.

Two measurements, at GPT-2's size unless --quick:

    1. Embedding(50257, 768): the build's time, against the plain loop of the same
       draws (rng.gauss, tuple per row, no checks), and its memory: how much the
       process's peak grew, in bytes per number, against the floor of pure Python
       (a float object and the pointer to it).
    2. The lookup of an (8, 1024) batch of IDs from that table, against
       bench_core.py's baseline_lookup (the same checks of the IDs, then
       operator.itemgetter per sequence), median of N interleaved runs: the ratio
       must stay within 1.5, as in bench_core.py.

Before timing, the lookup's library and baseline results must be the same numbers
(exit status 2 if not). The memory is read from the process's peak resident size
(resource.getrusage, Unix only; "n/a" elsewhere), so the build is measured first,
in a fresh process, before anything else has grown the heap.

    python benchmarks/bench_table.py            # GPT-2's size: a minute or two, 1.6 GB
    python benchmarks/bench_table.py --quick    # 500 x 16: a smoke test, well under 1 s
    python benchmarks/bench_table.py --strict   # exit 1 if the lookup's ratio is over 1.5

Standard library only.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import struct
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

TARGET_RATIO = 1.5


def peak_bytes() -> int | None:
    """The process's peak resident size so far, in bytes (None where resource is missing)."""
    try:
        import resource
    except ImportError:
        return None
    kilobytes = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KB on Linux
    return kilobytes * (1 if sys.platform == "darwin" else 1024)  # bytes on macOS


def seconds(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def plain_build(vocab: int, dim: int) -> list[tuple[float, ...]]:
    """The same draws as Embedding(vocab, dim, seed=0), as tuples, without any check."""
    rng = random.Random(0)
    mu, sigma = [0.0] * dim, [1.0] * dim
    return [tuple(map(rng.gauss, mu, sigma)) for _ in range(vocab)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--quick", action="store_true", help="a 500 x 16 table, 1 repeat")
    parser.add_argument("--repeats", type=int, default=15, help="runs per side of the lookup")
    parser.add_argument("--strict", action="store_true",
                        help=f"exit 1 if the lookup's ratio is over {TARGET_RATIO}")
    args = parser.parse_args(argv)
    root = Path(__file__).resolve().parent
    sys.path[:0] = [str(root.parent), str(root)]
    from bench_core import baseline_lookup
    from minipe import Embedding

    vocab, dim, batch, length = (500, 16, 2, 16) if args.quick else (50257, 768, 8, 1024)
    repeats = 1 if args.quick else args.repeats
    print(f"Python {platform.python_version()} on {platform.machine()}; "
          f"token table ({vocab}, {dim}), lookup of ({batch}, {length}) IDs")

    before = peak_bytes()
    start = time.perf_counter()
    embedding = Embedding(vocab, dim, seed=0)  # (vocab, dim)
    build = time.perf_counter() - start
    after = peak_bytes()
    numbers = vocab * dim
    floor = sys.getsizeof(1.0) + struct.calcsize("P")  # a float object, and a pointer to it
    grown = "n/a" if before is None or after is None else f"{(after - before) / numbers:.1f}"
    print(f"build: Embedding({vocab}, {dim}) {build:.2f} s; the peak grew by {grown} bytes "
          f"a number ({floor} is pure Python's floor: a {floor - 8}-byte float and its "
          f"pointer; NumPy's float64 is 8)")
    plain = seconds(lambda: plain_build(vocab, dim))
    print(f"       the same draws into tuples, no checks: {plain:.2f} s "
          f"(ratio {build / plain:.2f}; the draws, rng.gauss, are most of both)")

    rng = random.Random(3)
    batch_ids = [[rng.randrange(vocab) for _ in range(length)] for _ in range(batch)]
    table = embedding.weight.rows  # the same rows, as the baseline reads them
    library = embedding(batch_ids).tolist()
    plain_rows = [list(map(list, rows)) for rows in baseline_lookup(table, batch_ids)]
    if library != plain_rows:
        print("bench_table: the lookup and its baseline disagree", file=sys.stderr)
        return 2
    ours: list[float] = []
    theirs: list[float] = []
    for repeat in range(repeats):  # interleaved, the order alternating
        if repeat % 2 == 0:
            ours.append(seconds(lambda: embedding(batch_ids)))
        theirs.append(seconds(lambda: baseline_lookup(table, batch_ids)))
        if repeat % 2 == 1:
            ours.append(seconds(lambda: embedding(batch_ids)))
    ratio = statistics.median(ours) / statistics.median(theirs)
    verdict = "OK" if ratio <= TARGET_RATIO else "OVER"
    print(f"lookup: {statistics.median(ours) * 1e3:.2f} ms against the baseline's "
          f"{statistics.median(theirs) * 1e3:.2f} ms, ratio {ratio:.2f} "
          f"(median of {repeats}; target <= {TARGET_RATIO}) {verdict}")
    if args.strict and ratio > TARGET_RATIO:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
