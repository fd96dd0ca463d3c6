"""Chapter 4 - attention: where the input embeddings go, and why they need positions.

Scaled dot-product attention (lecture 003):

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V

Row i of Q asks a question (the query of token i); row j of K is what token j
offers to be found by (its key). Their dot product, divided by sqrt(d_k), is
score(i, j). A softmax turns row i of the scores into weights that sum to 1,
and token i's output is the weighted average of the rows of V.

Nothing in that formula looks at *where* a token stands. Shuffle the tokens
and the outputs are shuffled the same way, nothing more (lecture 000's "a man
bites a dog" / "a dog bites a man"). That is why chapter 3 adds positions to
the input before attention sees it.

A causal mask (GPT) lets token i attend only to tokens 0..i: the scores for
j > i become -inf, so their weights are exactly 0. A boolean mask says it for
any pattern: mask[i][j] is True where query i may attend key j. A padded batch
hides its padding keys that way, packed documents the other documents
(chapter 8).

Positions can also enter here, inside attention, and leave the input alone.
The next two chapters build on this one to do that:

    bias=B             score(i, j) + B[i, j] before the softmax: ALiBi, T5 and
                       Shaw et al.'s relative terms (chapter 6, minipe/relative.py)
    RotaryAttention    a head that rotates each query and key by its position
                       before the scores: RoPE (chapter 5, minipe/rotary.py)

Left out: dropout, the output projection; several heads and training are chapter 10
(minipe/training/heads.py, minipe/training/model.py).
"""

from __future__ import annotations

import functools
import math
import random
import sys
from collections.abc import Iterable, Mapping, Set as AbstractSet  # isinstance: quicker
from dataclasses import dataclass, field
from typing import Sequence

from minipe.arrays import Matrix, Vector
from minipe.arrays import ShapeError
from minipe.checks import (check_axis, check_mask, check_table, check_type, checked_flag,
                           checked_size)

BooleanTable = Sequence[Sequence[int]]  # rows of True/False, or of 1/0 (a bool is an int)

# ---------------------------------------------------------------------------
# Softmax: scores -> weights that sum to 1
# ---------------------------------------------------------------------------


def softmax_naive(values: Iterable[float]) -> Vector:
    """softmax(x)_j = exp(x_j) / sum_k exp(x_k), exactly as written.

    >>> softmax_naive([0.0, math.log(3.0)])   # exp: 1 and 3, out of 4
    Vector([0.25, 0.75], shape=(2,))

    It overflows once some x_j passes about 709 (math.exp(1000) raises
    OverflowError), and when every x_j is below about -745 each exp(x_j)
    underflows to 0.0 and the division is 0 / 0 (ZeroDivisionError).
    `softmax` gives the same numbers without either problem.
    """
    x = values if isinstance(values, Vector) else Vector(values)
    exps = [math.exp(x_j) for x_j in x]
    total = sum(exps)
    return Vector([e / total for e in exps])


def softmax(values: Iterable[float]) -> Vector:
    """softmax(x)_j = exp(x_j - m) / sum_k exp(x_k - m), with m = max(x).

    Subtracting m changes nothing (exp(-m) cancels above and below the line)
    but keeps every exp(...) <= 1, so large scores cannot overflow:

    >>> softmax([1000.0, 1000.0])   # softmax_naive would raise OverflowError here
    Vector([0.5, 0.5], shape=(2,))

    A score of -inf (a masked position) gets weight exactly 0.0. A row of
    nothing but -inf (everything masked), or one holding +inf, has no
    weights: both would be NaN, and softmax says so instead.
    """
    x = _checked_scores(values)  # a Vector: numbers, at least one, no NaN
    return Vector(_softmax(x))


def _softmax(x: Iterable[float], row: int | None = None) -> list[float]:
    m = max(x)
    if math.isinf(m):  # +inf, or -inf everywhere: exp(x_j - m) would be NaN
        raise ValueError(_no_weights(m, row))
    exps = [math.exp(x_j - m) for x_j in x]  # exp(-inf) == 0.0: masked weights vanish
    total = sum(exps)
    return [e / total for e in exps]  # a row of weights (attention's rows: one Matrix)


def _no_weights(m: float, row: int | None) -> str:
    """Why a row of scores has no weights: for softmax(), or for row `row` of attention."""
    if row is not None:
        return (f"row {row} of the scores holds +inf, or only -inf: q and k hold inf, or "
                f"numbers so large that q_i . k_j overflows (scale them down), or the bias "
                f"holds +inf or masks every key of row {row}")
    if m > 0:
        return "softmax got +inf: exp(+inf) / exp(+inf) is undefined"
    return "softmax got only -inf (everything masked): the weights would be 0/0"


# ---------------------------------------------------------------------------
# Scaled dot-product attention
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AttentionResult:
    """Everything attention computed, kept for printing and checking.

    scores   (n_q, n_k)  Q K^T / sqrt(d_k) + bias, with -inf where causal or mask hides j
    weights  (n_q, n_k)  softmax of each row of scores: every row sums to 1
    output   (n_q, d_v)  weights @ V: row i is token i's mix of the value rows
    """

    output: Matrix
    weights: Matrix
    scores: Matrix


def causal_mask(n: int) -> Matrix:
    """0 where query i may see key j (j <= i), -inf where it may not (j > i): shape (n, n).

    >>> causal_mask(3).tolist()
    [[0.0, -inf, -inf], [0.0, 0.0, -inf], [0.0, 0.0, 0.0]]

    Added to the scores, it makes the weights of later tokens exactly 0.
    """
    check_table(f"causal_mask({n})", n=n, times=n)  # n tables of n: (n, n)
    return _causal_mask(n)


@functools.lru_cache(maxsize=1)  # built once per size: a training step asks for one size
def _causal_mask(n: int) -> Matrix:  # (n, n); immutable, so one Matrix serves every call
    return Matrix([[0.0 if j <= i else -math.inf for j in range(n)] for i in range(n)])


def scaled_dot_product_attention(
    q: Matrix, k: Matrix, v: Matrix, *, causal: bool = False, bias: Matrix | None = None,
    mask: BooleanTable | None = None,
) -> AttentionResult:
    """softmax(Q K^T / sqrt(d_k) + bias) V, over the keys each query may see.

    q: (n_q, d_k), k: (n_k, d_k), v: (n_k, d_v) -> output (n_q, d_v).
    With causal=True (n_q == n_k), query i sees keys 0..i only.
    bias, if given, has shape (n_q, n_k): B[i, j] is added to score(i, j)
    before the softmax (a -inf in it hides key j from query i).
    mask, if given, is a table of n_q rows of n_k booleans (lists or tuples;
    1 and 0 count as True and False), PyTorch's boolean attn_mask: mask[i][j]
    is True where query i may attend key j. Its False entries become -inf
    scores; with causal=True a key must pass both (PyTorch refuses the two
    together). A query that may attend no key at all (a padding row, say) gets
    zero weights and a zero output, not 0/0. PyTorch gives zeros there too
    since 2024, when its function began calling a "safe" softmax that zeroes
    such rows; before, it gave NaN (pytorch/pytorch issue 103963).
    """
    _check_attention(q, k, v, causal, bias, mask)
    d_k = q.shape[1]
    scores = q @ k.T / math.sqrt(d_k)  # (n_q, n_k): score(i, j) = q_i . k_j / sqrt(d_k)
    if bias is not None:
        scores = scores + bias  # score(i, j) + B[i, j]: ALiBi, T5 or Shaw et al.
    if causal:
        scores = scores + causal_mask(len(q))  # -inf where j > i: no peeking ahead
    if mask is None:
        weights = Matrix([_softmax(row, i) for i, row in enumerate(scores.rows)])  # sum to 1
    else:
        hidden = Matrix([[0.0 if may else -math.inf for may in row] for row in mask])
        scores = scores + hidden  # -inf where mask[i][j] is False
        sees = [any(row[:i + 1] if causal else row) for i, row in enumerate(mask)]
        no_key = [0.0] * len(k)
        weights = Matrix([_softmax(row, i) if sees[i] else no_key  # a row with no key: 0s
                          for i, row in enumerate(scores.rows)])
    output = weights @ v  # (n_q, d_v): row i is sum_j weights[i, j] * v_j
    return AttentionResult(output=output, weights=weights, scores=scores)


# ---------------------------------------------------------------------------
# One head: its own W_q, W_k, W_v
# ---------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class SingleHeadAttention:
    """One attention head with its three weight matrices, each of shape (d_in, d_out).

        Q = x @ W_q,   K = x @ W_k,   V = x @ W_v
        output = softmax(Q K^T / sqrt(d_out)) V

    The weights start uniform in [-1/sqrt(d_in), 1/sqrt(d_in)] (torch.nn.Linear's
    default range), drawn by this head's own random.Random(seed), and are never
    trained here.

    >>> head = SingleHeadAttention(d_in=4, d_out=2, seed=0)
    >>> head(Matrix([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]])).output.shape
    (3, 2)
    """

    d_in: int
    d_out: int
    seed: int = field(default=0, kw_only=True)
    W_q: Matrix = field(init=False)  # (d_in, d_out)
    W_k: Matrix = field(init=False)
    W_v: Matrix = field(init=False)

    def __post_init__(self) -> None:
        _check_head(self)
        rng = random.Random(self.seed)  # this head's own generator: no global state
        limit = 1.0 / math.sqrt(self.d_in)
        low, high = [-limit] * self.d_out, [limit] * self.d_out
        for name in ("W_q", "W_k", "W_v"):  # drawn in this order
            rows = [list(map(rng.uniform, low, high))  # d_out draws of rng.uniform(-limit, limit)
                    for _ in range(self.d_in)]
            object.__setattr__(self, name, Matrix(rows))  # (d_in, d_out)

    def qkv(self, x: Matrix) -> tuple[Matrix, Matrix, Matrix]:
        """The queries, keys and values of x (n, d_in): each (n, d_out)."""
        _check_input(x, self.W_q)
        return x @ self.W_q, x @ self.W_k, x @ self.W_v

    def __call__(
        self, x: Matrix, *, causal: bool = False, bias: Matrix | None = None,
        mask: BooleanTable | None = None,
    ) -> AttentionResult:
        """Attention of the sequence x (n, d_in) over itself -> output (n, d_out).

        Row pos of x is the token at position pos. bias (n, n), if given, is
        added to the scores; mask (n, n) of booleans, if given, says which
        keys each query may attend (see `scaled_dot_product_attention`).
        """
        queries, keys, values = self.qkv(x)  # each (n, d_out)
        return scaled_dot_product_attention(queries, keys, values, causal=causal, bias=bias,
                                            mask=mask)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(d_in={self.d_in}, d_out={self.d_out})"


# ---------------------------------------------------------------------------
# The door: what softmax, attention and the head refuse, and the sentences they say
# ---------------------------------------------------------------------------


def _checked_scores(values: Iterable[float]) -> Vector:
    """softmax's values as a Vector: numbers (no NaN), at least one."""
    check_type(values, Iterable, "softmax needs a list of numbers or a Vector")
    if isinstance(values, (AbstractSet, Mapping)):
        raise TypeError(f"softmax needs its numbers in order, as a list or a Vector; a "
                        f"{type(values).__name__} keeps no order of its own")
    x = values if isinstance(values, Vector) else list(values)
    if not x:
        raise ValueError("softmax needs at least one value, got none")
    return Vector(x)


def _check_attention(
    q: Matrix, k: Matrix, v: Matrix, causal: bool, bias: object, mask: BooleanTable | None
) -> None:
    checked_flag(causal, "causal")
    for name, value in (("q", q), ("k", k), ("v", v)):
        check_type(value, Matrix, f"{name} must be a Matrix (one row per token)")
    if bias is not None:
        check_type(bias, Matrix, f"bias must be a Matrix of shape ({len(q)}, {len(k)}) - one "
                                 f"number per query and key - or None")
    check_axis("q", q.shape, "k", k.shape, "each score is a dot product q_i . k_j, so queries "
               "and keys need the same width", (-1, -1), " (d_k)")
    check_axis("k", k.shape, "v", v.shape, "every key needs its value", (0, 0))
    if causal and len(q) != len(k):
        raise ShapeError(f"a causal mask needs as many queries as keys, got q {q.shape} and "
                         f"k {k.shape}")
    if isinstance(bias, Matrix):
        check_axis("bias", bias.shape, "the score table", (len(q), len(k)), "B[i, j] is added "
                   "to score(i, j) of query i and key j, so the two shapes must be equal")
    if mask is not None:
        check_mask(mask, len(q), len(k))  # the one check of a boolean (query, key) table
    _check_magnitudes(q, k, v)


def _check_magnitudes(q: Matrix, k: Matrix, v: Matrix) -> None:
    """|q_i . k_j| <= d_k * max|q| * max|k| must fit in a float, and v hold no inf."""
    largest_q = max(max(map(max, q.rows)), -min(map(min, q.rows)))  # max |x|, row by row
    largest_k = max(max(map(max, k.rows)), -min(map(min, k.rows)))
    d_k = len(q.rows[0])
    if not largest_q * largest_k * d_k <= sys.float_info.max:  # inf, or inf * 0 = NaN
        raise ValueError(f"q and k hold numbers as large as {largest_q:.3g} and {largest_k:.3g}: "
                         f"a score q_i . k_j, a sum of d_k = {d_k} products, could reach "
                         f"{largest_q * largest_k * d_k:.3g}, past the largest float "
                         f"(about 1.8e308), or be inf - inf; scale q and k down")
    if math.inf in map(max, v.rows) or -math.inf in map(min, v.rows):
        raise ValueError("v holds inf: a weight of 0 times inf is NaN, so no output is defined")


def _check_head(head: SingleHeadAttention) -> None:
    """Sizes >= 1, a seed >= 0, and three weight matrices that fit in memory."""
    check_table(f"{type(head).__name__}({head.d_in}, {head.d_out})'s W_q, W_k and W_v", times=3,
                d_in=head.d_in, d_out=head.d_out)
    checked_size(head.seed, "seed", minimum=0)


def _check_input(x: Matrix, W_q: Matrix) -> None:
    """x: one sequence, a Matrix with one column per row of W_q."""
    check_type(x, Matrix, "x must be a Matrix of shape (n, d_in) - one sequence",
               " (for a Batch, call the head on each batch[b])")
    check_axis("x", x.shape, "W_q", W_q.shape, f"x needs d_in={len(W_q)} columns, one per row "
               f"of W_q", (1, 0), " (d_in)")
