"""Chapter 8 (and chapter 1's encode_batch): padded batches, position_ids, packed documents.

Expected values are written out by hand, computed by naive loops written here, or
numbers Hugging Face transformers 5.23.0 produced, saved in
tests/reference/batches_reference.json by tests/reference/make_batches_reference.py.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from commands import minipe

from minipe import (
    BytePairTokenizer,
    Embedding,
    Matrix,
    SingleHeadAttention,
    Tokenizer,
    allclose,
    apply_rotary,
    document_mask,
    pack_documents,
    position_ids,
    run_batch,
    scaled_dot_product_attention,
    sinusoidal_encoding,
)


REFERENCE: dict[str, Any] = json.loads(
    (Path(__file__).parent / "reference" / "batches_reference.json").read_text())

# vocabulary: . a bites cat dog man mat on sat the <|unk|> <|endoftext|> -> IDs 0..11
TOKENIZER = Tokenizer.from_corpus("The cat sat on the mat. A dog bites a man")
PAD = 11  # <|endoftext|>, the last ID


# --- encode_batch (chapter 1) -----------------------------------------------------------

def test_right_padding_fills_after_each_text_and_the_mask_marks_it() -> None:
    batch = TOKENIZER.encode_batch(["The cat sat on the mat", "A dog bites a man", "the cat"])
    assert batch.ids == [[9, 3, 8, 7, 9, 6],
                         [1, 4, 2, 1, 5, PAD],
                         [9, 3, PAD, PAD, PAD, PAD]]
    assert batch.attention_mask == [[1, 1, 1, 1, 1, 1],
                                    [1, 1, 1, 1, 1, 0],
                                    [1, 1, 0, 0, 0, 0]]


def test_left_padding_fills_before_each_text() -> None:
    batch = TOKENIZER.encode_batch(["A dog bites a man", "the cat"], padding_side="left")
    assert batch.ids == [[1, 4, 2, 1, 5], [PAD, PAD, PAD, 9, 3]]
    assert batch.attention_mask == [[1, 1, 1, 1, 1], [0, 0, 0, 1, 1]]


def test_the_mask_not_the_id_says_what_is_padding() -> None:
    # a real <|endoftext|> gets the padding ID, and mask 1
    batch = TOKENIZER.encode_batch(["the cat <|endoftext|>", "a"])
    assert batch.ids == [[9, 3, PAD], [1, PAD, PAD]]
    assert batch.attention_mask == [[1, 1, 1], [1, 0, 0]]


@pytest.mark.parametrize("texts, side, error, words", [
    ([], "right", ValueError, "texts is empty; a batch needs at least one text"),
    ("the cat", "right", TypeError, r"texts must be a list of str.*for one text, use encode"),
    (["the", 3], "right", TypeError, r"texts\[1\] must be a str, got int"),
    (["the", ""], "right", ValueError, r"texts\[1\] = '' has no tokens"),
    (["the"], "middle", ValueError, r"padding_side must be 'right' \(padding after each "
     r"text\) or 'left' \(before it\), got 'middle'"),
])
def test_encode_batch_mistakes(texts: Any, side: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        TOKENIZER.encode_batch(texts, padding_side=side)


def test_a_vocabulary_without_end_of_text_cannot_pad() -> None:
    with pytest.raises(ValueError, match="this vocabulary has no '<|endoftext|>' to pad with"):
        Tokenizer(["cat", "<|unk|>"]).encode_batch(["cat"])


# --- position_ids -----------------------------------------------------------------------

def naive_position_ids(mask: list[int]) -> list[int]:
    """Count the real tokens seen so far; padding gets 0."""
    out, seen = [], 0
    for real in mask:
        out.append(seen if real else 0)
        seen += real
    return out


def test_position_ids_count_the_real_tokens_before_each() -> None:
    assert position_ids([[0, 0, 1, 1, 1], [1, 1, 1, 0, 0], [1, 0, 1, 1, 0]]) == \
        [[0, 0, 0, 1, 2], [0, 1, 2, 0, 0], [0, 0, 1, 2, 0]]
    rng = random.Random(5)
    masks = [[rng.randint(0, 1) for _ in range(9)] for _ in range(20)]
    assert position_ids(masks) == [naive_position_ids(mask) for mask in masks]


@pytest.mark.parametrize("side", ["right", "left"])
def test_position_ids_equal_hugging_faces_generate(side: str) -> None:
    case = REFERENCE["generation_position_ids"][side]
    assert position_ids(case["attention_mask"]) == case["position_ids"]


def test_left_padded_rows_get_the_positions_of_the_text_alone() -> None:
    batch = TOKENIZER.encode_batch(["The cat sat on the mat", "the cat"], padding_side="left")
    assert position_ids(batch.attention_mask)[1][-2:] == [0, 1]  # "the cat" alone: 0, 1


@pytest.mark.parametrize("mask, error, words", [
    ([], ValueError, "attention_mask is empty"),
    ([[1, 1], [1]], ValueError, r"attention_mask\[1\] has 1 entries but attention_mask\[0\] "
     r"has 2: a padded batch is a rectangle"),
    ([[1, 2]], ValueError, r"attention_mask\[0\] holds 2: a mask holds 1 \(a real token\) "
     r"and 0 \(padding\), nothing else"),
    ([[1, True]], ValueError, r"attention_mask\[0\] holds True"),
    ([[1.0]], ValueError, r"attention_mask\[0\] holds 1.0"),
    ([1, 1, 0], TypeError, r"attention_mask\[0\] must be a list of 1s and 0s \(one row per "
     r"text: for one text, wrap it in a list\)"),
    ([[]], ValueError, r"attention_mask\[0\] is empty; every row needs at least one entry"),
    ("110", TypeError, "attention_mask must be a list of rows"),
])
def test_position_ids_mistakes(mask: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        position_ids(mask)


# --- packed documents -------------------------------------------------------------------

def test_packing_equals_hugging_faces_data_collator_with_flattening() -> None:
    case = REFERENCE["flattening"]
    packed = pack_documents(case["documents"])
    assert packed.ids == case["input_ids"][0]  # HF's have a batch axis of 1
    assert packed.position_ids == case["position_ids"][0]
    assert packed.labels == case["labels"][0]


def test_packing_by_hand() -> None:
    packed = pack_documents([[4], [7, 8, 9]])
    assert (packed.ids, packed.position_ids, packed.labels) == \
        ([4, 7, 8, 9], [0, 0, 1, 2], [-100, -100, 8, 9])


@pytest.mark.parametrize("documents, error, words", [
    ([], ValueError, "documents is empty"),
    ([[1], []], ValueError, r"documents\[1\] is empty"),
    ([[1], [2, -1]], ValueError, r"documents\[1\] holds -1: token IDs are ints >= 0"),
    ([[1], "cat"], TypeError, r"documents\[1\] must be a list of int token IDs \(encode the "
     r"text first\)"),
    ([[1.5]], ValueError, r"documents\[0\] holds 1.5"),
])
def test_pack_documents_mistakes(documents: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        pack_documents(documents)


def naive_document_mask(positions: list[int]) -> list[list[bool]]:
    """Number the documents (a new one at every 0), then j <= i in the same one."""
    document, numbers = -1, []
    for position in positions:
        document += position == 0
        numbers.append(document)
    n = len(positions)
    return [[numbers[i] == numbers[j] and j <= i for j in range(n)] for i in range(n)]


def test_document_mask_by_hand_and_against_the_loops() -> None:
    T, F = True, False
    assert document_mask([0, 1, 0, 0, 1]) == [[T, F, F, F, F],
                                              [T, T, F, F, F],
                                              [F, F, T, F, F],
                                              [F, F, F, T, F],
                                              [F, F, F, T, T]]
    positions = pack_documents([[1] * 3, [2] * 1, [3] * 5, [4] * 2]).position_ids
    assert document_mask(positions) == naive_document_mask(positions)


def test_with_the_document_mask_each_document_attends_as_if_alone() -> None:
    rng = random.Random(11)
    lengths = [3, 1, 4]
    rows = [[rng.uniform(-2, 2) for _ in range(4)] for _ in range(sum(lengths))]
    x = Matrix(rows)
    positions = pack_documents([[0] * n for n in lengths]).position_ids
    packed = scaled_dot_product_attention(x, x, x, mask=document_mask(positions))
    start = 0
    for n in lengths:
        alone = Matrix(rows[start:start + n])
        expected = scaled_dot_product_attention(alone, alone, alone, causal=True).output
        assert packed.output.tolist()[start:start + n] == expected.tolist()  # exactly
        start += n


@pytest.mark.parametrize("positions, error, words", [
    ([], ValueError, "position_ids is empty"),
    ([1, 2], ValueError, r"position_ids\[0\] = 1: a packed sequence begins with a document, "
     r"at position 0"),
    ([0, 1, 3], ValueError, r"position_ids\[2\] = 3 follows 1: packed positions count 0, 1, 2"),
    ([0, 0.5], TypeError, r"position_ids\[1\] must be an int position, got 0.5"),
    ([[0, 1]], TypeError, r"position_ids\[0\] must be an int position"),
    ("01", TypeError, "position_ids must be one packed sequence's positions"),
])
def test_document_mask_mistakes(positions: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        document_mask(positions)


# --- the pipeline on a padded batch (chapter 9) ----------------------------------------

def naive_attention(x: list[list[float]], head: SingleHeadAttention) -> list[list[float]]:
    """softmax(Q K^T / sqrt(d)) V with loops, on the rows of one text and nothing else."""
    q, k, v = (Matrix(x) @ w for w in (head.W_q, head.W_k, head.W_v))
    d = len(x[0])
    out = []
    for q_row in q.tolist():
        exps = [math.exp(sum(a * b for a, b in zip(q_row, k_row)) / math.sqrt(d))
                for k_row in k.tolist()]
        weights = [e / sum(exps) for e in exps]
        out.append([sum(w * v_row[c] for w, v_row in zip(weights, v.tolist()))
                    for c in range(d)])
    return out


@pytest.mark.parametrize("side", ["right", "left"])
def test_each_texts_real_rows_are_its_output_alone(side: str) -> None:
    texts = ["The cat sat on the mat", "A dog bites a man", "the cat"]
    trace = run_batch(texts, positions="sinusoidal", padding_side=side, seed=4)
    tokenizer = Tokenizer.from_corpus(" ".join(texts))  # run_batch's vocabulary, as documented
    tokens = Embedding(tokenizer.vocab_size, 8, seed=4)  # its seeds: tokens seed, head seed + 2
    head = SingleHeadAttention(8, 8, seed=6)
    for b, text in enumerate(texts):
        ids = tokenizer.encode(text)
        x = tokens(ids) + sinusoidal_encoding(len(ids), 8)  # positions 0..n-1: the text alone
        expected = naive_attention(x.tolist(), head)
        assert allclose(trace.real_rows(b, trace.outputs), expected, rel_tol=1e-12,
                        abs_tol=1e-14)
        assert trace.largest_difference(b, trace.outputs) == 0.0  # the same sums, exactly


def test_positions_counted_by_column_move_the_tables_but_not_rope_or_alibi() -> None:
    texts = ["The cat sat on the mat", "the cat"]
    for kind, moves in [("sinusoidal", True), ("learned", True), ("rope", False),
                        ("alibi", False), ("none", False)]:
        left = run_batch(texts, positions=kind, padding_side="left")
        assert left.largest_difference(0, left.by_column) == 0.0  # the longest: no padding
        shift = left.largest_difference(1, left.by_column)  # 'the cat' at columns 4, 5
        assert (shift > 0.1) if moves else (shift < 1e-15), (kind, shift)
        right = run_batch(texts, positions=kind)  # right padding: columns are positions
        assert right.largest_difference(1, right.by_column) == 0.0


def test_run_batch_mistakes() -> None:
    with pytest.raises(TypeError, match=r"texts must be a non-empty list of str.*for one "
                       r"text, use run"):
        run_batch("the cat")
    with pytest.raises(TypeError, match="texts must be a non-empty list of str"):
        run_batch([])
    with pytest.raises(ValueError, match="padding_side must be 'right'"):
        run_batch(["a", "b"], padding_side="up")
    with pytest.raises(ValueError, match="positions must be one of"):
        run_batch(["a", "b"], positions="absolute")


def _command(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m minipe ARGS` from the clone, once a session (tests/commands.py)."""
    return minipe(*args)


def test_the_command_shows_a_padded_batch_and_refuses_what_does_not_fit() -> None:
    done = _command("The cat sat on the mat", "A dog bites a man", "--padding-side", "left")
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0].startswith("2 texts, padded on the left to 6 tokens with <|endoftext|>'s "
                               "ID 10")
    assert "   1 'A dog bites a man'      [10, 0, 3, 1, 0, 4]" in lines  # IDs as run_batch's
    assert "   1 'A dog bites a man'      [0, 0, 1, 2, 3, 4]" in lines  # position_ids
    assert lines.count("   1 'A dog bites a man'      0") == 1  # alone: no difference
    assert "--padding-side" in _command("--help").stdout
    one = _command("the cat", "--padding-side", "left")
    assert one.returncode == 2 and "--padding-side pads a batch: give two texts or more" \
        in one.stderr
    empty = _command("the cat", "")
    assert empty.returncode == 2 and "texts[1] = '' has no tokens" in empty.stderr


def test_packed_with_rope_positions_and_the_document_mask_each_document_is_alone() -> None:
    rng = random.Random(21)
    lengths = [2, 4, 3]
    q_rows = [[rng.uniform(-1, 1) for _ in range(4)] for _ in range(sum(lengths))]
    k_rows = [[rng.uniform(-1, 1) for _ in range(4)] for _ in range(sum(lengths))]
    v = Matrix([[rng.uniform(-1, 1) for _ in range(2)] for _ in range(sum(lengths))])
    positions = pack_documents([[0] * n for n in lengths]).position_ids  # 0 1 0 1 2 3 0 1 2
    q = apply_rotary(Matrix(q_rows), positions=positions)
    k = apply_rotary(Matrix(k_rows), positions=positions)
    packed = scaled_dot_product_attention(q, k, v, mask=document_mask(positions)).output
    leaky = scaled_dot_product_attention(q, k, v, causal=True).output  # positions reset only
    start = 0
    for n in lengths:
        rows = slice(start, start + n)
        alone = scaled_dot_product_attention(
            apply_rotary(Matrix(q_rows[rows])), apply_rotary(Matrix(k_rows[rows])),
            Matrix(v.tolist()[rows]), causal=True).output  # positions 0..n-1, nothing else
        assert allclose(packed.tolist()[rows], alone, rel_tol=1e-12, abs_tol=1e-15)
        if start > 0:  # a later document sees the ones before it without the mask
            assert not allclose(leaky.tolist()[rows], alone, rel_tol=1e-6, abs_tol=1e-6)
        start += n


def test_the_reprs_are_short() -> None:
    batch = TOKENIZER.encode_batch(["The cat sat on the mat", "the cat"])
    assert repr(batch) == "PaddedBatch(shape=(2, 6), real=8, padding=4)"  # 6 + 2 real of 12
    assert repr(pack_documents([[1, 2], [3], [4, 5, 6]])) == \
        "PackedDocuments(documents=3, tokens=6)"


# --- GPT-2's tokens (chapter 1b): <|endoftext|> pads and separates -----------------------
# The IDs are tiktoken 0.14.0's on the shipped merges (GPT-2's encoding), written by hand.

def test_a_gpt2_batch_pads_with_50256_and_each_real_row_is_the_text_alone() -> None:
    trace = run_batch(["The cat sat on the bookshelf", "A dog bites a man"], tokenizer="gpt2",
                      padding_side="left", positions="learned")
    assert trace.pad_id == 50256
    assert trace.ids == [[464, 3797, 3332, 319, 262, 3835, 258, 1652],
                         [50256, 50256, 50256, 32, 3290, 26081, 257, 582]]
    assert trace.position_ids == [[0, 1, 2, 3, 4, 5, 6, 7], [0, 0, 0, 0, 1, 2, 3, 4]]
    assert trace.largest_difference(1, trace.outputs) == 0.0  # positions from the mask
    assert trace.largest_difference(1, trace.by_column) > 0.01  # by column: rows 3..7, wrong


def test_gpt2_documents_pack_with_endoftext_between_them() -> None:
    """GPT-2 was trained on documents joined by <|endoftext|>: each ends with 50256."""
    gpt2 = BytePairTokenizer.gpt2()
    documents = [gpt2.encode(text) + [50256] for text in ["A dog bites a man", "The bookshelf"]]
    packed = pack_documents(documents)
    assert packed.ids == [32, 3290, 26081, 257, 582, 50256, 464, 3835, 258, 1652, 50256]
    assert packed.position_ids == [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4]
    assert packed.labels == [-100, 3290, 26081, 257, 582, 50256, -100, 3835, 258, 1652, 50256]


def test_document_mask_refuses_a_mask_past_memory_before_building_it() -> None:
    # 100,000 tokens: 10**10 booleans (minutes and about 90 GB before this check)
    with pytest.raises(ValueError, match=r"document_mask\(position_ids\), n x n for n tokens, "
                                         r"would hold 10,000,000,000 numbers"):
        document_mask(list(range(100_000)))
    assert len(document_mask(list(range(1000)))) == 1000  # a million fit
