"""How much does chapter 10's readability cost? The training step against a plain loop.

The job: one step's forward and backward pass, `TinyModel.loss_and_gradients`
on a batch of 8 sequences of T = 8 tokens, d_model = 8, 5 token kinds, for each
kind of position, and for models with several heads (no positions, learned
rows and RoPE with 2 heads, ALiBi with 4: lessons 20 and 21). The baseline below is the tightest
plain-Python loop for the same computation that I could write (issue 32): lists of
lists; x projected onto [W_q | W_k | W_v] in one pass over their columns, and the
gradient taken back through the three at once; causal attention computed over its
lower triangle only (query i's scores against keys 0 .. i, its output, dweights and
dscores over those keys; dk and dv of key j read the queries i >= j), never the masked
half; the cosines and sines of RoPE once per step; the tightest dot product of the
running interpreter for every dot product (`sum(map(operator.mul, ...))` before
CPython 3.12, `math.sumprod` from 3.12 on: see `for_this_interpreter`); the same
heads, no objects and no checks. It is written here, not imported from minipe.

Before timing, each row checks that both give the same loss and the same
gradients (math.isclose, rel 1e-9, abs 1e-12), and stops with exit status 2 if
not. Then `repeats` pairs of runs, the order alternating, each side `timed` steps;
it prints the medians of each side and the median of the pairs' ratios
minipe / plain. Targets (issue 32): at most 1.3 for one head, 1.4 for several.

Then the whole of `train` at its defaults (300 steps x batch 8, d = 8, T = 8)
is timed once per row; the target is under 2 s. Last, one step of a bigger
model, d_model 64, T 64, batch 8 (RoPE), its loss and gradients checked equal to the
plain loop's, then 3 pairs: the target is a ratio of at most 1.3 and under 0.5 s.

    python benchmarks/bench_train.py            # 7 pairs of 20 steps each
    python benchmarks/bench_train.py --quick    # a smoke test: 1 step a side, train() 5 steps
    python benchmarks/bench_train.py --strict   # exit 1 if a target is missed

Standard library only.
"""

from __future__ import annotations

import argparse
import inspect
import math
import platform
import re
import statistics
import sys
import time
from operator import mul
from pathlib import Path
from typing import Any, Callable, Sequence

Table = list[list[float]]
TARGET_RATIO = 1.3  # one head (issue 22)
TARGET_RATIO_HEADS = 1.4  # several heads (issue 32; 1.5 in issue 19)
TARGET_BIG_RATIO = 1.3  # the d_model 64, T 64 step (issue 32)
TARGET_TRAIN_SECONDS = 2.0
TARGET_BIG_STEP_SECONDS = 0.5
KINDS = ("none", "learned", "sinusoidal", "rope", "alibi")


def baseline(P: dict[str, Table], positions: str, causal: bool, base: float,
             inputs: list[list[int]], targets: list[list[int]], *,
             thetas: list[float] | None = None, rope_scale: float = 1.0,
             heads: int = 1, slopes: Sequence[float] | None = None
             ) -> tuple[float, dict[str, Table]]:
    """TinyModel's loss and gradients, as a plain loop (see minipe/training/passes.py's docstring).
    RoPE turns by thetas (base**(-2i/head_dim) unless given) and scales q and k by
    rope_scale; `heads` heads of d / heads columns each, head h's ALiBi slope slopes[h]."""
    E, W_q, W_k, W_v, W_out = P["token_embedding"], P["W_q"], P["W_k"], P["W_v"], P["W_out"]
    d = len(W_q)
    hd = d // heads  # each head's columns: a .. b - 1
    blocks = [(a, a + hd) for a in range(0, d, hd)]
    slopes = [0.5] * heads if slopes is None else slopes  # ALiBi: 1/2 unless given
    cols_qkv = [list(c) for W in (W_q, W_k, W_v) for c in zip(*W)]  # [W_q | W_k | W_v]
    rows_qkv = [q_r + k_r + v_r for q_r, k_r, v_r in zip(W_q, W_k, W_v)]  # (d, 3d)
    cols_out = list(zip(*W_out))
    scale = 1 / math.sqrt(hd)
    count = sum(t != -100 for wanted in targets for t in wanted)
    longest = max(map(len, inputs))
    if thetas is None:
        thetas = [base ** (-2 * i / hd) for i in range(hd // 2)]
    thetas = list(thetas) * heads  # interleaved pairs: every head's pair i turns by theta_i
    angles = [[pos * theta for theta in thetas] for pos in range(longest)]
    cos = [[rope_scale * math.cos(a) for a in row] for row in angles]  # scaled: q' = s R q
    sin = [[rope_scale * math.sin(a) for a in row] for row in angles]
    if positions == "sinusoidal":
        table = [[math.sin(a) if c % 2 == 0 else math.cos(a) for c in range(d)
                  for a in [pos / base ** (2 * (c // 2) / d)]] for pos in range(longest)]
    elif positions == "learned":
        table = P["position_embedding"]
    g = {name: [[0.0] * len(W[0]) for _ in W] for name, W in P.items()}
    g_qkv = [[0.0] * (3 * d) for _ in range(d)]  # dloss/d[W_q | W_k | W_v]
    total = 0.0
    for ids, wanted in zip(inputs, targets):
        n = len(ids)
        x = [list(E[t]) for t in ids]
        if positions in ("learned", "sinusoidal"):
            x = [[a + b for a, b in zip(row, table[pos])] for pos, row in enumerate(x)]
        qkv = [[sum(map(mul, row, col)) for col in cols_qkv] for row in x]  # x [W_q|W_k|W_v]
        q, k, v = ([row[a:a + d] for row in qkv] for a in (0, d, 2 * d))
        if positions == "rope":
            q, k = (_turn(m, cos, sin, 1.0) for m in (q, k))
        cut = [(q, k, v)] if heads == 1 else [
            tuple([row[a:b] for row in m] for m in (q, k, v)) for a, b in blocks]
        ws, outs = [], []
        for (q_h, k_h, v_h), slope in zip(cut, slopes):
            w = []  # w[i]: query i's weights over keys 0 .. i (causal), or 0 .. n - 1
            for i in range(n):
                s = [sum(map(mul, q_h[i], k_j)) * scale for k_j in k_h[:i + 1 if causal else n]]
                if positions == "alibi":
                    s = [s_j - slope * abs(i - j) for j, s_j in enumerate(s)]
                top = max(s)
                e = [math.exp(s_j - top) for s_j in s]
                z = sum(e)
                w.append([e_j / z for e_j in e])
            v_cols = list(zip(*v_h))
            ws.append(w)
            outs.append([[sum(map(mul, w_i, col[:seen])) for col in v_cols]  # keys j < seen
                         for w_i, seen in zip(w, map(len, w))])
        h = outs[0] if heads == 1 else [sum(rows, []) for rows in zip(*outs)]
        d_h = []
        for i in range(n):
            logits = [sum(map(mul, h[i], col)) for col in cols_out]
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
                h_c, row = h[i][c], g["W_out"][c]
                g["W_out"][c] = [r + h_c * dl for r, dl in zip(row, d_logits)]
            d_h.append([sum(map(mul, W_row, d_logits)) for W_row in W_out])
        d_qs, d_ks, d_vs = [], [], []
        for (q_h, k_h, v_h), w, (a, b) in zip(cut, ws, blocks):
            d_h_h = d_h if heads == 1 else [row[a:b] for row in d_h]
            d_s = []  # d_s[i]: over keys 0 .. i, as w[i]
            for i, w_i in enumerate(w):
                d_w = [sum(map(mul, d_h_h[i], v_j)) for v_j in v_h[:len(w_i)]]
                through = sum(map(mul, w_i, d_w))
                d_s.append([w_j * (dw_j - through) for w_j, dw_j in zip(w_i, d_w)])
            k_cols = list(zip(*k_h))
            d_qs.append([[sum(map(mul, row, col[:seen])) * scale for col in k_cols]
                         for row, seen in zip(d_s, map(len, d_s))])  # query i: keys j < seen
            # key j is read by the queries i >= j: the columns of the triangles, from row j
            w_cols = list(zip(*[w_i + [0.0] * (n - len(w_i)) for w_i in w]))
            s_cols = list(zip(*[s_i + [0.0] * (n - len(s_i)) for s_i in d_s]))
            d_h_cols, q_cols = list(zip(*d_h_h)), list(zip(*q_h))
            if causal:
                d_vs.append([[sum(map(mul, w_cols[j][j:], col[j:])) for col in d_h_cols]
                             for j in range(n)])
                d_ks.append([[sum(map(mul, s_cols[j][j:], col[j:])) * scale for col in q_cols]
                             for j in range(n)])
            else:
                d_vs.append([[sum(map(mul, w_col, col)) for col in d_h_cols] for w_col in w_cols])
                d_ks.append([[sum(map(mul, s_col, col)) * scale for col in q_cols]
                             for s_col in s_cols])
        d_q, d_k, d_v = ((parts[0] if heads == 1 else [sum(rows, []) for rows in zip(*parts)])
                         for parts in (d_qs, d_ks, d_vs))
        if positions == "rope":
            d_q, d_k = (_turn(m, cos, sin, -1.0) for m in (d_q, d_k))
        d_qkv = [dq + dk + dv for dq, dk, dv in zip(d_q, d_k, d_v)]  # (n, 3d)
        d_x = [[sum(map(mul, row, W_row)) for W_row in rows_qkv] for row in d_qkv]  # fused
        for c, x_col in enumerate(zip(*x)):  # d[W_q|W_k|W_v] += x^T d_qkv
            g_qkv[c] = [r + s for r, s in zip(
                g_qkv[c], [sum(map(mul, x_col, d_col)) for d_col in zip(*d_qkv)])]
        for pos, (t, row) in enumerate(zip(ids, d_x)):
            g["token_embedding"][t] = [a + b for a, b in zip(g["token_embedding"][t], row)]
            if positions == "learned":
                g["position_embedding"][pos] = [a + b for a, b in
                                                zip(g["position_embedding"][pos], row)]
    for name, a in (("W_q", 0), ("W_k", d), ("W_v", 2 * d)):
        g[name] = [row[a:a + d] for row in g_qkv]
    return total / count, g


DOT_BY_MAP = re.compile(r"sum\(map\(mul, ([^()]*?), ([^()]*?)\)\)")  # sum(map(mul, a, b))


def for_this_interpreter(function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` as the tightest loop of the running interpreter.

    Before CPython 3.12, sum(map(mul, a, b)) is the fastest dot product pure
    Python has, and `function` is returned as written. From 3.12 on,
    math.sumprod(a, b) is faster (2 to 3 times), so every sum(map(mul, a, b))
    in its source is rewritten as sumprod(a, b) and the function compiled again:
    one loop to read, the tightest on each interpreter (minipe does the same
    with its one `dot`, in minipe/arrays/vector.py).
    """
    if sys.version_info < (3, 12):
        return function
    source = inspect.getsource(function)
    rewritten, count = DOT_BY_MAP.subn(r"sumprod(\1, \2)", source)
    assert count == source.count("sum(map(mul"), "a dot product the pattern missed"
    namespace = dict(globals(), sumprod=math.sumprod)
    exec(compile(rewritten, inspect.getsourcefile(function) or "<baseline>", "exec"), namespace)
    rewritten_function: Callable[..., Any] = namespace[function.__name__]
    return rewritten_function


def _turn(m: Table, cos: Table, sin: Table, sign: float) -> Table:
    """RoPE on interleaved pairs; sign -1 turns back (the gradient)."""
    out = []
    for pos, row in enumerate(m):
        new = list(row)
        for i, (c, s) in enumerate(zip(cos[pos], sin[pos])):
            s *= sign
            a, b = row[2 * i], row[2 * i + 1]
            new[2 * i], new[2 * i + 1] = a * c - b * s, a * s + b * c
        out.append(new)
    return out


def _paired(ours: Callable[[], object], theirs: Callable[[], object],
            repeats: int) -> tuple[float, float, float]:
    """`repeats` pairs of runs, the order alternating so that a busy spell of the machine
    hits both sides alike: the median time of each side and the median of the pairs'
    ratios ours / theirs."""
    times: tuple[list[float], list[float]] = ([], [])
    for repeat in range(repeats):
        order = (0, 1) if repeat % 2 == 0 else (1, 0)
        for side in order:
            job = (ours, theirs)[side]
            start = time.perf_counter()
            job()
            times[side].append(time.perf_counter() - start)
    ratios = [a / b for a, b in zip(*times)]
    return statistics.median(times[0]), statistics.median(times[1]), statistics.median(ratios)


def _same(loss: float, gradients: dict[str, Any], plain_loss: float,
          plain_gradients: dict[str, Table]) -> bool:
    """The same loss and the same gradients, number for number (rel 1e-9, abs 1e-12)."""
    return math.isclose(loss, plain_loss, rel_tol=1e-9, abs_tol=1e-12) and all(
        math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
        for name, G in gradients.items()
        for row, plain_row in zip(G.rows, plain_gradients[name])
        for a, b in zip(row, plain_row))


# (label, positions, num_heads, target ratio): one head at 1.3, several at 1.4 (issue 32)
ROWS = [(kind, kind, 1, TARGET_RATIO) for kind in KINDS] + [
    ("rope, YaRN", "rope", 1, TARGET_RATIO),  # chapter 7's YaRN, scale 1.0693
    ("none, 2 heads", "none", 2, TARGET_RATIO_HEADS),
    ("learned, 2 heads", "learned", 2, TARGET_RATIO_HEADS),
    ("rope, 2 heads", "rope", 2, TARGET_RATIO_HEADS),  # lesson 20's model
    ("alibi, 4 heads", "alibi", 4, TARGET_RATIO_HEADS),  # lesson 21's
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke test: 1 step a side, train() 5 steps, no d 64 step")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from minipe import TinyModel, rope_frequencies, task_batch, train
    plain_step = for_this_interpreter(baseline)

    repeats, timed, steps = (1, 1, 5) if args.quick else (7, 20, 300)
    inputs, targets = task_batch("previous-token", 5, 8, 8, seed=0)
    missed = []
    print(f"Python {platform.python_version()} on {platform.machine()}; medians of {repeats} "
          f"pairs x {timed} steps of loss and gradients (batch 8, T 8, d 8)")
    print(f"{'positions':16} {'minipe ms':>10} {'plain ms':>9} {'ratio':>6} {'target':>6}  "
          f"{'train() s':>9}  ({steps} steps)")
    yarn_thetas, yarn_scale = rope_frequencies(8, method="yarn", factor=2.0,
                                               original_context_length=8)
    for label, kind, heads, target in ROWS:
        model = TinyModel(5, 8, 8, positions=kind, base=10000.0, num_heads=heads)
        loop: dict[str, Any] = {"heads": heads}
        if model.alibi_slopes is not None:
            loop["slopes"] = model.alibi_slopes
        if label == "rope, YaRN":
            model = model.with_frequencies(yarn_thetas, attention_scale=yarn_scale)
            loop.update(thetas=list(yarn_thetas), rope_scale=yarn_scale)
        plain = {name: W.tolist() for name, W in model.parameters().items()}
        loss, gradients = model.loss_and_gradients(inputs, targets)
        plain_loss, plain_gradients = plain_step(plain, kind, True, 10000.0, inputs, targets,
                                                 **loop)
        if not _same(loss, gradients, plain_loss, plain_gradients):
            print(f"bench_train: {label}: minipe and the plain loop disagree", file=sys.stderr)
            return 2
        ours, theirs, ratio = _paired(
            lambda: [model.loss_and_gradients(inputs, targets) for _ in range(timed)],
            lambda: [plain_step(plain, kind, True, 10000.0, inputs, targets, **loop)
                     for _ in range(timed)], repeats)
        ours, theirs = ours / timed, theirs / timed
        start = time.perf_counter()
        train(model, "previous-token", steps=steps)
        whole = time.perf_counter() - start
        if ratio > target or (whole > TARGET_TRAIN_SECONDS and not args.quick):
            missed.append(label)
        print(f"{label:16} {ours * 1e3:10.2f} {theirs * 1e3:9.2f} {ratio:6.2f} {target:6.1f}  "
              f"{whole:9.2f}")
    print(f"targets: the ratio as shown; train() at its defaults < {TARGET_TRAIN_SECONDS} s")
    if not args.quick:  # one step of a bigger model: d_model 64, T 64, batch 8
        model = TinyModel(5, 64, 64, positions="rope")
        big_inputs, big_targets = task_batch("previous-token", 5, 64, 8, seed=0)
        plain = {name: W.tolist() for name, W in model.parameters().items()}
        big_loss, big_gradients = model.loss_and_gradients(big_inputs, big_targets)
        plain_loss, plain_gradients = plain_step(plain, "rope", True, 10000.0, big_inputs,
                                                 big_targets)
        if not _same(big_loss, big_gradients, plain_loss, plain_gradients):
            print("bench_train: the d_model 64 step: minipe and the plain loop disagree",
                  file=sys.stderr)
            return 2
        big, big_plain, big_ratio = _paired(
            lambda: model.loss_and_gradients(big_inputs, big_targets),
            lambda: plain_step(plain, "rope", True, 10000.0, big_inputs, big_targets), 3)
        print(f"one step at d_model 64, T 64, batch 8 (rope), medians of 3 pairs: {big:.3f} s "
              f"(target < {TARGET_BIG_STEP_SECONDS} s); the plain loop: {big_plain:.3f} s, "
              f"ratio {big_ratio:.2f} (target {TARGET_BIG_RATIO})")
        if big > TARGET_BIG_STEP_SECONDS or big_ratio > TARGET_BIG_RATIO:
            missed.append("the d_model 64 step")
    if args.strict and missed:
        print(f"--strict: missed for {', '.join(missed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
