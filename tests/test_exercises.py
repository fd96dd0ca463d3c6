"""The exercises check themselves (issue 21): right answers pass, known mistakes get named.

Every stub here is written into tmp_path, never into walkthroughs/. A wrong
solution below is written out in full, the way a learner would get it wrong,
independently of minipe/exercises/wrong.py: the test asks whether the checker
recognises the mistake, not whether wrong.py agrees with itself.
"""

from __future__ import annotations

import ast
import inspect
import math
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from minipe.__main__ import main
from minipe.exercises import checker, solutions, stubs
from minipe.exercises.catalogue import EXERCISES, exercise
from minipe.exercises.checker import Result, check
from minipe.exercises.mistakes import ISSUE_21, ISSUE_30, MISTAKES, ROOT
from test_exercises_24_26 import WRONG_ANSWERS_24_26
from test_exercises_outside import NAMED as OUTSIDE

STUBS = ROOT / "walkthroughs" / "exercises"
HEADER = "import math\nimport re\n\nDONE = False  # the marker\n\n"


def _check(tmp_path: Path, number: int, code: str) -> Result:
    path = tmp_path / f"{exercise(number).stem}.py"
    path.write_text(HEADER + code)
    return check(exercise(number), path, path.read_text())


# ---------------------------------------------------------------------------
# Right answers pass, however they are written
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("number", range(1, len(EXERCISES) + 1))
def test_every_reference_solution_passes(tmp_path: Path, number: int) -> None:
    source = inspect.getsource(solutions).replace("from __future__ import annotations", "")
    result = _check(tmp_path, number, source)
    assert result.status == "done", result.text
    assert f"all {len(exercise(number).cases())} cases agree" in result.text


RIGHT_ANOTHER_WAY = {
    # math.fsum, a loop, a tuple returned
    6: "def softmax(scores):\n    top = scores[0]\n    for s in scores:\n        if s > top:\n"
       "            top = s\n    exps = tuple(math.exp(s - top) for s in scores)\n"
       "    total = math.fsum(exps)\n    return tuple(e / total for e in exps)\n",
    # one comprehension, tuples for rows, an int d_model // 2 written as range(0, d, 2)
    4: "def pe_table(num_positions, d_model):\n"
       "    return [tuple(f(pos / 10000 ** (j / d_model)) for j in range(0, d_model, 2)\n"
       "                  for f in (math.sin, math.cos)) for pos in range(num_positions)]\n",
    # a dict of sums, then the table
    15: "def lookup_backward(ids, d_X, vocab_size):\n    sums = {}\n    flat = sum(ids, [])\n"
        "    for t, token_id in enumerate(flat):\n        old = sums.get(token_id, [0.0] * "
        "len(d_X[0]))\n        sums[token_id] = [a + b for a, b in zip(old, d_X[t])]\n"
        "    return [sums.get(i, [0.0] * len(d_X[0])) for i in range(vocab_size)]\n",
    # minipe's own pieces are allowed
    14: "from minipe import Matrix, apply_rotary, scaled_dot_product_attention\n"
        "def cached_step(q, k, v, keys, values):\n    n = len(keys)\n"
        "    q1 = apply_rotary(Matrix([q]), start=n)\n"
        "    k1 = apply_rotary(Matrix([k]), start=n).tolist()\n"
        "    out = scaled_dot_product_attention(q1, Matrix(keys + k1), Matrix(values + [v]))\n"
        "    return out.output.tolist()[0]\n",
    # the padding gets -1 here: not checked, so not wrong
    13: "import itertools\ndef position_ids(attention_mask):\n"
        "    return [[c - 1 if m else -1 for c, m in zip(itertools.accumulate(row), row)]\n"
        "            for row in attention_mask]\n",
}


@pytest.mark.parametrize("number", sorted(RIGHT_ANOTHER_WAY))
def test_a_right_solution_written_another_way_passes(tmp_path: Path, number: int) -> None:
    result = _check(tmp_path, number, RIGHT_ANOTHER_WAY[number])
    assert result.status == "done", result.text


# ---------------------------------------------------------------------------
# Known mistakes are caught and named
# ---------------------------------------------------------------------------

PE_ROW = ("def pe_position(pos, d_model):\n    row = []\n    for i in range(d_model // 2):\n"
          "        angle = {angle}\n        row.append(math.{first}(angle))\n"
          "        row.append(math.{second}(angle))\n    return row\n")
PE_TABLE = PE_ROW + ("def pe_table(num_positions, d_model):\n    return [pe_position(pos{shift}, "
                     "d_model) for pos in range(num_positions)]\n")
RIGHT_ANGLE = "pos / 10000 ** (2 * i / d_model)"
ROTATE = ("def rotate_row(row, pos, layout):\n    d = len(row)\n    out = list(row)\n"
          "    for i in range(d // 2):\n        a, b = {pairs}\n"
          "        angle = ({position}) * {base} ** (-2 * i / d)\n"
          "        out[a] = row[a] * math.cos(angle) - row[b] * math.sin(angle)\n"
          "        out[b] = row[a] * math.sin(angle) + row[b] * math.cos(angle)\n    return out\n")
INTERLEAVED, HALF = "(2 * i, 2 * i + 1)", "(i, i + d // 2)"
EITHER = "(2 * i, 2 * i + 1) if layout == 'interleaved' else (i, i + d // 2)"
ATTEND = ("def causal_attention(q, k, v):\n    out = []\n    for i, q_i in enumerate(q):\n"
          "        s = [sum(a * b for a, b in zip(q_i, k_j)){scale} for k_j in k]\n"
          "        s = [x if j <= i else {hidden} for j, x in enumerate(s)]\n"
          "        m = max(s)\n        e = [math.exp(x - m) for x in s]\n"
          "        w = [x / sum(e) for x in e]\n"
          "        out.append([sum(w_j * v_j[c] for w_j, v_j in zip(w, v))"
          " for c in range(len(v[0]))])\n    return out\n")
STEP = ("from minipe import Matrix, apply_rotary\n"
        "def cached_step(q, k, v, keys, values):\n    n = len(keys)\n"
        "    q = {query}\n    k = apply_rotary(Matrix([k]), start=n).tolist()\n"
        "    K = {keys}\n    s = [sum(a * b for a, b in zip(q, key)){scale} for key in K]\n"
        "    m = max(s)\n    e = [math.exp(x - m) for x in s]\n    w = [x / sum(e) for x in e]\n"
        "    V = values + [v]\n"
        "    return [sum(w_j * v_j[c] for w_j, v_j in zip(w, V)) for c in range(len(v))]\n")
TURNED_Q = "apply_rotary(Matrix([q]), start=n).tolist()[0]"
SQRT = " / math.sqrt(len(q))"
BROADCAST_BACK = ("def broadcast_backward(d_X, context_length):\n"
                  "    d_P = [[0.0] * len(d_X[0][0]) for _ in range(context_length)]\n{body}"
                  "    return d_P\n")

MERGE_EACH = """    out = []
    for piece in pieces:
        i = 0
        while i < len(piece):
            if tuple(piece[i:i + 2]) == best:
                out.append(new_id)
                i += 2
            else:
                out.append(piece[i])
                i += 1
    return out
"""  # exercise 22's merge, left to right in every piece, after a pair `best` is chosen

MISTAKE_SOLUTIONS: list[tuple[str, int, str]] = [
    ("sin-cos-swapped", 3, PE_ROW.format(angle=RIGHT_ANGLE, first="cos", second="sin")),
    ("halves-for-interleaved", 4, "def pe_table(num_positions, d_model):\n    rows = []\n"
     "    for pos in range(num_positions):\n"
     "        angles = [pos / 10000 ** (2 * i / d_model) for i in range(d_model // 2)]\n"
     "        rows.append([math.sin(a) for a in angles] + [math.cos(a) for a in angles])\n"
     "    return rows\n"),
    ("rope-half-for-interleaved", 10, ROTATE.format(pairs=HALF, position="pos", base=10000)),
    ("rope-interleaved-for-half", 10, ROTATE.format(pairs=INTERLEAVED, position="pos",
                                                    base=10000)),
    ("base-100000", 3, PE_ROW.format(angle="pos / 100000 ** (2 * i / d_model)",
                                     first="sin", second="cos")),
    ("base-1000", 4, PE_TABLE.format(angle="pos / 1000 ** (2 * i / d_model)", first="sin",
                                     second="cos", shift="")),
    ("rope-base-100000", 10, ROTATE.format(pairs=EITHER, position="pos", base=100000)),
    ("rope-base-1000", 10, ROTATE.format(pairs=EITHER, position="pos", base=1000)),
    ("positions-from-1", 4, PE_TABLE.format(angle=RIGHT_ANGLE, first="sin", second="cos",
                                            shift=" + 1")),
    ("rope-positions-from-1", 10, ROTATE.format(pairs=EITHER, position="pos + 1", base=10000)),
    ("exponent", 3, PE_ROW.format(angle="pos / 10000 ** (i / d_model)", first="sin",
                                  second="cos")),
    ("arange-for-cumsum", 13, "def position_ids(attention_mask):\n"
     "    return [list(range(len(row))) for row in attention_mask]\n"),
    ("keys-turned-twice", 14, STEP.format(
        query=TURNED_Q, scale=SQRT, keys="apply_rotary(Matrix(keys + k)).tolist()")),
    ("missing-sqrt", 7, ATTEND.format(scale="", hidden="-math.inf")),
    ("missing-sqrt", 14, STEP.format(query=TURNED_Q, scale="", keys="keys + k")),
    ("mask-zero", 7, ATTEND.format(scale=" / math.sqrt(len(q_i))", hidden="0.0")),
    ("wrong-axis", 5, "def add_positions(tokens, table):\n"
     "    return [[[x + p for x, p in zip(token, table[b])] for token in seq]\n"
     "            for b, seq in enumerate(tokens)]\n"),
    ("backward-wrong-axis", 16, BROADCAST_BACK.format(
        body="    for b, d_x in enumerate(d_X):\n"
             "        d_P[b] = [sum(col) for col in zip(*d_x)]\n")),
    ("softmax-no-max", 6, "def softmax(scores):\n    e = [math.exp(x) for x in scores]\n"
     "    return [x / sum(e) for x in e]\n"),
    ("lookup-overwrites", 15, "def lookup_backward(ids, d_X, vocab_size):\n"
     "    d_E = [[0.0] * len(d_X[0]) for _ in range(vocab_size)]\n"
     "    for token_id, row in zip([i for s in ids for i in s], d_X):\n"
     "        d_E[token_id] = row\n    return d_E\n"),
    ("alibi-sign", 11, "def alibi(seq_len, slope):\n"
     "    return [[slope * (i - j) if j <= i else -math.inf for j in range(seq_len)]\n"
     "            for i in range(seq_len)]\n"),
    # the mistakes the checker names beyond issue 21's list
    ("mask-missing", 7, ATTEND.format(scale=" / math.sqrt(len(q_i))", hidden="x")),
    ("turned-the-wrong-way", 9, "def turn_pair(x, y, pos, theta):\n    a = pos * theta\n"
     "    return [x * math.cos(a) + y * math.sin(a), -x * math.sin(a) + y * math.cos(a)]\n"),
    ("shift-the-wrong-way", 8, "def shift_matrix(k, d_model):\n"
     "    m = [[0.0] * d_model for _ in range(d_model)]\n    for i in range(d_model // 2):\n"
     "        a = k / 10000 ** (2 * i / d_model)\n"
     "        m[2 * i][2 * i], m[2 * i][2 * i + 1] = math.cos(a), -math.sin(a)\n"
     "        m[2 * i + 1][2 * i], m[2 * i + 1][2 * i + 1] = math.sin(a), math.cos(a)\n"
     "    return m\n"),
    ("t5-sides-swapped", 12, "def t5_bucket(r):\n    offset = 16 if r < 0 else 0\n    n = abs(r)\n"
     "    if n < 8:\n        return offset + n\n"
     "    return offset + min(8 + int(math.log(n / 8) / math.log(16) * 8), 15)\n"),
    ("query-not-turned", 14, STEP.format(query="q", scale=SQRT, keys="keys + k")),
    ("mean-for-sum", 16, BROADCAST_BACK.format(
        body="    for d_x in d_X:\n        for t, row in enumerate(d_x):\n"
             "            d_P[t] = [a + b / len(d_X) for a, b in zip(d_P[t], row)]\n")),
]


@pytest.mark.parametrize("key, number, code", MISTAKE_SOLUTIONS,
                         ids=[f"{key}-{number}" for key, number, _ in MISTAKE_SOLUTIONS])
def test_every_catalogued_mistake_is_caught_and_named(tmp_path: Path, key: str, number: int,
                                                      code: str) -> None:
    result = _check(tmp_path, number, code)
    assert result.status == "wrong", result.text
    assert result.mistake == key, result.text
    text = " ".join(result.text.split())  # the sentence is wrapped to the terminal
    assert f"A known mistake, {key}: " in text
    assert f"{MISTAKES[key].where()} has it right" in text


def test_the_wrong_solutions_cover_the_whole_catalogue_and_issues_21_and_30() -> None:
    written = ({key for key, _, _ in MISTAKE_SOLUTIONS} | {key for _, key, _ in WRONG_ANSWERS}
               | {key for _, key, _ in WRONG_ANSWERS_24_26}  # test_exercises_24_26.py's
               | set(OUTSIDE.values()))  # WRONG_ANSWERS is below; OUTSIDE, from outside
    assert written - {""} == set(MISTAKES)
    assert len(ISSUE_21) == 13 and len(ISSUE_30) == 12
    assert {key for keys in ISSUE_21.values() for key in keys} <= set(MISTAKES)
    assert {key for keys in ISSUE_30.values() for key in keys} <= set(MISTAKES)


def test_every_mistake_points_at_a_line_that_is_there() -> None:
    for mistake in MISTAKES.values():
        file, number = mistake.where().rsplit(":", 1)  # a line, not only a file
        lines = (ROOT / file).read_text().splitlines()
        assert any(needle in lines[int(number) - 1] for path, needle in mistake.places
                   if path == file), mistake.key


def test_the_grid_shows_expected_yours_and_their_difference(tmp_path: Path) -> None:
    code = PE_TABLE.format(angle=RIGHT_ANGLE, first="cos", second="sin", shift="")
    lines = _check(tmp_path, 4, code).text.splitlines()
    # pe_table(4, 4), row 1: [sin 1, cos 1, sin 0.01, cos 0.01] = [0.8415, 0.5403, 0.0100, 1.0000]
    assert lines[0] == "case 1 of 4: pe_table(4, 4)"
    at = lines.index("  [1]  expected    [ 0.8415  0.5403  0.0100  1.0000]")
    assert lines[at + 1] == "       yours       [ 0.5403  0.8415  1.0000  0.0100]"
    # 0.5403 - 0.8415 = -0.3012, 1 - 0.01 = 0.99 (to 4 decimals)
    assert lines[at + 2] == "       difference  [-0.3012  0.3012  0.9900 -0.9900]"
    assert "  ... 1 more differing (of 4 rows)" in lines  # three rows shown of the four


# ---------------------------------------------------------------------------
# Issue 30: wrong answers as a learner writes them, not as the checker's wrong.py does
# ---------------------------------------------------------------------------

# (exercise, the mistake the checker should name or "" where none fits, a whole stub's
# function). Each holds one real mistake, written the way someone who has read only the
# stub would make it: loops, comprehensions, in-place edits, minipe's own pieces.
WRONG_ANSWERS: list[tuple[int, str, str]] = [
    (1, "encode-not-lowered", '''
def encode(text, vocabulary):
    words = text.split()  # no lower-casing, punctuation glued to words
    return [vocabulary.index(w) if w in vocabulary else vocabulary.index("<|unk|>")
            for w in words]
'''),
    (1, "", '''
def encode(text, vocabulary):
    tokens = re.findall(r"<\\|\\w+\\|>|\\w+|[^\\w\\s]", text.lower())
    return [vocabulary.index(token) for token in tokens]  # no <|unk|>: 'dog' raises
'''),
    (2, "ids-from-1", '''
def lookup(table, ids):
    out = []
    for token_id in ids:
        out.append(list(table[token_id - 1]))  # the first row is ID 1
    return out
'''),
    (2, "", '''
def lookup(table, ids):
    return [[row[i] for row in table] for i in ids]  # column i, not row i
'''),
    (3, "sin-cos-swapped", '''
def pe_position(pos, d_model):
    row = [0.0] * d_model
    for j in range(0, d_model, 2):
        angle = pos / 10000 ** (j / d_model)
        row[j] = math.cos(angle)
        row[j + 1] = math.sin(angle)
    return row
'''),
    (3, "exponent", '''
def pe_position(pos, d_model):
    row = []
    for j in range(d_model):
        angle = pos / 10000 ** (j / d_model)  # the column's own j
        row.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
    return row
'''),
    (3, "base-1000", '''
def pe_position(pos, d_model):
    out = []
    for i in range(d_model // 2):
        w = 1 / 1000 ** (2 * i / d_model)
        out += [math.sin(pos * w), math.cos(pos * w)]
    return out
'''),
    (4, "positions-from-1", '''
def pe_table(num_positions, d_model):
    table = []
    for pos in range(1, num_positions + 1):
        row = []
        for i in range(d_model // 2):
            angle = pos / 10000 ** (2 * i / d_model)
            row += [math.sin(angle), math.cos(angle)]
        table.append(row)
    return table
'''),
    (4, "halves-for-interleaved", '''
def pe_table(num_positions, d_model):
    table = []
    for pos in range(num_positions):
        sines = [math.sin(pos / 10000 ** (2 * i / d_model)) for i in range(d_model // 2)]
        cosines = [math.cos(pos / 10000 ** (2 * i / d_model)) for i in range(d_model // 2)]
        table.append(sines + cosines)
    return table
'''),
    (4, "integer-division", '''
def pe_table(num_positions, d_model):
    return [[f(pos / 10000 ** (2 * i // d_model)) for i in range(d_model // 2)
             for f in (math.sin, math.cos)] for pos in range(num_positions)]
'''),
    (5, "changed-its-arguments", '''
def add_positions(tokens, table):
    for sequence in tokens:
        for t, token in enumerate(sequence):
            for c in range(len(token)):
                token[c] += table[t][c]  # in place: quicker, and the shapes are right
    return tokens
'''),
    (5, "wrong-axis", '''
def add_positions(tokens, table):
    return [[[x + p for x, p in zip(token, row)] for token in sequence]
            for sequence, row in zip(tokens, table)]
'''),
    (5, "row-0-everywhere", '''
def add_positions(tokens, table):
    out = []
    for sequence in tokens:
        out.append([[x + p for x, p in zip(token, table[0])] for token in sequence])
    return out  # row 0 for every token
'''),
    (6, "softmax-min", '''
def softmax(scores):
    low = min(scores)  # shift so every number is >= 0
    exps = [math.exp(s - low) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]
'''),
    (6, "max-in-numerator-only", '''
def softmax(scores):
    m = max(scores)
    total = sum(math.exp(s) for s in scores)
    return [math.exp(s - m) / total for s in scores]
'''),
    (6, "changed-its-arguments", '''
def softmax(scores):
    m = max(scores)
    for i in range(len(scores)):
        scores[i] = math.exp(scores[i] - m)
    total = sum(scores)
    return [s / total for s in scores]
'''),
    (6, "softmax-no-max", '''
def softmax(scores):
    exps = list(map(math.exp, scores))
    return [e / math.fsum(exps) for e in exps]
'''),
    (6, "softmax-mean", '''
def softmax(scores):
    mean = sum(scores) / len(scores)  # centre them: exp stays moderate
    exps = [math.exp(s - mean) for s in scores]
    return [e / sum(exps) for e in exps]
'''),
    (7, "mask-after-softmax", '''
def causal_attention(q, k, v):
    d_k = len(q[0])
    out = []
    for i in range(len(q)):
        scores = [sum(a * b for a, b in zip(q[i], key)) / math.sqrt(d_k) for key in k]
        m = max(scores)
        e = [math.exp(s - m) for s in scores]
        weights = [x / sum(e) for x in e]
        weights = [w if j <= i else 0.0 for j, w in enumerate(weights)]  # then hide the future
        out.append([sum(w * row[c] for w, row in zip(weights, v)) for c in range(len(v[0]))])
    return out
'''),
    (7, "mask-strict", '''
def causal_attention(q, k, v):
    out = []
    for i, query in enumerate(q):
        scores = []
        for j, key in enumerate(k):
            s = sum(a * b for a, b in zip(query, key)) / math.sqrt(len(query))
            scores.append(s if j < i else -math.inf)
        m = max(scores)
        e = [math.exp(s - m) for s in scores]
        total = sum(e)
        out.append([sum(e[j] / total * v[j][c] for j in range(len(v))) for c in range(len(v[0]))])
    return out
'''),
    (7, "missing-sqrt", '''
from minipe import Matrix, softmax
def causal_attention(q, k, v):
    Q, K, V = Matrix(q), Matrix(k), Matrix(v)
    scores = (Q @ K.T).tolist()
    rows = []
    for i, row in enumerate(scores):
        w = softmax([s if j <= i else -math.inf for j, s in enumerate(row)])
        rows.append(list(w))
    return (Matrix(rows) @ V).tolist()
'''),
    (7, "sqrt-of-n", '''
def causal_attention(q, k, v):
    scale = math.sqrt(len(q))  # the number of tokens
    out = []
    for i, qi in enumerate(q):
        s = [sum(a * b for a, b in zip(qi, kj)) / scale if j <= i else -math.inf
             for j, kj in enumerate(k)]
        m = max(s)
        e = [math.exp(x - m) for x in s]
        out.append([sum(ej / sum(e) * vj[c] for ej, vj in zip(e, v)) for c in range(len(v[0]))])
    return out
'''),
    (7, "softmax-no-max", '''
def causal_attention(q, k, v):
    out = []
    for i, qi in enumerate(q):
        e = [math.exp(sum(a * b for a, b in zip(qi, kj)) / math.sqrt(len(qi))) if j <= i
             else 0.0 for j, kj in enumerate(k)]
        out.append([sum(ej / sum(e) * vj[c] for ej, vj in zip(e, v)) for c in range(len(v[0]))])
    return out
'''),
    (8, "exponent", '''
def shift_matrix(k, d_model):
    M = [[0.0] * d_model for _ in range(d_model)]
    for i in range(d_model // 2):
        w = 1 / 10000 ** (i / d_model)
        c, s = math.cos(k * w), math.sin(k * w)
        M[2 * i][2 * i], M[2 * i][2 * i + 1] = c, s
        M[2 * i + 1][2 * i], M[2 * i + 1][2 * i + 1] = -s, c
    return M
'''),
    (8, "shift-the-wrong-way", '''
def shift_matrix(k, d_model):
    M = [[0.0] * d_model for _ in range(d_model)]
    for i in range(d_model // 2):
        w = 1 / 10000 ** (2 * i / d_model)
        c, s = math.cos(k * w), math.sin(k * w)
        M[2 * i][2 * i], M[2 * i][2 * i + 1] = c, -s  # a rotation matrix as in the books
        M[2 * i + 1][2 * i], M[2 * i + 1][2 * i + 1] = s, c
    return M
'''),
    (9, "turned-the-wrong-way", '''
def turn_pair(x, y, pos, theta):
    c, s = math.cos(pos * theta), math.sin(pos * theta)
    return [c * x + s * y, -s * x + c * y]
'''),
    (9, "rope-positions-from-1", '''
def turn_pair(x, y, pos, theta):
    m = pos + 1  # the first token is token 1
    return [x * math.cos(m * theta) - y * math.sin(m * theta),
            x * math.sin(m * theta) + y * math.cos(m * theta)]
'''),
    (10, "rope-interleaved-for-half", '''
def rotate_row(row, pos, layout):
    d = len(row)
    out = []
    for i in range(d // 2):  # the layout: interleaved is what the paper does
        a = pos * 10000 ** (-2 * i / d)
        x, y = row[2 * i], row[2 * i + 1]
        out += [x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)]
    return out
'''),
    (10, "rope-exponent", '''
def rotate_row(row, pos, layout):
    d = len(row)
    out = list(row)
    for i in range(d // 2):
        a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + d // 2)
        angle = pos * 10000 ** (-i / d)  # theta_i
        out[a] = row[a] * math.cos(angle) - row[b] * math.sin(angle)
        out[b] = row[a] * math.sin(angle) + row[b] * math.cos(angle)
    return out
'''),
    (10, "changed-its-arguments", '''
def rotate_row(row, pos, layout):
    d = len(row)
    for i in range(d // 2):
        a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + d // 2)
        angle = pos * 10000 ** (-2 * i / d)
        x, y = row[a], row[b]
        row[a] = x * math.cos(angle) - y * math.sin(angle)
        row[b] = x * math.sin(angle) + y * math.cos(angle)
    return row
'''),
    (11, "alibi-no-mask", '''
def alibi(seq_len, slope):
    return [[-slope * abs(i - j) for j in range(seq_len)] for i in range(seq_len)]
'''),
    (11, "alibi-sign", '''
def alibi(seq_len, slope):
    bias = []
    for i in range(seq_len):
        bias.append([slope * (j - i) * -1 if j <= i else -math.inf for j in range(seq_len)])
    return bias
'''),
    (11, "mask-strict", '''
def alibi(seq_len, slope):
    return [[-slope * (i - j) if j < i else -math.inf for j in range(seq_len)]
            for i in range(seq_len)]
'''),
    (12, "t5-no-clamp", '''
def t5_bucket(relative_position):
    half = 16
    bucket = half if relative_position > 0 else 0
    n = abs(relative_position)
    if n < 8:
        return bucket + n
    return bucket + 8 + int(math.log(n / 8) / math.log(128 / 8) * (half - 8))
'''),
    (12, "t5-not-halved", '''
def t5_bucket(relative_position):
    num_buckets, max_distance = 32, 128
    max_exact = num_buckets // 2
    offset = num_buckets if relative_position > 0 else 0
    n = abs(relative_position)
    if n < max_exact:
        return offset + n
    large = max_exact + int(math.log(n / max_exact) / math.log(max_distance / max_exact)
                            * (num_buckets - max_exact))
    return offset + min(large, num_buckets - 1)
'''),
    (12, "t5-zero-upper", '''
def t5_bucket(relative_position):
    offset = 16 if relative_position >= 0 else 0  # the query's own key: upper half too
    n = abs(relative_position)
    if n < 8:
        return offset + n
    return offset + min(8 + int(math.log(n / 8) / math.log(16) * 8), 15)
'''),
    (13, "position-ids-from-1", '''
import itertools
def position_ids(attention_mask):
    return [list(itertools.accumulate(row)) for row in attention_mask]
'''),
    (13, "arange-for-cumsum", '''
def position_ids(attention_mask):
    out = []
    for row in attention_mask:
        out.append([t for t in range(len(row))])
    return out
'''),
    (14, "new-token-at-0", '''
from minipe import Matrix, apply_rotary
def cached_step(q, k, v, keys, values):
    q = apply_rotary(Matrix([q])).tolist()[0]  # the new token, rotated
    k = apply_rotary(Matrix([k])).tolist()[0]
    K, V = keys + [k], values + [v]
    s = [sum(a * b for a, b in zip(q, key)) / math.sqrt(len(q)) for key in K]
    m = max(s)
    e = [math.exp(x - m) for x in s]
    return [sum(ej / sum(e) * vj[c] for ej, vj in zip(e, V)) for c in range(len(v))]
'''),
    (14, "v-turned", '''
from minipe import Matrix, apply_rotary
def cached_step(q, k, v, keys, values):
    n = len(keys)
    q, k, v = (apply_rotary(Matrix([x]), start=n).tolist()[0] for x in (q, k, v))
    K, V = keys + [k], values + [v]
    s = [sum(a * b for a, b in zip(q, key)) / math.sqrt(len(q)) for key in K]
    m = max(s)
    e = [math.exp(x - m) for x in s]
    return [sum(ej / sum(e) * vj[c] for ej, vj in zip(e, V)) for c in range(len(v))]
'''),
    (14, "keys-turned-twice", '''
from minipe import Matrix, apply_rotary, scaled_dot_product_attention
def cached_step(q, k, v, keys, values):
    n = len(keys)
    K = apply_rotary(Matrix(keys + [k]))  # every key at its position 0 .. n
    Q = apply_rotary(Matrix([q]), start=n)
    return scaled_dot_product_attention(Q, K, Matrix(values + [v])).output.tolist()[0]
'''),
    (14, "", '''
from minipe import Matrix, apply_rotary
def cached_step(q, k, v, keys, values):
    n = len(keys)
    q = apply_rotary(Matrix([q]), start=n).tolist()[0]
    K = keys + apply_rotary(Matrix([k]), start=n).tolist()
    s = [sum(a * b for a, b in zip(q, key)) / math.sqrt(len(K)) for key in K]  # n + 1 keys
    m = max(s)
    e = [math.exp(x - m) for x in s]
    V = values + [v]
    return [sum(ej / sum(e) * vj[c] for ej, vj in zip(e, V)) for c in range(len(v))]
'''),
    (15, "lookup-batch-offset", '''
def lookup_backward(ids, d_X, vocab_size):
    d_E = [[0.0] * len(d_X[0]) for _ in range(vocab_size)]
    for sequence in ids:
        for t, token_id in enumerate(sequence):
            for c in range(len(d_X[t])):
                d_E[token_id][c] += d_X[t][c]
    return d_E
'''),
    (15, "lookup-overwrites", '''
def lookup_backward(ids, d_X, vocab_size):
    width = len(d_X[0])
    d_E = {i: [0.0] * width for i in range(vocab_size)}
    flat = [i for sequence in ids for i in sequence]
    for row, token_id in zip(d_X, flat):
        d_E[token_id] = list(row)
    return [d_E[i] for i in range(vocab_size)]
'''),
    (16, "mean-for-sum", '''
def broadcast_backward(d_X, context_length):
    d_P = [[0.0] * len(d_X[0][0]) for _ in range(context_length)]
    for t in range(len(d_X[0])):
        for c in range(len(d_X[0][0])):
            d_P[t][c] = sum(d_x[t][c] for d_x in d_X) / len(d_X)  # averaged over the batch
    return d_P
'''),
    (17, "positions-not-restarted", '''
def pack_documents(documents):
    ids = [token for document in documents for token in document]
    labels = []
    for document in documents:
        labels += [-100] + document[1:]
    return [ids, list(range(len(ids))), labels]
'''),
    (17, "labels-not-ignored", '''
def pack_documents(documents):
    ids, positions = [], []
    for document in documents:
        ids.extend(document)
        positions.extend(range(len(document)))
    return [ids, positions, list(ids)]  # the labels are the inputs
'''),
    (17, "labels-shifted", '''
def pack_documents(documents):
    ids, positions, labels = [], [], []
    for document in documents:
        ids += document
        positions += list(range(len(document)))
        labels += document[1:] + [-100]  # predict the next token; nothing after the last
    return [ids, positions, labels]
'''),
    (17, "changed-its-arguments", '''
def pack_documents(documents):
    ids = documents[0]
    for document in documents[1:]:
        ids += document
    positions = [p for document in documents for p in range(len(document))]
    labels = [-100 if p == 0 else i for i, p in zip(ids, positions)]
    return [ids, positions, labels]
'''),
    (18, "document-mask-not-causal", '''
def document_mask(position_ids):
    document, documents = -1, []
    for p in position_ids:
        if p == 0:
            document += 1
        documents.append(document)
    return [[a == b for b in documents] for a in documents]
'''),
    (18, "document-mask-causal-only", '''
def document_mask(position_ids):
    n = len(position_ids)
    return [[j <= i for j in range(n)] for i in range(n)]  # causal, as in exercise 7
'''),
    (18, "mask-strict", '''
def document_mask(position_ids):
    starts = [t - p for t, p in enumerate(position_ids)]
    return [[starts[i] == starts[j] and j < i for j in range(len(starts))]
            for i in range(len(starts))]
'''),
    (19, "evict-not-turned-back", '''
def evict(keys, values, sinks, window):
    if len(keys) <= sinks + window:
        return [keys, values]
    return [keys[:sinks] + keys[-window:], values[:sinks] + values[-window:]]
'''),
    (19, "evict-turned-forward", '''
from minipe import Matrix, apply_rotary
def evict(keys, values, sinks, window):
    evicted = len(keys) - sinks - window
    if evicted <= 0:
        return [keys, values]
    moved = apply_rotary(Matrix(keys[-window:]), positions=[evicted] * window)
    return [keys[:sinks] + moved.tolist(), values[:sinks] + values[-window:]]
'''),
    (19, "evict-values-turned", '''
def evict(keys, values, sinks, window):
    evicted = len(keys) - sinks - window
    if evicted <= 0:
        return [keys, values]
    def back(row):
        d = len(row)
        out = list(row)
        for i in range(d // 2):
            a = -evicted * 10000 ** (-2 * i / d)
            x, y = row[2 * i], row[2 * i + 1]
            out[2 * i], out[2 * i + 1] = (x * math.cos(a) - y * math.sin(a),
                                          x * math.sin(a) + y * math.cos(a))
        return out
    return [keys[:sinks] + [back(r) for r in keys[-window:]],
            values[:sinks] + [back(r) for r in values[-window:]]]  # keys and values alike
'''),
    (19, "evict-no-sinks", '''
def evict(keys, values, sinks, window):
    keep = sinks + window
    evicted = len(keys) - keep
    if evicted <= 0:
        return [keys, values]
    def back(row):
        d = len(row)
        out = list(row)
        for i in range(d // 2):
            a = -evicted * 10000 ** (-2 * i / d)
            x, y = row[2 * i], row[2 * i + 1]
            out[2 * i], out[2 * i + 1] = (x * math.cos(a) - y * math.sin(a),
                                          x * math.sin(a) + y * math.cos(a))
        return out
    return [[back(r) for r in keys[-keep:]], values[-keep:]]  # the newest tokens
'''),
    (19, "", '''
def evict(keys, values, sinks, window):
    evicted = len(keys) - window  # how many are dropped
    if len(keys) <= sinks + window:
        return [keys, values]
    def back(row):
        d = len(row)
        out = list(row)
        for i in range(d // 2):
            a = -evicted * 10000 ** (-2 * i / d)
            x, y = row[2 * i], row[2 * i + 1]
            out[2 * i], out[2 * i + 1] = (x * math.cos(a) - y * math.sin(a),
                                          x * math.sin(a) + y * math.cos(a))
        return out
    return [keys[:sinks] + [back(r) for r in keys[-window:]], values[:sinks] + values[-window:]]
'''),
    (20, "partial-theta-of-d", '''
def partial_rotary(row, pos, rotary_dims):
    d = len(row)
    out = list(row)
    for i in range(rotary_dims // 2):
        a = pos * 10000 ** (-2 * i / d)  # theta_i as in exercise 10
        x, y = row[2 * i], row[2 * i + 1]
        out[2 * i], out[2 * i + 1] = x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)
    return out
'''),
    (20, "partial-wrong-columns", '''
from minipe import Matrix, apply_rotary
def partial_rotary(row, pos, rotary_dims):
    keep = len(row) - rotary_dims
    turned = apply_rotary(Matrix([row[keep:]]), start=pos).tolist()[0]
    return row[:keep] + turned  # the rest first, then the turned part
'''),
    (20, "rope-half-for-interleaved", '''
from minipe import Matrix, apply_rotary
def partial_rotary(row, pos, rotary_dims):
    turned = apply_rotary(Matrix([row[:rotary_dims]]), start=pos, layout="half").tolist()[0]
    return turned + row[rotary_dims:]  # GPT-NeoX: the half layout
'''),
    (21, "slopes-geometric-for-any-n", '''
def alibi_slopes(num_heads):
    start = 2 ** (-8 / num_heads)
    return [start ** (h + 1) for h in range(num_heads)]
'''),
    (21, "slopes-from-h0", '''
def alibi_slopes(num_heads):
    power = 2 ** int(math.log2(num_heads))
    slopes = [2 ** (-8 * h / power) for h in range(power)]
    extra = [2 ** (-8 * h / (2 * power)) for h in range(2 * power)]
    return slopes + extra[0::2][:num_heads - power]
'''),
    (21, "slopes-extra-not-every-other", '''
def alibi_slopes(num_heads):
    power = 2 ** int(math.log2(num_heads))
    slopes = [2 ** (-8 * (h + 1) / power) for h in range(power)]
    more = [2 ** (-8 * (h + 1) / (2 * power)) for h in range(num_heads - power)]
    return slopes + more
'''),
    (21, "slopes-extra-odd", '''
def alibi_slopes(num_heads):
    power = 2 ** int(math.log2(num_heads))
    slopes = [2 ** (-8 * (h + 1) / power) for h in range(power)]
    twice = [2 ** (-8 * (h + 1) / (2 * power)) for h in range(2 * power)]
    return slopes + twice[1::2][:num_heads - power]  # the odd ones, skipping the first
'''),
    (22, "merge-across-pieces", '''
def merge_step(pieces, new_id):
    flat = [t for piece in pieces for t in piece]  # the whole text as one list
    counts = {}
    for pair in zip(flat, flat[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    if not counts:
        return flat
    best = max(counts, key=counts.get)
''' + MERGE_EACH),
    (22, "ties-to-the-last", '''
def merge_step(pieces, new_id):
    counts = {}
    for piece in pieces:
        for pair in zip(piece, piece[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    if not counts:
        return [t for piece in pieces for t in piece]
    best = sorted(counts.items(), key=lambda item: item[1])[-1][0]  # the largest count
''' + MERGE_EACH),
    (22, "merge-first-only", '''
def merge_step(pieces, new_id):
    counts = {}
    for piece in pieces:
        for pair in zip(piece, piece[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    if not counts:
        return [t for piece in pieces for t in piece]
    best = max(counts, key=counts.get)
    out = []
    for piece in pieces:
        pairs = list(zip(piece, piece[1:]))
        if best in pairs:
            i = pairs.index(best)  # where the pair is
            piece = piece[:i] + [new_id] + piece[i + 2:]
        out += piece
    return out
'''),
    (22, "", '''
def merge_step(pieces, new_id):
    counts = {}
    for piece in pieces:
        for pair in set(zip(piece, piece[1:])):  # each pair once a piece
            counts[pair] = counts.get(pair, 0) + 1
    best = max(counts, key=counts.get) if counts else None
''' + MERGE_EACH),
    (23, "stride-skips", '''
def sliding_windows(ids, max_length, stride):
    out = []
    start = 0
    while start + max_length < len(ids):
        chunk = ids[start:start + max_length + 1]  # inputs and the extra target
        out.append([chunk[:-1], chunk[1:]])
        start += stride + 1  # past the chunk's last token
    return out
'''),
    (23, "stride-as-overlap", '''
def sliding_windows(ids, max_length, stride):
    step = max_length - stride  # stride tokens shared by two windows
    return [[ids[s:s + max_length], ids[s + 1:s + max_length + 1]]
            for s in range(0, len(ids) - max_length, step)]
'''),
    (23, "targets-not-shifted", '''
def sliding_windows(ids, max_length, stride):
    out = []
    for s in range(0, len(ids) - max_length, stride):
        window = ids[s:s + max_length]
        out.append([window, window])
    return out
'''),
    (23, "windows-stop-early", '''
def sliding_windows(ids, max_length, stride):
    out = []
    for s in range(0, len(ids) - max_length - 1, stride):  # room for the target
        out.append([ids[s:s + max_length], ids[s + 1:s + max_length + 1]])
    return out
'''),
    (23, "windows-one-too-many", '''
def sliding_windows(ids, max_length, stride):
    out = []
    for s in range(0, len(ids) - max_length + 1, stride):  # every full window of inputs
        out.append([ids[s:s + max_length], ids[s + 1:s + max_length + 1]])
    return out
'''),
]


def test_a_changed_argument_is_named_by_the_learners_parameter(tmp_path: Path) -> None:
    """add_positions that adds into the caller's lists gives the right numbers, and fails."""
    code = ("def add_positions(tokens, table):\n    for seq in tokens:\n"
            "        for t, row in enumerate(seq):\n            for c in range(len(row)):\n"
            "                row[c] += table[t][c]\n    return tokens\n")
    result = _check(tmp_path, 5, code)
    assert result.status == "wrong" and result.mistake == "changed-its-arguments"
    assert "add_positions() changed its argument tokens in place" in result.text
    untouched = _check(tmp_path, 5, code.replace("row[c] +=", "x = row[c] +"))  # no change
    assert untouched.mistake != "changed-its-arguments"


def test_messages_say_what_you_did_and_what_is_right(tmp_path: Path) -> None:
    base = _check(tmp_path, 3, PE_ROW.format(angle="pos / 100000 ** (2 * i / d_model)",
                                             first="sin", second="cos"))
    assert "you used base 100000; the formula's base is 10000" in " ".join(base.text.split())
    counted_from_1 = _check(tmp_path, 13, "import itertools\ndef position_ids(attention_mask):\n"
                            "    return [list(itertools.accumulate(r)) for r in attention_mask]\n")
    text = " ".join(counted_from_1.text.split())
    assert "minipe/batches.py:" in text and "minipe/positional.py" not in text  # chapter 8


def test_a_softmax_that_subtracts_the_minimum_fails_on_0_and_1000(tmp_path: Path) -> None:
    """[1, 2, 3] cannot tell min from max (a softmax ignores a shift); [0, 1000] can."""
    result = _check(tmp_path, 6, "def softmax(s):\n    m = min(s)\n"
                                 "    e = [math.exp(x - m) for x in s]\n"
                                 "    return [x / sum(e) for x in e]\n")
    assert result.status == "wrong" and result.mistake == "softmax-min"
    assert "softmax([0.0, 1000.0])" in result.text and "OverflowError" in result.text


@pytest.mark.parametrize("number, key, code", WRONG_ANSWERS,
                         ids=[f"{n}-{key or 'unnamed'}-{i}"
                              for i, (n, key, _) in enumerate(WRONG_ANSWERS)])
def test_a_learners_wrong_answer_fails_and_is_named_when_known(tmp_path: Path, number: int,
                                                               key: str, code: str) -> None:
    result = _check(tmp_path, number, code)
    assert result.status == "wrong", result.text
    assert result.mistake == key, result.text  # "" : the checker says it knows no name


def test_the_wrong_answers_none_passes_and_four_in_five_are_named() -> None:
    """Issue 30's target for the set above (each case is run by the test before)."""
    named = [key for _, key, _ in WRONG_ANSWERS if key]
    assert len(WRONG_ANSWERS) >= 40
    assert len(named) >= 0.8 * len(WRONG_ANSWERS), (len(named), len(WRONG_ANSWERS))
    numbers = {number for number, _, _ in WRONG_ANSWERS + WRONG_ANSWERS_24_26}
    assert numbers == set(range(1, len(EXERCISES) + 1))


# ---------------------------------------------------------------------------
# Untouched stubs, errors, the marker line
# ---------------------------------------------------------------------------


def test_the_stubs_match_the_catalogue_and_untouched_say_not_done(tmp_path: Path) -> None:
    for item in EXERCISES:
        original = STUBS / f"{item.stem}.py"
        path = tmp_path / original.name
        shutil.copy(original, path)
        text = path.read_text()
        assert f"def {item.function}(" in text and "\nDONE = False  #" in text
        result = check(item, path, text)
        assert result.status == "not done", result.text
        assert "is not done yet" in result.text and f"hint {item.number}" in result.text
        assert path.read_text() == text


def test_a_learners_exception_is_a_sentence_with_their_line(tmp_path: Path) -> None:
    code = "def lookup(table, ids):\n    rows = []\n    for i in ids:\n" \
           "        rows.append(table[i + 100])\n    return rows\n"
    result = _check(tmp_path, 2, code)
    assert result.status == "wrong"
    # HEADER has 5 lines, so the learner's 4th line is line 9 of the file
    assert "lookup() raised IndexError at your line 9: rows.append(table[i + 100])" in result.text
    assert "Traceback" not in result.text
    broken = _check(tmp_path, 2, "def lookup(table, ids)\n    return []\n")
    assert broken.status == "broken" and "line 6 is not Python yet" in broken.text
    one_parameter = _check(tmp_path, 2, "def lookup(table):\n    return table\n")
    assert ("lookup() raised TypeError at the call itself: its parameters differ from the "
            "stub's def line") in one_parameter.text
    missing = _check(tmp_path, 2, "def look_up(table, ids):\n    return []\n")
    assert "defines no function lookup()" in missing.text
    nothing = _check(tmp_path, 2, "def lookup(table, ids):\n    rows = [table[i] for i in ids]\n")
    assert "returned a NoneType" in nothing.text and "a return is missing?" in nothing.text


def test_check_writes_the_marker_word_and_nothing_else(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "06_softmax.py"
    right = "# my notes\r\nimport math\r\nDONE = False  # keep this comment\r\n" + \
        inspect.getsource(solutions.softmax).replace("\n", "\r\n")
    path.write_bytes(right.encode())
    assert main(["exercises", "--dir", str(tmp_path), "check", "6"]) == 0
    assert path.read_bytes() == right.replace("DONE = False", "DONE = True").encode()
    wrong = path.read_bytes().decode().replace("x - m", "x")  # the max no longer subtracted
    path.write_bytes(wrong.encode())
    assert main(["exercises", "--dir", str(tmp_path), "check", "6"]) == 1
    assert path.read_bytes() == wrong.replace("DONE = True", "DONE = False").encode()
    assert "softmax-no-max" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir()] == ["06_softmax.py"]  # no file left behind


@pytest.mark.parametrize("fault", [(28, "No space left on device"),
                                   (30, "Read-only file system")], ids=["full", "read-only"])
def test_a_stub_that_cannot_be_written_is_one_sentence_and_stays_whole(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        fault: tuple[int, str]) -> None:
    """A full disk, a read-only clone: simulated in-process (the tests may run as root, whom
    chmod does not stop): the new text is half written to its temporary file, then the
    write fails. The check's verdict is printed, then one sentence naming the stub; the
    stub is byte for byte as it was and no temporary file is left; status 1."""
    path = tmp_path / "06_softmax.py"
    right = "import math\nDONE = False\n" + inspect.getsource(solutions.softmax)
    path.write_text(right, encoding="utf-8")
    real_fdopen = os.fdopen

    def failing(handle: int, mode: str = "r") -> object:
        with real_fdopen(handle, mode) as stream:
            stream.write(b"import math\nDONE = Tr")  # the new text's start, never finished
        raise OSError(*fault)

    monkeypatch.setattr("minipe.command_line.os.fdopen", failing)
    assert main(["exercises", "--dir", str(tmp_path), "check", "6"]) == 1
    said = capsys.readouterr()
    assert "is right" in said.out and "Traceback" not in said.err
    assert said.err.strip() == (f"cannot write {str(path.resolve())!r}: {fault[1]}: the check "
                                f"above stands, but the stub's line DONE = False is unchanged")
    assert path.read_text(encoding="utf-8") == right
    assert [p.name for p in tmp_path.iterdir()] == ["06_softmax.py"]


def test_a_stub_edited_during_the_check_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "06_softmax.py"
    path.write_text("DONE = False\n")
    said = stubs.mark(path, "DONE = False\n# an older text\n", True)
    assert "changed while it was checked" in said and path.read_text() == "DONE = False\n"


def _examples(docstring: str) -> list[tuple[str, str]]:
    """(call, shown value) for each `call -> value` line, continuation lines joined."""
    lines: list[str] = []
    for line in docstring.splitlines():
        text = line.strip()
        unbalanced = lines and lines[-1].count("[") > lines[-1].count("]")
        if lines and (text.startswith("-> ") or unbalanced):
            lines[-1] += " " + text
        else:
            lines.append(text)
    examples = []
    for line in lines:
        call, arrow, shown = line.partition(" -> ")
        shown = re.sub(r"\s{2,}\(.*\)$", "", shown.strip())  # a comment in parentheses
        if arrow and call.rstrip().endswith((")", "]")):  # a call, or a list of calls
            examples.append((call.strip(), shown))
    return examples


def _agrees(shown: object, actual: object) -> bool:
    """Equal, numbers to the digits shown (0.54030 is cos 1 = 0.540302...); * is any value."""
    if shown is None:
        return True
    if isinstance(shown, list):
        return (isinstance(actual, list) and len(shown) == len(actual)
                and all(map(_agrees, shown, actual)))
    assert isinstance(shown, (int, float)) and isinstance(actual, (int, float))
    return shown == actual or abs(shown - actual) <= 5e-5 * max(1.0, abs(actual))  # half a unit


def test_every_example_in_a_stub_is_what_a_right_solution_returns() -> None:
    checked = 0
    for item in EXERCISES:
        text = ast.get_docstring(ast.parse((STUBS / f"{item.stem}.py").read_text())) or ""
        namespace = {name: getattr(solutions, name) for name in dir(solutions)}
        vocabulary = re.search(r"vocabulary = (\[.*?\])", text)
        if vocabulary:
            namespace["vocabulary"] = eval(vocabulary.group(1))
        for call, shown in _examples(text):
            actual = eval(call, namespace)
            expected = eval(shown.replace("*", "None"), {"inf": math.inf})
            assert _agrees(expected, actual), (item.stem, call, actual)
            checked += 1
    assert checked == 39  # the examples `grep -- "->" walkthroughs/exercises/*.py` lists


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------


def _stubs(tmp_path: Path) -> Path:
    for item in EXERCISES:
        shutil.copy(STUBS / f"{item.stem}.py", tmp_path)
    return tmp_path


def test_a_stub_that_ends_python_or_returns_odd_values_gets_a_sentence(tmp_path: Path) -> None:
    """sys.exit in a stub, at import or in its function, is a sentence, not the checker's
    silent end; an int past a float's range, or a list of strings, is named for what it is."""
    ended = _check(tmp_path, 2, "import sys\nsys.exit(3)\n")
    assert ended.status == "broken" and "called sys.exit(3) at line 7: sys.exit(3)" in ended.text
    ended = _check(tmp_path, 2, "def lookup(table, ids):\n    raise SystemExit(3)\n")
    assert ended.status == "wrong" and "sys.exit(3) ends Python" in ended.text
    assert "your line 7: raise SystemExit(3)" in ended.text
    huge = _check(tmp_path, 2, "def lookup(table, ids):\n    return [[10 ** 400] * 6]\n")
    assert "returned a list holding a list holding an int too large for a float" in huge.text
    words = _check(tmp_path, 2, "def lookup(table, ids):\n    return ['a', 'b']\n")
    assert "returned a list holding a str (['a', 'b'])" in words.text


@pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="the time limit needs SIGALRM")
def test_a_loop_that_never_ends_is_stopped_and_named(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checker, "TIME_LIMIT", 0.2)  # 10 s in use: the test needs no wait
    looping = _check(tmp_path, 2, "def lookup(table, ids):\n    while True:\n        pass\n")
    assert looping.status == "wrong", looping.text
    # the alarm lands on the loop's test or its body: either is the learner's loop
    assert re.search(r"lookup\(\) raised TimeoutError at your line (7: while True:|8: pass)",
                     looping.text), looping.text
    assert "it ran 0.2 s without returning: a loop that never ends?" in looping.text
    at_import = _check(tmp_path, 2, "while True:\n    pass\n")
    assert at_import.status == "broken" and "raised TimeoutError" in at_import.text
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # no alarm left behind
    assert _check(tmp_path, 2, inspect.getsource(solutions.lookup)).status == "done"


def test_a_stub_that_is_not_utf8_is_named_and_the_list_still_shows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _stubs(tmp_path)
    stub = folder / "01_encode.py"
    stub.write_bytes(stub.read_bytes() + "# café\n".encode("latin-1"))  # é is byte 0xe9
    assert main(["exercises", "--dir", str(folder)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert "not UTF-8" in listed[1] and "01_encode.py" in listed[1]
    assert main(["exercises", "--dir", str(folder), "check", "1"]) == 1
    said = capsys.readouterr().err
    assert f"{stub} is not UTF-8 text" in said and "b'\\xe9'" in said
    with pytest.raises(SystemExit) as usage:  # a file where a folder goes: a usage error
        main(["exercises", "--dir", str(stub)])
    assert usage.value.code == 2
    assert "is a file: --dir needs the folder" in capsys.readouterr().err


def test_the_list_says_done_and_check_alone_takes_the_first_not_done(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _stubs(tmp_path)
    (folder / "01_encode.py").write_text("DONE = True\n")
    assert main(["exercises", "--dir", str(folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:1] == ["1"] and "  done  " in lines[1]
    assert "not done" in lines[2]
    assert lines[-1] == "1 of 26 done. Next: python -m minipe exercises check 2"
    assert main(["exercises", "--dir", str(folder), "check"]) == 1
    assert "exercise 2 is not done yet" in capsys.readouterr().out


def test_hint_and_solution(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _stubs(tmp_path)
    assert main(["exercises", "hint", "6", "--dir", str(folder)]) == 0
    assert "max(scores)" in capsys.readouterr().out
    assert main(["exercises", "--dir", str(folder), "solution", "6"]) == 1  # no try yet
    assert "no try yet" in capsys.readouterr().out
    (folder / "06_softmax.py").write_text("DONE = False\ndef softmax(scores):\n    return []\n")
    assert main(["exercises", "--dir", str(folder), "solution", "6"]) == 0
    assert "def softmax(scores: list[float]) -> list[float]:" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["check", "27"], ["hint", "0"], ["solution", "x"], ["--bad"],
                                  ["frobnicate"]])
def test_bad_options_and_unknown_exercises_exit_2(argv: list[str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["exercises", *argv])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert "error:" in error and "Traceback" not in error


def test_help_teaches(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["exercises", "--help"])
    assert stopped.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "DONE = False / True" in text and "expected, yours, the difference" in text


def _blocks(section: str) -> list[str]:
    """The indented blocks of a README section, dedented, blank lines inside kept."""
    blocks: list[list[str]] = []
    inside = False
    for line in section.splitlines():
        if line.startswith("    "):
            if not inside:
                blocks.append([])
            blocks[-1].append(line[4:])
            inside = True
        elif line.strip() and inside:
            inside = False
        elif inside:
            blocks[-1].append("")
    return ["\n".join(block).strip("\n") for block in blocks]


def test_the_readmes_first_two_minutes_are_what_the_command_prints(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "walkthroughs" / "README.md").read_text()  # the README.md links it
    section = readme.split("## Exercises: the first two minutes\n")[1].split("\n## ")[0]
    first, function, wrong, right = _blocks(section)
    command, listing = first.split("\n\n")
    assert command == "python -m minipe exercises"
    folder = tmp_path / "walkthroughs" / "exercises"
    folder.mkdir(parents=True)
    _stubs(folder)
    monkeypatch.chdir(tmp_path)  # as in the clone: the stubs are walkthroughs/exercises
    assert main(["exercises"]) == 0
    printed = capsys.readouterr().out.splitlines()
    shown = listing.splitlines()
    assert shown[:4] == printed[:4] and shown[4] == "..." and shown[5] == printed[-1]
    stub = folder / "03_pe_position.py"
    untouched = stub.read_text()
    start = untouched.index("def pe_position(")
    stub.write_text(untouched[:start] + function + "\n")
    assert main(["exercises", "check", "3"]) == 1
    assert capsys.readouterr().out.rstrip("\n") == wrong
    swapped = function.replace("math.cos", "math.COS").replace("math.sin", "math.cos")
    stub.write_text(untouched[:start] + swapped.replace("math.COS", "math.sin") + "\n")
    assert main(["exercises", "check", "3"]) == 0
    assert capsys.readouterr().out.rstrip("\n") == right
    assert "knows a hundred and twenty-four mistakes by name" in " ".join(section.split())
    assert len(MISTAKES) == 124


def test_the_list_ends_quietly_when_its_reader_has_left() -> None:
    """`python -m minipe exercises | head -0`: status 1, nothing on stderr (ends_quietly)."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader left before the first line
    try:
        done = subprocess.run([sys.executable, "-m", "minipe", "exercises"], cwd=ROOT,
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (1, "")


def test_ctrl_c_in_the_learners_code_is_one_line_130_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stub = tmp_path / "06_softmax.py"
    stub.write_text("DONE = True\ndef softmax(scores):\n    raise KeyboardInterrupt\n")
    assert main(["exercises", "--dir", str(tmp_path), "check", "6"]) == 130
    assert capsys.readouterr().err == "\nstopped by Ctrl-C\n"
    assert stub.read_text().startswith("DONE = True\n")


def test_a_solution_comes_with_the_solutions_it_calls(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "04_pe_table.py").write_text("DONE = False\ndef pe_table(n, d):\n    return []\n")
    assert main(["exercises", "--dir", str(tmp_path), "solution", "4"]) == 0
    printed = capsys.readouterr().out
    # pe_table calls pe_position (exercise 3): that comes first, so the two run as printed
    assert printed.index("def pe_position(") < printed.index("def pe_table(")
