"""Generation with a cache: one new token, against the tightest plain cached loop.

Cached generation (issues 19 and 32): the time of one new token, `next_logits` of
minipe/training/generation.py with n tokens in the cache, beside the tightest plain
cached loop written here (`plain_token`), for n = 64, 256 and 1024 (TinyModel(32, 16,
positions='rope', num_heads=2)). A query reads the n keys before it, so a token's time
is linear in n in any implementation: the target is that minipe's stays within
TARGET_RATIO (1.5) of the plain loop's at every n, the cache's cost per token its new
row's, not n rows'. Beside them, the time without a cache (`model.logits` of the n + 1
tokens again: n rows of n scores), for the shape lesson 20 prints.

The plain loop keeps lists that grow in place: each head's key rows and its value
columns (a query's output is one dot product of n per column); x is projected onto
[W_q | W_k | W_v] in one pass over their columns; q is scaled by 1/sqrt(head_dim)
before its dot products (one product per column, not a division per key) and the
softmax's sum divides the head's few outputs, not its n weights; RoPE's cos and sin
are computed once for q and k. Its dot products are the interpreter's tightest
(bench_train's `for_this_interpreter`). Before timing, every token's logits of both
are checked equal (math.isclose, rel 1e-9, abs 1e-12) up to the largest n, and
minipe's last cached logits equal to the full pass's last row; else exit status 2.

Timing: for each n, `repeats` pairs, each side `steps` new tokens from n, the order
alternating; the medians of each side and of the pairs' ratios are printed.

    python benchmarks/bench_generate.py            # 9 pairs of 20 tokens, n = 64, 256, 1024
    python benchmarks/bench_generate.py --quick    # 1 pair of 3 tokens, n = 8 .. 64: a smoke
                                                   # test (about 1 s), noisy times
    python benchmarks/bench_generate.py --strict   # exit 1 if a target is missed

Standard library only.
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import sys
import time
from operator import mul
from pathlib import Path
from typing import Any, Callable, Sequence

TARGET_RATIO = 1.5
Rows = list[list[float]]
State = tuple[list[list[list[float]]], list[list[list[float]]]]  # keys[h][j], columns[h][c][j]


def prepared(P: dict[str, Rows], thetas: Sequence[float], heads: int) -> dict[str, Any]:
    """What does not change from token to token: the columns of [W_q | W_k | W_v] and W_out,
    theta_i for every head, the scale."""
    d = len(P["W_q"])
    return {"E": P["token_embedding"], "d": d, "hd": d // heads, "heads": heads,
            "qkv": [list(c) for W in (P["W_q"], P["W_k"], P["W_v"]) for c in zip(*W)],
            "out": [list(c) for c in zip(*P["W_out"])], "thetas": list(thetas) * heads,
            "scale": 1 / math.sqrt(d // heads)}


def plain_token(m: dict[str, Any], state: State, token_id: int) -> list[float]:
    """One token through a RoPE model with a cache, as a plain loop: its logits; `state`
    (each head's key rows and value columns) grows in place by its row."""
    keys, columns = state
    d, hd, scale, exp = m["d"], m["hd"], m["scale"], math.exp
    pos = len(keys[0])
    x = m["E"][token_id]
    qkv = [sum(map(mul, x, col)) for col in m["qkv"]]  # x [W_q | W_k | W_v]
    q, k, v = qkv[:d], qkv[d:2 * d], qkv[2 * d:]
    for i, theta in enumerate(m["thetas"]):
        c, s = math.cos(pos * theta), math.sin(pos * theta)
        a, b = q[2 * i], q[2 * i + 1]
        q[2 * i], q[2 * i + 1] = (a * c - b * s) * scale, (a * s + b * c) * scale
        a, b = k[2 * i], k[2 * i + 1]
        k[2 * i], k[2 * i + 1] = a * c - b * s, a * s + b * c
    h: list[float] = []
    for head in range(m["heads"]):
        lo = head * hd
        K = keys[head]
        K.append(k[lo:lo + hd])
        cols = columns[head]
        for col, value in zip(cols, v[lo:lo + hd]):
            col.append(value)
        q_h = q[lo:lo + hd]
        s_ = [sum(map(mul, q_h, k_j)) for k_j in K]
        top = max(s_)
        e = [exp(s_j - top) for s_j in s_]
        z = sum(e)
        h += [sum(map(mul, e, col)) / z for col in cols]
    return [sum(map(mul, h, col)) for col in m["out"]]


def _copied(state: State) -> State:
    keys, columns = state
    return [list(K) for K in keys], [[list(c) for c in cols] for cols in columns]


def bench_generation(repeats: int, lengths: Sequence[int], steps: int
                     ) -> tuple[bool, list[float]]:
    """Per-token medians of minipe, the plain loop and no cache; (all equal, ratios)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_train import for_this_interpreter
    from minipe import TinyModel
    from minipe.training.generation import EMPTY, next_logits

    token: Callable[..., list[float]] = for_this_interpreter(plain_token)
    model = TinyModel(32, 16, 8, positions="rope", num_heads=2, seed=0)
    assert model.frequencies is not None
    m = prepared({name: W.tolist() for name, W in model.parameters().items()},
                 list(model.frequencies), 2)
    ids = [(7 * t) % 32 for t in range(max(lengths) + steps + 1)]
    caches: dict[int, Any] = {}
    states: dict[int, State] = {}
    state: State = ([[], []], [[[] for _ in range(8)] for _ in range(2)])
    cache = EMPTY
    same = True
    for t, token_id in enumerate(ids[:max(lengths) + 1]):
        if t in lengths:
            caches[t], states[t] = cache, _copied(state)
        logits, cache = next_logits(model, cache, token_id)
        same = same and all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
                            for a, b in zip(logits, token(m, state, token_id)))
    full = logits == list(model.logits(ids[:max(lengths) + 1]).rows[-1])
    print(f"cached generation: TinyModel(32, 16, positions='rope', num_heads=2); "
          f"us per new token, medians of {repeats} pairs x {steps} tokens")
    print(f"{'n in cache':>10} {'minipe us':>10} {'plain us':>9} {'ratio':>6} {'no cache us':>12}")
    ratios = []
    for n in lengths:
        ours, theirs, paired = [], [], []
        for repeat in range(repeats):
            copy = _copied(states[n])
            times = {}
            for side in (("minipe", "plain") if repeat % 2 == 0 else ("plain", "minipe")):
                start = time.perf_counter()
                if side == "minipe":
                    grown = caches[n]
                    for token_id in ids[n:n + steps]:
                        _, grown = next_logits(model, grown, token_id)
                else:
                    for token_id in ids[n:n + steps]:
                        token(m, copy, token_id)
                times[side] = (time.perf_counter() - start) / steps
            ours.append(times["minipe"])
            theirs.append(times["plain"])
            paired.append(times["minipe"] / times["plain"])
        start = time.perf_counter()
        model.logits(ids[:n + 1])
        again = time.perf_counter() - start
        ratio = statistics.median(paired)
        ratios.append(ratio)
        print(f"{n:>10} {statistics.median(ours) * 1e6:>10.1f} "
              f"{statistics.median(theirs) * 1e6:>9.1f} {ratio:>6.2f} {again * 1e6:>12.0f}")
    print(f"every token's logits equal the plain loop's (rel 1e-9): {same}")
    print(f"the cached step's logits equal the full pass's last row: {full}")
    return same and full, ratios


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--quick", action="store_true",
                        help="1 pair of 3 tokens, n = 8 .. 64: a smoke test")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    repeats = 1 if args.quick else 9
    steps = 3 if args.quick else 20  # new tokens timed per side of a pair
    lengths = (8, 16, 32, 64) if args.quick else (64, 256, 1024)
    print(f"Python {platform.python_version()} on {platform.machine()}")
    same, ratios = bench_generation(repeats, lengths, steps)
    if not same:
        print("bench_generate: minipe's cached logits differ from the plain loop's or the "
              "full pass's", file=sys.stderr)
        return 2
    missed = [f"n = {n}" for n, ratio in zip(lengths, ratios) if ratio > TARGET_RATIO]
    print(f"target: minipe / plain <= {TARGET_RATIO} at every n")
    if missed:
        print(f"missed: {', '.join(missed)}")
    return 1 if missed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
