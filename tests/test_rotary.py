"""Chapter 5: RoPE, checked against the issue's worked numbers and two second
implementations - Meta's complex-number form and Hugging Face's rotate_half form."""

from __future__ import annotations

import cmath
import math
import random
from typing import Any

import pytest

from minipe import Matrix, Vector, allclose, apply_rotary, rotary_pairs
from minipe.rotary import check_frequencies, checked_rotary_width, rotary_thetas

FOUR_DECIMALS = 5e-5  # the issue rounds to 4 decimals


def complex_rope(x: list[float], pos: int, base: float = 10000.0) -> list[float]:
    """Interleaved RoPE as Meta's Llama writes it: (x[2i] + i x[2i+1]) * e**(i pos theta_i)."""
    d = len(x)
    out: list[float] = []
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        z = complex(x[2 * i], x[2 * i + 1]) * cmath.exp(1j * pos * theta)
        out += [z.real, z.imag]
    return out


def rotate_half_rope(x: list[float], pos: int, base: float = 10000.0) -> list[float]:
    """The half layout as Hugging Face writes it: x * cos + rotate_half(x) * sin, where
    cos and sin repeat the d/2 angles twice and rotate_half(x) = [-x2, x1] for halves x1, x2."""
    d = len(x)
    half = d // 2
    angles = [pos * base ** (-2 * i / d) for i in range(half)] * 2  # cat(freqs, freqs)
    rotated_half = [-value for value in x[half:]] + x[:half]
    return [x[j] * math.cos(angles[j]) + rotated_half[j] * math.sin(angles[j])
            for j in range(d)]


# --- the numbers: q = [1, 2, 3, 4] at position 2 ---------------------

def test_interleaved_at_position_2() -> None:
    rotated = apply_rotary(Matrix([[1, 2, 3, 4]]), start=2)
    # from the issue, worked independently
    assert allclose(rotated[0], [-2.2347, 0.0770, 2.9194, 4.0592], abs_tol=FOUR_DECIMALS)
    # by hand: pair (1, 2) turns by 2 * 10000**0 = 2, pair (3, 4) by 2 * 10000**(-2/4) = 0.02
    c, s = math.cos(2.0), math.sin(2.0)
    c2, s2 = math.cos(0.02), math.sin(0.02)
    assert allclose(rotated[0], [1 * c - 2 * s, 1 * s + 2 * c, 3 * c2 - 4 * s2, 3 * s2 + 4 * c2])


def test_half_at_position_2() -> None:
    rotated = apply_rotary(Matrix([[1, 2, 3, 4]]), start=2, layout="half")
    # from the issue, worked independently
    assert allclose(rotated[0], [-3.1440, 1.9196, -0.3391, 4.0392], abs_tol=FOUR_DECIMALS)
    # by hand: pair (x0, x2) = (1, 3) turns by 2, pair (x1, x3) = (2, 4) by 0.02
    c, s = math.cos(2.0), math.sin(2.0)
    c2, s2 = math.cos(0.02), math.sin(0.02)
    assert allclose(rotated[0], [1 * c - 3 * s, 2 * c2 - 4 * s2, 1 * s + 3 * c, 2 * s2 + 4 * c2])


def test_both_layouts_keep_the_norm_5_4772() -> None:
    q = Matrix([[1, 2, 3, 4]])
    for layout in ["interleaved", "half"]:
        norm = apply_rotary(q, start=2, layout=layout)[0].norm()
        assert math.isclose(norm, 5.4772, abs_tol=FOUR_DECIMALS)  # the number
        assert math.isclose(norm, math.sqrt(30.0))  # 1 + 4 + 9 + 16 = 30


def test_the_pairs_of_each_layout() -> None:
    assert rotary_pairs(6) == [(0, 1), (2, 3), (4, 5)]
    assert rotary_pairs(6, layout="half") == [(0, 3), (1, 4), (2, 5)]


# --- second implementations ---------------------------------------------------

def _random_rows(n: int, d: int, seed: int) -> list[list[float]]:
    rng = random.Random(seed)
    return [[rng.gauss(0, 1) for _ in range(d)] for _ in range(n)]


@pytest.mark.parametrize("d, start, base", [(2, 0, 10000.0), (8, 0, 10000.0),
                                            (16, 5, 10000.0), (6, 100, 500000.0)])
def test_interleaved_agrees_with_the_complex_number_form(d: int, start: int, base: float) -> None:
    rows = _random_rows(7, d, seed=d)
    expected = [complex_rope(row, start + r, base) for r, row in enumerate(rows)]
    assert allclose(apply_rotary(Matrix(rows), start=start, base=base), expected,
                    rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("d, start", [(2, 0), (8, 3), (16, 40)])
def test_half_agrees_with_the_rotate_half_form(d: int, start: int) -> None:
    rows = _random_rows(7, d, seed=d + 1)
    expected = [rotate_half_rope(row, start + r) for r, row in enumerate(rows)]
    assert allclose(apply_rotary(Matrix(rows), start=start, layout="half"), expected,
                    rel_tol=1e-12, abs_tol=1e-12)


def test_the_two_layouts_differ_only_by_a_permutation_of_dimensions() -> None:
    d = 8
    x = Matrix(_random_rows(5, d, seed=3))
    half = apply_rotary(x, layout="half")
    interleaved = apply_rotary(x, layout="interleaved")
    assert not allclose(half, interleaved)  # not the same numbers ...
    # ... but the same rotation: put x[i] and x[i + d/2] side by side (dimension
    # order 0, 4, 1, 5, 2, 6, 3, 7), rotate interleaved, and put them back.
    order = [j for i in range(d // 2) for j in (i, i + d // 2)]
    assert order == [0, 4, 1, 5, 2, 6, 3, 7]
    permuted = Matrix([[row[j] for j in order] for row in x])
    rotated = apply_rotary(permuted, layout="interleaved")
    back = [[0.0] * d for _ in range(5)]
    for r in range(5):
        for new, old in enumerate(order):
            back[r][old] = rotated[r, new]
    assert allclose(half, back, rel_tol=1e-15, abs_tol=1e-15)


# --- what the rotation keeps --------------------------------------------------

def test_norms_are_preserved_at_every_position() -> None:
    x = Matrix(_random_rows(50, 16, seed=4))
    for layout in ["interleaved", "half"]:
        rotated = apply_rotary(x, layout=layout)
        for before, after in zip(x, rotated):
            assert math.isclose(before.norm(), after.norm(), rel_tol=1e-12)


def test_position_0_is_not_rotated() -> None:
    x = Matrix([[1, 2, 3, 4], [5, 6, 7, 8]])
    assert apply_rotary(x)[0] == x[0]  # every angle is 0 * theta_i = 0
    assert apply_rotary(x)[1] != x[1]


def _at(vector: list[float], pos: int, layout: str = "interleaved") -> Vector:
    """One vector rotated for position pos."""
    return apply_rotary(Matrix([vector]), start=pos, layout=layout)[0]


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_the_score_depends_only_on_the_offset(layout: str) -> None:
    q, k = _random_rows(2, 8, seed=5)
    for offset in [0, 1, 3, -2, 50]:
        # (R_m q) . (R_n k) = q . (R_(n-m) k): turning both by m changes no angle between them
        expected = Vector(q).dot(_at(k, offset, layout)) if offset >= 0 else \
            _at(q, -offset, layout).dot(Vector(k))
        for m in [2, 7, 100, 1000]:
            n = m + offset
            score = _at(q, m, layout).dot(_at(k, n, layout))
            assert math.isclose(score, expected, rel_tol=1e-9, abs_tol=1e-9), (offset, m)
    # and the offset does matter: a different n - m, a different score
    assert not math.isclose(_at(q, 2, layout).dot(_at(k, 3, layout)),
                            _at(q, 2, layout).dot(_at(k, 4, layout)))


def test_start_is_the_position_of_row_0() -> None:
    x = Matrix(_random_rows(6, 4, seed=6))
    whole = apply_rotary(x)
    tail = apply_rotary(x[2:], start=2)  # rows 2..5 alone, told where they stand
    assert tail == whole[2:]


def test_the_input_is_left_as_it_was() -> None:
    rows = [[1.0, 2.0, 3.0, 4.0]]
    x = Matrix(rows)
    apply_rotary(x, start=3)
    assert x.tolist() == rows


def test_positions_put_each_row_where_it_stands() -> None:
    x = Matrix(_random_rows(3, 4, seed=7))
    placed = apply_rotary(x, positions=[5, 0, 2])  # a packed batch restarts at 0
    for r, pos in enumerate([5, 0, 2]):
        assert allclose(placed[r], complex_rope(x[r].tolist(), pos), rel_tol=1e-12,
                        abs_tol=1e-12)
    assert apply_rotary(x, positions=[4, 5, 6]) == apply_rotary(x, start=4)


def test_the_thetas_are_chapter_5s_formula() -> None:
    # theta_i = base**(-2i/d): 1, 10000**(-1/3), 10000**(-2/3) at d = 6
    assert allclose(rotary_thetas(6), [1.0, 10000 ** (-1 / 3), 10000 ** (-2 / 3)],
                    rel_tol=1e-15, abs_tol=0.0)
    assert rotary_thetas(4, 500000.0).tolist() == [1.0, 500000.0 ** -0.5]


def test_a_position_near_2_to_the_53_costs_what_position_1_costs() -> None:
    # no table of positions: the last whole number below 2**53, turned by theta_0 = 1
    pos = 2**53 - 1
    turned = apply_rotary(Matrix([[1.0, 0.0]]), start=pos)[0]
    assert allclose(turned, [math.cos(float(pos)), math.sin(float(pos))], rel_tol=1e-12,
                    abs_tol=1e-12)


def test_past_2_to_the_53_two_positions_share_one_float() -> None:
    # why positions stop at 2**53: 2**53 + 1 is not a float, so it rounds to 2**53 (and its angle)
    assert float(2**53 + 1) == float(2**53) and float(2**53 - 1) != float(2**53)


def test_a_huge_theta_is_used_while_its_angle_is_a_float() -> None:
    x = Matrix([[1.0, 0.0], [1.0, 0.0]])
    # positions 0 and 1: angles 0 and 1e308, both floats
    turned = apply_rotary(x, frequencies=Vector([1e308]))
    assert turned[1].tolist() == [math.cos(1e308), math.sin(1e308)]
    with pytest.raises(ValueError, match=r"pos \* theta_i = 2 \* 1e\+308 is past the "
                                         r"largest float"):
        apply_rotary(x, start=1, frequencies=Vector([1e308]))  # 2 * 1e308 = inf


# --- bad input ------------------------------------------------------------------

@pytest.mark.parametrize("call, error, words", [
    (lambda: apply_rotary(Matrix([[1, 2, 3]])), ValueError,
     "RoPE needs an even d, got d=3"),
    (lambda: apply_rotary(Matrix([[1, 2]]), layout="neox"), ValueError,
     r"layout must be 'interleaved' .* or 'half' .*; got 'neox'"),
    (lambda: apply_rotary(Matrix([[1, 2]]), start=-1), ValueError, "start must be >= 0, got -1"),
    (lambda: apply_rotary(Matrix([[1, 2]]), start=1.5),  # type: ignore[arg-type]
     TypeError, "start must be an int"),
    (lambda: apply_rotary([[1.0, 2.0]]),  # type: ignore[arg-type]
     TypeError, "x must be a Matrix"),
    (lambda: apply_rotary(Matrix([[1, 2]]), base=0), ValueError,
     "base must be a finite number > 0"),
    (lambda: apply_rotary(Matrix([[1, 2]]), base=math.inf), ValueError, "base must be"),
    (lambda: apply_rotary(Matrix([[1, 2]]), base="1e4"),  # type: ignore[arg-type]
     TypeError, "base must be a number"),
    (lambda: apply_rotary(Matrix([[math.inf, math.inf]]), start=1), ValueError,
     r"Matrix rows\[0\]\[0\] is NaN \(inf - inf"),  # inf cos 1 - inf sin 1
    (lambda: rotary_pairs(0), ValueError, "d must be >= 1, got 0"),
    # positions past 2**53: two neighbours would be one float, so one angle
    (lambda: apply_rotary(Matrix([[1, 2]]), start=2**53 + 1), ValueError,
     r"start \+ \(rows - 1\) = 9,007,199,254,740,993 is past 2\*\*53 = 9,007,199,254,740,992"),
    (lambda: apply_rotary(Matrix([[1, 2], [3, 4]]), start=2**53), ValueError,
     r"= 9,007,199,254,740,993 is past 2\*\*53"),
    (lambda: apply_rotary(Matrix([[1, 2]]), positions=[10**400]), ValueError,
     r"positions\[0\] = ~10\*\*400 is past 2\*\*53"),
    (lambda: apply_rotary(Matrix([[1, 2]]), positions=[-1]), ValueError,
     r"positions\[0\] must be >= 0, got -1"),
    (lambda: apply_rotary(Matrix([[1, 2]]), positions=[0, 1]), ValueError,
     "positions has 2 entries but x has 1 rows"),
    (lambda: apply_rotary(Matrix([[1, 2]]), positions=[0.5]),  # type: ignore[list-item]
     TypeError,
     r"positions\[0\] must be an int, got 0.5"),
    (lambda: apply_rotary(Matrix([[1, 2]]), start=3, positions=[0]), ValueError,
     "give start or positions, not both"),
    # base < 1: the last theta_i is the largest, 1e-300**(-98/100) = 1e294; at position 1e15
    # its angle is 1e309, past the largest float (theta_0 = 1 alone would pass)
    (lambda: apply_rotary(Matrix([[1.0] * 100]), base=1e-300, start=10**15), ValueError,
     r"pos \* theta_i = 1000000000000000 \* 1e\+294 is past the largest float"),
    # 1e-320**(-98/100) = 1e313: past the largest float
    (lambda: apply_rotary(Matrix([[1.0] * 100]), base=1e-320), ValueError,
     r"base=1e-320 is so small that theta_i = base\*\*\(-2i/d\) passes the largest float"),
    (lambda: rotary_thetas(5), ValueError, "RoPE needs an even d, got d=5"),
    (lambda: checked_rotary_width(7, "d_model", "TinyModel"), ValueError,
     "TinyModel needs an even d_model, got d_model=7: it turns"),
    (lambda: check_frequencies(Vector([1.0, math.inf]), 2, "d_model/2"), ValueError,
     "frequencies must be a Vector of d_model/2 = 2 finite angles theta_i > 0"),
    (lambda: check_frequencies([1.0, 0.1], 2), ValueError, "must be a Vector"),
])
def test_bad_input_is_explained(call: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        call()


def test_apply_rotary_refuses_positions_with_no_order_of_rows() -> None:
    x = Matrix([[1.0, 0.0], [0.0, 1.0]])
    for unordered, kind in (({0: 1, 1: 2}, "dict"), ({0, 1}, "set")):
        with pytest.raises(TypeError, match=f"positions must be a list of int positions, one "
                                            f"per row of x, in the order of the rows; a {kind} "
                                            f"has no such order"):
            apply_rotary(x, positions=unordered)  # type: ignore[arg-type]
