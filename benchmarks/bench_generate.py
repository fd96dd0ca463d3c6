"""Generation with a cache: what a new token costs.

Cached generation (issue 19): the time of one new token, `next_logits` of
minipe/training/generation.py with n tokens in the cache, for growing n, beside the time
without a cache (the whole sequence again, `model.logits` of n + 1 tokens). With the
cache a token does O(n d) work on top of a constant O(d^2 + d vocab_size), so its
time is nearly flat: it grows far slower than n; without the cache it grows faster
than n (n rows of n scores). Target: from the smallest n to the largest, the cached
time grows at most TARGET_FLAT times the growth of n (0.5: half as fast as n).
Before timing, the cached step's logits must equal the full pass's last row (else
exit status 2).

The training step with several heads is bench_train.py's (its "2 heads" and
"4 heads" rows).

    python benchmarks/bench_generate.py            # 5 repeats of 20 tokens, n up to 256
    python benchmarks/bench_generate.py --quick    # 1 repeat of 3 tokens, n up to 64: a
                                                   # smoke test (about 1 s), noisy times
    python benchmarks/bench_generate.py --strict   # exit 1 if a target is missed

Standard library only.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

TARGET_FLAT = 0.5


def _seconds(job: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        job()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_generation(repeats: int, lengths: Sequence[int], steps: int) -> tuple[bool, float]:
    """The per-token times with and without the cache; (cached logits == full, flatness)."""
    from minipe import TinyModel
    from minipe.training.generation import EMPTY, next_logits

    model = TinyModel(32, 16, 8, positions="rope", num_heads=2, seed=0)
    ids = [(7 * t) % 32 for t in range(max(lengths) + 1)]
    caches: dict[int, Any] = {}
    cache = EMPTY
    for t, token_id in enumerate(ids):
        if t in lengths:
            caches[t] = cache
        logits, cache = next_logits(model, cache, token_id)
    same = logits == list(model.logits(ids).rows[-1])
    print(f"cached generation: TinyModel(32, 16, positions='rope', num_heads=2); "
          f"ms per new token, best of {repeats} x {steps} tokens")
    print(f"{'n in cache':>10} {'cached ms':>10} {'no cache ms':>12}")
    cached_times, full_times = [], []
    for n in lengths:
        cached = _seconds(lambda: [next_logits(model, caches[n], ids[n])
                                   for _ in range(steps)], repeats) / steps
        full = _seconds(lambda: model.logits(ids[:n + 1]), repeats)
        cached_times.append(cached)
        full_times.append(full)
        print(f"{n:>10} {cached * 1e3:>10.3f} {full * 1e3:>12.3f}")
    growth = lengths[-1] / lengths[0]
    flat = cached_times[-1] / cached_times[0] / growth
    print(f"from n={lengths[0]} to n={lengths[-1]} ({growth:g}x): cached "
          f"{cached_times[-1] / cached_times[0]:.2f}x, no cache "
          f"{full_times[-1] / full_times[0]:.2f}x; cached / n's growth = {flat:.2f} "
          f"(target <= {TARGET_FLAT})")
    print(f"the cached step's logits equal the full pass's last row: {same}")
    return same, flat


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--quick", action="store_true",
                        help="1 repeat of 3 tokens, n up to 64: a smoke test")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    repeats = 1 if args.quick else 5
    steps = 3 if args.quick else 20  # new tokens timed per repeat
    lengths = (8, 16, 32, 64) if args.quick else (8, 16, 32, 64, 128, 256)
    print(f"Python {platform.python_version()} on {platform.machine()}")
    same, flat = bench_generation(repeats, lengths, steps)
    if not same:
        print("bench_generate: the cached logits differ from the full pass", file=sys.stderr)
        return 2
    missed = [] if flat <= TARGET_FLAT else ["cached generation"]
    print(f"target: cached growth <= {TARGET_FLAT} x n's growth")
    if missed:
        print(f"missed: {', '.join(missed)}")
    return 1 if missed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
