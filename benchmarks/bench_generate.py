"""Generation with a cache, and the training step with several heads: what they cost.

1. Cached generation (issue 19): the time of one new token, `next_logits` of
   minipe/generation.py with n tokens in the cache, for growing n, beside the time
   without a cache (the whole sequence again, `model.logits` of n + 1 tokens). With the
   cache a token does O(n d) work on top of a constant O(d^2 + d vocab_size), so its
   time is nearly flat: it grows far slower than n; without the cache it grows faster
   than n (n rows of n scores). Target: from the smallest n to the largest, the cached
   time grows at most TARGET_FLAT times the growth of n (0.5: half as fast as n).
   Before timing, the cached step's logits must equal the full pass's last row.

2. The training step with num_heads = 2 (batch 8, T 8, d 8, 5 token kinds), against
   the tightest plain-Python loop for the same job written here (lists of lists,
   `sum(map(operator.mul, ...))`, no objects, no checks). Both must give the same
   loss and gradients (rel 1e-9, abs 1e-12), else exit status 2. Target: ratio <= 1.5.

    python benchmarks/bench_generate.py            # 5 repeats of 20 steps, n up to 256
    python benchmarks/bench_generate.py --quick    # 1 repeat of 3 steps, n up to 64: a
                                                   # smoke test (about 1 s), noisy times
    python benchmarks/bench_generate.py --strict   # exit 1 if a target is missed

Standard library only.
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from operator import mul
from pathlib import Path
from typing import Any, Callable, Sequence

Table = list[list[float]]
TARGET_RATIO = 1.5
TARGET_FLAT = 0.5
HEAD_KINDS = ("none", "learned", "rope", "alibi")


def baseline(P: dict[str, Table], positions: str, heads: int, slopes: Sequence[float],
             inputs: list[list[int]], targets: list[list[int]], base: float = 10000.0
             ) -> tuple[float, dict[str, Table]]:
    """TinyModel's causal loss and gradients with `heads` heads, as a plain loop."""
    E, W_q, W_k, W_v, W_out = P["token_embedding"], P["W_q"], P["W_k"], P["W_v"], P["W_out"]
    d = len(W_q)
    hd = d // heads
    cols_q, cols_k, cols_v, cols_out = (list(zip(*W)) for W in (W_q, W_k, W_v, W_out))
    scale = 1 / math.sqrt(hd)
    count = sum(t != -100 for wanted in targets for t in wanted)
    longest = max(map(len, inputs))
    thetas = [base ** (-2 * i / hd) for i in range(hd // 2)]
    cos = [[math.cos(pos * theta) for theta in thetas] for pos in range(longest)]
    sin = [[math.sin(pos * theta) for theta in thetas] for pos in range(longest)]
    g = {name: [[0.0] * len(W[0]) for _ in W] for name, W in P.items()}
    total = 0.0
    for ids, wanted in zip(inputs, targets):
        n = len(ids)
        x = [list(E[t]) for t in ids]
        if positions == "learned":
            x = [[a + b for a, b in zip(row, P["position_embedding"][pos])]
                 for pos, row in enumerate(x)]
        q = [[sum(map(mul, row, col)) for col in cols_q] for row in x]
        k = [[sum(map(mul, row, col)) for col in cols_k] for row in x]
        v = [[sum(map(mul, row, col)) for col in cols_v] for row in x]
        if positions == "rope":
            q, k = (_turn(m, cos, sin, 1.0, heads) for m in (q, k))
        cut = [(h * hd, (h + 1) * hd) for h in range(heads)]
        w_heads = []
        h_rows = [[0.0] * d for _ in range(n)]
        for h, (a, b) in enumerate(cut):
            w = []
            for i in range(n):
                s = [sum(map(mul, q[i][a:b], k[j][a:b])) * scale for j in range(i + 1)]
                if positions == "alibi":
                    s = [s_j - slopes[h] * (i - j) for j, s_j in enumerate(s)]
                top = max(s)
                e = [math.exp(s_j - top) for s_j in s]
                z = sum(e)
                w.append([e_j / z for e_j in e] + [0.0] * (n - i - 1))
            v_cols = [col for col in zip(*v)][a:b]
            for i in range(n):
                h_rows[i][a:b] = [sum(map(mul, w[i], col)) for col in v_cols]
            w_heads.append(w)
        d_h = []
        for i in range(n):
            logits = [sum(map(mul, h_rows[i], col)) for col in cols_out]
            t = wanted[i]
            if t == -100:
                d_h.append([0.0] * d)
                continue
            top = max(logits)
            e = [math.exp(z_j - top) for z_j in logits]
            z = sum(e)
            total += top + math.log(z) - logits[t]
            d_logits = [e_j / z / count for e_j in e]
            d_logits[t] -= 1 / count
            for c in range(d):
                h_c, row = h_rows[i][c], g["W_out"][c]
                g["W_out"][c] = [r + h_c * dl for r, dl in zip(row, d_logits)]
            d_h.append([sum(map(mul, W_row, d_logits)) for W_row in W_out])
        d_q = [[0.0] * d for _ in range(n)]
        d_k = [[0.0] * d for _ in range(n)]
        d_v = [[0.0] * d for _ in range(n)]
        for (a, b), w in zip(cut, w_heads):
            d_h_cols = [col for col in zip(*d_h)][a:b]
            for j, w_col in enumerate(zip(*w)):
                d_v[j][a:b] = [sum(map(mul, w_col, col)) for col in d_h_cols]
            d_s = []
            for i in range(n):
                d_w = [sum(map(mul, d_h[i][a:b], v_j[a:b])) for v_j in v]
                through = sum(map(mul, w[i], d_w))
                d_s.append([w_j * (dw_j - through) for w_j, dw_j in zip(w[i], d_w)])
            k_cols = [col for col in zip(*k)][a:b]
            q_cols = [col for col in zip(*q)][a:b]
            for i, row in enumerate(d_s):
                d_q[i][a:b] = [sum(map(mul, row, col)) * scale for col in k_cols]
            for j, d_s_col in enumerate(zip(*d_s)):
                d_k[j][a:b] = [sum(map(mul, d_s_col, col)) * scale for col in q_cols]
        if positions == "rope":
            d_q, d_k = (_turn(m, cos, sin, -1.0, heads) for m in (d_q, d_k))
        d_x = [[a + b + c for a, b, c in zip(
            [sum(map(mul, dq, W_row)) for W_row in W_q],
            [sum(map(mul, dk, W_row)) for W_row in W_k],
            [sum(map(mul, dv, W_row)) for W_row in W_v])]
            for dq, dk, dv in zip(d_q, d_k, d_v)]
        for name, d_m in (("W_q", d_q), ("W_k", d_k), ("W_v", d_v)):
            for c, x_col in enumerate(zip(*x)):
                g[name][c] = [r + s for r, s in zip(
                    g[name][c], [sum(map(mul, x_col, d_col)) for d_col in zip(*d_m)])]
        for pos, (t, row) in enumerate(zip(ids, d_x)):
            g["token_embedding"][t] = [a + b for a, b in zip(g["token_embedding"][t], row)]
            if positions == "learned":
                g["position_embedding"][pos] = [a + b for a, b in
                                                zip(g["position_embedding"][pos], row)]
    return total / count, g


def _turn(m: Table, cos: Table, sin: Table, sign: float, heads: int) -> Table:
    """RoPE on the interleaved pairs of every head; sign -1 turns back (the gradient)."""
    hd = len(m[0]) // heads
    out = []
    for pos, row in enumerate(m):
        new = list(row)
        for first in range(0, len(row), hd):
            for i, (c, s) in enumerate(zip(cos[pos], sin[pos])):
                s *= sign
                a, b = row[first + 2 * i], row[first + 2 * i + 1]
                new[first + 2 * i], new[first + 2 * i + 1] = a * c - b * s, a * s + b * c
        out.append(new)
    return out


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
    from minipe.generation import EMPTY, next_logits

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
                        help="1 repeat of 3 steps, n up to 64: a smoke test")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from minipe import TinyModel, task_batch

    repeats = 1 if args.quick else 5
    steps = 3 if args.quick else 20  # timed per repeat: tokens, or training steps
    lengths = (8, 16, 32, 64) if args.quick else (8, 16, 32, 64, 128, 256)
    print(f"Python {platform.python_version()} on {platform.machine()}")
    same, flat = bench_generation(repeats, lengths, steps)
    if not same:
        print("bench_generate: the cached logits differ from the full pass", file=sys.stderr)
        return 2
    missed = [] if flat <= TARGET_FLAT else ["cached generation"]
    inputs, targets = task_batch("previous-token", 5, 8, 8, seed=0)
    print(f"\ntraining step, num_heads=2 (batch 8, T 8, d 8); best of {repeats} x {steps} steps")
    print(f"{'positions':12} {'minipe ms':>10} {'plain ms':>9} {'ratio':>6}")
    for kind in HEAD_KINDS:
        model = TinyModel(5, 8, 8, positions=kind, num_heads=2)
        plain = {name: W.tolist() for name, W in model.parameters().items()}
        slopes = model.alibi_slopes or (0.0, 0.0)
        loss, gradients = model.loss_and_gradients(inputs, targets)
        plain_loss, plain_gradients = baseline(plain, kind, 2, slopes, inputs, targets)
        agree = math.isclose(loss, plain_loss, rel_tol=1e-9, abs_tol=1e-12) and all(
            math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
            for name, G in gradients.items()
            for row, plain_row in zip(G.rows, plain_gradients[name])
            for a, b in zip(row, plain_row))
        if not agree:
            print(f"bench_generate: {kind}: minipe and the plain loop disagree", file=sys.stderr)
            return 2
        ours = _seconds(lambda: [model.loss_and_gradients(inputs, targets)
                                 for _ in range(steps)], repeats) / steps
        theirs = _seconds(lambda: [baseline(plain, kind, 2, slopes, inputs, targets)
                                   for _ in range(steps)], repeats) / steps
        ratio = ours / theirs
        if ratio > TARGET_RATIO:
            missed.append(kind)
        print(f"{kind:12} {ours * 1e3:>10.2f} {theirs * 1e3:>9.2f} {ratio:>6.2f}")
    print(f"targets: cached growth <= {TARGET_FLAT} x n's growth; "
          f"training-step ratio <= {TARGET_RATIO}")
    if missed:
        print(f"missed: {', '.join(missed)}")
    return 1 if missed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
