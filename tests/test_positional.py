"""Chapter 3: positional encodings, checked against lecture 003's hand-worked numbers
and against a second, naive implementation of the paper's formula."""

from __future__ import annotations

import math
from typing import Any

import pytest

from minipe import (
    LearnedPositionalEmbedding,
    Matrix,
    TinyModel,
    Vector,
    allclose,
    binary_encoding,
    relative_shift_matrix,
    sinusoidal_denominators,
    sinusoidal_encoding,
    sinusoidal_position,
)

FOUR_DECIMALS = 5e-5  # the lecture rounds to 4 decimals (0.99995, 0.99955 to 5)


def naive_pe(pos: int, j: int, d_model: int, base: float = 10000.0) -> float:
    """Column j of PE(pos), straight from the paper: j = 2i is a sine, j = 2i + 1 a cosine."""
    i = j // 2
    angle = pos / base ** (2 * i / d_model)
    return math.sin(angle) if j % 2 == 0 else math.cos(angle)


# --- lecture 003's worked example, d_model = 4 -------------------------------

def test_pe_0_is_0_1_0_1() -> None:
    assert sinusoidal_position(0, 4).tolist() == [0.0, 1.0, 0.0, 1.0]


def test_pe_1_by_hand() -> None:
    # [sin(1), cos(1), sin(1/100), cos(1/100)]
    assert allclose(sinusoidal_position(1, 4), [0.8415, 0.5403, 0.0100, 0.99995],
                    abs_tol=FOUR_DECIMALS)


def test_pe_3_by_hand() -> None:
    # [sin(3), cos(3), sin(3/100), cos(3/100)]
    assert allclose(sinusoidal_position(3, 4), [0.1411, -0.9900, 0.0300, 0.99955],
                    abs_tol=FOUR_DECIMALS)


def test_the_d4_table_rows_are_the_hand_worked_vectors() -> None:
    table = sinusoidal_encoding(4, 4)
    assert table.shape == (4, 4)
    assert table[0] == sinusoidal_position(0, 4)
    assert table[1] == sinusoidal_position(1, 4)
    assert allclose(table[3], [0.1411, -0.9900, 0.0300, 0.99955], abs_tol=FOUR_DECIMALS)


def test_d8_at_pos_3() -> None:
    # denominators 10000**(2i/8) = 1, 10, 100, 1000 for i = 0..3
    assert allclose(sinusoidal_denominators(8), [1.0, 10.0, 100.0, 1000.0])
    # [sin 3, cos 3, sin .3, cos .3, sin .03, cos .03, sin .003, cos .003] to 5 decimals
    assert allclose(sinusoidal_position(3, 8),
                    [0.14112, -0.98999, 0.29552, 0.95534, 0.02999, 0.99955, 0.00300, 1.00000],
                    abs_tol=1e-5)


def test_denominators_of_d4() -> None:
    assert sinusoidal_denominators(4).tolist() == [1.0, 100.0]  # 10000**0, 10000**(2/4)


# --- the formula at any size ---------------------------------------------------

@pytest.mark.parametrize("num_positions, d_model", [(50, 16), (10, 7), (3, 1), (5, 2)])
def test_table_agrees_with_the_naive_formula(num_positions: int, d_model: int) -> None:
    expected = [[naive_pe(pos, j, d_model) for j in range(d_model)]
                for pos in range(num_positions)]
    assert allclose(sinusoidal_encoding(num_positions, d_model), expected)


def test_odd_d_model_ends_on_a_sine() -> None:
    table = sinusoidal_encoding(4, 5)
    # column 4 = 2i with i = 2: sin(pos / 10000**(4/5)) and no cosine after it
    assert table.shape == (4, 5)
    assert math.isclose(table[3, 4], math.sin(3 / 10000 ** 0.8))


def test_gpt2_sized_table() -> None:
    table = sinusoidal_encoding(1024, 768)
    assert table.shape == (1024, 768)
    assert math.isclose(table[1023, 0], math.sin(1023))
    assert math.isclose(table[1023, 767], math.cos(1023 / 10000 ** (766 / 768)))


def test_base_100000_from_lecture_004() -> None:
    pe = sinusoidal_position(1, 4, base=100000.0)
    # column 2: sin(1 / 100000**(2/4)) = sin(1 / 316.227766...)
    assert math.isclose(pe[2], math.sin(1 / math.sqrt(100000.0)))
    assert math.isclose(pe[2], 0.0031622724, rel_tol=1e-8)
    assert pe[0] == sinusoidal_position(1, 4)[0]  # i = 0 does not depend on the base


@pytest.mark.parametrize("d_model", [2, 4, 8, 64])
def test_every_row_has_norm_sqrt_of_half_d_model(d_model: int) -> None:
    # each column pair is (sin a, cos a), and sin**2 + cos**2 = 1: d_model / 2 pairs
    for row in sinusoidal_encoding(30, d_model):
        assert math.isclose(row.norm(), math.sqrt(d_model / 2))


def test_the_exp_log_form_of_the_tutorials_gives_the_same_table() -> None:
    # The Annotated Transformer and PyTorch's tutorial write the frequency as
    # exp(2i * -log(10000) / d_model) and multiply: the same 1 / 10000**(2i/d_model).
    d_model = 16
    tutorial = [[0.0] * d_model for _ in range(100)]
    for pos in range(100):
        for i in range(d_model // 2):
            frequency = math.exp(2 * i * -(math.log(10000.0) / d_model))
            tutorial[pos][2 * i] = math.sin(pos * frequency)
            tutorial[pos][2 * i + 1] = math.cos(pos * frequency)
    # equal to about 1e-14: the two forms round differently in the last bits only
    assert allclose(sinusoidal_encoding(100, d_model), tutorial, rel_tol=0.0, abs_tol=1e-13)


def test_interleaved_and_halves_layouts_differ_only_by_column_order() -> None:
    d_model = 6
    # the [sin | cos] layout of many libraries, built independently: columns 0..2 sines,
    # columns 3..5 cosines, of the same angles pos / 10000**(2i/6)
    halves = [[math.sin(pos / 10000 ** (2 * i / d_model)) for i in range(3)]
              + [math.cos(pos / 10000 ** (2 * i / d_model)) for i in range(3)]
              for pos in range(10)]
    interleaved = sinusoidal_encoding(10, d_model).tolist()
    assert not allclose(Matrix(interleaved), halves)  # not the same table ...
    order = [0, 2, 4, 1, 3, 5]  # ... but the same columns: sines first, then cosines
    assert allclose(Matrix([[row[j] for j in order] for row in interleaved]), halves)


# --- relative positions: PE(pos + k) = M_k PE(pos) -----------------------------

@pytest.mark.parametrize("k", [0, 1, 3, 10, -2])
def test_shift_matrix_moves_every_position_by_k(k: int) -> None:
    d_model = 8
    shift = relative_shift_matrix(k, d_model)
    for pos in range(max(0, -k), 20):
        assert allclose(shift @ sinusoidal_position(pos, d_model),
                        sinusoidal_position(pos + k, d_model), abs_tol=1e-12)


def test_shift_matrix_is_block_diagonal_rotations() -> None:
    shift = relative_shift_matrix(1, 4).tolist()
    c0, s0 = math.cos(1.0), math.sin(1.0)  # i = 0: angle k / 1
    c1, s1 = math.cos(0.01), math.sin(0.01)  # i = 1: angle k / 100
    assert allclose(Matrix(shift), [[c0, s0, 0, 0],
                                    [-s0, c0, 0, 0],
                                    [0, 0, c1, s1],
                                    [0, 0, -s1, c1]])
    assert relative_shift_matrix(0, 4).tolist() == [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0],
                                                     [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
    # a rotation's inverse is its transpose: shifting back by k undoes shifting by k
    assert allclose(relative_shift_matrix(-3, 4), relative_shift_matrix(3, 4).T)


def test_dot_product_depends_only_on_the_offset() -> None:
    d_model = 16
    table = sinusoidal_encoding(60, d_model)
    for k in [0, 1, 5, 20]:
        # sum_i sin(a)sin(b) + cos(a)cos(b) = sum_i cos(k * w_i), whatever p is
        expected = sum(math.cos(k / 10000 ** (2 * i / d_model)) for i in range(d_model // 2))
        for p in [0, 7, 30]:
            assert math.isclose(table[p].dot(table[p + k]), expected, abs_tol=1e-12)


# --- learned positions ---------------------------------------------------------

def test_learned_positions_are_arange_plus_lookup() -> None:
    positions = LearnedPositionalEmbedding(context_length=4, dim=256, seed=0)
    looked_up = positions(4)
    assert positions.weight.shape == (4, 256)  # context_length rows
    assert looked_up.shape == (4, 256)  # lecture 001's position table
    assert looked_up == positions.weight  # rows 0, 1, 2, 3
    assert positions(2) == Matrix(positions.weight.tolist()[:2])
    assert positions.context_length == 4
    assert positions.dim == 256


def test_learned_positions_refuse_to_extrapolate() -> None:
    positions = LearnedPositionalEmbedding(context_length=4, dim=8, seed=0)
    with pytest.raises(ValueError, match=r"a sequence of 5 tokens needs positions 0..4, but this "
                       r"table has context_length=4 rows \(positions 0..3\)"):
        positions(5)
    assert sinusoidal_encoding(5, 8).shape == (5, 8)  # the formula has no such limit


def test_learned_positions_are_seeded() -> None:
    assert LearnedPositionalEmbedding(4, 8, seed=3).weight == \
        LearnedPositionalEmbedding(4, 8, seed=3).weight
    assert LearnedPositionalEmbedding(4, 8, seed=3).weight != \
        LearnedPositionalEmbedding(4, 8, seed=4).weight


# --- binary ---------------------------------------------------------------------

def test_binary_encoding_by_hand() -> None:
    # least significant bit first: 5 = 1*1 + 0*2 + 1*4 -> [1, 0, 1, 0]
    table = binary_encoding(16, 4)
    assert table[5].tolist() == [1.0, 0.0, 1.0, 0.0]
    assert table[7].tolist() == [1.0, 1.0, 1.0, 0.0]
    assert table[8].tolist() == [0.0, 0.0, 0.0, 1.0]


def test_binary_jumps_where_sinusoids_move_smoothly() -> None:
    binary = binary_encoding(16, 4)
    jump_7_to_8 = (binary[8] - binary[7]).norm()  # four bits flip: distance 2
    step_8_to_9 = (binary[9] - binary[8]).norm()  # one bit flips: distance 1
    assert (jump_7_to_8, step_8_to_9) == (2.0, 1.0)
    sinusoids = sinusoidal_encoding(16, 4)
    distances = [(sinusoids[p + 1] - sinusoids[p]).norm() for p in range(15)]
    # PE(p+1) - PE(p) has the same length for every p (M_1 is a rotation)
    assert max(distances) - min(distances) < 1e-12


# --- bad input ------------------------------------------------------------------

@pytest.mark.parametrize("call, error, words", [
    (lambda: sinusoidal_encoding(4, 0), ValueError, "d_model must be >= 1, got 0"),
    (lambda: sinusoidal_encoding(0, 4), ValueError, "num_positions must be >= 1, got 0"),
    (lambda: sinusoidal_encoding(-3, 4), ValueError, "num_positions must be >= 1, got -3"),
    (lambda: sinusoidal_encoding(4.0, 4),  # type: ignore[arg-type]
     TypeError, "num_positions must be an int"),
    (lambda: sinusoidal_encoding(4, 4, base=0), ValueError, r"base must be a finite number > 0"),
    (lambda: sinusoidal_encoding(4, 4, base=-10.0), ValueError, "base must be"),
    (lambda: sinusoidal_encoding(4, 4, base=math.nan), ValueError, "base must be"),
    (lambda: sinusoidal_encoding(4, 4, base="10000"),  # type: ignore[arg-type]
     TypeError, "base must be a number"),
    (lambda: sinusoidal_position(-1, 4), ValueError, "pos must be >= 0, got -1"),
    (lambda: relative_shift_matrix(1, 5), ValueError, "needs an even d_model, got 5"),
    (lambda: relative_shift_matrix(1.5, 4),  # type: ignore[arg-type]
     TypeError, "k .the shift. must be an int"),
    (lambda: binary_encoding(9, 3), ValueError, r"3 bits can count positions 0..7.*use bits >= 4"),
    (lambda: LearnedPositionalEmbedding(0, 4), ValueError, "context_length must be >= 1"),
    (lambda: LearnedPositionalEmbedding(4, 4)(0), ValueError, r"n \(the sequence length\) must"),
])
def test_bad_input_is_explained(call: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        call()


def test_fixed_means_the_same_numbers_every_time() -> None:
    assert sinusoidal_encoding(8, 4) == sinusoidal_encoding(8, 4)
    assert isinstance(sinusoidal_position(2, 4), Vector)


@pytest.mark.parametrize("call, words", [
    # numbers = the table's size; bytes = numbers * 32, rounded to whole GB
    (lambda: sinusoidal_encoding(10**6, 10**4),  # 10**10 numbers, 320 GB
     r"sinusoidal_encoding\(1000000, 10000\) would hold 10,000,000,000 numbers, about 320 GB"),
    (lambda: sinusoidal_position(0, 10**10), r"10,000,000,000 numbers, about 320 GB"),
    (lambda: sinusoidal_denominators(2 * 10**10), r"10,000,000,000 numbers, about 320 GB"),
    (lambda: LearnedPositionalEmbedding(10**10, 8),  # 8e10 numbers, 2,560 GB; names its own
     r"LearnedPositionalEmbedding\(context_length=10000000000, dim=8\) would hold "
     r"80,000,000,000 numbers, about 2,560 GB"),
    (lambda: relative_shift_matrix(1, 10**5), r"10,000,000,000 numbers, about 320 GB"),
    (lambda: binary_encoding(10**5, 10**5), r"10,000,000,000 numbers, about 320 GB"),
])
def test_tables_too_big_for_a_laptop_are_refused_with_the_estimate(call: Any,
                                                                   words: str) -> None:
    with pytest.raises(ValueError, match=words + r" at ~32 bytes per number"):
        call()


def test_binary_encoding_with_a_huge_bits_does_not_compute_two_to_the_bits() -> None:
    # 2**(10**10) would be a 1.25 GB integer; 1 position of 10**10 bits is the table to refuse
    with pytest.raises(ValueError, match=r"binary_encoding\(1, 10000000000\) would hold "):
        binary_encoding(1, 10**10)
    assert binary_encoding(1, 3).tolist() == [[0.0, 0.0, 0.0]]  # position 0: every bit 0


def test_positions_past_two_to_the_53_are_refused() -> None:
    # 2**53 + 1 is the first integer a float cannot hold: float(2**53 + 1) == float(2**53)
    assert float(2**53 + 1) == float(2**53)
    with pytest.raises(ValueError, match=r"pos = 9,007,199,254,740,993 is past 2\*\*53"):
        sinusoidal_position(2**53 + 1, 4)
    with pytest.raises(ValueError, match=r"k \(the shift\) = 9,007,199,254,740,993 is past"):
        relative_shift_matrix(2**53 + 1, 4)
    with pytest.raises(ValueError, match=r"pos = ~10\*\*400 is past 2\*\*53"):
        sinusoidal_position(10**400, 4)  # before: OverflowError from float(pos)
    # 2**53 itself is exact: PE(2**53, 0) = sin(2**53), PE(2**53, 1) = cos(2**53)
    assert sinusoidal_position(2**53, 2).tolist() == [math.sin(2.0**53), math.cos(2.0**53)]


def test_a_base_whose_angles_overflow_is_refused_not_a_math_domain_error() -> None:
    # d_model = 1000: the smallest denominator is (1e-320)**(998 / 1000), about 4.4e-320,
    # and 999 / 4.4e-320 is past 1.8e308: the angle is inf, and sin(inf) a math domain error
    smallest = 1e-320 ** (998 / 1000)
    assert math.isinf(999 / smallest)
    with pytest.raises(ValueError, match=r"base = 1e-320 makes pos / base\*\*\(2i / d_model\) "
                                         r"overflow to inf at pos = 999"):
        sinusoidal_encoding(1000, 1000, base=1e-320)
    with pytest.raises(ValueError, match=r"overflow to inf at pos = 1000000000"):
        relative_shift_matrix(-10**9, 1000, base=1e-320)  # the angle of a shift back: |k|
    with pytest.raises(ValueError, match=r"base must be a finite number > 0 .* got ~10\*\*400"):
        sinusoidal_encoding(4, 4, base=10**400)  # before: OverflowError inside math.isinf


def test_sinusoidal_rows_are_the_rows_asked_for_worked_by_hand() -> None:
    from minipe.positional import sinusoidal_rows
    # d_model = 4: the denominators are 1 and 100; pos 10**6 is one row, not a 10**6-row table
    rows = sinusoidal_rows([2, 10**6, 2], 4)
    for row, pos in zip(rows.rows, (2, 10**6, 2)):
        assert row == (math.sin(pos), math.cos(pos), math.sin(pos / 100), math.cos(pos / 100))
    with pytest.raises(TypeError, match="positions must be a list of int positions, one per "
                                        "row, in the order of the rows; a set has no such"):
        sinusoidal_rows({0, 1}, 4)  # type: ignore[arg-type]


def test_a_sinusoidal_model_at_position_ten_to_the_eight_computes_three_rows() -> None:
    from minipe.training.heads import position_rows
    rows = position_rows("sinusoidal", None, 3, 4, 10000.0, [0, 10**8, 2**53])
    assert rows.rows == tuple((math.sin(pos), math.cos(pos), math.sin(pos / 100),
                               math.cos(pos / 100)) for pos in (0, 10**8, 2**53))
    model = TinyModel(7, 4, 4, positions="sinusoidal")
    # a table of every row up to 2**53 would be refused as past memory (ValueError): three rows
    logits = model.logits([1, 2, 3], position_ids=[0, 10**8, 2**53])
    assert logits.shape == (3, 7)
