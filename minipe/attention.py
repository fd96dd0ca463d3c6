"""Chapter 6 - attention: where the input embeddings go, and why they need positions.

Scaled dot-product attention (lecture 003):

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V

Row i of Q asks a question (the query of token i); row j of K is what token j
offers to be found by (its key). Their dot product, divided by sqrt(d_k), is
score(i, j). A softmax turns row i of the scores into weights that sum to 1,
and token i's output is the weighted average of the rows of V.

Nothing in that formula looks at *where* a token stands. Shuffle the tokens
and the outputs are shuffled the same way, nothing more (lecture 000's "a man
bites a dog" / "a dog bites a man"). That is why chapter 5 adds positions to
the input before attention sees it.

A causal mask (GPT) lets token i attend only to tokens 0..i: the scores for
j > i become -inf, so their weights are exactly 0.

Positions can also enter here, inside attention, and leave the input alone:

    bias=B         score(i, j) + B[i, j] before the softmax: ALiBi, T5 and
                   Shaw et al.'s relative terms (chapter 8, minipe/relative.py)
    rotary=True    the head rotates each query and key by its position before
                   the scores: RoPE (chapter 7, minipe/rotary.py)

Left out: several heads, dropout, the output projection, training.
"""

from __future__ import annotations

import math
import operator
import random
from dataclasses import dataclass
from typing import Iterable

from minipe.broadcast import ShapeError
from minipe.checks import Frozen, checked_flag, checked_size
from minipe.linalg import Matrix, Vector
from minipe.rotary import apply_rotary


def _checked_scores(values: Iterable[float] | Vector) -> tuple[float, ...]:
    """The scores as a tuple of floats, or an error a learner can act on."""
    if isinstance(values, Vector):
        scores = values._values
    elif isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"softmax needs a list of numbers or a Vector, got {type(values).__name__}")
    else:
        listed = list(values)
        if not listed:
            raise ValueError("softmax needs at least one value, got none")
        scores = Vector(listed)._values  # checks: numbers only, no NaN
    if math.inf in scores:
        raise ValueError("softmax got +inf: exp(+inf) / exp(+inf) is undefined")
    if max(scores) == -math.inf:
        raise ValueError("softmax got only -inf (everything masked): the weights would be 0/0")
    return scores


def softmax_naive(values: Iterable[float] | Vector) -> Vector:
    """softmax(x)_j = exp(x_j) / sum_k exp(x_k), exactly as written.

    >>> softmax_naive([0.0, math.log(3.0)])   # exp: 1 and 3, out of 4
    Vector([0.25, 0.75], shape=(2,))

    It overflows once some x_j passes about 709 (math.exp(1000) raises
    OverflowError), and when every x_j is below about -745 each exp(x_j)
    underflows to 0.0 and the division is 0 / 0 (ZeroDivisionError).
    `softmax` gives the same numbers without either problem.
    """
    scores = _checked_scores(values)
    exps = [math.exp(x) for x in scores]
    total = sum(exps)
    return Vector._trusted(tuple(e / total for e in exps))


def softmax(values: Iterable[float] | Vector) -> Vector:
    """softmax(x)_j = exp(x_j - m) / sum_k exp(x_k - m), with m = max(x).

    Subtracting m changes nothing (exp(-m) cancels above and below the line)
    but keeps every exp(...) <= 1, so large scores cannot overflow:

    >>> softmax([1000.0, 1000.0])   # softmax_naive would raise OverflowError here
    Vector([0.5, 0.5], shape=(2,))

    A score of -inf (a masked position) gets weight exactly 0.0.
    """
    return Vector._trusted(_softmax_row(_checked_scores(values)))


def _softmax_row(scores: tuple[float, ...]) -> tuple[float, ...]:
    m = max(scores)
    exps = [math.exp(x - m) for x in scores]  # exp(-inf) == 0.0: masked weights vanish
    total = sum(exps)
    return tuple([e / total for e in exps])


@dataclass(frozen=True)
class AttentionResult:
    """Everything attention computed, kept for printing and checking.

    scores   (n_q, n_k)  Q K^T / sqrt(d_k) + bias, with -inf where a mask hides j > i
    weights  (n_q, n_k)  softmax of each row of scores: every row sums to 1
    output   (n_q, d_v)  weights @ V: row i is token i's mix of the value rows
    """

    output: Matrix
    weights: Matrix
    scores: Matrix


def scaled_dot_product_attention(
    q: Matrix, k: Matrix, v: Matrix, *, causal: bool = False, bias: Matrix | None = None
) -> AttentionResult:
    """softmax(Q K^T / sqrt(d_k) + bias) V, one query row at a time.

    q: (n_q, d_k), k: (n_k, d_k), v: (n_k, d_v) -> output (n_q, d_v).
    With causal=True (n_q == n_k), query i sees keys 0..i only.
    bias, if given, has shape (n_q, n_k): B[i, j] is added to score(i, j)
    before the softmax (a -inf in it hides key j from query i).
    """
    checked_flag(causal, "causal")
    for name, value in (("q", q), ("k", k), ("v", v)):
        if not isinstance(value, Matrix):
            raise TypeError(f"{name} must be a Matrix (one row per token), "
                            f"got {type(value).__name__}")
    if q.shape[1] != k.shape[1]:
        raise ShapeError(f"q has shape {q.shape} and k has shape {k.shape}: axis -1 (d_k) "
                         f"has {q.shape[1]} vs {k.shape[1]}; each score is a dot product "
                         f"q_i . k_j, so queries and keys need the same width")
    if k.shape[0] != v.shape[0]:
        raise ShapeError(f"k has shape {k.shape} and v has shape {v.shape}: axis 0 has "
                         f"{k.shape[0]} vs {v.shape[0]}; every key needs its value")
    if causal and q.shape[0] != k.shape[0]:
        raise ShapeError(f"a causal mask needs as many queries as keys, got q {q.shape} "
                         f"and k {k.shape}")
    _check_bias(bias, q.shape[0], k.shape[0])
    d_k = q.shape[1]
    sqrt_d_k = math.sqrt(d_k)
    keys = k._rows  # (n_k, d_k)
    score_rows = []
    weight_rows = []
    for i, q_i in enumerate(q._rows):
        # score(i, j) = q_i . k_j / sqrt(d_k), for every key j
        scores_i = [sum(map(operator.mul, q_i, k_j)) / sqrt_d_k for k_j in keys]
        if bias is not None:
            # score(i, j) + B[i, j]: the position term of ALiBi, T5 or Shaw et al.
            scores_i = [score + b_ij for score, b_ij in zip(scores_i, bias._rows[i])]
        if causal:
            hidden = len(keys) - (i + 1)
            scores_i[i + 1:] = [-math.inf] * hidden  # token i may not look at tokens j > i
        _check_score_row(scores_i, i)
        score_rows.append(tuple(scores_i))
        weight_rows.append(_softmax_row(score_rows[-1]))
    scores = Matrix._trusted(tuple(score_rows))  # (n_q, n_k)
    weights = Matrix._trusted(tuple(weight_rows))  # (n_q, n_k), rows sum to 1
    output = weights @ v  # (n_q, d_v)
    return AttentionResult(output=output, weights=weights, scores=scores)


def _check_bias(bias: object, n_q: int, n_k: int) -> None:
    if bias is None:
        return
    if not isinstance(bias, Matrix):
        raise TypeError(f"bias must be a Matrix of shape ({n_q}, {n_k}) - one number per "
                        f"query and key - or None, got {type(bias).__name__}")
    if bias.shape != (n_q, n_k):
        raise ShapeError(f"bias has shape {bias.shape} but the scores have shape "
                         f"({n_q}, {n_k}) (queries, keys): B[i, j] is added to score(i, j), "
                         f"so the two shapes must be equal")


def _check_score_row(scores_i: list[float], i: int) -> None:
    """Scores from finite q and k can still overflow: refuse what softmax cannot take."""
    if any(s != s or s == math.inf for s in scores_i) or max(scores_i) == -math.inf:
        raise ValueError(f"row {i} of the scores holds NaN or +inf, or only -inf: q and k hold "
                         f"inf, or numbers so large that q_i . k_j overflows (scale them "
                         f"down), or the bias holds +inf or masks every key of row {i}")


class SingleHeadAttention(Frozen):
    """One attention head with its three weight matrices, each of shape (d_in, d_out).

        Q = x @ W_q,   K = x @ W_k,   V = x @ W_v
        output = softmax(Q K^T / sqrt(d_out)) V

    With rotary=True (RoPE, chapter 7) the head rotates row pos of Q and of K
    by its position before the scores - Q <- R Q, K <- R K - and V is left as
    it is. d_out must then be even: RoPE turns the numbers in pairs.

    The weights start uniform in [-1/sqrt(d_in), 1/sqrt(d_in)] (torch.nn.Linear's
    default range), drawn by this head's own random.Random(seed), and are never
    trained here.

    >>> head = SingleHeadAttention(d_in=4, d_out=2, seed=0)
    >>> head(Matrix([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]])).output.shape
    (3, 2)
    """

    __slots__ = ("_W_q", "_W_k", "_W_v", "_rotary")
    _W_q: Matrix
    _W_k: Matrix
    _W_v: Matrix
    _rotary: bool

    def __init__(self, d_in: int, d_out: int, *, seed: int = 0, rotary: bool = False) -> None:
        checked_size(d_in, "d_in")
        checked_size(d_out, "d_out")
        checked_size(seed, "seed", minimum=0)
        self._set("_rotary", checked_flag(rotary, "rotary"))
        if rotary and d_out % 2:
            raise ValueError(f"rotary=True needs an even d_out, got d_out={d_out}: RoPE turns "
                             f"the numbers of each query and key two at a time")
        rng = random.Random(seed)  # this head's own generator: no global state
        limit = 1.0 / math.sqrt(d_in)
        self._set("_W_q", _uniform_matrix(rng, d_in, d_out, limit))  # (d_in, d_out)
        self._set("_W_k", _uniform_matrix(rng, d_in, d_out, limit))
        self._set("_W_v", _uniform_matrix(rng, d_in, d_out, limit))

    @property
    def W_q(self) -> Matrix:
        return self._W_q

    @property
    def W_k(self) -> Matrix:
        return self._W_k

    @property
    def W_v(self) -> Matrix:
        return self._W_v

    @property
    def rotary(self) -> bool:
        """True if the head rotates its queries and keys by position (RoPE)."""
        return self._rotary

    def qkv(self, x: Matrix) -> tuple[Matrix, Matrix, Matrix]:
        """The queries, keys and values of x (n, d_in): each (n, d_out), before any RoPE."""
        if not isinstance(x, Matrix):
            raise TypeError(f"x must be a Matrix of shape (n, d_in) - one sequence; got "
                            f"{type(x).__name__} (for a Batch, call the head on each batch[b])")
        if x.shape[1] != self._W_q.shape[0]:
            raise ShapeError(f"x has shape {x.shape} but W_q has shape {self._W_q.shape}: "
                             f"x needs d_in={self._W_q.shape[0]} columns, one per row of W_q")
        return x @ self._W_q, x @ self._W_k, x @ self._W_v

    def __call__(
        self, x: Matrix, *, causal: bool = False, bias: Matrix | None = None
    ) -> AttentionResult:
        """Attention of the sequence x (n, d_in) over itself -> output (n, d_out).

        Row pos of x is the token at position pos. bias (n, n), if given, is
        added to the scores (see `scaled_dot_product_attention`).
        """
        queries, keys, values = self.qkv(x)  # each (n, d_out)
        if self._rotary:
            queries = apply_rotary(queries)  # row pos turned by pos * theta_i
            keys = apply_rotary(keys)  # the same angles: only j - i survives in q_i . k_j
        return scaled_dot_product_attention(queries, keys, values, causal=causal, bias=bias)

    def __repr__(self) -> str:
        d_in, d_out = self._W_q.shape
        rotary = ", rotary=True" if self._rotary else ""
        return f"SingleHeadAttention(d_in={d_in}, d_out={d_out}{rotary})"


def _uniform_matrix(rng: random.Random, rows: int, cols: int, limit: float) -> Matrix:
    return Matrix._trusted(tuple(
        tuple([rng.uniform(-limit, limit) for _ in range(cols)]) for _ in range(rows)
    ))
