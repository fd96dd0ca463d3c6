"""Chapter 3 - positional encodings: telling attention where each token stands.

Token embeddings say *what* a token is, not *where* it is: "cat" gets the same
vector at position 1 and at position 5. A position encoding is a second table
with one row per position; row `pos` is added to the embedding of the token
at position `pos` (positions count from 0):

    input embedding X'[pos] = X[pos] + PE[pos]

Four kinds, in the order of the lectures:

1. Sinusoidal (the 2017 paper; lectures 000 and 003). Fixed, no parameters:

       PE(pos, 2i)     = sin(pos / base**(2i / d_model))
       PE(pos, 2i + 1) = cos(pos / base**(2i / d_model))

   Column pair (2i, 2i+1) is a sine and cosine with wavelength
   2*pi * base**(2i / d_model): from 2*pi for i = 0 (fast) up towards
   2*pi * base (slow). Columns are *interleaved* sin, cos, sin, cos, as in the
   paper; many libraries lay out all sines then all cosines ([sin | cos]) -
   the same numbers in another column order.
2. Learned (GPT-2/GPT-3; lectures 001 and 002): an Embedding with
   context_length rows, looked up with positions 0, 1, ..., n-1 - PyTorch's
   `pos_embedding(torch.arange(n))`. It knows no position >= context_length.
3. The relative shift M_k (lectures 000 and 004): PE(pos + k) = M_k PE(pos),
   one 2x2 rotation per column pair, the same for every pos.
4. Binary (lecture 004): position pos written in bits - it changes in jumps,
   where the sinusoids change smoothly.

The chapter ends where the pipeline goes next: adding a (4, 256) table to a
batch of token embeddings of shape (8, 4, 256), row pos of the table to token
pos of every sequence (appendix B, minipe/arrays/broadcast.py, has the rule).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

from minipe.arrays import Matrix, Vector
from minipe.checks import (
    EXACT_INTEGERS,
    check_table,
    check_table_size,
    checked_base,
    checked_position,
    checked_positions,
    checked_size,
)
from minipe.embedding import Embedding

# ---------------------------------------------------------------------------
# 1. Sinusoidal: a fixed table from a formula
# ---------------------------------------------------------------------------


def sinusoidal_denominators(d_model: int, *, base: float = 10000.0) -> Vector:
    """base**(2i / d_model) for each column pair i = 0, 1, ...: what pos is divided by.

    >>> sinusoidal_denominators(4)   # d_model = 4: i = 0 -> 10000**0, i = 1 -> 10000**(2/4)
    Vector([1.0, 100.0], shape=(2,))

    There are ceil(d_model / 2) of them: an odd d_model ends on a lone sine column.
    """
    base = _checked_denominators(d_model, base)
    return Vector(_denominators(d_model, base))


def _denominators(d_model: int, base: float) -> list[float]:
    return [base ** (2 * i / d_model) for i in range((d_model + 1) // 2)]  # base**(2i/d_model)


def _sinusoids(positions: Sequence[int], d_model: int, base: float) -> Matrix:
    """PE(pos) for every pos in `positions`: one row per position.

        PE(pos, 2i)     = sin(pos / base**(2i / d_model))
        PE(pos, 2i + 1) = cos(pos / base**(2i / d_model))
    """
    denominators = _denominators(d_model, base)  # base**(2i / d_model), once per table
    sin, cos = math.sin, math.cos
    rows = []
    for pos in map(float, positions):  # pos as a float: one conversion, not one per pair
        row = []
        for denominator in denominators:
            angle = pos / denominator  # pos / base**(2i / d_model)
            row.append(sin(angle))  # PE(pos, 2i)
            row.append(cos(angle))  # PE(pos, 2i + 1)
        del row[d_model:]  # odd d_model: the last sine has no cosine partner
        rows.append(row)
    return Matrix(rows)  # (len(positions), d_model)


def sinusoidal_position(pos: int, d_model: int, *, base: float = 10000.0) -> Vector:
    """PE(pos) alone, the vector the lectures work by hand.

        PE(pos, 2i)     = sin(pos / base**(2i / d_model))
        PE(pos, 2i + 1) = cos(pos / base**(2i / d_model))

    >>> sinusoidal_position(0, 4)
    Vector([0.0, 1.0, 0.0, 1.0], shape=(4,))
    >>> sinusoidal_position(1, 4)   # [sin 1, cos 1, sin 0.01, cos 0.01]
    Vector([0.84147, 0.5403, 0.0099998, 0.99995], shape=(4,))
    """
    base = _checked_rows(f"sinusoidal_position({pos}, {d_model})", [pos], d_model, base, "pos")
    return _sinusoids(range(pos, pos + 1), d_model, base)[0]


def sinusoidal_encoding(num_positions: int, d_model: int, *, base: float = 10000.0) -> Matrix:
    """The table of PE(pos) for pos = 0 .. num_positions - 1: shape (num_positions, d_model).

    Row pos is `sinusoidal_position(pos, d_model, base=base)`. GPT-2's sizes: (1024, 768).

    The arguments follow the shape: positions first. The tutorials'
    `PositionalEncoding(d_model, dropout, max_len)` puts the width first. No
    rule on the two numbers can tell a swapped call from a real one (a 16-token
    text in a 4096-wide model is (16, 4096)), so nothing is refused here; a
    swapped table shows when it is added, and `+` says the axes look swapped.
    """
    base = _checked_sinusoids(f"sinusoidal_encoding({num_positions}, {d_model})",
                              num_positions, d_model, base, end=num_positions)
    return _sinusoids(range(num_positions), d_model, base)


def sinusoidal_rows(positions: Sequence[int], d_model: int, *,
                    base: float = 10000.0) -> Matrix:
    """PE(pos) for each pos of `positions`, in their order: (len(positions), d_model).

    The rows asked for, not the table up to the largest: position 10**6 costs one row.

    >>> sinusoidal_rows([1, 0], 4)   # rows 1 and 0 of sinusoidal_encoding(2, 4)
    Matrix([[0.84147, 0.5403, 0.0099998, 0.99995], [0.0, 1.0, 0.0, 1.0]], shape=(2, 4))
    """
    base = _checked_rows(f"sinusoidal_rows(positions, {d_model})", positions, d_model, base)
    return _sinusoids(positions, d_model, base)


# ---------------------------------------------------------------------------
# 2. Learned: a table with one row per position
# ---------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class LearnedPositionalEmbedding:
    """GPT-style absolute positions: a table of context_length rows, one per position.

    Called with a sequence length n it returns rows 0 .. n-1 - lecture 001's
    `pos_embedding_layer(torch.arange(n))`:

    >>> positions = LearnedPositionalEmbedding(context_length=4, dim=256, seed=0)
    >>> positions(4).shape          # the (4, 256) table of lecture 001
    (4, 256)

    The rows are random until trained (this chapter never trains them), and
    there is no row for position context_length or beyond. The sinusoidal
    formula can be evaluated at any position; whether a trained model makes
    good use of positions it never saw is an empirical question, and the
    ALiBi paper (Press et al., 2022) measured sinusoidal models degrading
    on texts longer than they were trained on.
    """

    context_length: int
    dim: int
    seed: int = field(default=0, kw_only=True)
    _table: Embedding = field(init=False)  # (context_length, dim)

    def __post_init__(self) -> None:
        check_table(f"{self!r}", context_length=self.context_length, dim=self.dim)
        table = Embedding(self.context_length, self.dim, seed=self.seed)
        object.__setattr__(self, "_table", table)

    @property
    def weight(self) -> Matrix:
        """The whole table, shape (context_length, dim); row pos is position pos."""
        return self._table.weight

    def __call__(self, n: int) -> Matrix:
        """Rows 0 .. n-1 of the table: the encodings of a sequence of n tokens, shape (n, dim)."""
        _check_length(n, self.context_length)
        positions = list(range(n))  # torch.arange(n): 0, 1, ..., n-1
        return self._table(positions)  # (n, dim): row pos of the table for each pos

    def __repr__(self) -> str:
        return f"LearnedPositionalEmbedding(context_length={self.context_length}, dim={self.dim})"


# ---------------------------------------------------------------------------
# 3. The shift M_k, and 4. binary codes
# ---------------------------------------------------------------------------


def relative_shift_matrix(k: int, d_model: int, *, base: float = 10000.0) -> Matrix:
    """M_k, with PE(pos + k) = M_k @ PE(pos) for every pos: shifting is a rotation.

    For column pair i, write w = 1 / base**(2i / d_model) and a = pos * w.
    The angle-addition formulas

        sin(a + k*w) =  cos(k*w) * sin(a) + sin(k*w) * cos(a)
        cos(a + k*w) = -sin(k*w) * sin(a) + cos(k*w) * cos(a)

    put the 2 x 2 block [[cos kw, sin kw], [-sin kw, cos kw]] on the diagonal
    of M_k, at rows and columns (2i, 2i+1); every other entry is 0. M_k does
    not depend on pos, so one matrix W_q W_k^T = M_k scores key j highest at
    j = i - k for every query i: lesson 06 builds that head (whether training
    finds it is another question).
    k may be negative (a shift back). d_model must be even: with an odd
    d_model the last sine column has no cosine partner to rotate with.
    """
    base = _checked_shift(k, d_model, base)
    rows = [[0.0] * d_model for _ in range(d_model)]
    for i, denominator in enumerate(_denominators(d_model, base)):
        angle = k / denominator  # k * w
        cos_kw = math.cos(angle)
        sin_kw = math.sin(angle)
        sine_row, cosine_row = 2 * i, 2 * i + 1
        rows[sine_row][sine_row] = cos_kw
        rows[sine_row][cosine_row] = sin_kw
        rows[cosine_row][sine_row] = -sin_kw
        rows[cosine_row][cosine_row] = cos_kw
    return Matrix(rows)  # (d_model, d_model)


def binary_encoding(num_positions: int, bits: int) -> Matrix:
    """Row pos is pos written in binary, least significant bit first: shape (num_positions, bits).

    >>> binary_encoding(4, 3).tolist()   # 0 = 000, 1 = 100, 2 = 010, 3 = 110 (LSB first)
    [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]

    Column 0 flips at every step, like the fastest sinusoid; column j flips
    every 2**j steps. But bits jump: going from 7 (1110) to 8 (0001) changes
    four of them at once, where a sinusoidal encoding moves the same small
    distance at every step (lecture 004).
    """
    _check_bits(num_positions, bits)
    rows = []
    for pos in range(num_positions):
        row = [float((pos >> j) & 1) for j in range(bits)]  # bit j of pos
        rows.append(row)
    return Matrix(rows)  # (num_positions, bits)


# ---------------------------------------------------------------------------
# 5. Adding a table to a batch
# ---------------------------------------------------------------------------
#
# Token embeddings of shape (8, 4, 256) plus a (4, 256) table, as lecture 001
# writes it:
#
#     input_embeddings = token_embeddings + position_table    # (8, 4, 256)
#
# Row pos of the table is added to token pos of every one of the 8 sequences:
# the table is "broadcast" over the batch. Appendix B (minipe/arrays/broadcast.py)
# spells out the rule; tests/test_positional.py checks it number by number.


# ---------------------------------------------------------------------------
# The door: what the tables above refuse, and the sentences they say
# ---------------------------------------------------------------------------


def _checked_sinusoids(what: str, rows: int, d_model: int, base: object, end: int) -> float:
    """A table of `rows` rows of d_model sinusoids, positions below `end`: the base, checked.

    The largest angle pos / base**(2i / d_model) must be a finite float: sin(inf) is
    undefined. A base below 1 makes the denominators shrink with i; a tiny one makes
    them so small that the angle overflows to inf.
    """
    check_table(what, num_positions=rows, d_model=d_model)
    checked = checked_base(base)
    smallest = min(_denominators(d_model, checked))  # base**(2i / d_model) at its smallest
    if math.isinf((end - 1) / smallest):
        raise ValueError(f"base = {checked} makes pos / base**(2i / d_model) overflow to inf at "
                         f"pos = {end - 1} (the smallest denominator is {smallest:.3g}): "
                         f"sin and cos of inf are undefined; the 2017 paper uses base = 10000")
    return checked


def _checked_denominators(d_model: int, base: object) -> float:
    checked_size(d_model, "d_model")
    check_table_size((d_model + 1) // 2, f"sinusoidal_denominators({d_model})")
    return checked_base(base)


def _checked_rows(what: str, positions: Sequence[int], d_model: int, base: object,
                  each: str = "") -> float:
    listed = checked_positions(positions, "positions", "int positions, one per row", each=each)
    return _checked_sinusoids(what, len(listed), d_model, base, max(listed) + 1)


def _checked_shift(k: int, d_model: int, base: object) -> float:
    """k a shift either way, d_model even: an odd one's last sine has no cosine partner."""
    checked_position(k, "k (the shift)", minimum=-EXACT_INTEGERS)
    if checked_size(d_model, "d_model") % 2:
        raise ValueError(f"relative_shift_matrix needs an even d_model, got {d_model}: the "
                         f"last column of an odd d_model is a sine with no cosine partner")
    return _checked_sinusoids(f"relative_shift_matrix({k}, {d_model})", d_model, d_model, base,
                              abs(k) + 1)


def _check_length(n: int, context_length: int) -> None:
    """A sequence of n tokens needs rows 0 .. n - 1 of a table of context_length rows."""
    if checked_size(n, "n (the sequence length)") > context_length:
        raise ValueError(f"a sequence of {n} tokens needs positions 0..{n - 1}, but this table "
                         f"has context_length={context_length} rows (positions 0.."
                         f"{context_length - 1}); learned positions cannot go past their table")


def _check_bits(num_positions: int, bits: int) -> None:
    """bits enough to count positions 0 .. num_positions - 1."""
    check_table(f"binary_encoding({num_positions}, {bits})", num_positions=num_positions,
                bits=bits)
    if (num_positions - 1).bit_length() > bits:  # num_positions > 2**bits, without 2**bits
        raise ValueError(f"{bits} bits can count positions 0..{2 ** bits - 1}, but "
                         f"num_positions={num_positions} needs up to {num_positions - 1}; "
                         f"use bits >= {(num_positions - 1).bit_length()}")
