"""Chapter 7, past the context window: the issue's worked examples, each worked here with `math`.

The expected numbers come from the papers' formulas, computed in this file
(or quoted from issue 12, which worked them by hand), and from Hugging Face's
rope initialisers (tests/reference/context_reference.json, made by
tests/reference/make_context_reference.py; this test needs neither torch nor
transformers).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from minipe import (
    Matrix,
    Vector,
    allclose,
    apply_rotary,
    decay_bound,
    frequency_table,
    rope_frequencies,
    scaled_dot_product_attention,
    softmax,
)

REFERENCE: dict[str, Any] = json.loads(
    (Path(__file__).parent / "reference" / "context_reference.json").read_text())


def _default(d: int, base: float = 10000.0) -> list[float]:
    """RoFormer: theta_i = base**(-2i/d), i = 0 .. d/2 - 1."""
    return [math.pow(base, -2 * i / d) for i in range(d // 2)]


# ---------------------------------------------------------------------------
# Position interpolation (Chen et al. 2023): L = 2048 -> 8192, factor 4
# ---------------------------------------------------------------------------


def test_interpolation_reads_position_6000_as_1500() -> None:
    # pos * (theta_i / 4) = (pos / 4) * theta_i, and 6000 / 4 = 1500
    thetas, scale = rope_frequencies(128, method="linear", factor=8192 / 2048)
    q = Matrix([[math.sin(j + 1) for j in range(128)]])
    stretched = apply_rotary(q, start=6000, frequencies=thetas)
    assert allclose(stretched, apply_rotary(q, start=1500), rel_tol=1e-9, abs_tol=1e-9)
    assert scale == 1.0


def test_the_slowest_pair_barely_turns_inside_2048_positions() -> None:
    theta_63 = math.pow(10000, -126 / 128)  # the slowest pair at d = 128
    turns = 2048 * theta_63 / (2 * math.pi)  # L / wavelength
    assert round(turns, 3) == 0.038  # the issue: "only 0.038 times"
    assert round(2047 * theta_63, 4) == 0.2364  # the largest angle positions 0..2047 reach
    row = frequency_table(128, original_context_length=2048)[63]
    assert math.isclose(row.turns, turns, rel_tol=1e-12)
    assert math.isclose(row.wavelength, 2 * math.pi / theta_63, rel_tol=1e-12)
    assert math.isclose(row.theta * 2047, 2047 * theta_63, rel_tol=1e-12)
    linear = frequency_table(128, original_context_length=2048, method="linear", factor=4)
    assert all(math.isclose(r.ratio, 1 / 4, rel_tol=1e-12) for r in linear)


# ---------------------------------------------------------------------------
# NTK-aware scaling: base' = base * factor**(d / (d - 2))
# ---------------------------------------------------------------------------


def test_ntk_at_d_128_factor_4() -> None:
    new_base = 10000 * 4 ** (128 / 126)
    assert round(new_base, 2) == 40889.94  # the number
    thetas, scale = rope_frequencies(128, method="ntk", factor=4)
    # float64, the same formula: exact up to the last bits
    assert allclose(thetas, _default(128, new_base), rel_tol=1e-14, abs_tol=0.0)
    assert thetas[0] == 1.0  # base'**0: the fastest pair is unchanged
    # slowest: base'**(-126/128) = base**(-126/128) * 4**(-1): divided by exactly 4
    assert math.isclose(_default(128)[63] / thetas[63], 4.0, rel_tol=1e-14)
    assert scale == 1.0


def test_dynamic_ntk_waits_for_the_text_to_outgrow_L() -> None:
    plain, _ = rope_frequencies(128)
    for seq_len in (1, 1024, 2048):  # n = max(seq_len, L) = L: base * 1**(...) = base
        same, _ = rope_frequencies(128, method="dynamic", factor=4,
                                   original_context_length=2048, seq_len=seq_len)
        assert allclose(same, plain, rel_tol=1e-15, abs_tol=0.0)
    # at seq_len = 8192: base * (4 * 8192 / 2048 - 3)**(128/126) = base * 13**(128/126)
    grown, _ = rope_frequencies(128, method="dynamic", factor=4, original_context_length=2048,
                                seq_len=8192)
    assert allclose(grown, _default(128, 10000 * 13 ** (128 / 126)), rel_tol=1e-14, abs_tol=0)


# ---------------------------------------------------------------------------
# YaRN (Peng et al. 2023): d = 128, base 10000, L = 4096, factor 16
# ---------------------------------------------------------------------------


def _pair_turning(turns: float, d: int = 128, base: float = 10000.0, L: int = 4096) -> float:
    """Solve L * base**(-2i/d) / (2 pi) = turns for i (YaRN's correction dimension)."""
    return d * math.log(L / (turns * 2 * math.pi)) / (2 * math.log(base))


def test_yarn_keeps_20_ramps_and_divides_from_46() -> None:
    low = math.floor(_pair_turning(32))  # beta_fast = 32 turns: 20.94 -> 20
    high = math.ceil(_pair_turning(1))  # beta_slow = 1 turn: 45.03 -> 46
    assert (low, high) == (20, 46)  # the numbers
    rows = frequency_table(128, original_context_length=4096, method="yarn", factor=16)
    for row in rows:
        ramp = min(max((row.i - low) / (high - low), 0.0), 1.0)
        expected = (1 - ramp) * 1.0 + ramp / 16  # kept, divided by 16, mixed between
        assert math.isclose(row.ratio, expected, rel_tol=1e-12), row
    assert [row.ratio for row in rows[:21]] == [1.0] * 21
    assert all(math.isclose(row.ratio, 1 / 16, rel_tol=1e-12) for row in rows[46:])
    assert all(1 / 16 < row.ratio < 1.0 for row in rows[21:46])
    _, scale = rope_frequencies(128, method="yarn", factor=16, original_context_length=4096)
    assert math.isclose(scale, 0.1 * math.log(16) + 1, rel_tol=1e-15)
    assert round(scale, 4) == 1.2773


def _gamma(r: float, alpha: float = 1.0, beta: float = 32.0) -> float:
    """The YaRN paper's ramp: 0 below alpha turns, 1 above beta, linear in r between."""
    if r < alpha:
        return 0.0
    if r > beta:
        return 1.0
    return (r - alpha) / (beta - alpha)


def test_the_papers_ramp_is_linear_in_the_turns() -> None:
    # h(theta_i) = (1 - gamma(r)) theta_i / s + gamma(r) theta_i, r = L theta_i / (2 pi)
    rows = frequency_table(128, original_context_length=4096, method="yarn", factor=16,
                           ramp="paper")
    thetas, scale = rope_frequencies(128, method="yarn", factor=16,
                                     original_context_length=4096, ramp="paper")
    for row, theta, default in zip(rows, thetas, _default(128)):
        gamma = _gamma(4096 * default / (2 * math.pi))
        expected = (1 - gamma) * default / 16 + gamma * default
        assert math.isclose(theta, expected, rel_tol=1e-12), row
        assert math.isclose(row.ratio, (1 - gamma) / 16 + gamma, rel_tol=1e-12), row
    assert math.isclose(scale, 0.1 * math.log(16) + 1, rel_tol=1e-15)  # the same scale


def test_both_ramps_keep_and_divide_the_same_pairs_but_blend_differently() -> None:
    # the pairs with r >= 32 (i <= 20.94) are kept and those with r <= 1 (i >= 45.03)
    # divided by both; between, the rounded ramp is linear in i, the paper's in r
    rounded = frequency_table(128, original_context_length=4096, method="yarn", factor=16)
    paper = frequency_table(128, original_context_length=4096, method="yarn", factor=16,
                            ramp="paper")
    assert [i for i in range(64) if rounded[i].ratio == 1.0] == list(range(21))
    assert [i for i in range(64) if paper[i].ratio == 1.0] == list(range(21))
    assert [i for i in range(64) if math.isclose(rounded[i].ratio, 1 / 16)] \
        == list(range(46, 64))
    assert [i for i in range(64) if math.isclose(paper[i].ratio, 1 / 16)] \
        == list(range(46, 64))
    # pair 33 turns 10000**(-66/128) * 4096 / (2 pi) = 5.645 times: the paper keeps
    # gamma = 4.645 / 31 = 0.150 of it, the rounded ramp 1 - 13/26 = 1/2
    r_33 = 4096 * 10000 ** (-66 / 128) / (2 * math.pi)
    assert round(r_33, 3) == 5.645
    assert math.isclose(paper[33].ratio, (1 - (r_33 - 1) / 31) / 16 + (r_33 - 1) / 31,
                        rel_tol=1e-12)
    assert math.isclose(rounded[33].ratio, 0.5 / 16 + 0.5, rel_tol=1e-12)


def test_the_turns_fall_by_base_to_the_2_over_d_from_pair_to_pair() -> None:
    # r_i = L base**(-2i/d) / (2 pi): r_i / r_(i+1) = base**(2/d), 1.1548 at d = 128
    rows = frequency_table(128, original_context_length=4096)
    for i in range(63):
        assert math.isclose(rows[i].turns / rows[i + 1].turns, 10000 ** (2 / 128),
                            rel_tol=1e-12)
    assert round(10000 ** (2 / 128), 4) == 1.1548


@pytest.mark.parametrize("L", [8, 100, 200])
def test_the_rounded_ramp_keeps_pair_0_whatever_l(L: int) -> None:
    # pair 0 (theta_0 = 1) turns L / (2 pi) times: under beta_fast = 32 for L < 201.06
    turns = L / (2 * math.pi)
    assert turns < 32 and round(2 * math.pi * 32, 2) == 201.06
    rounded = frequency_table(8, original_context_length=L, method="yarn", factor=4)
    paper = frequency_table(8, original_context_length=L, method="yarn", factor=4,
                            ramp="paper")
    assert rounded[0].ratio == 1.0  # Hugging Face: the ramp starts at pair 0 at the earliest
    gamma = (turns - 1) / 31
    assert math.isclose(paper[0].ratio, (1 - gamma) / 4 + gamma, rel_tol=1e-12)
    assert paper[0].ratio < 1.0


def test_lesson_18s_pair_0_is_kept_by_one_ramp_and_nearly_divided_by_the_other() -> None:
    # d = 8, L = 8, factor 4: pair 0 turns 8 / (2 pi) = 1.273 times, just above beta_slow = 1
    gamma = (8 / (2 * math.pi) - 1) / 31
    assert round(gamma, 4) == 0.0088
    rounded, _ = rope_frequencies(8, method="yarn", factor=4, original_context_length=8)
    paper, _ = rope_frequencies(8, method="yarn", factor=4, original_context_length=8,
                                ramp="paper")
    assert rounded[0] == 1.0 and math.isclose(paper[0], (1 - gamma) / 4 + gamma)
    assert round(paper[0], 4) == 0.2566  # nearly 1/4
    for i in (1, 2, 3):  # turning under once: divided by 4 by both
        assert math.isclose(rounded[i], 10000 ** (-i / 4) / 4, rel_tol=1e-12)
        assert math.isclose(paper[i], 10000 ** (-i / 4) / 4, rel_tol=1e-12)


# ---------------------------------------------------------------------------
# Llama 3.1: d = 128, base 500000, factor 8, L = 8192, low 1, high 4
# ---------------------------------------------------------------------------


def test_llama3_keeps_29_smooths_6_divides_29() -> None:
    L, low, high = 8192, 1.0, 4.0
    kept = smoothed = divided = 0
    rows = frequency_table(128, base=500000.0, method="llama3", factor=8,
                           original_context_length=L)
    for row, theta in zip(rows, _default(128, 500000.0)):
        wavelength = 2 * math.pi / theta
        if wavelength < L / high:  # shorter than 2048 positions
            kept += 1
            assert row.ratio == 1.0
        elif wavelength > L / low:  # longer than 8192 positions
            divided += 1
            assert math.isclose(row.ratio, 1 / 8, rel_tol=1e-14)
        else:
            smoothed += 1
            smooth = (L / wavelength - low) / (high - low)
            assert math.isclose(row.ratio, (1 - smooth) / 8 + smooth, rel_tol=1e-12)
    assert (kept, smoothed, divided) == (29, 6, 29)  # the numbers


# ---------------------------------------------------------------------------
# The same numbers as Hugging Face's rope initialisers (float32 there)
# ---------------------------------------------------------------------------


def test_the_reference_says_where_it_came_from() -> None:
    assert "transformers" in REFERENCE["made_by"] and "torch" in REFERENCE["made_by"]
    methods = {case["arguments"]["method"] for case in REFERENCE["cases"]}
    assert methods == {"default", "linear", "ntk", "dynamic", "yarn", "llama3"}


@pytest.mark.parametrize("case", REFERENCE["cases"],
                         ids=[f"{c['arguments']['method']}-{n}"
                              for n, c in enumerate(REFERENCE["cases"])])
def test_rope_frequencies_match_hugging_face(case: dict[str, Any]) -> None:
    thetas, scale = rope_frequencies(**case["arguments"])
    expected = case["inv_freq"]
    assert len(thetas) == len(expected) == case["arguments"]["d"] // 2
    # float32 keeps about 7 digits: 2**-24 = 6e-8 per rounding, a few roundings each
    assert allclose(thetas, expected, rel_tol=1e-6, abs_tol=0.0)
    assert math.isclose(scale, case["attention_scale"], rel_tol=1e-12)


# ---------------------------------------------------------------------------
# RoPE takes the frequencies
# ---------------------------------------------------------------------------


def test_apply_rotary_with_the_default_frequencies_is_plain_rope() -> None:
    x = Matrix([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [-1.0, 0.5, 2.0, 0.0, 1.0, -3.0]])
    thetas, _ = rope_frequencies(6)
    for layout in ("interleaved", "half"):
        assert apply_rotary(x, start=7, layout=layout, frequencies=thetas) \
            == apply_rotary(x, start=7, layout=layout)


def test_apply_rotary_refuses_frequencies_that_do_not_fit() -> None:
    x = Matrix([[1.0, 2.0, 3.0, 4.0]])
    with pytest.raises(ValueError, match=r"d/2 = 2 finite angles theta_i > 0, one per pair"):
        apply_rotary(x, frequencies=Vector([1.0, 0.1, 0.01]))
    with pytest.raises(ValueError, match="d/2 = 2 finite angles"):
        apply_rotary(x, frequencies=Vector([1.0, -0.1]))
    with pytest.raises(ValueError, match="give base or frequencies, not both"):
        apply_rotary(x, base=500000.0, frequencies=Vector([1.0, 0.1]))


# ---------------------------------------------------------------------------
# The door: one sentence per mistake
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("arguments, sentence", [
    ({"d": 7}, r"even d, got d=7"),
    ({"d": 128, "method": "pi"}, r"'default', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3'"),
    ({"d": 128, "method": "linear", "factor": 0.5}, r"finite number >= 1, got 0.5"),
    ({"d": 128, "factor": 4.0}, r"method='default' is plain RoPE and has no factor"),
    ({"d": 128, "method": "yarn", "factor": 16.0}, r"'yarn' needs original_context_length"),
    ({"d": 128, "method": "llama3", "factor": 8.0}, r"'llama3' needs original_context_length"),
    ({"d": 128, "method": "dynamic", "factor": 2.0, "original_context_length": 2048},
     r"'dynamic' needs seq_len"),
    ({"d": 2, "method": "ntk", "factor": 2.0}, r"d / \(d - 2\), so it needs d >= 4"),
    ({"d": 128, "method": "yarn", "factor": 4.0, "original_context_length": 4096,
      "beta_fast": 1.0, "beta_slow": 32.0}, r"0 < beta_slow < beta_fast"),
    ({"d": 128, "method": "llama3", "factor": 8.0, "original_context_length": 8192,
      "low_freq_factor": 4.0, "high_freq_factor": 1.0}, r"0 < low_freq_factor < high_freq"),
    # issue 18: degenerate values, each refused with the argument and its valid range
    ({"d": 128, "base": 1.0, "method": "yarn", "factor": 4.0,
      "original_context_length": 4096}, r"base > 1 .*got base=1.0"),  # ln 1 = 0 in the ramp
    ({"d": 128, "base": 0.5, "method": "yarn", "factor": 4.0, "original_context_length": 4096,
      "ramp": "paper"}, r"needs theta_i = base\*\*\(-2i/d\) to fall as i grows"),
    ({"d": 128, "base": 0.5, "method": "ntk", "factor": 4.0}, r"base > 1"),
    ({"d": 128, "method": "yarn", "factor": 4.0, "original_context_length": 4096,
      "beta_fast": math.inf}, r"finite numbers with 0 < beta_slow < beta_fast, .*beta_fast=inf"),
    ({"d": 128, "method": "yarn", "factor": 4.0, "original_context_length": 4096,
      "beta_slow": -math.inf}, r"beta_slow=-inf"),
    ({"d": 128, "method": "llama3", "factor": 4.0, "original_context_length": 4096,
      "high_freq_factor": math.inf}, r"finite numbers with 0 < low_freq_factor"),
    # 10000**(-126/128) / 1e306 = 1e-310: under the smallest normal float, 2.2e-308
    ({"d": 128, "method": "linear", "factor": 1e306}, r"down to 1e-310: past what a float"),
    # base' = 1e308 * (1e10)**(128/126): past the largest float, so theta_63 would be 0
    ({"d": 128, "base": 1e308, "method": "ntk", "factor": 1e10}, r"factor=1e\+10 .*past what"),
    # 1e300 * 2**52 overflows: the dynamic base would be inf
    ({"d": 128, "method": "dynamic", "factor": 1e300, "original_context_length": 1,
      "seq_len": 2**52}, r"down to 0: past what a float holds"),
    ({"d": 128, "method": "linear", "factor": 4.0, "beta_fast": 32.0},
     r"method='linear' does not read beta_fast: it reads factor"),
    ({"d": 128, "method": "linear", "factor": 4.0, "original_context_length": 2048},
     r"does not read original_context_length"),
    ({"d": 128, "method": "ntk", "factor": 4.0, "ramp": "paper"}, r"does not read ramp"),
    ({"d": 128, "method": "llama3", "factor": 8.0, "original_context_length": 8192,
      "beta_slow": 2.0}, r"'llama3' does not read beta_slow"),
    ({"d": 128, "method": "yarn", "factor": 8.0, "original_context_length": 8192,
      "low_freq_factor": 2.0}, r"'yarn' does not read low_freq_factor"),
    ({"d": 128, "method": "ntk", "factor": 2.0, "seq_len": 4096}, r"does not read seq_len"),
    ({"d": 128, "method": "yarn", "factor": 4.0, "original_context_length": 4096,
      "ramp": "hf"}, r"ramp must be 'rounded' .* or 'paper'"),
    ({"d": 128, "method": "dynamic", "factor": 4.0, "original_context_length": 2048,
      "seq_len": 2**53 + 1}, r"seq_len = 9,007,199,254,740,993 is past 2\*\*53"),
])
def test_each_mistake_ends_in_a_sentence(arguments: dict[str, Any], sentence: str) -> None:
    with pytest.raises(ValueError, match=sentence):
        rope_frequencies(**arguments)


def test_wrong_types_name_the_argument() -> None:
    with pytest.raises(TypeError, match="d must be an int"):
        rope_frequencies(128.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="factor must be a number"):
        rope_frequencies(128, method="linear", factor="4")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="original_context_length must be >= 1"):
        frequency_table(128, original_context_length=0)
    with pytest.raises(ValueError, match="needs original_context_length"):
        frequency_table(128, original_context_length=None)  # type: ignore[arg-type]


def test_a_typo_in_d_is_refused_with_the_memory_it_would_need() -> None:
    # d = 10**10: d/2 = 5 * 10**9 numbers, at 32 bytes each 1.6 * 10**11 bytes = 160 GB
    assert 10**10 // 2 * 32 == 160 * 10**9
    for call in (lambda: rope_frequencies(10**10),
                 lambda: frequency_table(10**10, original_context_length=8),
                 lambda: decay_bound([1], 10**10)):
        with pytest.raises(ValueError, match=r"d/2 = 5,000,000,000 angles theta_i: that would "
                                             r"hold 5,000,000,000 numbers, about 160 GB at "
                                             r"~32 bytes per number"):
            call()


def test_extreme_but_finite_values_still_work() -> None:
    # 10000**(-126/128) / 1e300 = 1.15e-304: small, but a normal float
    thetas, _ = rope_frequencies(128, method="linear", factor=1e300)
    assert math.isclose(thetas[63], 10000 ** (-126 / 128) / 1e300, rel_tol=1e-12)
    # base 1e-300 < 1 is allowed where nothing ramps: theta_1 = (1e-300)**(-1/2) = 1e150
    assert math.isclose(rope_frequencies(4, base=1e-300)[0][1], 1e150, rel_tol=1e-12)
    # a method's defaults may be given explicitly: the same numbers
    assert rope_frequencies(128, method="yarn", factor=4.0, original_context_length=4096) \
        == rope_frequencies(128, method="yarn", factor=4.0, original_context_length=4096,
                            beta_fast=32.0, beta_slow=1.0, ramp="rounded")


def test_decay_bound_refuses_distances_no_float_can_hold() -> None:
    with pytest.raises(ValueError,
                       match=r"each distance r = 9,007,199,254,740,993 is past 2\*\*53"):
        decay_bound([2**53 + 1], 8)


# ---------------------------------------------------------------------------
# RoFormer's long-term decay (section 3.4.3), worked with cos and sin
# ---------------------------------------------------------------------------


def _bound_by_hand(r: int, d: int, base: float) -> float:
    """(1/(d/2)) sum_{j=1}^{d/2} |S_j|, S_j = sum_{k<j} (cos r theta_k, sin r theta_k)."""
    re_part = im_part = total = 0.0
    for theta in _default(d, base):
        re_part += math.cos(r * theta)
        im_part += math.sin(r * theta)
        total += math.hypot(re_part, im_part)
    return total / (d / 2)


def test_decay_bound_matches_the_formula() -> None:
    distances = [0, 1, 5, 20, 100, 250, 1000]
    for base in (10000.0, 500000.0):
        expected = [_bound_by_hand(r, 128, base) for r in distances]
        assert allclose(decay_bound(distances, 128, base=base), expected, rel_tol=1e-12,
                        abs_tol=1e-12)
    # at r = 0 each |S_j| = j, so the bound is (1/64) * (1 + ... + 64) = 65 / 2
    assert decay_bound([0], 128)[0] == 32.5
    # |S_j| <= j (the triangle inequality): no distance beats r = 0
    assert max(decay_bound(list(range(300)), 128)) == 32.5


def test_decay_bound_refuses_negative_distances() -> None:
    with pytest.raises(ValueError, match="each distance r must be >= 0"):
        decay_bound([3, -1], 8)


# ---------------------------------------------------------------------------
# NoPE and the attention sink, with chapter 4's functions
# ---------------------------------------------------------------------------


def test_a_causal_head_without_positions_still_counts() -> None:
    # equal scores: token i averages the values of tokens 0..i; v is 1 at token 0 only
    n = 6
    q = k = Matrix([[0.0, 0.0]] * n)
    v = Matrix([[1.0]] + [[0.0]] * (n - 1))
    output = scaled_dot_product_attention(q, k, v, causal=True).output
    assert allclose(output, [[1 / (i + 1)] for i in range(n)], rel_tol=1e-15, abs_tol=0.0)


@pytest.mark.parametrize("n, rounded", [(8, 0.955), (1024, 0.127)])
def test_one_high_score_takes_most_of_the_weight(n: int, rounded: float) -> None:
    weights = softmax([5.0] + [0.0] * (n - 1))
    expected = math.exp(5) / (math.exp(5) + n - 1)  # e^5 / (e^5 + (n - 1) e^0)
    assert math.isclose(weights[0], expected, rel_tol=1e-12)
    assert round(expected, 3) == rounded  # the numbers


def test_the_module_tables_cannot_be_changed_by_a_caller() -> None:
    # issue 30: anyone importing these could change every later call's defaults
    from minipe import context, subword
    with pytest.raises(TypeError):
        context.USES["linear"] = ()  # type: ignore[index]
    with pytest.raises(TypeError):
        context.THRESHOLDS["yarn"]["beta_fast"] = 1.0  # type: ignore[index]
    assert isinstance(subword.PRINTABLE, tuple) and len(subword.PRINTABLE) == 188
