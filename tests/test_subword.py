"""Chapter 1b: GPT-2's byte-level BPE against OpenAI's tokenizer library, and worked by hand.

The expected IDs come from tiktoken on the shipped merges, saved by
tests/reference/make_subword_reference.py (run by hand). The short vectors other projects'
tests assert (tiktoken's, minbpe's, the from-scratch book's) live in tests/external/.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest

import minipe
from minipe import BytePairTokenizer, sliding_windows
from minipe.pretokenizer import LAST_PLANE_WITH_LETTERS, WHITE_SPACE, gpt2_pattern, pretokenize
from minipe.subword import byte_pair_encode, byte_to_unicode, count_pairs, merge

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "minipe" / "data"
REFERENCE: dict[str, Any] = json.loads(
    (ROOT / "tests" / "reference" / "subword_reference.json").read_text(encoding="utf-8"))
VERDICT = (DATA / "the-verdict.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def gpt2() -> BytePairTokenizer:
    return BytePairTokenizer.gpt2()


# --- the data ----------------------------------------------------------------------------


def test_the_merges_are_the_ones_tiktoken_pins() -> None:
    merges = (DATA / "gpt2-vocab.bpe").read_bytes()
    assert hashlib.sha256(merges).hexdigest() == (
        "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5")
    assert len(merges) == 456_318
    assert hashlib.sha256(VERDICT.encode("utf-8")).hexdigest() == (
        "b41e41a68f0398a3154ae69e2e4c0e2694e17fe0d66730536837f1b01935b31f")
    assert len(VERDICT) == 20_479
    assert (DATA / "gpt2-vocab.LICENSE").read_text(encoding="utf-8").startswith(
        "Modified MIT License")


def test_gpt2s_vocabulary_follows_from_the_merges(gpt2: BytePairTokenizer) -> None:
    assert gpt2.vocab_size == 50_257 and len(gpt2.merges) == 50_000
    assert gpt2.vocab[0] == b"!" and gpt2.vocab[220] == b" "  # byte-to-unicode order
    assert gpt2.vocab[256] == b" t"  # merge line 1, 'Ġ t', is ID 256
    assert gpt2.vocab[50255] == b" gazed"  # the last line, "Ġg azed"
    assert gpt2.vocab[50256] == b"<|endoftext|>" and gpt2.special_tokens == {
        "<|endoftext|>": 50256}
    table = byte_to_unicode()
    assert table[ord(" ")] == "Ġ" and table[ord("\n")] == "Ċ" and table[ord("a")] == "a"
    assert sorted(map(ord, table.values()))[-1] == 256 + 67  # 68 bytes are shifted
    assert repr(gpt2) == "BytePairTokenizer(vocab_size=50257, merges=50000)"


# --- short vectors (other projects' own: tests/external/) -------------------------------


def test_the_known_vectors(gpt2: BytePairTokenizer) -> None:
    assert gpt2.encode("The cat sat on the bookshelf") == [464, 3797, 3332, 319, 262, 3835,
                                                           258, 1652]
    assert gpt2.word_ids("The cat sat on the bookshelf") == [0, 1, 2, 3, 4, 5, 5, 5]
    assert [gpt2.vocab[i] for i in (3835, 258, 1652)] == [b" books", b"he", b"lf"]


def test_one_word_four_ids(gpt2: BytePairTokenizer) -> None:
    assert [gpt2.encode(word) for word in ("the", " the", "The", " The")] == [
        [1169], [262], [464], [383]]


def test_the_wikipedia_example_trains_as_tiktokens_trainer_does() -> None:
    # minbpe's literal IDs are asserted in tests/external/test_minbpe_tokenizer.py
    trained = BytePairTokenizer.train("aaabdaaabac", 256 + 3)
    assert trained.encode("aaabdaaabac") == REFERENCE["wikipedia"]


# --- against tiktoken --------------------------------------------------------------------


def test_thousands_of_strings_encode_as_tiktoken_does(gpt2: BytePairTokenizer) -> None:
    strings = REFERENCE["strings"]
    assert len(strings) >= 2000
    for text, ids in strings:
        assert gpt2.encode(text) == ids, text
        assert gpt2.decode(ids) == text
        assert len(gpt2.word_ids(text)) == len(ids)


def test_the_verdict_is_5145_tokens(gpt2: BytePairTokenizer) -> None:
    ids = gpt2.encode(VERDICT)
    assert len(ids) == 5145 and ids == REFERENCE["verdict_ids"]
    assert gpt2.decode(ids) == VERDICT


def test_bytes_that_are_not_utf8_decode_to_the_replacement_character(
        gpt2: BytePairTokenizer) -> None:
    assert gpt2.decode([447]) == "\ufffd" and gpt2.decode([447, 247]) == "’"  # b'\xe2\x80'
    for ids, text in REFERENCE["decoded"]:
        assert gpt2.decode(ids) == text
    assert gpt2.decode([]) == ""


@pytest.mark.parametrize("vocab_size", ["300", pytest.param("512", marks=pytest.mark.slow),
                                        pytest.param("1000", marks=pytest.mark.slow)])
def test_training_learns_tiktokens_merges_in_its_order(vocab_size: str) -> None:
    expected = REFERENCE["trained"][vocab_size]
    trained = BytePairTokenizer.train(VERDICT, int(vocab_size))
    learned = [trained.vocab[token_id].hex() for token_id in range(256, trained.vocab_size)]
    assert learned == expected["tokens_hex"]
    assert trained.encode(VERDICT) == expected["verdict_ids"]
    for text, ids in expected["samples"].items():
        assert trained.encode(text) == ids
    # the measured counts: The Verdict at vocabulary 300, 512 and 1,000
    assert len(expected["verdict_ids"]) == {"300": 14_029, "512": 9_299,
                                            "1000": 6_998}[vocab_size]


# --- the pre-tokenizer -------------------------------------------------------------------


def test_the_pieces_join_back_into_the_text() -> None:
    assert pretokenize("I've 2 books, haven't I?") == [
        "I", "'ve", " 2", " books", ",", " haven", "'t", " I", "?"]
    assert pretokenize("a  b\n\nc") == ["a", " ", " b", "\n", "\n", "c"]
    assert pretokenize("x\x1cy") == ["x", "\x1c", "y"]  # U+001C is a mark, not a space
    for text, _ in REFERENCE["strings"][:200]:
        assert "".join(pretokenize(text)) == text


@pytest.mark.slow  # every one of the 1,114,112 code points: about 1 s
def test_the_classes_are_unicodes_letters_numbers_and_white_space() -> None:
    # a naive scan of every code point against the pattern's classes, one character at a time
    pattern = gpt2_pattern()
    letter = re.compile(pattern.pattern.split("| ?[")[1].split("]+")[0].join("[]"))
    number = re.compile(pattern.pattern.split("| ?[")[2].split("]+")[0].join("[]"))
    for code in range(0x110000):
        character = chr(code)
        category = unicodedata.category(character)
        assert bool(letter.fullmatch(character)) == category.startswith("L"), hex(code)
        assert bool(number.fullmatch(character)) == category.startswith("N"), hex(code)
    assert code > LAST_PLANE_WITH_LETTERS
    # Unicode's White_Space (PropList.txt), written out: 25 code points
    white = [chr(c) for c in (*range(0x09, 0x0E), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
                              0x2028, 0x2029, 0x202F, 0x205F, 0x3000)]
    assert len(white) == 25
    spelled = re.compile(f"[{WHITE_SPACE}]")
    assert [chr(c) for c in range(0x110000) if spelled.fullmatch(chr(c))] == white
    assert [chr(c) for c in range(0x1C, 0x20)] == [c for c in "\x1c\x1d\x1e\x1f" if c.isspace()]


# --- special tokens ----------------------------------------------------------------------


def test_a_special_tokens_text_is_refused_unless_allowed(gpt2: BytePairTokenizer) -> None:
    with pytest.raises(ValueError, match=re.escape(
            "text holds the special token '<|endoftext|>' at index 1; to encode it as its one "
            "token (ID 50256), pass allowed_special={'<|endoftext|>'}")):
        gpt2.encode("a<|endoftext|>b")
    special = REFERENCE["special"]
    allowed = frozenset({"<|endoftext|>"})
    assert gpt2.encode(special["text"], allowed_special=allowed) == special["ids"]
    assert special["ids"][1] == 50256
    assert gpt2.word_ids("a<|endoftext|>b", allowed_special=allowed) == [0, 1, 2]
    assert gpt2.decode(special["ids"]) == "a<|endoftext|>b"
    with pytest.raises(ValueError, match="not a special token of this tokenizer"):
        gpt2.encode("a", allowed_special={"<|pad|>"})


def test_what_encode_refuses_says_why(gpt2: BytePairTokenizer) -> None:
    with pytest.raises(TypeError, match="text must be a str, got bytes"):
        gpt2.encode(b"hello")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lone surrogate '\\\\ud800' at index 2"):
        gpt2.encode("ab\ud800")
    with pytest.raises(IndexError, match=re.escape("ids[1] = 50257 is not in the vocabulary: "
                                                   "valid IDs are 0..50256")):
        gpt2.decode([1, 50257])
    with pytest.raises(ValueError, match="vocab_size must be >= 256, got 255"):
        BytePairTokenizer.train("abc", 255)
    with pytest.raises(ValueError, match=re.escape("merges[1] = (256, 257) must be two IDs "
                                                   "made before it, each in 0..256")):
        BytePairTokenizer([(97, 97), (256, 257)])


# --- worked by hand ----------------------------------------------------------------------


def test_a_merge_step_by_hand() -> None:
    assert merge([5, 6, 5, 6, 7], (5, 6), 256) == [256, 256, 7]
    assert merge([1, 1, 1], (1, 1), 9) == [9, 1]  # left to right, no overlap
    # 'aaab': (97, 97) has rank 0, so it goes first, then (256, 97) -> 257
    assert byte_pair_encode([97, 97, 97, 98], {(97, 97): 256, (256, 97): 257}) == [257, 98]
    # the lowest rank wins, wherever it stands: (98, 99) before (97, 98)
    assert byte_pair_encode([97, 98, 99], {(97, 98): 257, (98, 99): 256}) == [97, 256]
    assert count_pairs([[1, 2, 3], [2, 3]], [1, 5]) == {(1, 2): 1, (2, 3): 6}


def test_training_stops_when_no_pair_is_left() -> None:
    assert BytePairTokenizer.train("ab ab", 1000).vocab_size == 256 + 2  # 'ab', then ' ab'


def test_sliding_windows_by_hand() -> None:
    ids = [10, 11, 12, 13, 14, 15, 16]
    assert sliding_windows(ids, 4, 1) == [([10, 11, 12, 13], [11, 12, 13, 14]),
                                          ([11, 12, 13, 14], [12, 13, 14, 15]),
                                          ([12, 13, 14, 15], [13, 14, 15, 16])]
    assert sliding_windows(ids, 2, 2) == [([10, 11], [11, 12]), ([12, 13], [13, 14]),
                                          ([14, 15], [15, 16])]
    assert sliding_windows(ids, 2, 3) == [([10, 11], [11, 12]), ([13, 14], [14, 15])]  # 12 skipped
    assert sliding_windows(ids, 7, 1) == []  # no room for the last target
    with pytest.raises(ValueError, match="stride must be >= 1, got 0"):
        sliding_windows(ids, 2, 0)


def test_hugging_faces_stride_is_an_overlap(gpt2: BytePairTokenizer) -> None:
    # Lesson 25 says so; the windows are Hugging Face's tokenizers' own, saved by hand
    saved = REFERENCE["hugging_face"]
    ids = gpt2.encode(saved["text"])
    assert ids == REFERENCE["verdict_ids"][:len(ids)]  # The Verdict's first tokens
    for stride, windows in saved["windows"].items():
        overlap = int(stride)
        step = saved["max_length"] - overlap
        assert windows == [ids[start:start + saved["max_length"]]
                           for start in range(0, len(ids) - overlap, step)]
        assert all(before[-overlap:] == after[:overlap]
                   for before, after in zip(windows, windows[1:]))
        full = [window for window in windows if len(window) == saved["max_length"]]
        ours = [inputs for inputs, _ in sliding_windows(ids, saved["max_length"], step)]
        assert ours == full[:len(ours)] and len(ours) >= len(full) - 1


def test_lesson_25_states_hugging_faces_windows() -> None:
    lesson = (ROOT / "walkthroughs" / "25_windows_and_stride.py").read_text(encoding="utf-8")
    stated = re.search(r"^HUGGING_FACE_STRIDE_1 = (\[.*?\]\])$", lesson, re.M | re.S)
    assert stated is not None
    assert ast.literal_eval(stated.group(1)) == REFERENCE["hugging_face"]["windows"]["1"]
    assert "stride=2 starts one every 2" in lesson


def test_loading_gpt2_is_lazy_and_quick() -> None:
    script = ("import sys, minipe; assert 'minipe.data' not in sys.modules; "
              "from minipe.pretokenizer import gpt2_pattern; "
              "from minipe.subword import _gpt2; "
              "assert _gpt2.cache_info().currsize == 0; "
              "assert gpt2_pattern.cache_info().currsize == 0; "
              "minipe.BytePairTokenizer.gpt2().encode('a'); "
              "assert _gpt2.cache_info().currsize == 1")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr  # its time: benchmarks/bench_subword.py (< 0.5 s)
    assert BytePairTokenizer.gpt2() is BytePairTokenizer.gpt2()  # read once


def test_the_tokenizer_is_immutable(gpt2: BytePairTokenizer) -> None:
    with pytest.raises(AttributeError, match=re.escape(
            "a BytePairTokenizer cannot be changed (setting vocab); train or build a new one")):
        gpt2.vocab = ()
    with pytest.raises(TypeError):
        gpt2.merges[(1, 2)] = 3  # type: ignore[index]
    assert minipe.BytePairTokenizer is BytePairTokenizer


@pytest.mark.slow
def test_the_benchmark_runs_quick() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_subword.py"),
                           "--quick"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "encode 10,000 characters" in done.stdout


# --- a padded batch: GPT-2 has no pad token ----------------------------------------------

def test_encode_batch_pads_with_endoftext(gpt2: BytePairTokenizer) -> None:
    """tiktoken's IDs: 'hello world' [31373, 995], 'hi' [5303]; 50256 pads, the mask says."""
    right = gpt2.encode_batch(["hello world", "hi"])
    left = gpt2.encode_batch(["hello world", "hi"], padding_side="left")
    assert right.ids == [[31373, 995], [5303, 50256]]
    assert right.attention_mask == [[1, 1], [1, 0]]
    assert left.ids == [[31373, 995], [50256, 5303]]
    assert left.attention_mask == [[1, 1], [0, 1]]


@pytest.mark.parametrize("texts, sentence", [
    ("hi", "texts must be a list of str, one per row of the batch, got str (for one text, "
           "use encode)"),
    (["hi", ""], "texts[1] is empty: every text of a batch needs at least one token"),
    (["hi", 3], "texts[1] must be a str, got int"),
    (["a<|endoftext|>"], "pass allowed_special={'<|endoftext|>'}"),
])
def test_encode_batch_refuses_with_a_sentence(gpt2: BytePairTokenizer, texts: Any,
                                              sentence: str) -> None:
    with pytest.raises((TypeError, ValueError)) as error:
        gpt2.encode_batch(texts)
    assert sentence in str(error.value)


def test_a_trained_tokenizer_has_nothing_to_pad_with() -> None:
    with pytest.raises(ValueError, match="no '<\\|endoftext\\|>' to pad with"):
        BytePairTokenizer.train("aaabdaaabac", 257).encode_batch(["ab", "a"])
