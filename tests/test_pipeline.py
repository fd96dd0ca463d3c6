"""Chapter 9: run(text) -> Trace, and python -m minipe."""

from __future__ import annotations

import math
from typing import Any

import pytest
from commands import minipe

from minipe import (
    Embedding,
    Matrix,
    RotaryAttention,
    Trace,
    alibi_slopes,
    allclose,
    run,
    sinusoidal_encoding,
)
from minipe.__main__ import main
from minipe.pipeline import ALIBI_SLOPE


def test_every_stage_is_kept() -> None:
    trace = run("The cat sat on the mat", d_model=8, seed=0)
    assert trace.tokens == ("the", "cat", "sat", "on", "the", "mat")
    assert trace.token_ids == (4, 0, 3, 2, 4, 1)  # cat mat on sat the, sorted -> 0..4
    assert trace.vocab_size == 7  # 5 words + <|unk|> + <|endoftext|>
    assert trace.token_embeddings.shape == (6, 8)
    assert trace.position_encodings is not None
    assert trace.position_encodings == sinusoidal_encoding(6, 8)
    assert trace.input_embeddings.shape == (6, 8)
    assert trace.attention.weights.shape == (6, 6)
    assert trace.attention.output.shape == (6, 8)


def test_stages_fit_together() -> None:
    trace = run("The cat sat on the mat", d_model=8, seed=0)
    token_table = Embedding(7, 8, seed=0)  # the pipeline's token table uses `seed`
    for pos, token_id in enumerate(trace.token_ids):
        assert trace.token_embeddings[pos] == token_table.weight[token_id]
    assert trace.position_encodings is not None
    by_hand = [[trace.token_embeddings[pos, j] + trace.position_encodings[pos, j]
                for j in range(8)] for pos in range(6)]  # X'[pos] = X[pos] + PE[pos]
    assert trace.input_embeddings.tolist() == by_hand
    # 'the' at positions 0 and 4: same token embedding, different input embedding
    assert trace.token_embeddings[0] == trace.token_embeddings[4]
    assert trace.input_embeddings[0] != trace.input_embeddings[4]


def test_a_man_bites_a_dog_without_positions() -> None:
    # lecture 000: the same words in another order. Without positions, "man" gets
    # exactly the same attention output in both sentences.
    first = run("A man bites a dog", positions="none")
    second = run("A dog bites a man", positions="none")
    assert first.position_encodings is None
    man_first = first.attention.output[first.tokens.index("man")]
    man_second = second.attention.output[second.tokens.index("man")]
    assert allclose(man_first, man_second, abs_tol=1e-12)
    # with sinusoidal positions, "man" at position 1 and at position 4 differ
    with_positions_first = run("A man bites a dog")
    with_positions_second = run("A dog bites a man")
    assert not allclose(with_positions_first.attention.output[1],
                        with_positions_second.attention.output[4], abs_tol=1e-6)


def test_learned_positions_and_causal_mask() -> None:
    trace = run("one two three", positions="learned", causal=True, seed=5)
    assert trace.position_encodings is not None
    assert trace.position_encodings.shape == (3, 8)
    assert trace.position_encodings != trace.token_embeddings  # seed + 1, not seed
    assert trace.attention.weights[0].tolist() == [1.0, 0.0, 0.0]
    assert trace.attention.weights[1, 2] == 0.0


def test_the_same_seed_gives_the_same_trace() -> None:
    assert run("a b c", seed=3).attention.output == run("a b c", seed=3).attention.output
    assert run("a b c", seed=3).attention.output != run("a b c", seed=4).attention.output


@pytest.mark.parametrize("kwargs, error, words", [
    ({"text": 42}, TypeError, "text must be a str"),
    ({"text": "  "}, ValueError, "has no tokens"),
    ({"text": "a b", "d_model": 0}, ValueError, "d_model must be >= 1"),
    ({"text": "a b", "positions": "rotary"}, ValueError,
     "positions must be one of sinusoidal, learned, none, rope, alibi; got 'rotary'"),
    ({"text": "a b", "positions": "rope", "d_model": 7}, ValueError,
     "positions='rope' needs an even d_model, got d_model=7"),
    ({"text": "a b", "seed": -1}, ValueError, "seed must be >= 0"),
    ({"text": "a b", "causal": "no"}, TypeError, "causal must be True or False, got 'no'"),
])
def test_bad_input_is_explained(kwargs: dict[str, Any], error: type[Exception],
                                words: str) -> None:
    with pytest.raises(error, match=words):
        run(**kwargs)


def test_trace_prints_every_stage_in_80_columns() -> None:
    text = str(run("The cat sat on the mat", d_model=64, causal=True))
    for stage in ["1. tokens", "2. token IDs", "3. token embeddings, shape (6, 64)",
                  "4. position encodings (sinusoidal), shape (6, 64)",
                  "5. input embeddings", "6. attention weights, shape (6, 6)",
                  "7. attention output"]:
        assert stage in text
    assert "'the' at positions 0 and 4: same ID, same row" in text
    assert max(len(line) for line in text.splitlines()) <= 80
    # PE(1) of lecture 003 starts the position table's row 1: sin 1, cos 1
    assert "1 cat  [ 0.8415  0.5403" in text


def test_cli_main_prints_the_pipeline(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["A dog bites a man", "--d-model", "4", "--positions", "learned"]) == 0
    out = capsys.readouterr().out
    assert "positions=learned" in out
    assert "shape (5, 4)" in out


def test_cli_rejects_bad_options_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--d-model", "0"])
    assert exit_info.value.code == 2
    assert "argument --d-model: must be >= 1, got 0" in capsys.readouterr().err  # the option


def test_python_dash_m_minipe_runs_from_the_clone() -> None:
    done = minipe()  # `python -m minipe` from the clone, once a session (tests/commands.py)
    assert done.returncode == 0, done.stderr
    assert "text: 'The cat sat on the mat'" in done.stdout
    assert "7. attention output = weights @ V, shape (6, 8)" in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) <= 80


def test_help_explains_every_option() -> None:
    done = minipe("--help")  # from the clone, once a session (tests/commands.py)
    assert done.returncode == 0
    for option in ["--d-model", "--positions", "--seed", "--causal", "sinusoidal", "learned",
                   "rope", "alibi"]:
        assert option in done.stdout


def test_trace_is_frozen() -> None:
    trace = run("a b")
    with pytest.raises(AttributeError):
        trace.text = "c d"  # type: ignore[misc]
    assert isinstance(trace, Trace)
    assert math.isclose(sum(trace.attention.weights[0]), 1.0)


def test_long_text_still_fits_80_columns() -> None:
    words = ["supercalifragilisticexpialidocious"] * 3 + [f"word{i}" for i in range(120)]
    for positions in ["sinusoidal", "none", "rope", "alibi"]:
        text = str(run(" ".join(words), positions=positions, d_model=16))
        assert max(len(line) for line in text.splitlines()) <= 80
        assert "1. tokens: 123" in text


def test_without_positions_step_5_says_so() -> None:
    text = str(run("a b", positions="none"))
    assert "5. input embeddings = the token embeddings, unchanged, shape (2, 8)" in text
    assert "4. position encodings: none, so attention is blind to word order" in text


def test_trace_repr_is_short() -> None:
    trace = run("a b c " * 100)
    assert repr(trace) == ("Trace('a b c a b c a b c a b c a b c a b c ..., tokens=300, "
                           "shape=(300, 8), positions='sinusoidal')")


def test_the_minipe_command_is_python_dash_m_minipe() -> None:
    from importlib.metadata import PackageNotFoundError, entry_points, version
    try:
        version("minipe")
    except PackageNotFoundError:
        pytest.skip("minipe is not installed (pip install -e .) so it has no console script")
    scripts = {entry.name: entry.value for entry in entry_points(group="console_scripts")}
    assert scripts["minipe"] == "minipe.__main__:main"


# --- rope and alibi: nothing added to the token embeddings ---------------------------

def test_rope_adds_nothing_and_rotates_inside_the_head() -> None:
    trace = run("The cat sat on the mat", positions="rope", seed=0)
    assert trace.position_encodings is None
    assert trace.attention_bias is None
    assert trace.input_embeddings == trace.token_embeddings  # untouched
    # the head is seed + 2's, a RotaryAttention; the plain head of positions="none" differs
    rotary_head = RotaryAttention(8, 8, seed=2)
    assert trace.attention == rotary_head(trace.token_embeddings)
    plain = run("The cat sat on the mat", positions="none", seed=0)
    assert not allclose(trace.attention.weights, plain.attention.weights)
    # position 0 is not rotated: query 0 . key 0 is the same score as without positions
    assert math.isclose(trace.attention.scores[0, 0], plain.attention.scores[0, 0])


def test_rope_tells_the_two_thes_apart() -> None:
    trace = run("The cat sat on the mat", positions="rope")
    assert trace.input_embeddings[0] == trace.input_embeddings[4]  # same input row ...
    assert not allclose(trace.attention.output[0], trace.attention.output[4])  # ... not output
    none = run("The cat sat on the mat", positions="none")
    assert none.attention.output[0] == none.attention.output[4]  # blind without positions


def test_alibi_adds_minus_m_times_distance_to_the_scores() -> None:
    assert ALIBI_SLOPE == alibi_slopes(8)[0] == 0.5  # the steepest of the paper's 8 heads
    trace = run("The cat sat on the mat", positions="alibi", seed=0)
    plain = run("The cat sat on the mat", positions="none", seed=0)  # same tokens, same head
    assert trace.position_encodings is None
    assert trace.input_embeddings == trace.token_embeddings
    by_hand = [[-0.5 * abs(i - j) for j in range(6)] for i in range(6)]  # -m |i - j|
    assert trace.attention_bias is not None
    assert allclose(trace.attention_bias, by_hand)
    assert allclose(trace.attention.scores, plain.attention.scores + Matrix(by_hand))
    # after the softmax: weight(i, j) is the plain weight times exp(-0.5 |i - j|), rescaled
    for i in range(6):
        pulled = [plain.attention.weights[i, j] * math.exp(-0.5 * abs(i - j)) for j in range(6)]
        assert allclose(trace.attention.weights[i], [w / sum(pulled) for w in pulled])


def test_alibi_with_the_causal_mask() -> None:
    trace = run("one two three", positions="alibi", causal=True)
    assert trace.attention_bias is not None
    assert trace.attention_bias.tolist() == [[0.0, -math.inf, -math.inf],
                                             [-0.5, 0.0, -math.inf],
                                             [-1.0, -0.5, 0.0]]
    assert trace.attention.weights[0].tolist() == [1.0, 0.0, 0.0]
    assert trace.attention.weights[1, 2] == 0.0


def test_a_man_bites_a_dog_with_rope_and_alibi() -> None:
    for positions in ["rope", "alibi"]:
        first = run("A man bites a dog", positions=positions)
        second = run("A dog bites a man", positions=positions)
        # "man" at position 1, then at position 4: no longer the same output
        assert not allclose(first.attention.output[1], second.attention.output[4],
                            abs_tol=1e-6), positions


def test_the_printout_says_what_rope_and_alibi_do_instead() -> None:
    rope = str(run("The cat sat on the mat", positions="rope"))
    assert "4. position encodings: none added. RoPE rotates each query and key inside" in rope
    assert "pair i at position pos turns by pos * 10000**(-2i/d)" in rope
    assert "5. input embeddings = the token embeddings, unchanged, shape (6, 8)" in rope
    assert "'the' at positions 0 and 4: same row, but RoPE turns its q and k apart" in rope
    alibi = str(run("The cat sat on the mat", positions="alibi"))
    assert "ALiBi adds -m * |i - j| to score(i, j)" in alibi
    assert "m = 0.5 (the steepest of 8 heads; alibi_slopes(1) = [1/256]" in alibi
    assert "The bias, shape (6, 6):" in alibi
    assert "5 mat  [-2.5000 -2.0000 -1.5000 -1.0000 -0.5000  0.0000]" in alibi  # -0.5 |5 - j|
    for text in [rope, alibi, str(run("a b c", positions="alibi", causal=True, d_model=64))]:
        assert max(len(line) for line in text.splitlines()) <= 80


def test_cli_positions_rope_and_alibi(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--positions", "rope"]) == 0
    assert "positions=rope" in capsys.readouterr().out
    assert main(["A dog bites a man", "--positions", "alibi", "--causal"]) == 0
    out = capsys.readouterr().out
    assert "positions=alibi, causal" in out
    assert "ALiBi adds" in out
    with pytest.raises(SystemExit) as exit_info:
        main(["--positions", "rope", "--d-model", "5"])
    assert exit_info.value.code == 2
    assert "positions='rope' needs an even d_model, got d_model=5" in capsys.readouterr().err


# --- sizes that cannot finish: refused at run()'s door, before any work -------------------

def test_a_run_that_would_hold_more_than_4_gb_is_refused_with_the_estimate() -> None:
    from minipe.pipeline import numbers_held

    # 2 n**2 scores and weights + 8 n d vectors + 3 d**2 head weights, at n = 7889, d = 8:
    # 2 x 62,236,321 + 504,896 + 192 = 124,977,730 numbers x 32 bytes = 3,999,287,360 <= 4e9
    assert numbers_held(7889, 8) == 124_977_730
    # one token more: 2 x 62,252,100 + 504,960 + 192 = 125,009,352 x 32 = 4,000,299,264 > 4e9
    with pytest.raises(ValueError, match=r"run\(\) on 7,890 tokens at d_model = 8 would hold "
                       r"125,009,352 numbers, about 4 GB"):
        run("w " * 7890)
    # ALiBi's bias is a third n x n table: 3 x 1000**2 + 8 x 1000 x 8 + 3 x 8**2
    assert numbers_held(1000, 8, "alibi") == 3_064_192
    with pytest.raises(ValueError, match="d_model = 8192 would hold 201,457,672 numbers"):
        run("a b", d_model=8192)  # 3 x 8192**2 + 8 x 2 x 8192 + 2 x 2**2 = 201,457,672


def test_a_long_text_without_tokens_is_named_short() -> None:
    with pytest.raises(ValueError) as error:
        run(" " * 10**6)
    # repr(" " * 10**6) cut to 40 characters: the quote, 36 spaces, "..."
    assert str(error.value) == ("text '" + " " * 36 + "... has no tokens: give some words, "
                                "like 'The cat sat on the mat'")


# --- GPT-2's tokens (chapter 1b) through the pipeline -------------------------------------
# The IDs are tiktoken 0.14.0's on the shipped merges (GPT-2's encoding), written here by hand.

BOOKSHELF_IDS = (464, 3797, 3332, 319, 262, 3835, 258, 1652)  # The cat sat on the books he lf


@pytest.mark.slow  # a GPT-2-sized table, or a lesson's whole run
def test_gpt2_tokens_take_the_positions() -> None:
    trace = run("The cat sat on the bookshelf", tokenizer="gpt2", positions="learned")
    assert trace.token_ids == BOOKSHELF_IDS
    assert trace.tokens == ("The", " cat", " sat", " on", " the", " books", "he", "lf")
    assert trace.word_ids == (0, 1, 2, 3, 4, 5, 5, 5)  # 'bookshelf' takes positions 5, 6, 7
    assert trace.vocab_size == 50257  # 256 bytes + 50,000 merges + <|endoftext|>
    assert trace.input_embeddings.shape == (8, 8)  # a row per token, not per word
    token_table = Embedding(50257, 8, seed=0)  # the whole table, seeded as chapter 1's is
    assert trace.token_embeddings == token_table(list(BOOKSHELF_IDS))


def test_gpt2_the_and_The_are_two_tokens_so_nothing_repeats() -> None:
    trace = run("The cat sat on the mat", tokenizer="gpt2")
    assert trace.token_ids == (464, 3797, 3332, 319, 262, 2603)  # 'The' 464, ' the' 262
    printed = str(trace)
    assert "same ID, same row" not in printed  # chapter 1 lower-cases; GPT-2 keeps the bytes
    assert "every word is one token here" in printed


def test_gpt2_printout_says_what_the_table_costs_in_80_columns() -> None:
    printed = str(run("The cat sat on the bookshelf", tokenizer="gpt2"))
    assert "tokenizer=gpt2" in printed
    assert "1. tokens: 8 from 6 words" in printed
    assert "' bookshelf' (word 5) takes positions 5..7" in printed
    assert "vocabulary of 50,257: 256 bytes, 50,000 merges, <|endoftext|>" in printed
    assert f"50,257 rows x 8 = {50257 * 8:,} numbers (13 MB)" in printed  # 32 bytes each
    assert max(len(line) for line in printed.splitlines()) <= 80


def test_a_trained_tokenizer_runs_too() -> None:
    from minipe import BytePairTokenizer
    trained = BytePairTokenizer.train("aaabdaaabac", 256 + 3)  # minbpe's Wikipedia example
    trace = run("aaabdaaabac", tokenizer=trained)
    assert trace.token_ids == (258, 100, 258, 97, 99)
    assert trace.vocab_size == 259 and trace.tokenizer == "bpe"
    assert "vocabulary of 259: 256 bytes, 3 merges)" in str(trace)


@pytest.mark.parametrize("kwargs, sentence", [
    ({"tokenizer": "bpe"}, "tokenizer must be 'words' (chapter 1), 'gpt2'"),
    ({"tokenizer": None}, "or a BytePairTokenizer; got None"),
    ({"text": "a<|endoftext|>", "tokenizer": "gpt2"}, "pass allowed_special"),
])
def test_a_bad_tokenizer_is_explained(kwargs: dict[str, Any], sentence: str) -> None:
    with pytest.raises(ValueError, match=sentence.replace("(", r"\(").replace(")", r"\)")):
        run(**{"text": "a b", **kwargs})


def test_cli_tokenizer_gpt2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--tokenizer", "gpt2", "The cat sat on the bookshelf"]) == 0
    out = capsys.readouterr().out
    assert "[464, 3797, 3332, 319, 262, 3835, 258, 1652]" in out
    assert "shape (8, 8)" in out


def test_help_says_what_gpt2_costs() -> None:
    done = minipe("--help")
    assert "--tokenizer {words,gpt2}" in done.stdout
    assert "50,257 rows x d_model" in " ".join(done.stdout.split())
