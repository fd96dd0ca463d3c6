"""Appendix A: Vector, Matrix, Batch - values worked by hand."""

from __future__ import annotations

import math
import random
import sys
from typing import Any, Callable

import pytest

from minipe import Batch, Matrix, ShapeError, Vector, add, allclose, subtract
from minipe.arrays.vector import dot, dot_by_map

# --- Vector -----------------------------------------------------------------


def test_vector_basics() -> None:
    v = Vector([3, 4])
    assert v.shape == (2,)
    assert len(v) == 2
    assert list(v) == [3.0, 4.0]
    assert v[0] == 3.0 and v[-1] == 4.0
    assert v.dot(Vector([1, 2])) == 11.0  # 3*1 + 4*2
    assert v.norm() == 5.0  # the 3-4-5 triangle
    assert (v + Vector([1, 1])).tolist() == [4.0, 5.0]
    assert (v - Vector([1, 1])).tolist() == [2.0, 3.0]
    assert (v * 2).tolist() == [6.0, 8.0]
    assert (2 * v).tolist() == [6.0, 8.0]
    assert (v / 2).tolist() == [1.5, 2.0]
    assert (-v).tolist() == [-3.0, -4.0]
    assert (v + 1).tolist() == [4.0, 5.0]  # a number broadcasts
    assert (10 - v).tolist() == [7.0, 6.0]


def test_vector_equality_compares_values() -> None:
    assert Vector([1, 2]) == Vector([1.0, 2.0])
    assert Vector([1, 2]) != Vector([1, 3])
    assert Vector([1, 2]) != [1.0, 2.0]  # type: ignore[comparison-overlap]  # a list is not a Vector


@pytest.mark.parametrize("bad, error, words", [
    ([1, "2"], TypeError, r"Vector values\[1\] must be a number"),
    ([1, None], TypeError, "must be a number"),
    ([1, True], TypeError, "must be a number"),
    ([1, math.nan], ValueError, r"Vector values\[1\] is NaN"),
    ([], ValueError, "at least one number"),
    ("12", TypeError, "list of numbers"),
    (5, TypeError, "list of numbers"),
])
def test_vector_rejects_bad_values(bad: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        Vector(bad)


def test_vector_shape_mistakes() -> None:
    with pytest.raises(ShapeError, match=r"cannot dot shapes \(2,\) and \(3,\)"):
        Vector([1, 2]).dot(Vector([1, 2, 3]))
    with pytest.raises(TypeError, match="dot needs a Vector"):
        Vector([1, 2]).dot([1, 2])  # type: ignore[arg-type]
    with pytest.raises(ShapeError, match=r"cannot add shapes \(2,\) and \(3,\): axis -1"):
        Vector([1, 2]) + Vector([1, 2, 3])
    with pytest.raises(TypeError, match="use @ for a matrix product, or .dot"):
        Vector([1, 2]) * Vector([1, 2])  # type: ignore[operator]
    with pytest.raises(ZeroDivisionError, match="cannot divide a Vector by 0"):
        Vector([1, 2]) / 0
    with pytest.raises(ValueError, match="NaN"):
        Vector([1, 2]) * math.nan
    with pytest.raises(IndexError, match=r"Vector index 2 is out of range: valid are 0..1"):
        Vector([1, 2])[2]


# --- Matrix -----------------------------------------------------------------

def test_matrix_basics() -> None:
    m = Matrix([[1, 2, 3], [4, 5, 6]])
    assert m.shape == (2, 3)
    assert len(m) == 2
    assert m[1] == Vector([4, 5, 6])  # row 1
    assert m[1, 2] == 6.0
    assert [row.tolist() for row in m] == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert m.T.tolist() == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
    assert Matrix.zeros(2, 3).tolist() == [[0.0] * 3, [0.0] * 3]


def test_matmul_by_hand() -> None:
    a = Matrix([[1, 2], [3, 4]])
    b = Matrix([[5, 6], [7, 8]])
    # [[1*5 + 2*7, 1*6 + 2*8], [3*5 + 4*7, 3*6 + 4*8]]
    assert (a @ b).tolist() == [[19.0, 22.0], [43.0, 50.0]]
    assert (a @ Vector([1, 1])).tolist() == [3.0, 7.0]  # row sums
    assert (Vector([1, 1]) @ a).tolist() == [4.0, 6.0]  # column sums: one token through W
    rectangular = Matrix([[1, 0, 2]]) @ Matrix([[1], [2], [3]])  # (1, 3) @ (3, 1)
    assert rectangular.tolist() == [[7.0]]


def test_matmul_agrees_with_the_textbook_triple_loop() -> None:
    a = Matrix([[(i * 7 + j * 3) % 5 - 2.5 for j in range(6)] for i in range(4)])  # (4, 6)
    b = Matrix([[(i * 2 + j * 5) % 7 * 0.5 for j in range(3)] for i in range(6)])  # (6, 3)
    a_rows, b_rows = a.tolist(), b.tolist()
    expected = [[0.0] * 3 for _ in range(4)]
    for i in range(4):
        for j in range(3):
            for k in range(6):
                expected[i][j] += a_rows[i][k] * b_rows[k][j]
    assert allclose(a @ b, expected)


def test_both_forms_of_the_dot_product_agree_with_a_naive_loop() -> None:
    # vector.py's dot is math.sumprod on CPython 3.12+ and dot_by_map before: each is
    # compared with the textbook loop, total += a[j] * b[j], on rows of mixed signs
    rng = random.Random(5)
    forms: list[Callable[[list[float], list[float]], float]] = [dot_by_map]
    if sys.version_info >= (3, 12):
        forms.append(math.sumprod)
    assert dot in forms  # the one the arrays use is one of those tested here
    for length in (1, 2, 8, 64, 768):
        a = [rng.uniform(-1.0, 1.0) for _ in range(length)]
        b = [rng.uniform(-1.0, 1.0) for _ in range(length)]
        naive = 0.0
        for j in range(length):
            naive += a[j] * b[j]
        for form in forms:
            assert math.isclose(form(a, b), naive, rel_tol=1e-12, abs_tol=1e-12)
    assert dot_by_map([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]) == 32.0  # 4 + 10 + 18
    assert Vector([1, 2, 3]).dot(Vector([4, 5, 6])) == 32.0  # by the same one line


def test_arrays_are_slots_without_a_dict() -> None:
    # __slots__: a Vector, Matrix or Batch holds its one tuple and no __dict__
    for array in (Vector([1.0]), Matrix([[1.0]]), Batch([[[1.0]]])):
        assert not hasattr(array, "__dict__")
        with pytest.raises(AttributeError):
            setattr(array, "extra", 1)  # frozen, and no slot for it


def test_slices_take_and_transpose_share_the_numbers_of_their_matrix() -> None:
    # m[a:b] and m.take(ids) hold m's own row tuples; m.T m's own floats: nothing copied
    m = Matrix([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert m[1:3].rows[0] is m.rows[1] and m.take([2, 0]).rows[0] is m.rows[2]
    assert m.T.tolist() == [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]  # row j is column j, by hand
    assert m.T.rows[1][2] is m.rows[2][1] and m.T.T == m


def test_the_quick_look_and_the_close_one_agree() -> None:
    # rows as lists, tuples, Vectors, a zip or a generator: the same Matrix, numbers as given
    expected = [[1.0, 2.0], [3.0, 4.0]]
    for rows in ([[1.0, 2.0], [3.0, 4.0]], ((1.0, 2.0), (3.0, 4.0)), [[1, 2], [3, 4]],
                 [Vector([1, 2]), Vector([3, 4])], zip([1.0, 3.0], [2.0, 4.0]),
                 ([x, x + 1.0] for x in (1.0, 3.0))):
        assert Matrix(rows).tolist() == expected
    # a row with inf and -inf sums to NaN, yet holds no NaN: the closer look lets it in
    assert Matrix([[math.inf, -math.inf]]).tolist() == [[math.inf, -math.inf]]
    with pytest.raises(ShapeError, match=r"Matrix rows\[1\] has 1"):
        Matrix([Vector([1, 2]), Vector([3])])  # Vectors of two widths
    with pytest.raises(ValueError, match=r"Matrix rows\[1\]\[0\] is NaN"):
        Matrix([[1.0], [math.nan]])


def test_matrix_shape_mistakes() -> None:
    with pytest.raises(ShapeError, match=r"\(2, 3\) @ \(2, 3\)"):
        Matrix([[1, 2, 3], [4, 5, 6]]) @ Matrix([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ShapeError, match=r"\(2, 2\) @ \(3,\)"):
        Matrix([[1, 2], [3, 4]]) @ Vector([1, 2, 3])
    with pytest.raises(ShapeError, match=r"ragged rows: Matrix rows\[0\] has 2 values but "
                       r"Matrix rows\[1\] has 1"):
        Matrix([[1, 2], [3]])
    with pytest.raises(ValueError, match="no rows"):
        Matrix([])
    with pytest.raises(ValueError, match=r"Matrix rows\[1\]\[0\] is NaN"):
        Matrix([[1.0], [math.nan]])
    with pytest.raises(IndexError, match=r"Matrix row index 5 is out of range: valid are 0..1"):
        Matrix([[1], [2]])[5]
    with pytest.raises(ValueError, match="rows must be >= 1"):
        Matrix.zeros(0, 3)
    with pytest.raises(TypeError, match="use @ for a matrix product"):
        Matrix([[1]]) * Matrix([[1]])  # type: ignore[operator]


def test_matrix_plus_vector_adds_to_every_row() -> None:
    m = Matrix([[1, 2], [3, 4]])
    assert (m + Vector([10, 20])).tolist() == [[11.0, 22.0], [13.0, 24.0]]
    assert (Vector([10, 20]) + m).tolist() == [[11.0, 22.0], [13.0, 24.0]]
    assert (m - Vector([1, 1])).tolist() == [[0.0, 1.0], [2.0, 3.0]]
    assert (Matrix([[1], [2]]) + Vector([10, 20, 30])).tolist() == [
        [11.0, 21.0, 31.0], [12.0, 22.0, 32.0]]  # (2, 1) + (3,) -> (2, 3)


def test_infinity_is_allowed_for_masks() -> None:
    assert Matrix([[0.0, -math.inf]])[0, 1] == -math.inf


# --- Batch ------------------------------------------------------------------

def test_lecture_001_broadcast_8_by_4_by_256() -> None:
    # token embeddings (8, 4, 256): entry [b][t][j] = b
    # positions (4, 256): entry [t][j] = 100*t + j
    tokens = Batch([[[float(b)] * 256 for _ in range(4)] for b in range(8)])
    positions = Matrix([[100.0 * t + j for j in range(256)] for t in range(4)])
    inputs = tokens + positions
    assert tokens.shape == (8, 4, 256)
    assert positions.shape == (4, 256)
    assert inputs.shape == (8, 4, 256)
    # row t of the table is added to token t of every sequence b
    for b in range(8):
        for t in range(4):
            assert inputs[b][t, 0] == b + 100.0 * t
            assert inputs[b][t, 255] == b + 100.0 * t + 255


def test_batch_basics_and_mistakes() -> None:
    batch = Batch([Matrix([[1, 2]]), [[3, 4]]])  # Matrix objects or nested lists
    assert batch.shape == (2, 1, 2)
    assert batch[1] == Matrix([[3, 4]])
    assert (batch * 2).tolist() == [[[2.0, 4.0]], [[6.0, 8.0]]]
    assert (batch - Vector([1, 1])).tolist() == [[[0.0, 1.0]], [[2.0, 3.0]]]
    with pytest.raises(ShapeError, match=r"ragged batch: Batch\[0\] has shape \(1, 2\) but "
                       r"Batch\[1\] has \(1, 3\)"):
        Batch([[[1, 2]], [[1, 2, 3]]])
    with pytest.raises(ValueError, match="at least one matrix"):
        Batch([])
    with pytest.raises(ShapeError, match=r"cannot add shapes \(2, 1, 2\) and \(3,\)"):
        batch + Vector([1, 2, 3])


# --- add, subtract, allclose ------------------------------------------------

def test_add_works_across_kinds() -> None:
    assert add(1.5, 2) == 3.5
    assert add(Vector([1, 2]), 1) == Vector([2, 3])
    assert subtract(Vector([1, 2]), Vector([1, 1])) == Vector([0, 1])
    with pytest.raises(TypeError, match=r"wrap a list first, e.g. Vector\(\[...\]\)"):
        add(Vector([1, 2]), [1, 2])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="cannot add str"):
        add("1", Vector([1]))  # type: ignore[arg-type]


def test_allclose() -> None:
    assert allclose(Vector([0.1 + 0.2]), [0.3])  # 0.30000000000000004 is close to 0.3
    assert not allclose(Vector([1.0]), [1.001])
    assert allclose(Vector([1.0]), [1.001], rel_tol=1e-2)
    assert allclose(Matrix([[1, 2]]), [[1, 2]])
    assert allclose(Batch([[[1]]]), [[[1.0]]])
    assert allclose(2.0, 2.0)
    with pytest.raises(ShapeError,
                       match=r"allclose needs two equal shapes, got \(2,\) and \(1, 2\)"):
        allclose(Vector([1, 2]), Matrix([[1, 2]]))


# --- immutability -----------------------------------------------------------

def test_nothing_a_caller_holds_changes_an_object() -> None:
    values = [1.0, 2.0]
    v = Vector(values)
    values[0] = 99.0  # the list it was built from
    assert v.tolist() == [1.0, 2.0]
    out = v.tolist()
    out[0] = 99.0  # the list it gave back
    assert v.tolist() == [1.0, 2.0]

    rows = [[1.0, 2.0], [3.0, 4.0]]
    m = Matrix(rows)
    rows[0][0] = 99.0
    m.tolist()[1][1] = 99.0
    assert m.tolist() == [[1.0, 2.0], [3.0, 4.0]]

    batch = Batch([m])
    batch.tolist()[0][0][0] = 99.0
    assert batch[0] == m

    # frozen dataclasses: an attribute can be neither set nor deleted
    with pytest.raises(AttributeError, match="cannot assign to field 'values'"):
        v.values = (5.0,)  # type: ignore[misc]
    with pytest.raises(AttributeError):
        m.shape = (1, 1)  # type: ignore[misc]
    with pytest.raises(AttributeError, match="cannot delete field 'values'"):
        del v.values
    assert v.tolist() == [1.0, 2.0]


# --- repr and str: short at any size ----------------------------------------

def test_repr_is_short_at_any_size() -> None:
    assert repr(Vector([0.0, 1.0])) == "Vector([0.0, 1.0], shape=(2,))"
    assert repr(Vector(range(100))) == \
        "Vector([0.0, 1.0, 2.0, ..., 97.0, 98.0, 99.0], shape=(100,))"
    big = Matrix([[float(i * 1000 + j) for j in range(768)] for i in range(1024)])
    text = repr(big)
    assert text == ("Matrix([[0.0, 1.0, ..., 766.0, 767.0], ..., "
                    "[1.023e+06, 1.023e+06, ..., 1.0238e+06, 1.0238e+06]], shape=(1024, 768))")
    assert repr(Batch([big, big])) == (
        "Batch([[[0.0, 1.0, ..., 766.0, 767.0], ...], ..., "
        "[..., [1.023e+06, 1.023e+06, ..., 1.0238e+06, 1.0238e+06]]], shape=(2, 1024, 768))")
    assert repr(Batch([[[1.0]]])) == "Batch([[[1.0]]], shape=(1, 1, 1))"


def test_str_is_a_grid_with_edges() -> None:
    lines = str(Matrix([[float(j) for j in range(20)] for _ in range(20)])).splitlines()
    assert len(lines) == 7  # 3 rows, '...', 3 rows
    assert lines[0] == "[[ 0.0000  1.0000  2.0000     ... 17.0000 18.0000 19.0000]"
    assert lines[3].strip() == "..."


def test_slices_give_shorter_vectors_and_fewer_rows() -> None:
    m = Matrix([[1, 2], [3, 4], [5, 6]])
    assert m[:2] == Matrix([[1, 2], [3, 4]])  # rows 0 and 1
    assert m[1][1:] == Vector([4])
    assert Vector([1, 2, 3])[::2] == Vector([1, 3])
    with pytest.raises(IndexError, match="would be empty: the Matrix has 3 rows"):
        m[5:]


def test_no_array_ever_holds_nan() -> None:
    # IEEE makes NaN of inf - inf and inf * 0; the constructor of the result refuses it
    nan_made = "is NaN \\(inf - inf and inf \\* 0 make NaN\\); minipe refuses NaN"
    with pytest.raises(ValueError, match=r"Vector values\[0\] " + nan_made):
        Vector([math.inf]) - Vector([math.inf])
    with pytest.raises(ValueError, match=r"Batch\[0\]: Matrix rows\[0\]\[1\] " + nan_made):
        Batch([[[1.0, math.inf]]]) + Vector([0.0, -math.inf])
    with pytest.raises(ValueError, match=nan_made):
        Matrix([[math.inf, 1.0]]) * 0
    with pytest.raises(ValueError, match=nan_made):
        Vector([math.inf]) / math.inf
    with pytest.raises(ValueError, match=nan_made):
        Matrix([[math.inf, 1.0]]) @ Vector([0.0, 1.0])  # inf * 0 + 1 * 1
    with pytest.raises(ValueError, match=nan_made):
        Matrix([[math.inf, 1.0]]) @ Matrix([[0.0], [1.0]])
    # a dot product is a plain float, and IEEE's: inf * 0 + 1 * 1 is NaN
    assert math.isnan(Vector([math.inf, 1.0]).dot(Vector([0.0, 1.0])))
    with pytest.raises(ValueError, match="too large for a float"):
        Vector([10 ** 400])
    # infinities that do not cancel are fine: the sum check looks closer before it refuses
    assert (Vector([math.inf, -math.inf]) + 1).tolist() == [math.inf, -math.inf]
    assert (Matrix([[-math.inf, 1.0]]) * 2).tolist() == [[-math.inf, 2.0]]
    # the operators' results are looked at for NaN only; a row of inf and -inf (sum NaN)
    # is looked at closer, and let in, by Matrix and by Batch alike
    assert (Matrix([[math.inf, 1.0]]) - Vector([0.0, math.inf])).tolist() == [
        [math.inf, -math.inf]]
    assert (Batch([[[math.inf, 1.0]]]) + Vector([0.0, -math.inf])).tolist() == [
        [[math.inf, -math.inf]]]


def test_operator_results_hold_floats_only() -> None:
    # The operators skip the constructor's type look: floats combined with floats (or with
    # an int operand, which IEEE arithmetic turns into a float) are floats. Checked here on
    # every operator, with int operands where an operator takes a number.
    m, v = Matrix([[1, 2], [3, 4]]), Vector([1, 2])
    b = Batch([[[1, 2], [3, 4]]])
    results: list[Vector | Matrix | Batch] = [
        m + m, m - m, m + v, v + m, m - v, v - m, m + 3, 3 - m, m * 2, 2 * m, m / 4, -m,
        m @ m, m @ v, v @ m, m.T, b + m, m + b, b - m, m - b, b * 2, b / 2, b + 1]
    for result in results:
        numbers: list[Any] = result.tolist()
        while numbers and isinstance(numbers[0], list):
            numbers = [x for part in numbers for x in part]
        assert numbers and all(type(x) is float for x in numbers), result


def test_division_divides_each_number() -> None:
    # x / 5, not x * (1 / 5): 3 / 5 is 0.6 exactly as Python prints it
    assert (Vector([3.0, 1.0]) / 5).tolist() == [3.0 / 5, 1.0 / 5]
    assert (Vector([3.0]) / 5).tolist() == [0.6]
    assert (Matrix([[3.0]]) / 5).tolist() == [[0.6]]


def test_format_matrix_labels() -> None:
    from minipe import format_matrix
    assert format_matrix(Matrix([[1, 2]]), ["row"]) == "row  [ 1.0000  2.0000]"
    with pytest.raises(TypeError, match="one per row, not one str"):
        format_matrix(Matrix([[1, 2]]), "ab")
    with pytest.raises(ShapeError, match="format_matrix got 2 row labels for 1 rows"):
        format_matrix(Matrix([[1, 2]]), ["a", "b"])


def test_the_types_of_arithmetic_follow_the_shapes() -> None:
    """The annotations are checked by mypy --strict (tests/test_types.py): it knows the type
    of `token_embeddings + position_encodings`. The asserts check the objects themselves."""
    v = Vector([1, 2])
    m = Matrix([[1, 2], [3, 4]])
    b = Batch([m, m])
    vector_plus_vector: Vector = v + v
    matrix_plus_vector: Matrix = m + v
    vector_plus_matrix: Matrix = v + m
    batch_plus_matrix: Batch = b + m
    matrix_plus_batch: Batch = m + b  # Matrix + Batch: Batch.__radd__ answers
    vector_minus_batch: Batch = v - b
    matrix_times_matrix: Matrix = m @ m
    matrix_times_vector: Vector = m @ v
    scaled: Matrix = 2 * m / 4 - 1
    negated: Batch = -b
    assert type(vector_plus_vector) is Vector and vector_plus_vector.tolist() == [2.0, 4.0]
    assert type(matrix_plus_vector) is Matrix and matrix_plus_vector == vector_plus_matrix
    assert type(batch_plus_matrix) is Batch and batch_plus_matrix == matrix_plus_batch
    assert vector_minus_batch.tolist() == [[[0.0, 0.0], [-2.0, -2.0]]] * 2  # v - row, per row
    assert matrix_times_matrix.tolist() == [[7.0, 10.0], [15.0, 22.0]]  # worked by hand
    assert matrix_times_vector.tolist() == [5.0, 11.0]  # [1 + 4, 3 + 8]
    assert scaled.tolist() == [[-0.5, 0.0], [0.5, 1.0]]  # 2 * x / 4 - 1
    assert negated.tolist() == [[[-1.0, -2.0], [-3.0, -4.0]]] * 2


def test_results_too_big_for_a_laptop_are_refused_with_the_estimate() -> None:
    # numbers at ~32 bytes each; the limit is about 4 GB (125,000,000 numbers)
    with pytest.raises(ValueError, match=r"Matrix.zeros\(100000, 100000\) would hold "
                                         r"10,000,000,000 numbers, about 320 GB"):
        Matrix.zeros(10**5, 10**5)
    column = Matrix([[1.0]] * 20000)  # (20000, 1): 20,000 numbers, a small input
    row = Vector([1.0] * 20000)  # (20000,)
    # (20000, 1) + (20000,) broadcasts to (20000, 20000): 4e8 numbers, 12.8 GB -> "13 GB"
    with pytest.raises(ValueError, match=r"the add of shapes \(20000, 1\) and \(20000,\) would "
                                         r"hold 400,000,000 numbers, about 13 GB"):
        column + row
    # (20000, 1) @ (1, 20000): the same 4e8 numbers
    with pytest.raises(ValueError, match=r"\(20000, 1\) @ \(1, 20000\) would hold 400,000,000"):
        column @ column.T
    assert (Matrix([[1.0]] * 3) + Vector([1.0, 2.0])).tolist() == [[2.0, 3.0]] * 3  # small: fine


def test_take_picks_rows_and_checks_only_the_ids() -> None:
    m = Matrix([[0, 1], [2, 3], [4, 5]])
    taken = m.take([2, 0, 2])
    assert taken.tolist() == [[4.0, 5.0], [0.0, 1.0], [4.0, 5.0]]  # rows 2, 0, 2, by hand
    assert taken.rows[0] is m.rows[2]  # shared, not copied
    with pytest.raises(IndexError, match=r"ids\[1\] = 3 is out of range: the table has 3 rows, "
                                         r"so valid IDs are 0..2"):
        m.take([0, 3])
    with pytest.raises(IndexError, match=r"negative IDs do not wrap around"):
        m.take([-1])
    with pytest.raises(TypeError, match=r"rows\[0\] must be an int ID, got True"):
        m.take([True], name="rows")


def test_concatenate_joins_rows_or_columns_and_shares_the_numbers() -> None:
    a = Matrix([[1, 2], [3, 4]])  # (2, 2)
    b = Matrix([[5, 6]])  # (1, 2)
    c = Matrix([[7], [8]])  # (2, 1)
    joined = Matrix.concatenate([a, b])  # rows one after another: (3, 2), by hand
    assert joined.tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert joined.rows[2] is b.rows[0]  # shared, not copied
    beside = Matrix.concatenate([a, c], axis=1)  # columns side by side: (2, 3), by hand
    assert beside.tolist() == [[1.0, 2.0, 7.0], [3.0, 4.0, 8.0]]
    assert beside.rows[1][2] is c.rows[1][0]  # the same float object
    assert Matrix.concatenate([a]).rows == a.rows
    with pytest.raises(ShapeError, match=r"cannot concatenate shapes \(2, 2\) and \(2, 1\) "
                                         r"\(matrix 1\) along axis 0: axis 1 has 2 vs 1"):
        Matrix.concatenate([a, c])
    with pytest.raises(ShapeError, match=r"along axis 1: axis 0 has 2 vs 1"):
        Matrix.concatenate([a, b], axis=1)
    with pytest.raises(ValueError, match=r"axis must be 0 .* or 1 .*, got 2"):
        Matrix.concatenate([a, a], axis=2)
    with pytest.raises(TypeError, match="a non-empty list of Matrix"):
        Matrix.concatenate([])
    with pytest.raises(TypeError, match="a non-empty list of Matrix"):
        Matrix.concatenate([a, [[1.0, 2.0]]])  # type: ignore[list-item]
