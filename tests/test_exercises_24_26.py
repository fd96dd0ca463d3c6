"""Exercises 24-26 (a number stored by hand, the layer norm's backward, RoPE's table in low
precision): right answers written other ways pass, wrong ones as a learner writes them fail,
and the checker names each mistake.

As in tests/test_exercises.py, every answer is written out in full, independently of
minipe/exercises/wrong_24_26.py, and checked in tmp_path. WRONG_ANSWERS_24_26 joins
test_exercises.py's wrong answers in its count of the catalogue it covers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from minipe.exercises.catalogue import exercise
from minipe.exercises.checker import Result, check
from minipe.exercises.mistakes import MISTAKES

HEADER = "import math\nimport struct\n\nDONE = False  # the marker\n\n"

ROUND = '''
def round_to(x, dtype):
    p, emin, emax = {{"float16": (11, -14, 15), "bfloat16": ({p}, {emin}, 127)}}[dtype]
    if x == 0 or x != x or abs(x) == math.inf:
        return x
    e = math.frexp(abs(x))[1] - 1
    step = 2.0 ** ({exponent} - p + 1)
    r = {nearest} * step
    if {overflow}:
        r = math.inf
    return {signed}
'''
RIGHT_ROUND = dict(p=8, emin=-126, exponent="max(e, emin)", nearest="round(abs(x) / step)",
                   overflow="r > (2 - 2 ** (1 - p)) * 2.0 ** emax",
                   signed="math.copysign(r, x)")


def _round(**changed: str) -> str:
    return ROUND.format(**{**RIGHT_ROUND, **changed})


LAYER_NORM = '''
def layer_norm_backward(x, weight, d_out, eps):
    out = []
    for row, dy in zip(x, d_out):
        d = len(row)
        mu = sum(row) / d
        var = sum((v - mu) ** 2 for v in row) / {divisor}
        r = {r}
        xh = [(v - mu) * r for v in row]
        g = [{g} for a, w in zip(dy, weight)]
        mg = sum(g) / d
        mgx = sum(a * b for a, b in zip(g, xh)) / d
        out.append([{dx} for gj, xj in zip(g, xh)])
    return out
'''
RIGHT_LN = dict(divisor="d", r="1 / math.sqrt(var + eps)", g="a * w",
                dx="r * (gj - mg - xj * mgx)")


def _layer_norm(**changed: str) -> str:
    return LAYER_NORM.format(**{**RIGHT_LN, **changed})


ROPE = '''
from minipe import round_to

def rope_turns(pos, d, dtype):
    cos, sin = [], []
    for i in range(d // 2):
        theta = {theta}
        a = {angle}
        cos.append({cos})
        sin.append({sin})
    return [cos, sin]
'''
RIGHT_ROPE = dict(theta="round_to(10000 ** (-2 * i / d), 'float32')",
                  angle="round_to(pos * theta, 'float32')", cos="round_to(math.cos(a), dtype)",
                  sin="round_to(math.sin(a), dtype)")


def _rope(**changed: str) -> str:
    return ROPE.format(**{**RIGHT_ROPE, **changed})


def _check(tmp_path: Path, number: int, code: str) -> Result:
    path = tmp_path / f"{exercise(number).stem}.py"
    path.write_text(HEADER + code)
    return check(exercise(number), path, path.read_text())


RIGHT_ANOTHER_WAY: list[tuple[int, str]] = [
    # the exponent from log2 (exact for a power of two), ties by hand, the sign by a branch
    (24, '''
def round_to(x, dtype):
    p, emin = (8, -126) if dtype == "bfloat16" else (11, -14)
    largest = (2 - 2 ** (1 - p)) * 2.0 ** (127 if dtype == "bfloat16" else 15)
    if x == 0 or math.isnan(x) or math.isinf(x):
        return x
    sign = -1.0 if x < 0 else 1.0
    x = abs(x)
    step = math.ldexp(1.0, max(math.floor(math.log2(x)), emin) - p + 1)
    n = x / step
    low = math.floor(n)
    if n - low > 0.5 or (n - low == 0.5 and low % 2 == 1):
        low += 1
    r = low * step
    return sign * (math.inf if r > largest else r)
'''),
    # float16 through struct's half-precision 'e', bfloat16 by hand
    (24, _round().replace("    p, emin", "    if dtype == 'float16':\n        try:\n"
                          "            return struct.unpack('e', struct.pack('e', x))[0]\n"
                          "        except OverflowError:\n"
                          "            return math.copysign(math.inf, x)\n    p, emin")),
    # the variance by statistics.pvariance, the two means written out
    (25, "import statistics\n" + _layer_norm(
        divisor="1\n        var = statistics.pvariance(row)")),
    # float32 through struct's 'f' (round to nearest even, as a float32 tensor stores)
    (26, _rope(theta="struct.unpack('f', struct.pack('f', 10000 ** (-2 * i / d)))[0]",
               angle="struct.unpack('f', struct.pack('f', pos * theta))[0]")),
]


@pytest.mark.parametrize("number, code", RIGHT_ANOTHER_WAY,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(RIGHT_ANOTHER_WAY)])
def test_a_right_answer_written_another_way_passes(tmp_path: Path, number: int,
                                                   code: str) -> None:
    result = _check(tmp_path, number, code)
    assert result.status == "done", result.text


# (exercise, the mistake the checker should name, a whole stub's function)
WRONG_ANSWERS_24_26: list[tuple[int, str, str]] = [
    (24, "round-half-up", _round(nearest="math.floor(abs(x) / step + 0.5)")),
    (24, "round-truncated", _round(nearest="int(abs(x) / step)")),
    (24, "no-subnormal-floor", _round(exponent="e")),
    (24, "overflow-kept-finite", _round(overflow="False")),
    (24, "overflow-kept-finite", _round(overflow="r > 1e300")),  # a float64's own overflow
    (24, "sign-lost", _round(signed="r")),
    (24, "bfloat16-with-float16-bits", _round(p="11", emin="-14").replace(", 127)", ", 15)")),
    # bits chopped the way bfloat16 is often described: float32's top 16 bits
    (24, "round-truncated", '''
def round_to(x, dtype):
    if dtype == "float16":
        return struct.unpack('e', struct.pack('e', x))[0] if abs(x) < 65520 else x * math.inf
    bits = struct.unpack('>I', struct.pack('>f', x))[0]
    return struct.unpack('>f', struct.pack('>I', bits & 0xFFFF0000))[0]
'''),
    (25, "ln-mean-g-missing", _layer_norm(dx="r * (gj - xj * mgx)")),
    (25, "ln-x-hat-term-missing", _layer_norm(dx="r * (gj - mg)")),
    (25, "ln-statistics-constant", _layer_norm(dx="r * gj")),
    (25, "ln-unbiased-variance", _layer_norm(divisor="(d - 1)")),
    (25, "ln-eps-forgotten", _layer_norm(r="1 / math.sqrt(var)")),
    (25, "ln-eps-outside-sqrt", _layer_norm(r="1 / (math.sqrt(var) + eps)")),
    (25, "ln-weight-forgotten", _layer_norm(g="a")),
    (26, "rope-theta-in-low-precision", _rope(theta="round_to(10000 ** (-2 * i / d), dtype)")),
    (26, "rope-angle-in-low-precision", _rope(angle="round_to(pos * theta, dtype)")),
    (26, "rope-pos-in-low-precision", _rope(angle="round_to(round_to(pos, dtype) * theta, "
                                                  "'float32')")),
    (26, "rope-all-in-low-precision", _rope(
        theta="round_to(10000 ** (-2 * i / d), dtype)",
        angle="round_to(round_to(pos, dtype) * theta, dtype)")),
    (26, "rope-table-not-stored", _rope(cos="math.cos(a)", sin="math.sin(a)")),
    (26, "rope-angle-in-float64", _rope(theta="10000 ** (-2 * i / d)", angle="pos * theta")),
]


@pytest.mark.parametrize("number, key, code", WRONG_ANSWERS_24_26,
                         ids=[f"{n}-{key}-{i}" for i, (n, key, _) in
                              enumerate(WRONG_ANSWERS_24_26)])
def test_a_wrong_answer_fails_and_its_mistake_is_named(tmp_path: Path, number: int, key: str,
                                                       code: str) -> None:
    result = _check(tmp_path, number, code)
    assert result.status == "wrong", result.text
    assert result.mistake == key, result.text
    sentence = " ".join(result.text.split())
    assert f"A known mistake, {key}: {MISTAKES[key].why}" in sentence
    assert f"{MISTAKES[key].where()} has it right" in sentence


def test_each_exercise_has_four_wrong_answers_and_every_mistake_one() -> None:
    for number in (24, 25, 26):
        answers = [key for n, key, _ in WRONG_ANSWERS_24_26 if n == number]
        assert len(answers) >= 4
        assert {key for key, _ in exercise(number).wrong} == set(answers)


def test_the_lessons_numbers_are_in_the_cases() -> None:
    """257 in bfloat16 (a tie), 65520 in float16 (overflow), 2**-25 (a tie at the bottom),
    position 1857 (gpt-neox issue 1003) and a constant row (var 0: only eps keeps r finite)."""
    rounds = exercise(24).cases()
    assert (257.0, "bfloat16") in rounds and (65520.0, "float16") in rounds
    assert (2.0 ** -25, "float16") in rounds
    assert any(x > 1e38 for x, _ in rounds) and any(0 < abs(x) < 1e-38 for x, _ in rounds)
    assert (1857, 32, "float16") in exercise(26).cases()
    assert any(row == [5.0] * 4 for case in exercise(25).cases() for row in case[0])


def test_round_to_worked_by_hand(tmp_path: Path) -> None:
    """A few values worked by hand, not by the code under test: 257 = 256 + 1 lies halfway
    between bfloat16's 256 and 258 (spacing 2**(8 - 8 + 1)); 256 = 1.0000000 x 2**8 has an
    even last bit, so 256. 0.1 in float16: spacing 2**(-4 - 10), 0.1 / 2**-14 = 1638.4 ->
    1638 * 2**-14 = 0.0999755859375. 65520 = 65504 + 16, half float16's spacing of 32 there:
    a tie, to 65536 (even), past 65504: inf."""
    from minipe.exercises.reference import round_to
    assert round_to(257.0, "bfloat16") == 256.0
    assert round_to(0.1, "float16") == 1638 * 2.0 ** -14
    assert round_to(65520.0, "float16") == float("inf")
    assert round_to(2.0 ** -25, "float16") == 0.0  # half of 2**-24, to the even 0
