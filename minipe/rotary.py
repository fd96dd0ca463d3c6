"""Chapter 7 - rotary positions (RoPE): turn the queries and keys, add nothing.

Chapter 5 adds a position vector to every token embedding, and lecture 004
names the price: the sum mixes *where* into *what* ("pollutes" the token
embedding) and changes its length. RoPE (Su et al., RoFormer, 2021) leaves
the token embeddings alone. Inside attention, after Q = x W_q and K = x W_k,
it rotates the query and the key of the token at position pos:

    pair i of a vector (two of its d numbers) turns by the angle pos * theta_i,
    theta_i = base**(-2i / d),   i = 0 .. d/2 - 1

    [x']   [cos a  -sin a] [x]
    [y'] = [sin a   cos a] [y],   a = pos * theta_i

The same kind of 2 x 2 rotation as in chapter 5's shift matrix M_k (pair i
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

Left out: scaling tricks for long contexts (NTK, YaRN), partial rotary dims.
"""

from __future__ import annotations

import math

from minipe.checks import checked_base, checked_size
from minipe.linalg import Matrix

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
    x: Matrix, *, base: float = 10000.0, start: int = 0, layout: str = "interleaved"
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
    start=100.
    """
    if not isinstance(x, Matrix):
        raise TypeError(f"x must be a Matrix, one row per position (queries or keys), "
                        f"got {type(x).__name__}")
    checked_size(start, "start", minimum=0)
    d = x.shape[1]
    pairs = rotary_pairs(d, layout)
    base = checked_base(base)
    thetas = [base ** (-2 * i / d) for i in range(d // 2)]  # theta_i = base**(-2i/d)
    rows = []
    for r, row in enumerate(x._rows):
        pos = start + r
        rotated = list(row)
        for (first, second), theta in zip(pairs, thetas):
            angle = pos * theta  # a = pos * theta_i
            cos_a = math.cos(angle)
            sin_a = math.sin(angle)
            rotated[first] = row[first] * cos_a - row[second] * sin_a
            rotated[second] = row[first] * sin_a + row[second] * cos_a
        if any(value != value for value in rotated):
            raise ValueError(f"row {r} of x rotates to NaN: it holds inf (inf - inf is "
                             f"undefined); minipe refuses NaN so it cannot spread silently")
        rows.append(tuple(rotated))
    return Matrix._trusted(tuple(rows))  # (seq, d): the shape of x
