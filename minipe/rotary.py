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

`rotary_thetas(d, base)` is the one place the theta_i are made (chapter 7
stretches them). The one check that a width is even (`checked_rotary_width`) and
the one check of theta_i given by hand (`check_frequencies`) live in checks.py,
since chapters 7-10 need them too; this module passes them on. So do the checks of a
position per row and of the largest angle pos * theta_i, which chapters 6, 7 and 10 share.

Positions are whole numbers a float holds exactly: up to 2**53 (checks.py).
Past it, two neighbours would share one float and so one angle.

Elsewhere: scaling for long contexts (PI, NTK, YaRN) is chapter 7 (minipe/context.py);
turning only part of each head (partial rotary) is chapter 10 (minipe/training/heads.py).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from minipe.arrays import Matrix, Vector
from minipe.attention import (
    AttentionResult, BooleanTable, SingleHeadAttention, scaled_dot_product_attention,
)
from minipe.checks import (check_angle, check_choice, check_type, check_unused, checked_base,
                           checked_position, checked_positions, checked_size)
from minipe.checks import check_frequencies as check_frequencies  # exported: chapters 7, 10
from minipe.checks import checked_rotary_width as checked_rotary_width  # exported: chapter 9

LAYOUTS = ("interleaved", "half")


def rotary_thetas(d: int, base: float = 10000.0) -> Vector:
    """theta_i = base**(-2i / d) for the pairs i = 0 .. d/2 - 1: each pair's angle per position.

    >>> rotary_thetas(4)
    Vector([1.0, 0.01], shape=(2,))

    Chapter 7 stretches these; it makes them here, with this one line.
    """
    _checked_rope(d, base)
    return Vector(_thetas(d, base))


def _thetas(d: int, base: float) -> list[float]:
    return [base ** (-2 * i / d) for i in range(d // 2)]  # theta_i = base**(-2i/d)


def rotary_pairs(d: int, layout: str = "interleaved") -> list[tuple[int, int]]:
    """Which two dimensions turn together, pair i = 0 .. d/2 - 1.

    >>> rotary_pairs(4)                    # RoFormer, GPT-J, Meta's Llama
    [(0, 1), (2, 3)]
    >>> rotary_pairs(4, layout="half")     # GPT-NeoX, Hugging Face's rotate_half
    [(0, 2), (1, 3)]
    """
    _checked_rope(d, 10000.0, layout)  # d and layout (the base is not read)
    return _pairs(d, layout)


def _pairs(d: int, layout: str) -> list[tuple[int, int]]:
    if layout == "interleaved":
        return [(2 * i, 2 * i + 1) for i in range(d // 2)]  # (x[2i], x[2i+1])
    return [(i, i + d // 2) for i in range(d // 2)]  # "half": (x[i], x[i + d/2])


def apply_rotary(
    x: Matrix, *, base: float = 10000.0, start: int = 0, positions: Sequence[int] | None = None,
    layout: str = "interleaved", frequencies: Vector | None = None,
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
    start=100. `positions` gives each row its own position instead (a padded
    or packed batch: chapter 8's position_ids). `frequencies` replaces the
    theta_i (one per pair), e.g. with the stretched ones of `rope_frequencies`
    (minipe/context.py). Positions need no table: each row's angles come from
    its own position alone, so a row at position 10**15 is turned like any other.
    """
    rows_at = _checked_rotary(x, base, start, positions, layout, frequencies)  # pos of row r
    d = x.shape[1]
    thetas = _thetas(d, base) if frequencies is None else list(frequencies)  # theta_i
    return _rotated(x, thetas, rows_at, _pairs(d, layout))


def _rotated(x: Matrix, thetas: list[float], rows_at: Sequence[int],
             pairs: list[tuple[int, int]]) -> Matrix:
    turns = {}  # pos -> cos a and sin a of every pair: once per position, not once per row
    for pos in dict.fromkeys(rows_at):
        cosines, sines = [], []
        for theta in thetas:
            angle = pos * theta  # a = pos * theta_i
            cosines.append(math.cos(angle))
            sines.append(math.sin(angle))
        turns[pos] = (cosines, sines)
    rows = []
    for pos, values in zip(rows_at, x.rows):  # the query or key at position pos
        rotated = list(values)
        for (first, second), cos_a, sin_a in zip(pairs, *turns[pos]):
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
        base = _checked_rope(self.d_out, self.base, name="d_out", who="RotaryAttention")
        object.__setattr__(self, "base", base)
        SingleHeadAttention.__post_init__(self)

    def __call__(
        self, x: Matrix, *, causal: bool = False, bias: Matrix | None = None,
        mask: BooleanTable | None = None,
    ) -> AttentionResult:
        """Attention of x (n, d_in) over itself, with q and k rotated by position.

        causal, bias and mask as in `SingleHeadAttention`."""
        queries, keys, values = self.qkv(x)  # each (n, d_out)
        pairs = _pairs(self.d_out, "interleaved")
        thetas = _thetas(self.d_out, self.base)  # theta_i = base**(-2i/d_out)
        positions = range(x.shape[0])  # row pos stands at position pos
        queries = _rotated(queries, thetas, positions, pairs)  # turned by pos * theta_i
        keys = _rotated(keys, thetas, positions, pairs)  # the same angles: only j - i survives
        return scaled_dot_product_attention(queries, keys, values, causal=causal, bias=bias,
                                            mask=mask)


# ---------------------------------------------------------------------------
# The door: what RoPE refuses, and the sentences it says (an even width, theta_i given by
# hand, positions one per row, the largest angle pos * theta_i: checks.py's
# checked_rotary_width, check_frequencies, checked_positions and check_angle, which
# chapters 6-10 call too)
# ---------------------------------------------------------------------------


def _checked_rope(d: int, base: object, layout: object = "interleaved", name: str = "d",
                    who: str = "RoPE") -> float:
    """An even width d (named `name`, for `who`), a known layout of its pairs, and a base whose
    largest theta_i, base**(-(d-2)/d) (under 1 when base > 1), is a float: the base, a float."""
    checked_rotary_width(d, name, who)
    check_choice(layout, LAYOUTS, "layout must be 'interleaved' (pairs x[2i], x[2i+1]: "
                 "RoFormer, GPT-J, Meta's Llama) or 'half' (pairs x[i], x[i + d/2]: GPT-NeoX, "
                 "Hugging Face's rotate_half)", got="; got")
    checked = checked_base(base)
    if -(d - 2) / d * math.log(checked) > math.log(sys.float_info.max):
        raise ValueError(f"base={base} is so small that theta_i = base**(-2i/d) passes the "
                         f"largest float (about 1.8e308) at d={d}: RoPE's bases are > 1 "
                         f"(10000, 500000)")
    return checked


def _checked_rotary(x: Matrix, base: float, start: int, positions: Sequence[int] | None,
                    layout: str, frequencies: Vector | None) -> Sequence[int]:
    """Every argument of apply_rotary: the position of each row of x."""
    check_type(x, Matrix, "x must be a Matrix, one row per position (queries or keys)")
    rows, d = x.shape
    checked = _checked_rope(d, base, layout)
    if frequencies is None:  # the largest theta_i: theta_0 = 1, or the last one if base < 1
        fastest = max(1.0, checked ** (-(d - 2) / d))
    else:
        check_frequencies(frequencies, d // 2)
        fastest = max(frequencies)
        check_unused(base, "base", 10000.0, "give base or frequencies, not both: the "
                     "frequencies already hold the theta_i a base would make")
    checked_size(start, "start", minimum=0)
    if positions is None:
        checked_position(start + rows - 1, "start + (rows - 1)")  # the last one
    else:
        check_unused(start, "start", 0, "give start or positions, not both: positions already "
                     "says where every row stands")
    rows_at = (range(start, start + rows) if positions is None else checked_positions(
        positions, "positions", "int positions, one per row of x", rows,
        f"x has {rows} rows: one position per row (the query or key standing there)"))
    check_angle(max(rows_at), fastest)  # the largest angle, pos * theta_i, is a float
    return rows_at
