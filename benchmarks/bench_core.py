"""How much does minipe's readability cost? Seven jobs, each timed against a plain loop.

For each job this script times the minipe call and "the tightest plain-Python
loop for the same job" (written below, on lists of lists, not imported from
minipe), and prints library_time / baseline_time. The target is a ratio of at
most 1.5: the library may pay for its checks and its immutable tuples, but not
for a slower algorithm.

    1. sinusoidal_encoding(1024, 768)     the GPT-2-sized position table
    2. Matrix (32, 256) @ Matrix (256, 256) 8 sequences x 4 tokens through W_q
    3. SingleHeadAttention(64, 64) on a (128, 64) sequence
    4. Batch (8, 4, 256) + Matrix (4, 256)  lecture 001's broadcast of positions
    5. Embedding lookup of an (8, 1024) batch of IDs, GPT-2's width 768
    6. Matrix(rows) of a (1024, 768) list of lists: the checked constructor
    7. alibi_bias(1024, 0.5): ALiBi's (1024, 1024) bias

Jobs 5-7 check their input, as the library does; their baselines do the same
checks, in the tightest plain Python for them (see each baseline's docstring).

Before timing, each job checks that the library and the baseline give the same
numbers (math.isclose, rel 1e-9, abs 1e-12) and stops with exit status 2 if
they do not: a benchmark that compares two different jobs is worthless.

Run from the repository root (no install needed):

    python benchmarks/bench_core.py              # full size, 7 repeats
    python benchmarks/bench_core.py --quick      # tiny sizes, 1 repeat: a smoke test
    python benchmarks/bench_core.py --strict     # exit 1 if a ratio is over 1.5

Standard library only.
"""

from __future__ import annotations

import argparse
import math
import operator
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

Table = list[list[float]]  # a matrix as plain Python: one list per row

TARGET_RATIO = 1.5  # library_time / baseline_time must not exceed this
DEFAULT_REPEATS = 7
REL_TOL = 1e-9
ABS_TOL = 1e-12


class Sizes(NamedTuple):
    """The problem sizes of the jobs."""

    positions: int  # sinusoidal table rows
    d_model: int  # sinusoidal table columns (even)
    matmul_rows: int  # left operand (rows, inner)
    matmul_inner: int
    matmul_cols: int  # right operand (inner, cols)
    attention_seq: int  # x has shape (attention_seq, attention_dim)
    attention_dim: int  # d_in = d_out of the head
    batch: int  # the broadcast add: (batch, context, dim) + (context, dim)
    context: int
    dim: int
    lookup_batch: int  # the lookup: (lookup_batch, lookup_length) IDs into a table
    lookup_length: int
    vocab: int  # the table: (vocab, dim_lookup)
    dim_lookup: int
    alibi_length: int  # alibi_bias(alibi_length, 0.5)


FULL_SIZES = Sizes(positions=1024, d_model=768,
                   matmul_rows=32, matmul_inner=256, matmul_cols=256,
                   attention_seq=128, attention_dim=64,
                   batch=8, context=4, dim=256,
                   lookup_batch=8, lookup_length=1024, vocab=1000, dim_lookup=768,
                   alibi_length=1024)
QUICK_SIZES = Sizes(positions=64, d_model=64,
                    matmul_rows=8, matmul_inner=16, matmul_cols=16,
                    attention_seq=16, attention_dim=8,
                    batch=2, context=3, dim=8,
                    lookup_batch=2, lookup_length=16, vocab=10, dim_lookup=8,
                    alibi_length=16)


class Job(NamedTuple):
    """One benchmark: a library call, its result as lists, and the plain baseline."""

    name: str
    run_library: Callable[[], object]  # what is timed on the library side
    library_table: Callable[[], Table]  # the library's result as lists, for the check
    run_baseline: Callable[[], object]  # what is timed on the baseline side
    baseline_table: Callable[[], Table]  # the baseline's result as lists, for the check


class Timing(NamedTuple):
    """The medians of one job, in milliseconds."""

    name: str
    library_ms: float
    baseline_ms: float

    @property
    def ratio(self) -> float:
        return self.library_ms / self.baseline_ms


# ---------------------------------------------------------------------------
# The baselines: the tightest plain-Python loops I could write for each job.
# ---------------------------------------------------------------------------

def baseline_sinusoidal(num_positions: int, d_model: int) -> Table:
    """Plain loops: PE(pos, 2i) = sin(pos / 10000**(2i/d)), PE(pos, 2i+1) = cos(same).

    d_model must be even. Of the variants tried (slice assignment
    row[0::2] = map(sin, angles), one comprehension, a bound row.append),
    this plain nested loop was the fastest on CPython 3.11, whose
    interpreter specialises `row.append(...)`. Float positions save the
    int -> float conversion in every division (about 5%); the quotients
    are bit-for-bit the same.
    """
    sin, cos = math.sin, math.cos
    denominators = [10000.0 ** (2 * i / d_model) for i in range(d_model // 2)]  # once
    positions = [float(pos) for pos in range(num_positions)]  # exact for any table size
    table = []
    for pos in positions:
        row = []
        for denominator in denominators:
            angle = pos / denominator
            row.append(sin(angle))  # column 2i
            row.append(cos(angle))  # column 2i + 1
        table.append(row)
    return table


def baseline_matmul(a: Table, b: Table) -> Table:
    """Plain (n, k) @ (k, m): transpose b once, then one dot product per entry.

    The dot product is the tightest one of the running interpreter:
    math.sumprod on CPython 3.12+, sum(map(operator.mul, ...)) before. On 3.11,
    a nested comprehension, map(lambda ...) over the columns and
    sum([x * y for x, y in zip(...)]) were also tried; this loop was the
    fastest (the first two within noise of it, the last much slower). On 3.13,
    list(map(math.sumprod, repeat(row), columns)) was within noise of it.
    """
    columns = list(zip(*b))  # (m, k): column j of b
    product = []
    if sys.version_info >= (3, 12):
        sumprod = math.sumprod
        for row in a:
            product.append([sumprod(row, column) for column in columns])
        return product
    mul = operator.mul
    for row in a:
        product.append([sum(map(mul, row, column)) for column in columns])
    return product


def baseline_attention(x: Table, w_q: Table, w_k: Table, w_v: Table) -> Table:
    """Plain softmax(Q K^T / sqrt(d)) V with Q = x W_q, K = x W_k, V = x W_v."""
    mul, exp = operator.mul, math.exp
    queries = baseline_matmul(x, w_q)  # (n, d)
    keys = baseline_matmul(x, w_k)  # (n, d)
    values = baseline_matmul(x, w_v)  # (n, d)
    sqrt_d = math.sqrt(len(w_q[0]))
    weights = []
    for query in queries:
        if sys.version_info >= (3, 12):  # the tightest dot product of each interpreter
            scores = [math.sumprod(query, key) / sqrt_d for key in keys]
        else:
            scores = [sum(map(mul, query, key)) / sqrt_d for key in keys]
        top = max(scores)  # subtract the row max: exp never overflows
        exps = [exp(score - top) for score in scores]
        total = sum(exps)
        weights.append([e / total for e in exps])
    return baseline_matmul(weights, values)  # (n, d)


def baseline_broadcast_add(batch: list[Table], table: Table) -> list[Table]:
    """Plain (b, n, d) + (n, d): row t of `table` added to row t of every matrix."""
    add = operator.add
    return [[list(map(add, row, table_row)) for row, table_row in zip(matrix, table)]
            for matrix in batch]


def baseline_lookup(table: Sequence[Sequence[float]],
                    batch_ids: list[list[int]]) -> list[Sequence[Sequence[float]]]:
    """Row ids[t] of the table for every t of every sequence, with the library's checks.

    Checked as minipe checks them: every sequence a non-empty list of one length,
    every ID an int (not a bool) in 0 .. len(table) - 1 - each sequence at once,
    with the tightest C-level idioms found (operator.countOf over the types,
    min and max). The rows are then picked with operator.itemgetter(*ids), the
    fastest way found: a comprehension [table[i] for i in ids] took 1.17 times
    as long, list(map(table.__getitem__, ids)) 1.6 times, and the first version
    of this baseline (a set of the types, then the comprehension) 1.3 times.
    """
    size = len(table)
    length = len(batch_ids[0])
    looked_up = []
    for ids in batch_ids:
        if type(ids) is not list or len(ids) != length \
                or operator.countOf(map(type, ids), int) != length \
                or min(ids) < 0 or max(ids) >= size:
            raise ValueError("a bad ID")
        looked_up.append(operator.itemgetter(*ids)(table))  # a tuple of the table's rows
    return looked_up


def baseline_checked_rows(rows: Table) -> tuple[tuple[float, ...], ...]:
    """The rows, copied into tuples, with the checks of minipe's constructor.

    Every row a list of the same length, every number a float (not an int or a
    bool), none NaN: per row, a count of the floats (operator.countOf over the
    types) and math.isnan of the sum - the tightest C-level idioms found.
    """
    width = len(rows[0])
    checked = []
    for row in rows:
        if len(row) != width or operator.countOf(map(type, row), float) != width \
                or math.isnan(sum(row)):
            raise ValueError("a bad row")
        checked.append(tuple(row))
    return tuple(checked)


def baseline_alibi(seq_len: int, slope: float) -> tuple[tuple[float, ...], ...]:
    """ALiBi's causal bias -slope * (i - j), -inf above the diagonal, with the same checks.

    The rows are built by slicing one list of penalties (the fastest way found),
    then checked as minipe's constructor checks them (baseline_checked_rows).
    """
    if type(seq_len) is not int or seq_len < 1 or not 0 <= slope < math.inf:
        raise ValueError("bad arguments")
    penalty = [0.0 - slope * distance for distance in range(seq_len)]
    rows = [penalty[i::-1] + [-math.inf] * (seq_len - 1 - i) for i in range(seq_len)]
    return baseline_checked_rows(rows)


# ---------------------------------------------------------------------------
# The jobs: inputs are built here, before anything is timed.
# ---------------------------------------------------------------------------

def random_table(rng: random.Random, rows: int, cols: int) -> Table:
    """A rows x cols table of uniform numbers in [-1, 1]."""
    return [[rng.uniform(-1.0, 1.0) for _ in range(cols)] for _ in range(rows)]


def sinusoidal_job(sizes: Sizes) -> Job:
    """Times minipe.sinusoidal_encoding(positions, d_model) against baseline_sinusoidal."""
    from minipe import sinusoidal_encoding

    n, d = sizes.positions, sizes.d_model
    return Job(
        name=f"sinusoidal_encoding({n}, {d})",
        run_library=lambda: sinusoidal_encoding(n, d),
        library_table=lambda: sinusoidal_encoding(n, d).tolist(),
        run_baseline=lambda: baseline_sinusoidal(n, d),
        baseline_table=lambda: baseline_sinusoidal(n, d),
    )


def matmul_job(sizes: Sizes) -> Job:
    """Times Matrix @ Matrix (operands built beforehand) against baseline_matmul."""
    from minipe import Matrix

    rng = random.Random(0)
    left = random_table(rng, sizes.matmul_rows, sizes.matmul_inner)  # the tokens
    right = random_table(rng, sizes.matmul_inner, sizes.matmul_cols)  # W_q
    left_matrix, right_matrix = Matrix(left), Matrix(right)  # built outside the timing
    shapes = (f"({sizes.matmul_rows}, {sizes.matmul_inner}) @ "
              f"({sizes.matmul_inner}, {sizes.matmul_cols})")
    return Job(
        name=f"Matrix {shapes}",
        run_library=lambda: left_matrix @ right_matrix,
        library_table=lambda: (left_matrix @ right_matrix).tolist(),
        run_baseline=lambda: baseline_matmul(left, right),
        baseline_table=lambda: baseline_matmul(left, right),
    )


def attention_job(sizes: Sizes) -> Job:
    """Times a SingleHeadAttention call on a (seq, d) Matrix against baseline_attention."""
    from minipe import Matrix, SingleHeadAttention

    d = sizes.attention_dim
    head = SingleHeadAttention(d, d, seed=0)
    x = random_table(random.Random(1), sizes.attention_seq, d)
    x_matrix = Matrix(x)  # built outside the timing
    # the head's own weights, as plain lists
    w_q, w_k, w_v = head.W_q.tolist(), head.W_k.tolist(), head.W_v.tolist()
    return Job(
        name=f"SingleHeadAttention({d}, {d}) on ({sizes.attention_seq}, {d})",
        run_library=lambda: head(x_matrix),
        library_table=lambda: head(x_matrix).output.tolist(),
        run_baseline=lambda: baseline_attention(x, w_q, w_k, w_v),
        baseline_table=lambda: baseline_attention(x, w_q, w_k, w_v),
    )


def broadcast_add_job(sizes: Sizes) -> Job:
    """Times Batch + Matrix (operands built beforehand) against baseline_broadcast_add."""
    from minipe import Batch, Matrix

    rng = random.Random(2)
    b, n, d = sizes.batch, sizes.context, sizes.dim
    token_embeddings = [random_table(rng, n, d) for _ in range(b)]  # (b, n, d)
    positions = random_table(rng, n, d)  # (n, d)
    batch, table = Batch(token_embeddings), Matrix(positions)  # built outside the timing

    def flat(matrices: list[Table]) -> Table:
        return [row for matrix in matrices for row in matrix]  # (b * n, d), for the check

    return Job(
        name=f"Batch ({b}, {n}, {d}) + Matrix ({n}, {d})",
        run_library=lambda: batch + table,
        library_table=lambda: flat((batch + table).tolist()),
        run_baseline=lambda: baseline_broadcast_add(token_embeddings, positions),
        baseline_table=lambda: flat(baseline_broadcast_add(token_embeddings, positions)),
    )


def lookup_job(sizes: Sizes) -> Job:
    """Times Embedding(vocab, dim)(ids) for a batch of IDs against baseline_lookup."""
    from minipe import Embedding

    embedding = Embedding(sizes.vocab, sizes.dim_lookup, seed=0)
    table = embedding.weight.tolist()  # the same rows, as plain lists
    rng = random.Random(3)
    batch_ids = [[rng.randrange(sizes.vocab) for _ in range(sizes.lookup_length)]
                 for _ in range(sizes.lookup_batch)]

    def flat(sequences: Sequence[Sequence[Sequence[float]]]) -> Table:
        return [list(row) for sequence in sequences for row in sequence]  # for the check

    return Job(
        name=f"Embedding lookup ({sizes.lookup_batch}, {sizes.lookup_length}) IDs",
        run_library=lambda: embedding(batch_ids),
        library_table=lambda: flat(embedding(batch_ids).tolist()),
        run_baseline=lambda: baseline_lookup(table, batch_ids),
        baseline_table=lambda: flat(baseline_lookup(table, batch_ids)),
    )


def constructor_job(sizes: Sizes) -> Job:
    """Times Matrix(rows) on a list of lists against baseline_checked_rows."""
    from minipe import Matrix

    rows = random_table(random.Random(4), sizes.positions, sizes.d_model)
    return Job(
        name=f"Matrix(rows), ({sizes.positions}, {sizes.d_model}) floats",
        run_library=lambda: Matrix(rows),
        library_table=lambda: Matrix(rows).tolist(),
        run_baseline=lambda: baseline_checked_rows(rows),
        baseline_table=lambda: [list(row) for row in baseline_checked_rows(rows)],
    )


def alibi_job(sizes: Sizes) -> Job:
    """Times alibi_bias(n, 0.5) against baseline_alibi."""
    from minipe import alibi_bias

    n = sizes.alibi_length
    return Job(
        name=f"alibi_bias({n}, 0.5)",
        run_library=lambda: alibi_bias(n, 0.5),
        library_table=lambda: alibi_bias(n, 0.5).tolist(),
        run_baseline=lambda: baseline_alibi(n, 0.5),
        baseline_table=lambda: [list(row) for row in baseline_alibi(n, 0.5)],
    )


# ---------------------------------------------------------------------------
# Checking and timing.
# ---------------------------------------------------------------------------

def disagreement(library: Table, baseline: Table) -> str | None:
    """None if the two tables have one shape and close numbers; else what differs."""
    if len(library) != len(baseline):
        return f"{len(library)} rows from the library, {len(baseline)} from the baseline"
    for i, (library_row, baseline_row) in enumerate(zip(library, baseline)):
        if len(library_row) != len(baseline_row):
            return f"row {i}: {len(library_row)} columns vs {len(baseline_row)}"
        for j, (x, y) in enumerate(zip(library_row, baseline_row)):
            if not math.isclose(x, y, rel_tol=REL_TOL, abs_tol=ABS_TOL):
                return f"entry ({i}, {j}): library {x!r}, baseline {y!r}"
    return None


def seconds(call: Callable[[], object]) -> float:
    """The wall time of one call, by time.perf_counter."""
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def time_job(job: Job, repeats: int) -> Timing:
    """Medians of `repeats` runs each, library and baseline interleaved (order alternating)."""
    library_times: list[float] = []
    baseline_times: list[float] = []
    for repeat in range(repeats):
        if repeat % 2 == 0:
            library_times.append(seconds(job.run_library))
            baseline_times.append(seconds(job.run_baseline))
        else:
            baseline_times.append(seconds(job.run_baseline))
            library_times.append(seconds(job.run_library))
    return Timing(name=job.name,
                  library_ms=1000.0 * statistics.median(library_times),
                  baseline_ms=1000.0 * statistics.median(baseline_times))


# ---------------------------------------------------------------------------
# Reporting.
# ---------------------------------------------------------------------------

def machine_lines() -> list[str]:
    """Where and when the figures were taken."""
    processor = platform.processor() or platform.platform()
    return [
        f"machine: {platform.machine()}, {processor}",
        f"python:  {platform.python_implementation()} {platform.python_version()}",
        f"date:    {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}",
    ]


def table_lines(timings: Sequence[Timing], repeats: int) -> list[str]:
    """The results table: one line per job, medians in ms, ratio and verdict."""
    width = max(len("job"), *(len(timing.name) for timing in timings))
    header = (f"{'job':<{width}}  {'library ms':>10}  {'baseline ms':>11}  "
              f"{'ratio':>6}  target <= {TARGET_RATIO}")
    lines = [f"median of {repeats} run(s) each, library and baseline interleaved", "",
             header, "-" * len(header)]
    for timing in timings:
        verdict = "OK" if timing.ratio <= TARGET_RATIO else "OVER"
        lines.append(f"{timing.name:<{width}}  {timing.library_ms:>10.2f}  "
                     f"{timing.baseline_ms:>11.2f}  {timing.ratio:>6.2f}  {verdict}")
    return lines


def load_minipe() -> None:
    """Put the repository root first on sys.path, so minipe imports without installing."""
    repository_root = str(Path(__file__).resolve().parent.parent)  # benchmarks/..
    if sys.path[:1] != [repository_root]:
        sys.path.insert(0, repository_root)
    import minipe  # noqa: F401  # fails here, early, if the path is wrong


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line: --repeats N, --quick, --strict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=None,
                        help=f"runs per side; the median is reported (default {DEFAULT_REPEATS}, "
                             f"or 1 with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes and 1 repeat: checks the script and the agreement "
                             "checks in well under a second")
    parser.add_argument("--strict", action="store_true",
                        help=f"exit 1 if any ratio is over {TARGET_RATIO}")
    arguments = parser.parse_args(argv)
    if arguments.repeats is not None and arguments.repeats < 1:
        parser.error(f"--repeats must be >= 1, got {arguments.repeats}")
    return arguments


def main(argv: Sequence[str] | None = None) -> int:
    """Check, time and report the four jobs; the exit status (0, 1 with --strict, 2)."""
    arguments = parse_arguments(argv)
    sizes = QUICK_SIZES if arguments.quick else FULL_SIZES
    repeats: int = arguments.repeats or (1 if arguments.quick else DEFAULT_REPEATS)
    load_minipe()
    jobs = [sinusoidal_job(sizes), matmul_job(sizes), attention_job(sizes),
            broadcast_add_job(sizes), lookup_job(sizes), constructor_job(sizes),
            alibi_job(sizes)]

    for job in jobs:  # also the warm-up run of both sides
        problem = disagreement(job.library_table(), job.baseline_table())
        if problem is not None:
            print(f"bench_core: {job.name}: library and baseline disagree: {problem}; "
                  f"the timings would compare different jobs", file=sys.stderr)
            return 2
    print(f"agreement: all {len(jobs)} jobs match their baselines "
          f"(math.isclose, rel {REL_TOL:g}, abs {ABS_TOL:g})")

    timings = [time_job(job, repeats) for job in jobs]
    print("\n".join(machine_lines()))
    print()
    print("\n".join(table_lines(timings, repeats)))
    over = [timing.name for timing in timings if timing.ratio > TARGET_RATIO]
    if arguments.strict and over:
        print(f"\n--strict: {len(over)} job(s) over {TARGET_RATIO}: {', '.join(over)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
