"""Chapter 7, part 3: RoPE and sinusoids with chosen steps rounded, worked by hand and against
torch's own dtypes (low_precision_reference.json, from
tests/reference/make_low_precision_reference.py, run by hand)."""

from __future__ import annotations

import ast
import json
import math
import random
import re
from pathlib import Path
from typing import Any

import pytest

from minipe import (Matrix, Precision, Vector, apply_rotary, rounded_angle, rounded_score,
                    rounded_sinusoids, rounded_turns, softmax)
from minipe.low_precision import stored
from minipe.positional import sinusoidal_rows

ROOT = Path(__file__).resolve().parent.parent
REFERENCE: dict[str, Any] = json.loads(
    (ROOT / "tests" / "reference" / "low_precision_reference.json").read_text(encoding="utf-8"))
D = 128
CHOSEN = (4095, 32767)
STRIDED = range(32767 % 97, 32768, 97)  # the lesson's positions, as the reference script's
ROPE = {name: case for name, case in REFERENCE["rope"].items() if "steps" in case}
F32, F16, B16 = "float32", "float16", "bfloat16"
SCORES = {"float64": Precision(), "cos and sin in bfloat16": Precision(F32, F32, F32, B16),
          "everything in bfloat16": Precision.everywhere(B16)}
ONE_FLOAT32_STEP = 2.0 ** -24  # the spacing of float32 in [0.5, 1): torch's float32 cos is
# not always the nearest float32, so a float32 cos may be one step from the rounded exact one


def _errors(cosines: Matrix, positions: range | tuple[int, ...]) -> list[list[float]]:
    """|cos - cos(pos * theta_i)| against float64's, theta_i = 10000**(-2i/128) written here."""
    return [[abs(value - math.cos(pos * 10000 ** (-2 * i / D))) for i, value in enumerate(row)]
            for pos, row in zip(positions, cosines.tolist())]


def _random_vector(rng: random.Random) -> Vector:
    return Vector([rng.gauss(0, 1) for _ in range(D)])


# --- worked by hand ------------------------------------------------------------------------


def test_a_position_is_stored_as_its_format_holds_it() -> None:
    # 4095 = 2**12 - 1 needs 12 significant bits; bfloat16 keeps 8, float16 11: both round
    # up to 4096 (float16: a tie between 4094 and 4096, to the even 4096 = 2**12)
    assert (stored(4095.0, B16), stored(4095.0, F16), stored(4095.0, F32)) == (4096, 4096, 4095)
    assert stored(0.1, "float64") == 0.1  # float64 is Python's float: kept


def test_gpt_neox_1003_by_hand() -> None:
    # theta_1 = 10000**(-2/32) = 0.56234; float16 has spacing 2**-11 in [0.5, 1): 0.56234 *
    # 2048 = 1151.67 -> 1152 / 2048 = 0.5625. 1857 * 0.5625 = 1044.5625, and float16 keeps
    # only integers in [1024, 2048): 1045. 1857 < 2048 is kept as it is.
    assert rounded_angle(1857, 1, 32, at=Precision.everywhere(F16)) == 1045.0
    assert rounded_angle(1857, 1, 32, at=Precision(theta=F16)) == 1857 * 0.5625
    assert rounded_angle(1857, 1, 32, at=Precision(pos=F16)) == 1857 * 10000 ** (-2 / 32)


def test_inv_freq_in_bfloat16_by_hand() -> None:
    # theta_1 = 10000**(-2/128) = 0.86596; bfloat16 has spacing 2**-8 in [0.5, 1): 221.69 ->
    # 222 / 256 = 0.8671875; at 4095 the angle moves by 4095 * 0.0012232 = 5.009 radians
    cosines, sines = rounded_turns([4095], D, at=Precision(theta=B16))
    assert cosines[0][1] == math.cos(4095 * 222 / 256)
    assert sines[0][1] == math.sin(4095 * 222 / 256)
    assert cosines[0][0] == math.cos(4095)  # theta_0 = 1 is kept


def test_in_float64_each_function_is_its_chapters() -> None:
    positions = [0, 1, 7, 1000]
    cosines, sines = rounded_turns(positions, 8)
    for pos, cos_row, sin_row in zip(positions, cosines, sines):
        assert list(cos_row) == [math.cos(pos * 10000 ** (-2 * i / 8)) for i in range(4)]
        assert list(sin_row) == [math.sin(pos * 10000 ** (-2 * i / 8)) for i in range(4)]
    assert rounded_sinusoids(positions, 6) == sinusoidal_rows(positions, 6)  # chapter 3's lines
    assert rounded_sinusoids([3], 5) == sinusoidal_rows([3], 5)  # an odd d_model ends on a sine
    q, k = Vector([1.0, 2.0, 3.0, 4.0]), Vector([0.5, -1.0, 2.0, 1.0])
    turned_q = apply_rotary(Matrix([list(q)]), start=10)[0]  # chapter 5's rotation
    turned_k = apply_rotary(Matrix([list(k)]), start=3)[0]
    assert math.isclose(rounded_score(q, k, 10, 3), turned_q.dot(turned_k), rel_tol=1e-14)


def test_only_the_offset_counts_in_float64_not_rounded() -> None:
    rng = random.Random(0)
    q, k = _random_vector(rng), _random_vector(rng)
    exact = [rounded_score(q, k, 10 + s, 3 + s) for s in (0, 8, 1000)]
    assert max(exact) - min(exact) < 1e-12
    rounded = [rounded_score(q, k, 10 + s, 3 + s, at=Precision.everywhere(B16)) for s in (0, 1000)]
    assert abs(rounded[1] - rounded[0]) > 1
    assert all(value * 256 == round(value * 256) for value in rounded)  # bfloat16 near 4


def test_rows_2048_and_2049_of_a_float16_table() -> None:
    table = rounded_sinusoids([2048, 2049], 16, at=Precision(pos=F16))
    assert table[0] == table[1] == sinusoidal_rows([2048], 16)[0]  # 2049 is stored as 2048


# --- against torch ----------------------------------------------------------------------------


def test_the_formats_are_torchs() -> None:
    formats = REFERENCE["formats"]
    for dtype in (F32, F16, B16):
        saved = formats[dtype]
        assert [stored(float(n), dtype) for n in (257, 2049, 4095)] == [
            saved["stored_257"], saved["stored_2049"], saved["stored_4095"]]
    assert formats["bfloat16"]["largest_exact_integer"] == 256
    assert formats["bfloat16"]["distinct_4096"] == 257 + 4 * 128  # 0..256, then 128 an octave
    assert formats["bfloat16_spacing_at_65536"] == 2.0 ** (16 - 7)  # 7 mantissa bits


@pytest.mark.parametrize("name", list(ROPE))
def test_roundings_of_rope_give_torchs_cosines(name: str) -> None:
    case = ROPE[name]
    at = Precision(*case["steps"])
    cosines, _ = rounded_turns(list(CHOSEN), D, at=at)
    for pos, row in zip(CHOSEN, cosines.tolist()):
        torch_row = case[f"cos_{pos}"]
        if at.table == F32:
            assert all(abs(a - b) <= ONE_FLOAT32_STEP for a, b in zip(row, torch_row)), pos
        else:
            assert row == torch_row, pos
    for pos, errors in zip(CHOSEN, _errors(cosines, CHOSEN)):
        assert sum(error > 0.01 for error in errors) == case[f"off_{pos}"]
        assert math.isclose(max(errors), case[f"max_{pos}"], abs_tol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(ROPE))
def test_the_largest_error_over_the_strided_positions_is_torchs(name: str) -> None:
    cosines, _ = rounded_turns(STRIDED, D, at=Precision(*ROPE[name]["steps"]))
    largest = max(map(max, _errors(cosines, STRIDED)))
    assert math.isclose(largest, ROPE[name]["max_error_strided"], abs_tol=1e-6)


def test_the_lesson_quotes_torchs_largest_errors() -> None:
    lesson = (ROOT / "walkthroughs" / "26_numbers_a_gpu_stores.py").read_text(encoding="utf-8")
    stated = re.search(r"^TORCH_ALL_POSITIONS = (\{.*?\})$", lesson, re.M | re.S)
    assert stated is not None
    quoted = ast.literal_eval(stated.group(1))
    assert quoted == {name: round(case["max_error_all"], 4) for name, case in ROPE.items()}


def test_the_libraries_inv_freq_gives_the_same_39_pairs() -> None:
    """The float32 inv_freq torch computes (1 / base ** (arange / d)) differs from the cast of
    the float64 theta_i in 19 of 64 pairs, by one step; at 4095 it puts the same 39 pairs
    off, by the same 1.679."""
    library = REFERENCE["rope"]["hf_inv_freq"]
    assert library["bits_equal_to_the_cast"] == 45
    assert library["off_4095"] == ROPE["inv_freq in bfloat16"]["off_4095"] == 39
    assert round(library["max_4095"], 3) == round(ROPE["inv_freq in bfloat16"]["max_4095"], 3)


def test_gpt_neox_1003_as_torch_computes_it() -> None:
    saved = REFERENCE["neox_1003"]
    assert rounded_angle(1857, 1, 32, at=Precision.everywhere(F32)) == saved["angle_float32"]
    assert rounded_angle(1857, 1, 32, at=Precision.everywhere(F16)) == saved["angle_float16"]
    float32, _ = rounded_turns(range(2048), 32, at=Precision.everywhere(F32))
    float16, _ = rounded_turns(range(2048), 32, at=Precision.everywhere(F16))
    moved = [abs(a - b) for row32, row16 in zip(float32.tolist(), float16.tolist())
             for a, b in zip(row32, row16)]
    assert math.isclose(max(moved), saved["max_cos_change"], abs_tol=1e-6)
    assert list(divmod(moved.index(max(moved)), 16)) == saved["at"]


@pytest.mark.parametrize("name", list(SCORES))
def test_scores_under_a_shift_are_torchs(name: str) -> None:
    rng = random.Random(0)
    q, k = _random_vector(rng), _random_vector(rng)
    scores = [rounded_score(q, k, 10 + s, 3 + s, at=SCORES[name]) for s in (0, 8, 100, 1000, 4000)]
    if name == "everything in bfloat16":
        assert scores == REFERENCE["relativity"][name]
    else:
        assert all(math.isclose(a, b, abs_tol=1e-12)
                   for a, b in zip(scores, REFERENCE["relativity"][name]))


@pytest.mark.parametrize("name", list(SCORES))
def test_a_shift_of_position_ids_moves_the_weights_as_in_torch(name: str) -> None:
    rng = random.Random(0)
    q = _random_vector(rng)
    rng = random.Random(1)
    keys = [_random_vector(rng) for _ in range(8)]
    for shift in (5, 1000):
        scores = [[rounded_score(q, key, 7 + s, j + s, at=SCORES[name]) / math.sqrt(D)
                   for j, key in enumerate(keys)] for s in (0, shift)]
        weights = [list(softmax(row)) for row in scores]
        saved = REFERENCE["shifted"][f"{name}, shift {shift}"]
        moved = (max(abs(a - b) for a, b in zip(*scores)),
                 max(abs(a - b) for a, b in zip(*weights)))
        if name == "float64":
            assert moved[0] < 1e-12 and saved["scores"] < 1e-12
        else:
            assert math.isclose(moved[0], saved["scores"], rel_tol=1e-9)
            assert math.isclose(moved[1], saved["weights"], rel_tol=1e-6)


def test_a_sinusoidal_table_in_float16_is_torchs() -> None:
    for name, at in (("in float16", Precision.everywhere(F16)),
                     ("float32, cast", Precision(F32, F32, F32, F16))):
        rows = rounded_sinusoids([2048, 2049], 64, at=at).tolist()
        saved = REFERENCE["sinusoids"][name]
        assert rows == [saved["row_2048"], saved["row_2049"]]
        assert (rows[0] == rows[1]) == saved["equal"]


# --- the door --------------------------------------------------------------------------------


def test_what_the_door_refuses() -> None:
    with pytest.raises(ValueError, match="pos must be one of 'float64'"):
        Precision(pos="float8")
    with pytest.raises(ValueError, match="dtype must be one of"):
        stored(1.0, "half")
    with pytest.raises(TypeError, match="at must be a Precision"):
        rounded_turns([1], 4, at="bfloat16")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="position 70000 is past float16's largest value"):
        rounded_turns([70000], 4, at=Precision(pos=F16))
    with pytest.raises(ValueError, match="RoPE needs an even d"):
        rounded_turns([1], 5)
    with pytest.raises(ValueError, match="i must be a pair"):
        rounded_angle(3, 2, 4)
    with pytest.raises(TypeError, match="i must be an int"):
        rounded_angle(3, 1.0, 4)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="pos must be an int"):
        rounded_angle(None, 1, 4)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="past bfloat16's largest value"):
        rounded_score(Vector([1e39, 2.0]), Vector([1.0, 2.0]), 0, 1,
                      at=Precision.everywhere(B16))
    with pytest.raises(ValueError, match="q and k must have one width"):
        rounded_score(Vector([1.0, 2.0]), Vector([1.0, 2.0, 3.0, 4.0]), 0, 1)
    with pytest.raises(ValueError, match="m must be >= 0"):
        rounded_score(Vector([1.0, 2.0]), Vector([1.0, 2.0]), -1, 1)
