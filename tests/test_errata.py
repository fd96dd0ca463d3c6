"""The Errata table of walkthroughs/README.md, row by row, checked by computation.

Each row says where a lecture is wrong and what the code shows instead. Each
`test_eN_...` below works that row out with `math` (and minipe's public API,
whose numbers are compared with `math`, never trusted). The last tests check
that the README's table has exactly these rows and that every lesson pointer
"(errata EN)" names one of them.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from commands import lesson_with_figures

from minipe import (
    Embedding,
    Matrix,
    SingleHeadAttention,
    TinyModel,
    allclose,
    binary_encoding,
    scaled_dot_product_attention,
    sinusoidal_denominators,
    sinusoidal_encoding,
    sinusoidal_position,
    task_batch,
    train,
)

ROOT = Path(__file__).resolve().parent.parent
WALKTHROUGHS = ROOT / "walkthroughs"

# row -> (the lecture it corrects, the lessons that print its pointer)
ROWS: dict[str, tuple[str, set[str]]] = {
    "E1": ("000", {"04", "10"}),  # the frequencies reversed
    "E2": ("000", {"03", "10"}),  # "permutation-invariant"
    "E3": ("000", {"10"}),  # question 4's i = 0 and i = 1
    "E4": ("001", {"07"}),  # GPT-4's positions
    "E5": ("003", {"04"}),  # cos 3
    "E6": ("003", {"04"}),  # i indexes pairs
    "E7": ("003", {"04"}),  # the wavelength's 2 pi
    "E8": ("004", {"04"}),  # base 100000
    "E9": ("004", {"05"}),  # GPT-2's index ranges
    "E10": ("004", {"08"}),  # "BPE"
    "E11": ("000, 003", {"07", "15"}),  # sinusoids do not carry a trained head past T
    "E12": ("003, 004", {"17"}),  # differentiable, yet nothing reaches the table
}


def _sign_changes(column: list[float]) -> int:
    """How often consecutive values have opposite signs (a sine crosses 0 once per half-wave)."""
    return sum(1 for a, b in zip(column, column[1:]) if a * b < 0)


def test_e1_small_i_is_the_fast_wave() -> None:
    # Lecture 000: small i, large denominator, slow. Worked: 10000**(2i/8) for i = 0..3 is
    # 1, 10, 100, 1000 - it grows with i, so the angle pos / 10000**(2i/8) grows slowest
    # for large i, and the wavelength 2 pi * 10000**(2i/8) is shortest (2 pi) at i = 0.
    denominators = [10000 ** (2 * i / 8) for i in range(4)]
    assert allclose(sinusoidal_denominators(8), denominators)
    assert denominators == sorted(denominators) and denominators[0] == 1.0
    wavelengths = [2 * math.pi * denominator for denominator in denominators]
    assert min(wavelengths) == wavelengths[0] == 2 * math.pi
    # In minipe's table, column 2i (a sine) changes sign most often for i = 0.
    table = sinusoidal_encoding(200, 8)
    crossings = [_sign_changes([row[2 * i] for row in table]) for i in range(4)]
    # sin(pos / D) changes sign once per multiple of pi in (1/D, 199/D]: floor(199 / (pi D))
    assert crossings == [math.floor(199 / (math.pi * d)) for d in denominators]  # 63, 6, 0, 0
    assert crossings[0] > crossings[1] > 0


def test_e2_attention_is_equivariant_and_only_a_pooled_sum_is_invariant() -> None:
    x = Embedding(5, 8, seed=0).weight  # five different token rows, (5, 8)
    head = SingleHeadAttention(8, 8, seed=2)
    permutation = [3, 0, 4, 1, 2]
    permuted_x = Matrix([x[j].tolist() for j in permutation])
    out = head(x).output
    permuted_out = head(permuted_x).output
    # equivariant: the outputs of the permuted input are the outputs, permuted
    assert allclose(permuted_out, Matrix([out[j].tolist() for j in permutation]))
    # not invariant: the output itself changed (row 0 now belongs to another token)
    assert not allclose(permuted_out, out, abs_tol=1e-6)
    # invariant after pooling: the sum of the rows, added up by hand
    pooled = [sum(out[r][c] for r in range(5)) for c in range(8)]
    permuted_pooled = [sum(permuted_out[r][c] for r in range(5)) for c in range(8)]
    assert allclose(pooled, permuted_pooled)


def test_e3_columns_0_and_1_are_both_the_pair_i_0() -> None:
    # PE(pos, 2i) = sin(pos / 10000**(2i/d)), PE(pos, 2i+1) = cos(...): columns 0 and 1 are
    # 2i and 2i + 1 for i = 0 (denominator 1); i = 1 is columns 2 and 3.
    for d_model in (4, 8, 512):
        for pos in (1, 3, 10):
            pe = sinusoidal_position(pos, d_model)
            assert math.isclose(pe[0], math.sin(pos)) and math.isclose(pe[1], math.cos(pos))
            angle = pos / 10000 ** (2 / d_model)  # the pair i = 1
            assert math.isclose(pe[2], math.sin(angle)) and math.isclose(pe[3], math.cos(angle))


def test_e4_gpt4_is_a_fact_about_publications_not_a_computation() -> None:
    # Nothing here can be computed: the row must say so, rather than claim a check.
    row = _table_rows()["E4"]
    assert "unpublished" in row and "nothing can be computed" in row


def test_e5_cos_3_rounds_to_minus_0_9900() -> None:
    cos_3 = math.cos(3)
    assert -0.99000 < cos_3 < -0.98999  # -0.989992496...
    assert f"{cos_3:.4f}" == "-0.9900"  # rounded to four places
    assert math.trunc(cos_3 * 10_000) / 10_000 == -0.9899  # what cutting the digits gives
    assert f"{sinusoidal_position(3, 4)[1]:.4f}" == "-0.9900"  # minipe's PE(3, 1)


def test_e6_i_indexes_the_column_pairs() -> None:
    d_model = 4
    pairs = len(sinusoidal_denominators(d_model))  # one denominator per value of i
    assert pairs == d_model // 2 == 2
    columns = sorted(column for i in range(pairs) for column in (2 * i, 2 * i + 1))
    assert columns == list(range(d_model))  # 2i and 2i + 1 for i = 0, 1 fill 0..3
    # if i ran over the 4 dimensions, i = 3 would need column 2 * 3 + 1 = 7
    assert len(sinusoidal_position(1, d_model)) == 4
    with pytest.raises(IndexError):
        sinusoidal_position(1, d_model)[7]


def test_e7_the_wavelength_has_a_factor_2_pi() -> None:
    for i, denominator in enumerate([1.0, 10.0, 100.0]):  # 10000**(2i/8), i = 0, 1, 2
        wavelength = 2 * math.pi * denominator
        for pos in (0.0, 1.0, 3.0, 7.5):
            assert math.isclose(math.sin((pos + wavelength) / denominator),
                                math.sin(pos / denominator), abs_tol=1e-9)
            assert math.isclose(math.cos((pos + wavelength) / denominator),
                                math.cos(pos / denominator), abs_tol=1e-9)
        # the lecture's wavelength, the denominator alone, moves the angle by 1 radian
        assert not math.isclose(math.sin((1.0 + denominator) / denominator),
                                math.sin(1.0 / denominator), abs_tol=1e-3)
    # In minipe's table, column 0 (sin pos) crosses 0 once every pi positions: a full
    # wave is 2 pi, so 1000 positions hold floor(999 / pi) = 317 crossings, not ~2000.
    column_0 = [row[0] for row in sinusoidal_encoding(1000, 4)]
    assert _sign_changes(column_0) == math.floor(999 / math.pi) == 317


def test_e8_the_paper_base_is_10000_and_100000_changes_the_numbers() -> None:
    # "Attention Is All You Need" (2017), section 3.5: PE(pos, 2i) = sin(pos / 10000**(2i/d)).
    by_hand = [[f(pos / 10000 ** (2 * i / 4)) for i in range(2) for f in (math.sin, math.cos)]
               for pos in range(8)]
    assert allclose(sinusoidal_encoding(8, 4), by_hand)  # minipe's default base is the paper's
    assert allclose(sinusoidal_denominators(4), [1.0, 100.0])
    # base 100000: pair i = 1 has denominator sqrt(100000) = 316.2278 instead of 100
    assert allclose(sinusoidal_denominators(4, base=100000.0), [1.0, math.sqrt(100000)])
    wrong = sinusoidal_position(1, 4, base=100000.0)
    assert math.isclose(wrong[2], math.sin(1 / math.sqrt(100000)))
    assert f"{wrong[2]:.4f}" == "0.0032" and f"{math.sin(1 / 100):.4f}" == "0.0100"
    assert wrong[:2] == sinusoidal_position(1, 4)[:2]  # pair 0 (denominator 1) is unchanged
    # and the longest wavelength, at i = d/2 - 1, grows about 10-fold toward 2 pi * 10**5
    d = 512
    longest = [2 * math.pi * base ** ((d - 2) / d) for base in (10000.0, 100000.0)]
    assert 9.5 < longest[1] / longest[0] < 10.0  # 10**((d - 2) / d) = 9.91


def test_e9_gpt2_positions_columns_and_pairs_count_from_0() -> None:
    table = sinusoidal_encoding(1024, 768)
    assert table.shape == (1024, 768)
    assert table[0].tolist() == [0.0, 1.0] * 384  # pos 0 is the first row: PE(0)
    last = table[1023]  # pos 1023 is the last row ...
    assert math.isclose(last[0], math.sin(1023)) and math.isclose(last[1], math.cos(1023))
    # ... and its last column, j = 767 = 2i + 1 with i = 383, is cos(pos / 10000**(766/768))
    assert math.isclose(last[767], math.cos(1023 / 10000 ** (766 / 768)))
    with pytest.raises(IndexError):
        table[1024]  # there is no pos 1024
    with pytest.raises(IndexError):
        last[768]  # nor a column 768
    assert len(sinusoidal_denominators(768)) == 384  # i = 0..383


def test_e10_bpe_here_is_the_binary_code_which_jumps() -> None:
    binary = binary_encoding(16, 4)
    step = [(binary[pos + 1] - binary[pos]).norm() for pos in range(15)]
    # 7 = 1110 -> 8 = 0001 (least significant bit first): 4 bits flip, distance sqrt 4 = 2;
    # 8 -> 9 flips one bit: distance 1
    assert math.isclose(step[7], 2.0) and math.isclose(step[8], 1.0)
    table = sinusoidal_encoding(16, 8)
    smooth = [(table[pos + 1] - table[pos]).norm() for pos in range(15)]
    # |PE(p + 1) - PE(p)|**2 = sum_i (2 - 2 cos(1 / 10000**(2i/8))), the same for every p
    expected = math.sqrt(sum(2 - 2 * math.cos(1 / 10000 ** (2 * i / 8)) for i in range(4)))
    assert all(math.isclose(value, expected) for value in smooth)


def _right_by_position(model: TinyModel, seq_len: int) -> list[int]:
    """How many of 64 new previous-token sequences (seed 1) have their top score right at
    each position, counted here: the target at pos is the token at pos - 1."""
    inputs, _ = task_batch("previous-token", model.vocab_size, seq_len, 64, seed=1)
    right = [0] * seq_len
    for ids in inputs:
        scores = model.logits(ids).tolist()  # (seq_len, vocab_size)
        for pos in range(1, seq_len):
            right[pos] += scores[pos].index(max(scores[pos])) == ids[pos - 1]
    return right


@pytest.mark.slow  # trains 200 steps
def test_e11_a_sinusoidal_head_does_not_carry_past_its_training_length() -> None:
    # Lesson 07's head: trained on 4 tokens (200 steps x 8), scored on 64 sequences of 8.
    # Positions 1-3 are what it trained on; 4-7 are new. A guess among 5 kinds gets 1/5.
    short = train(TinyModel(5, 8, 4, positions="sinusoidal", seed=0), "previous-token",
                  steps=200, batch_size=8).model
    right = _right_by_position(short, 8)
    seen, unseen = sum(right[1:4]), sum(right[4:])
    assert seen / 192 >= 0.90 and unseen / 256 <= 0.50  # far from carrying over
    # Lesson 15's head: trained on 8 tokens (100 steps x 4), scored at T = 8 and 2T = 16.
    long = train(TinyModel(5, 8, 8, positions="sinusoidal", seed=0), "previous-token",
                 steps=100, batch_size=4).model
    at_T, at_2T = sum(_right_by_position(long, 8)), sum(_right_by_position(long, 16))
    assert at_2T / (64 * 15) < at_T / (64 * 7) - 0.10
    row = _table_rows()["E11"]
    assert f"right on {seen} of 192 targets at positions 1-3" in row
    assert f"on {unseen} of 256 ({unseen / 256:.1%}) at positions 4-7" in row
    assert f"from {at_T / (64 * 7):.1%} at T = 8 to {at_2T / (64 * 15):.1%} at 2T = 16" in row


def test_e12_no_gradient_reaches_a_sinusoidal_table() -> None:
    inputs, targets = task_batch("previous-token", 5, 4, 8, seed=0)
    fixed = TinyModel(5, 8, 4, positions="sinusoidal", seed=0)
    learned = TinyModel(5, 8, 4, positions="learned", seed=0)
    weights = {"W_k", "W_out", "W_q", "W_v", "token_embedding"}
    passed = fixed.backprop(inputs, targets)
    assert set(fixed.parameters()) == set(passed.gradients) == weights  # nothing else learns
    # the loss does have a gradient at x = E[ids] + PE: it stops there for PE
    assert max(abs(value) for row in passed.d_inputs[0].tolist() for value in row) > 0
    # a learned table, by contrast, is a parameter and gets one
    assert set(learned.backprop(inputs, targets).gradients) == weights | {"position_embedding"}
    # after training, the table the model adds is still the formula's, to the bit:
    # x = E[ids] + PE, so the logits equal those of the trained E plus sinusoidal_encoding
    trained = train(fixed, "previous-token", steps=5).model
    W = trained.parameters()
    ids = inputs[0]
    X = Matrix([W["token_embedding"][token_id].tolist() for token_id in ids])
    X = X + sinusoidal_encoding(4, 8)
    head = scaled_dot_product_attention(X @ W["W_q"], X @ W["W_k"], X @ W["W_v"], causal=True)
    assert allclose(head.output @ W["W_out"], trained.logits(ids))
    assert "no gradient reaches a sine or a cosine" in _table_rows()["E12"]


# --- the README's table, and the lessons' pointers to it ---


def _table_rows() -> dict[str, str]:
    """The Errata table of walkthroughs/README.md: row name -> the whole table line."""
    text = (WALKTHROUGHS / "README.md").read_text()
    section = text.split("\n## Errata\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        match = re.match(r"\| (E\d+) \|", line)
        if match:
            assert match.group(1) not in rows, f"row {match.group(1)} twice"
            rows[match.group(1)] = line
    return rows


def test_the_readme_table_has_exactly_the_checked_rows() -> None:
    rows = _table_rows()
    assert list(rows) == list(ROWS)  # the same rows, in order
    for name, (lecture, lessons) in ROWS.items():
        cells = [cell.strip() for cell in rows[name].strip("|").split("|")]
        assert len(cells) == 5, rows[name]  # row | lecture | says | shows | lesson
        assert cells[1] == lecture, name
        assert set(cells[4].split(", ")) == lessons, name
    checks = {name.split("_")[1].upper() for name in globals() if re.match(r"test_e\d+_", name)}
    assert checks == set(ROWS)  # and each row has its test above


@pytest.mark.slow  # runs the lessons that point to a row, two of which train
def test_every_lesson_pointer_names_a_row_and_every_row_is_pointed_to() -> None:
    printed: dict[str, set[str]] = {name: set() for name in ROWS}
    for path in sorted(WALKTHROUGHS.glob("[0-9][0-9]_*.py")):
        if "errata E" not in path.read_text():
            continue
        done = lesson_with_figures(path)  # its one run this session (tests/commands.py)
        assert done.returncode == 0, done.stderr
        for name in re.findall(r"errata (E\d+)", done.stdout):
            assert name in ROWS, f"{path.name} points to errata {name}, which is not a row"
            printed[name].add(path.name[:2])
    for name, (_, lessons) in ROWS.items():
        assert printed[name] == lessons, f"errata {name} is printed by lessons {printed[name]}"
