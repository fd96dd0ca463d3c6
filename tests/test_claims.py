"""Claims the lessons make, built and checked (issue 10, items 4, 5 and 6).

Every expected number is worked here with `math` or by a naive loop written in
this file, never read off minipe's output.
"""

from __future__ import annotations

import math
import random
import statistics
from pathlib import Path

import pytest
from commands import lesson_with_figures

from minipe import (
    Batch,
    Embedding,
    Matrix,
    ShapeError,
    SingleHeadAttention,
    Tokenizer,
    Vector,
    allclose,
    relative_shift_matrix,
    scaled_dot_product_attention,
    sinusoidal_encoding,
    sinusoidal_position,
)


def naive_pe(pos: int, d_model: int) -> list[float]:
    """PE(pos) from the paper's formula, column by column (d_model even)."""
    row = []
    for i in range(d_model // 2):
        angle = pos / 10000 ** (2 * i / d_model)
        row += [math.sin(angle), math.cos(angle)]
    return row


def frequencies(d_model: int) -> list[float]:
    """w_i = 1 / 10000^(2i / d_model), one per column pair."""
    return [1 / 10000 ** (2 * i / d_model) for i in range(d_model // 2)]


# ---------------------------------------------------------------------------
# Item 4: "look k tokens back", constructed from the shift matrix M_k
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("d_model, k", [(8, 1), (16, 2), (16, 3), (64, 2)])
def test_w_q_w_k_built_from_m_k_peaks_k_tokens_back_for_every_query(d_model: int, k: int) -> None:
    # A = W_q W_k^T = M_k with W_q = I, W_k = M_k^T. Then by the angle-difference formula
    # PE(i) A PE(j)^T = PE(i) . PE(j + k) = sum_i cos((j + k - i) w_i), which is d_model / 2
    # at j = i - k and below it elsewhere (cos(m) = 1 needs m = 0 for an integer m != 0).
    n = 12
    positions = sinusoidal_encoding(n, d_model)
    W_k = relative_shift_matrix(k, d_model).T
    scores = positions @ (positions @ W_k).T  # (n, n): q_i = PE(i), k_j = PE(j) M_k^T
    ws = frequencies(d_model)
    for i in range(n):
        naive = [sum(math.cos((j + k - i) * w) for w in ws) for j in range(n)]
        assert allclose(scores[i], naive, abs_tol=1e-9)  # the construction is the formula
        if i - k < 0:
            continue  # no key k back: nothing to find
        best = max(range(n), key=lambda j: scores[i][j])
        assert best == i - k
        assert math.isclose(scores[i][i - k], d_model / 2)
        runner_up = max(naive[j] for j in range(n) if j != i - k)
        assert d_model / 2 - runner_up > 0.05  # a real margin, worked naively above


@pytest.mark.parametrize("p, k", [(5, 1), (10, 2), (10, 4), (100, 7), (1000, 33)])
def test_the_plain_dot_product_cannot_tell_before_from_after(p: int, k: int) -> None:
    d_model = 16
    after = sinusoidal_position(p, d_model).dot(sinusoidal_position(p + k, d_model))
    before = sinusoidal_position(p, d_model).dot(sinusoidal_position(p - k, d_model))
    # sin a sin b + cos a cos b = cos(a - b), and cos is even: both are sum_i cos(k w_i)
    expected = sum(math.cos(k * w) for w in frequencies(d_model))
    assert math.isclose(after, expected, abs_tol=1e-9)
    assert math.isclose(before, expected, abs_tol=1e-9)


def test_a_sine_only_code_has_no_linear_shift_map() -> None:
    d_model, k = 16, 2
    sine_code_0 = naive_pe(0, d_model)[0::2]  # sin(0 * w_i) = 0 for every i
    sine_code_k = naive_pe(k, d_model)[0::2]
    assert sine_code_0 == [0.0] * (d_model // 2)
    assert max(map(abs, sine_code_k)) > 0.9  # sin(2) = 0.909: code(k) is not zero
    # Any linear M maps 0 to 0, so M code(0) = code(k) fails at p = 0. Three tries:
    rng = random.Random(0)
    candidates = [
        Matrix([[rng.gauss(0, 1) for _ in range(8)] for _ in range(8)]),
        Matrix([row[0::2] for row in relative_shift_matrix(k, d_model).tolist()[0::2]]),
        Matrix([[1000.0 * (r == c) for c in range(8)] for r in range(8)]),
    ]
    for M in candidates:
        moved = M @ Vector(sine_code_0)
        assert moved.tolist() == [0.0] * 8
        assert not allclose(moved, sine_code_k, abs_tol=1e-3)
    # With the cosines the full code(0) is not zero, and M_k does map it to code(k).
    assert naive_pe(0, d_model)[1::2] == [1.0] * (d_model // 2)
    assert allclose(relative_shift_matrix(k, d_model) @ sinusoidal_position(0, d_model),
                    naive_pe(k, d_model), abs_tol=1e-12)


ROOT = Path(__file__).resolve().parent.parent
OVERCLAIMS = ("works unchanged past the training length", "the sinusoidal formula can.",
              "can learn 'look 2 tokens back'", "lets attention learn relative offsets")


def test_the_overclaims_are_gone_and_the_measurements_are_attributed() -> None:
    texts = {path: path.read_text() for path in
             [*ROOT.glob("minipe/*.py"), *ROOT.glob("walkthroughs/*.py"), ROOT / "README.md"]}
    for path, text in texts.items():
        for claim in OVERCLAIMS:
            assert claim not in " ".join(text.split()), (path.name, claim)
    # what is said about lengths past training names whose measurement it is
    for name in ("minipe/positional.py", "minipe/relative.py",
                 "walkthroughs/12_absolute_vs_relative.py"):
        text = (ROOT / name).read_text()
        assert "Press et al., 2022" in text, name


# ---------------------------------------------------------------------------
# Item 5: inside attention (lesson 13)
# ---------------------------------------------------------------------------

Rows = list[list[float]]


def naive_matmul(a: Rows, b: Rows) -> Rows:
    """(n, m) @ (m, p) with three loops."""
    return [[sum(a[r][t] * b[t][c] for t in range(len(b))) for c in range(len(b[0]))]
            for r in range(len(a))]


def transpose(a: Rows) -> Rows:
    return [list(column) for column in zip(*a)]


def test_the_four_terms_of_the_score_sum_back_to_it() -> None:
    # (x + p) A (x + p)^T = x A x^T + x A p^T + p A x^T + p A p^T, A = W_q W_k^T:
    # the product distributes over the sums. Checked on lecture 000's sentence.
    text = "A man bites a dog"
    tokenizer = Tokenizer.from_corpus(text)
    d = 4
    x = Embedding(tokenizer.vocab_size, d, seed=0)(tokenizer.encode(text)).tolist()
    p = [naive_pe(pos, d) for pos in range(len(x))]
    head = SingleHeadAttention(d, d, seed=2)
    W_q, W_k = head.W_q.tolist(), head.W_k.tolist()
    A = naive_matmul(W_q, transpose(W_k))
    parts = [naive_matmul(naive_matmul(left, A), transpose(right))
             for left, right in ((x, x), (x, p), (p, x), (p, p))]
    X = [[a + b for a, b in zip(row_x, row_p)] for row_x, row_p in zip(x, p)]
    naive_scores = naive_matmul(naive_matmul(X, W_q), transpose(naive_matmul(X, W_k)))
    summed = [[sum(part[i][j] for part in parts) for j in range(5)] for i in range(5)]
    assert allclose(Matrix(summed), naive_scores, abs_tol=1e-12)
    X_minipe = Matrix(X)
    result = scaled_dot_product_attention(X_minipe @ head.W_q, X_minipe @ head.W_k,
                                          X_minipe @ head.W_v)
    assert allclose(result.scores, [[s / 2 for s in row] for row in summed], abs_tol=1e-12)
    # 'a' at positions 0 and 3: the content-content term cannot tell the two keys apart
    assert all(row[0] == row[3] for row in parts[0])
    assert any(abs(row[0] - row[3]) > 1e-3 for row in parts[3])  # position-position can


@pytest.mark.parametrize("d_k", [4, 16, 64, pytest.param(256, marks=pytest.mark.slow)])
def test_the_variance_of_q_dot_k_is_d_k(d_k: int) -> None:
    # q, k with iid N(0, 1) entries: Var(q . k) = sum of d_k variances E[q^2] E[k^2] = d_k.
    # 2000 pairs: the sample variance is within about 3.5% * sqrt(2 + 6/d_k) (one sigma).
    rng = random.Random(d_k)
    pairs = [(Vector([rng.gauss(0.0, 1.0) for _ in range(d_k)]),
              Vector([rng.gauss(0.0, 1.0) for _ in range(d_k)])) for _ in range(2000)]
    dots = [q.dot(k) for q, k in pairs]
    assert math.isclose(statistics.pvariance(dots), d_k, rel_tol=0.15)
    scaled = [dot / math.sqrt(d_k) for dot in dots]
    assert math.isclose(statistics.pvariance(scaled), 1.0, abs_tol=0.15)


def lesson_13_output() -> str:
    # the lesson's one run this session (tests/commands.py): it draws no figure
    done = lesson_with_figures(ROOT / "walkthroughs" / "13_inside_attention.py")
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow  # a GPT-2-sized table, or a lesson's whole run
def test_lesson_13_prints_numbers_that_obey_the_formulas() -> None:
    output = lesson_13_output()
    lines = output.splitlines()
    # the softmax row by hand: weight = exp(score) / sum of exp, from the printed scores
    softmax_lines = [line for line in lines if line.strip().startswith("j = ")]
    scores = [float(line.split("score")[1].split()[0]) for line in softmax_lines]
    total = sum(math.exp(score) for score in scores)
    for line, score in zip(softmax_lines, scores):
        assert math.isclose(float(line.split()[-1]), math.exp(score) / total, abs_tol=1e-3)
    assert scores[3:] == [-math.inf, -math.inf]  # keys 3 and 4 lie in the future of 2
    # the four terms add up to the raw scores, to the printed 4 decimals
    term_lines = [line for line in lines if " A " in line and line.count(".") == 5]
    assert len(term_lines) == 4
    terms = [[float(v) for v in line.split()[-5:]] for line in term_lines]
    raw = next(line for line in lines if "the raw score row" in line)
    for j, score in enumerate(float(v) for v in raw.split()[-5:]):
        assert math.isclose(sum(term[j] for term in terms), score, abs_tol=3e-4)
    # the measured variances are near d_k, and near 1 after the division
    for d_k in (4, 16, 64, 256):
        line = next(line for line in lines
                    if line.split()[:1] == [str(d_k)] and len(line.split()) == 4)
        variance, scaled, spread = (float(word) for word in line.split()[1:])
        assert math.isclose(variance, d_k, rel_tol=0.15)
        assert math.isclose(scaled, 1.0, abs_tol=0.15)
        # a variance of 1000 draws of x = q . k / sqrt(d_k): E[x**4] = 3 + 6 / d_k
        assert math.isclose(spread, math.sqrt((3 + 6 / d_k - 1) / 1000), abs_tol=5e-4)
    # |PE(pos)| = sqrt(512 / 2) = 16; N(0, 1) rows of 512 numbers: norm about sqrt(512)
    assert f"= {math.sqrt(256):.4f} at every pos" in output
    n01 = next(line for line in lines if "N(0, 1) rows:" in line)
    assert math.isclose(float(n01.split()[-1]), math.sqrt(512), rel_tol=0.02)


# ---------------------------------------------------------------------------
# Item 6: the forms learners meet elsewhere
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("d_model", [4, 64, 512])
def test_the_tutorials_exp_log_frequency_is_one_over_the_denominator(d_model: int) -> None:
    # exp(2i * -(ln 10000 / d_model)) = exp(ln(10000^(-2i/d_model))) = 1 / 10000^(2i/d_model)
    for i in range(d_model // 2):
        log_form = math.exp(2 * i * -(math.log(10000.0) / d_model))
        assert math.isclose(log_form, 1 / 10000 ** (2 * i / d_model), rel_tol=1e-13)


def test_lesson_04_shows_the_two_forms_agree_to_rounding() -> None:
    done = lesson_with_figures(ROOT / "walkthroughs" / "04_sinusoidal_by_hand.py")  # its run
    gaps = [float(line.rsplit(":", 1)[1]) for line in done.stdout.splitlines()
            if "largest difference" in line or "against minipe's" in line]
    assert len(gaps) == 2
    assert all(gap < 1e-12 for gap in gaps)  # rounding, not a different formula (~1e-2)


def test_a_transposed_table_says_it_looks_swapped() -> None:
    tokens = Embedding(10, 16)([[1, 2, 3, 4]] * 8)  # (8, 4, 16)
    pairs: list[tuple[Matrix | Batch, Matrix]] = [
        (sinusoidal_encoding(16, 8), sinusoidal_encoding(8, 16)),
        (tokens, sinusoidal_encoding(16, 4))]  # the tutorials' order
    for left, right in pairs:
        with pytest.raises(ShapeError, match=r"look swapped, \((16|4), (8|16)\) against"):
            left + right
    # a mismatch that is not a transposition gets no such hint
    for right in (sinusoidal_encoding(4, 15), Embedding(8, 16).weight):  # (4, 15), (8, 16)
        with pytest.raises(ShapeError) as caught:
            tokens + right
        assert "swapped" not in str(caught.value)
    # (1, 5) and (5, 1) are transposed but broadcast: no error at all
    assert (Matrix([[1.0] * 5]) + Matrix([[1.0]] * 5)).shape == (5, 5)


@pytest.mark.parametrize("num_positions, d_model", [(4, 256), (16, 4096), (10, 4), (1024, 768)])
def test_no_legitimate_table_is_refused(num_positions: int, d_model: int) -> None:
    # a short text in a wide model, and the reverse: both are real tables
    assert sinusoidal_encoding(num_positions, d_model).shape == (num_positions, d_model)


def test_a_per_sequence_vector_needs_a_new_axis() -> None:
    tokens = Embedding(10, 16)([[1, 2, 3, 4]] * 8)  # (8, 4, 16)
    vectors = Embedding(8, 16, seed=3).weight  # (8, 16): one per sequence
    with pytest.raises(ShapeError, match=r"axis -2 has 4 vs 8"):
        tokens + vectors  # aligned right, the 8 sequences meet the 4 tokens
    with_axis = Batch([Matrix([row.tolist()]) for row in vectors])  # (8, 1, 16)
    summed = (tokens + with_axis).tolist()
    naive = [[[t + v for t, v in zip(token_row, vectors.tolist()[b])] for token_row in seq]
             for b, seq in enumerate(tokens.tolist())]
    assert summed == naive


# ---------------------------------------------------------------------------
# Issue 17, item 7: without positions, who-bites-whom reaches what a bag allows
# ---------------------------------------------------------------------------


@pytest.mark.slow  # trains 300 steps
def test_the_readme_says_what_who_bites_whom_reaches_without_positions() -> None:
    """The README's numbers, from the model `python -m minipe train --task who-bites-whom
    --positions none` trains (its defaults: d_model 8, seed 0, 300 steps x 8), checked by
    loops written here. The 36 sentences are 18 mirrored pairs with one bag each: the head
    answers each pair alike, so at most 18 are right; for each pair it gives one softmax p,
    and -(ln p_s + ln p_o) / 2 >= -ln((p_s + p_o) / 2) >= ln 2, so the mean loss is at
    least ln 2. The 64 sentences are the command's accuracy sample (task_batch, seed 1)."""
    from minipe import TinyModel, task_batch, train

    model = train(TinyModel(9, 8, 6, positions="none"), "who-bites-whom").model
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    text = " ".join(readme.split())  # the README's lines joined

    def top_and_loss(ids: list[int], target: int) -> tuple[int, float]:
        row = model.logits(ids)[5].tolist()  # the scores at 'who?'
        top = max(row)
        log_total = top + math.log(sum(math.exp(score - top) for score in row))
        return row.index(top), log_total - row[target]

    right, losses, alike = 0, [], 0
    for s in range(1, 5):  # nouns man 1, dog 2, cat 3, fox 4; verbs 5-7; who? 8
        for o in range(1, 5):
            for v in range(5, 8):
                if s == o:
                    continue
                top, loss = top_and_loss([0, s, v, 0, o, 8], s)
                right += top == s
                losses.append(loss)
                alike += top == top_and_loss([0, o, v, 0, s, 8], o)[0]
    assert len(losses) == 36 and alike == 36  # one bag, one answer: both orders
    assert right == 18 and "18 of all 36 sentences" in text
    mean_loss = sum(losses) / 36
    assert mean_loss >= math.log(2) and f"a mean loss of {mean_loss:.2f}" in text
    assert f"ln 2 = {math.log(2):.2f}" in text
    inputs, targets = task_batch("who-bites-whom", 9, 6, 64, seed=1)
    hits = sum(top_and_loss(ids, wanted[5])[0] == wanted[5]
               for ids, wanted in zip(inputs, targets))
    assert f"gets {hits / 64:.1%} of the command's 64 sentences right" in text
    assert f"{hits / 64:.1%} and not 50%" in text
