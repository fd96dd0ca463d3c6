"""The causal mask lets word order in, even with no positions at all (issue 10, item 3).

Without positions and without the mask, attention is blind to order: the same
token gets the same output wherever it stands. GPT's causal mask breaks that:
token i averages over tokens 0..i only, so what it sees depends on i.
"""

from __future__ import annotations

from commands import minipe

from minipe import Matrix, allclose, run, scaled_dot_product_attention


def test_equal_scores_under_the_mask_average_a_first_token_flag_into_one_over_i_plus_1() -> None:
    # q = k = 0: every score is 0, so under the mask row i gives weight 1/(i+1) to each of
    # tokens 0..i. The value is 1 at token 0 and 0 elsewhere, so row i's output is
    # (1/(i+1)) * 1 + (i/(i+1)) * 0 = 1/(i+1): worked by hand, for n = 6.
    n = 6
    flat = Matrix.zeros(n, 1)
    first_only = Matrix([[1.0]] + [[0.0]] * (n - 1))
    masked = scaled_dot_product_attention(flat, flat, first_only, causal=True)
    for i in range(n):
        assert masked.weights[i].tolist() == [1 / (i + 1)] * (i + 1) + [0.0] * (n - 1 - i)
        assert abs(masked.output[i, 0] - 1 / (i + 1)) < 1e-15
    # without the mask every row averages all n tokens: 1/n everywhere, no position in it
    unmasked = scaled_dot_product_attention(flat, flat, first_only)
    assert all(abs(unmasked.output[i, 0] - 1 / n) < 1e-15 for i in range(n))


def test_without_positions_the_mask_alone_tells_the_same_token_apart() -> None:
    # 'a' stands at positions 0 and 3: the same ID, the same token row, no positions added.
    blind = run("A man bites a dog", positions="none")
    masked = run("A man bites a dog", positions="none", causal=True)
    assert masked.input_embeddings[0] == masked.input_embeddings[3]
    assert allclose(blind.attention.output[0], blind.attention.output[3], abs_tol=1e-12)
    # with the mask, 'a' at 0 sees only itself, so its output is its own value row
    assert not allclose(masked.attention.output[0], masked.attention.output[3], abs_tol=1e-6)
    assert masked.attention.weights[0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]


def test_without_positions_the_mask_tells_the_two_sentences_apart() -> None:
    # 'man' is token 1 of the first sentence and token 4 of the second.
    first = run("A man bites a dog", positions="none", causal=True)
    second = run("A dog bites a man", positions="none", causal=True)
    assert first.tokens.index("man") == 1 and second.tokens.index("man") == 4
    assert not allclose(first.attention.output[1], second.attention.output[4], abs_tol=1e-6)
    # without the mask they are equal (lecture 000's point, and tests/test_pipeline.py's)
    first_blind = run("A man bites a dog", positions="none")
    second_blind = run("A dog bites a man", positions="none")
    assert allclose(first_blind.attention.output[1], second_blind.attention.output[4],
                    abs_tol=1e-12)


def test_the_trace_does_not_call_masked_attention_blind() -> None:
    masked = str(run("A man bites a dog", positions="none", causal=True))
    assert "so attention is blind to word order" not in masked
    assert "Without the mask attention would be blind to" in masked
    assert "order leaks in: token i sees tokens 0..i only" in masked
    blind = str(run("A man bites a dog", positions="none"))
    assert "4. position encodings: none, so attention is blind to word order" in blind


def test_help_says_the_mask_lets_order_in() -> None:
    done = minipe("--help")  # from the clone, once a session (tests/commands.py)
    assert done.returncode == 0, done.stderr
    words = " ".join(done.stdout.split())  # argparse wraps the help text
    assert "blind to word order - unless --causal, whose mask alone lets order in" in words
