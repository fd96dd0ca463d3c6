"""Claims the lessons make, built and checked (issue 10, items 4, 5 and 6).

Every expected number is worked here with `math` or by a naive loop written in
this file, never read off minipe's output.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from minipe import (
    Matrix,
    Vector,
    allclose,
    relative_shift_matrix,
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
