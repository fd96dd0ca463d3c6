"""Chapter 5 - rotary positions (RoPE): turn the queries and keys, add nothing.

Chapter 3 adds a position vector to every token embedding, and lecture 004
names the price: the sum mixes *where* into *what* ("pollutes" the token
embedding) and changes its length. RoPE (Su et al., RoFormer, 2021) leaves
the token embeddings alone. Inside attention, after Q = x W_q and K = x W_k,
it rotates the query and the key of the token at position pos:

    pair i of a vector (two of its d numbers) turns by the angle pos * theta_i,
    theta_i = base**(-2i / d),   i = 0 .. d/2 - 1

    [x']   [cos a  -sin a] [x]
    [y'] = [sin a   cos a] [y],   a = pos * theta_i

The same kind of 2 x 2 rotation as in chapter 3's shift matrix M_k (pair i
turns by an angle proportional to theta_i), now applied to q and k. Three
things follow, each tested in tests/test_rotary.py:

1. Lengths stay: |R_pos q| = |q|. Only directions carry the position.
2. Only the offset counts: (R_m q) . (R_n k) = q . (R_(n-m) k), because
   turning both by m changes no angle between them. The score of query m
   and key n depends on n - m, not on m and n themselves.
3. The token embeddings are untouched: the rotation happens to q and k.

Which two numbers make "pair i" differs between codebases - the one thing a
reader of both must know:

    layout="interleaved"  (x[2i], x[2i+1])     RoFormer, GPT-J, Meta's Llama
    layout="half"         (x[i], x[i + d/2])   GPT-NeoX, Hugging Face's Llama
                                               (its `rotate_half`)

Pair i turns by the same angle in both, so the two differ only by a
permutation of the d dimensions (a learned W_q, W_k absorbs it).

`RotaryAttention` builds on chapter 4's head: the same W_q, W_k, W_v, with
the queries and keys rotated between `x @ W` and the scores.

Left out: partial rotary dims. Scaling for long contexts (PI, NTK, YaRN): minipe/context.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from minipe.arrays import Matrix, Vector
from minipe.attention import AttentionResult, SingleHeadAttention, scaled_dot_product_attention
from minipe.checks import check_frequencies, checked_base, checked_size

LAYOUTS = ("interleaved", "half")


def rotary_pairs(d: int, layout: str = "interleaved") -> list[tuple[int, int]]:
    """Which two dimensions turn together, pair i = 0 .. d/2 - 1.

    >>> rotary_pairs(4)                    # RoFormer, GPT-J, Meta's Llama
    [(0, 1), (2, 3)]
    >>> rotary_pairs(4, layout="half")     # GPT-NeoX, Hugging Face's rotate_half
    [(0, 2), (1, 3)]
    """
    checked_size(d, "d")
    if d % 2:
        raise ValueError(f"RoPE needs an even width d, got d={d}: it turns the numbers two "
                         f"at a time, so an odd one would have no partner")
    if layout == "interleaved":
        return [(2 * i, 2 * i + 1) for i in range(d // 2)]
    if layout == "half":
        return [(i, i + d // 2) for i in range(d // 2)]
    raise ValueError(f"layout must be 'interleaved' (pairs x[2i], x[2i+1]: RoFormer, GPT-J, "
                     f"Meta's Llama) or 'half' (pairs x[i], x[i + d/2]: GPT-NeoX, Hugging "
                     f"Face's rotate_half); got {layout!r}")


def apply_rotary(
    x: Matrix, *, base: float = 10000.0, start: int = 0, layout: str = "interleaved",
    frequencies: Vector | None = None,
) -> Matrix:
    """Rotate row r of x (the query or key at position pos = start + r), pair by pair.

        theta_i        = base**(-2i / d)
        a              = pos * theta_i
        x'[first]      = x[first] cos a - x[second] sin a
        x'[second]     = x[first] sin a + x[second] cos a

    where pair i = (first, second) comes from `rotary_pairs(d, layout)`.

    q = [1, 2, 3, 4] at position 2: pair (1, 2) turns by 2 radians, pair (3, 4)
    by 2 / 100 (theta_1 = 10000**(-2/4)):

    >>> apply_rotary(Matrix([[1, 2, 3, 4]]), start=2)
    Matrix([[-2.2347, 0.077004, 2.9194, 4.0592]], shape=(1, 4))
    >>> apply_rotary(Matrix([[1, 2, 3, 4]]), start=2, layout="half")
    Matrix([[-3.144, 1.9196, -0.33914, 4.0392]], shape=(1, 4))

    Both have the norm of q, sqrt(30) = 5.4772. `start` is the position of
    row 0: a token generated later, at position 100, is rotated alone with
    start=100. `frequencies` replaces the theta_i (one per pair), e.g. with
    the stretched ones of `rope_frequencies` (minipe/context.py).
    """
    if not isinstance(x, Matrix):
        raise TypeError(f"x must be a Matrix, one row per position (queries or keys), "
                        f"got {type(x).__name__}")
    checked_size(start, "start", minimum=0)
    pairs = rotary_pairs(x.shape[1], layout)
    if frequencies is None:
        return _rotated(x, _thetas(x.shape[1], checked_base(base)), start, pairs)
    check_frequencies(frequencies, len(pairs), Vector, "d/2")
    if base != 10000.0:
        raise ValueError(f"give base or frequencies, not both: the frequencies already hold "
                         f"the theta_i a base would make (got base={base})")
    return _rotated(x, list(frequencies), start, pairs)


def _thetas(d: int, base: float) -> list[float]:
    return [base ** (-2 * i / d) for i in range(d // 2)]  # theta_i = base**(-2i/d)


def _rotated(x: Matrix, thetas: list[float], start: int, pairs: list[tuple[int, int]]) -> Matrix:
    rows = []
    for pos, row in enumerate(x, start=start):  # the query or key at position pos
        values = list(row)
        rotated = list(row)
        for (first, second), theta in zip(pairs, thetas):
            angle = pos * theta  # a = pos * theta_i
            cos_a = math.cos(angle)
            sin_a = math.sin(angle)
            rotated[first] = values[first] * cos_a - values[second] * sin_a
            rotated[second] = values[first] * sin_a + values[second] * cos_a
        rows.append(rotated)
    return Matrix(rows)  # (seq, d): the shape of x


@dataclass(frozen=True, repr=False)
class RotaryAttention(SingleHeadAttention):
    """Chapter 4's head, with RoPE: Q and K are rotated by position before the scores.

        Q = R (x @ W_q),   K = R (x @ W_k),   V = x @ W_v      (R: apply_rotary)
        output = softmax(Q K^T / sqrt(d_out)) V

    The same W_q, W_k, W_v as `SingleHeadAttention(d_in, d_out, seed=seed)`;
    V is left as it is. d_out must be even: RoPE turns the numbers in pairs.

    >>> head = RotaryAttention(d_in=4, d_out=2, seed=0)
    >>> head(Matrix([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]])).output.shape
    (3, 2)
    """

    base: float = field(default=10000.0, kw_only=True)

    def __post_init__(self) -> None:
        if isinstance(self.d_out, int) and self.d_out % 2:
            raise ValueError(f"RotaryAttention needs an even d_out, got d_out={self.d_out}: "
                             f"RoPE turns the numbers of each query and key two at a time")
        object.__setattr__(self, "base", checked_base(self.base))
        SingleHeadAttention.__post_init__(self)

    def __call__(
        self, x: Matrix, *, causal: bool = False, bias: Matrix | None = None
    ) -> AttentionResult:
        """Attention of x (n, d_in) over itself, with q and k rotated by position."""
        queries, keys, values = self.qkv(x)  # each (n, d_out)
        pairs = rotary_pairs(self.d_out)
        thetas = _thetas(self.d_out, self.base)  # theta_i = base**(-2i/d_out)
        queries = _rotated(queries, thetas, 0, pairs)  # row pos turned by pos * theta_i
        keys = _rotated(keys, thetas, 0, pairs)  # the same angles: only j - i survives
        return scaled_dot_product_attention(queries, keys, values, causal=causal, bias=bias)
