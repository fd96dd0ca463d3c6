"""Hugging Face transformers, tests/utils/test_modeling_rope_utils.py (Apache 2.0).

Each test copies EXPECTED_INV_FREQ from the test of the same name and asks minipe's
`rope_frequencies` for the same setting. The source's config is LlamaConfig(): hidden_size
4096 over 32 heads, so head_dim d = 128 and 64 frequencies; rope_theta 10000;
max_position_embeddings 2048, which its llama3 and yarn settings take as the original
context length. Hugging Face's inv_freq is minipe's theta_i (base**(-2i/d)), the same numbers.

The tolerance is the source's: torch.testing.assert_close on float32 tensors, whose
defaults are rtol 1.3e-6 and atol 1e-5: |actual - expected| <= 1e-5 + 1.3e-6 * |expected|.
"""

from __future__ import annotations

from collections.abc import Sequence

from minipe import rope_frequencies

ATOL, RTOL = 1e-5, 1.3e-6  # torch.testing.assert_close's float32 defaults
HEAD_DIM = 4096 // 32  # LlamaConfig: hidden_size / num_attention_heads


def _far(actual: Sequence[float], expected: Sequence[float]) -> list[str]:
    """Every theta_i outside assert_close's tolerance, as readable lines."""
    assert len(actual) == len(expected) == HEAD_DIM // 2
    return [f"theta_{i}: {a} against {e}" for i, (a, e) in enumerate(zip(actual, expected))
            if abs(a - e) > ATOL + RTOL * abs(e)]


def test_default_rope_numerically() -> None:
    # fmt: off
    expected = [
        1.0000e+00, 8.6596e-01, 7.4989e-01, 6.4938e-01, 5.6234e-01, 4.8697e-01,
        4.2170e-01, 3.6517e-01, 3.1623e-01, 2.7384e-01, 2.3714e-01, 2.0535e-01,
        1.7783e-01, 1.5399e-01, 1.3335e-01, 1.1548e-01, 1.0000e-01, 8.6596e-02,
        7.4989e-02, 6.4938e-02, 5.6234e-02, 4.8697e-02, 4.2170e-02, 3.6517e-02,
        3.1623e-02, 2.7384e-02, 2.3714e-02, 2.0535e-02, 1.7783e-02, 1.5399e-02,
        1.3335e-02, 1.1548e-02, 1.0000e-02, 8.6596e-03, 7.4989e-03, 6.4938e-03,
        5.6234e-03, 4.8697e-03, 4.2170e-03, 3.6517e-03, 3.1623e-03, 2.7384e-03,
        2.3714e-03, 2.0535e-03, 1.7783e-03, 1.5399e-03, 1.3335e-03, 1.1548e-03,
        1.0000e-03, 8.6596e-04, 7.4989e-04, 6.4938e-04, 5.6234e-04, 4.8697e-04,
        4.2170e-04, 3.6517e-04, 3.1623e-04, 2.7384e-04, 2.3714e-04, 2.0535e-04,
        1.7783e-04, 1.5399e-04, 1.3335e-04, 1.1548e-04,
    ]
    # fmt: on
    thetas, scale = rope_frequencies(HEAD_DIM, base=10000.0)
    assert _far(list(thetas), expected) == []
    assert scale == 1.0  # "attention scale is always 1 for default RoPE"


def test_llama3_rope_numerically() -> None:
    """Check 3, the numerical snapshot: factor 10, original_max_position_embeddings 2048,
    low_freq_factor 1, high_freq_factor 4. Check 1: the attention factor is 1."""
    # fmt: off
    expected = [
        1.0000e+00, 8.6596e-01, 7.4989e-01, 6.4938e-01, 5.6234e-01, 4.8697e-01,
        4.2170e-01, 3.6517e-01, 3.1623e-01, 2.7384e-01, 2.3714e-01, 2.0535e-01,
        1.7783e-01, 1.5399e-01, 1.3335e-01, 1.1548e-01, 1.0000e-01, 8.6596e-02,
        7.4989e-02, 6.4938e-02, 5.6234e-02, 4.8697e-02, 4.2170e-02, 3.6517e-02,
        3.1623e-02, 2.7384e-02, 2.3714e-02, 2.0535e-02, 1.7783e-02, 1.5399e-02,
        1.3335e-02, 1.0730e-02, 7.7785e-03, 5.6009e-03, 3.9991e-03, 2.8248e-03,
        1.9675e-03, 1.3449e-03, 8.9549e-04, 5.7363e-04, 3.4539e-04, 2.7384e-04,
        2.3714e-04, 2.0535e-04, 1.7783e-04, 1.5399e-04, 1.3335e-04, 1.1548e-04,
        1.0000e-04, 8.6596e-05, 7.4989e-05, 6.4938e-05, 5.6234e-05, 4.8697e-05,
        4.2170e-05, 3.6517e-05, 3.1623e-05, 2.7384e-05, 2.3714e-05, 2.0535e-05,
        1.7783e-05, 1.5399e-05, 1.3335e-05, 1.1548e-05,
    ]
    # fmt: on
    thetas, scale = rope_frequencies(HEAD_DIM, method="llama3", factor=10.0,
                                     original_context_length=2048,
                                     low_freq_factor=1.0, high_freq_factor=4.0)
    assert _far(list(thetas), expected) == []
    assert scale == 1.0


def test_dynamic_rope_numerically() -> None:
    """Check 2: factor 10, seq_len 16384 past max_position_embeddings 2048."""
    # fmt: off
    expected = [
        1.0000e+00, 8.0931e-01, 6.5498e-01, 5.3008e-01, 4.2900e-01, 3.4720e-01,
        2.8099e-01, 2.2741e-01, 1.8404e-01, 1.4895e-01, 1.2055e-01, 9.7558e-02,
        7.8955e-02, 6.3899e-02, 5.1714e-02, 4.1853e-02, 3.3872e-02, 2.7413e-02,
        2.2185e-02, 1.7955e-02, 1.4531e-02, 1.1760e-02, 9.5176e-03, 7.7027e-03,
        6.2339e-03, 5.0451e-03, 4.0831e-03, 3.3045e-03, 2.6744e-03, 2.1644e-03,
        1.7517e-03, 1.4176e-03, 1.1473e-03, 9.2852e-04, 7.5146e-04, 6.0817e-04,
        4.9220e-04, 3.9834e-04, 3.2238e-04, 2.6091e-04, 2.1115e-04, 1.7089e-04,
        1.3830e-04, 1.1193e-04, 9.0585e-05, 7.3312e-05, 5.9332e-05, 4.8018e-05,
        3.8861e-05, 3.1451e-05, 2.5453e-05, 2.0600e-05, 1.6672e-05, 1.3492e-05,
        1.0920e-05, 8.8374e-06, 7.1522e-06, 5.7883e-06, 4.6845e-06, 3.7912e-06,
        3.0683e-06, 2.4832e-06, 2.0097e-06, 1.6265e-06,
    ]
    # fmt: on
    thetas, scale = rope_frequencies(HEAD_DIM, method="dynamic", factor=10.0,
                                     original_context_length=2048, seq_len=16384)
    assert _far(list(thetas), expected) == []
    assert scale == 1.0


def test_yarn_rope_numerically() -> None:
    """Check 3, the numerical snapshot: factor 10, beta_fast 32, beta_slow 1, the original
    context 2048 (max_position_embeddings). Check 1: the attention factor 0.1 ln(factor) + 1."""
    # fmt: off
    expected = [
        1.0000e+00, 8.6596e-01, 7.4989e-01, 6.4938e-01, 5.6234e-01, 4.8697e-01,
        4.2170e-01, 3.6517e-01, 3.1623e-01, 2.7384e-01, 2.3714e-01, 2.0535e-01,
        1.7783e-01, 1.5399e-01, 1.3335e-01, 1.1548e-01, 1.0000e-01, 8.3479e-02,
        6.9590e-02, 5.7925e-02, 4.8136e-02, 3.9931e-02, 3.3061e-02, 2.7315e-02,
        2.2515e-02, 1.8512e-02, 1.5177e-02, 1.2403e-02, 1.0101e-02, 8.1924e-03,
        6.6143e-03, 5.3120e-03, 4.2400e-03, 3.3599e-03, 2.6396e-03, 2.0520e-03,
        1.5746e-03, 1.1882e-03, 8.7713e-04, 6.2810e-04, 4.3007e-04, 2.7384e-04,
        2.3714e-04, 2.0535e-04, 1.7783e-04, 1.5399e-04, 1.3335e-04, 1.1548e-04,
        1.0000e-04, 8.6596e-05, 7.4989e-05, 6.4938e-05, 5.6234e-05, 4.8697e-05,
        4.2170e-05, 3.6517e-05, 3.1623e-05, 2.7384e-05, 2.3714e-05, 2.0535e-05,
        1.7783e-05, 1.5399e-05, 1.3335e-05, 1.1548e-05,
    ]
    # fmt: on
    thetas, scale = rope_frequencies(HEAD_DIM, method="yarn", factor=10.0,
                                     original_context_length=2048,
                                     beta_fast=32.0, beta_slow=1.0)
    assert _far(list(thetas), expected) == []
    assert abs(scale - 1.2302585092994046) < 1e-12  # 0.1 * ln(10) + 1, worked by hand


def test_the_tolerance_tells_llama3_from_default() -> None:
    """theta_31 is 1.1548e-02 unscaled and 1.0730e-02 under llama3: the check can fail."""
    thetas, _ = rope_frequencies(HEAD_DIM)
    assert abs(list(thetas)[31] - 1.0730e-02) > ATOL + RTOL * 1.0730e-02
