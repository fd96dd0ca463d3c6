"""Chapter 1: text -> tokens -> IDs and back."""

from __future__ import annotations

import re
from typing import Any

import pytest

from minipe import Tokenizer

CORPUS = "The cat sat on the mat"


def test_vocabulary_is_sorted_words_then_the_special_tokens() -> None:
    tokenizer = Tokenizer.from_corpus(CORPUS)
    # distinct lower-cased words, sorted: cat mat on sat the -> IDs 0..4; then 5, 6
    assert tokenizer.vocab == {"cat": 0, "mat": 1, "on": 2, "sat": 3, "the": 4,
                               "<|unk|>": 5, "<|endoftext|>": 6}
    assert tokenizer.vocab_size == 7


def test_tokenize_splits_words_and_punctuation() -> None:
    tokenizer = Tokenizer.from_corpus(CORPUS)
    assert tokenizer.tokenize("Hello, world. Is this-- a test?") == [
        "hello", ",", "world", ".", "is", "this", "-", "-", "a", "test", "?"]
    assert tokenizer.tokenize("end <|endoftext|> start") == ["end", "<|endoftext|>", "start"]
    assert tokenizer.tokenize("   ") == []


def test_lecture_001_same_ids_in_a_different_order() -> None:
    tokenizer = Tokenizer.from_corpus(CORPUS)
    first = tokenizer.encode("The cat sat on the mat")
    second = tokenizer.encode("On the mat the cat sat")
    assert first == [4, 0, 3, 2, 4, 1]  # the cat sat on the mat, from the vocabulary above
    assert second == [2, 4, 1, 4, 0, 3]
    assert sorted(first) == sorted(second)  # the same IDs ...
    assert first != second  # ... in another order: only the order tells them apart


def test_unknown_words_and_end_of_text() -> None:
    tokenizer = Tokenizer.from_corpus(CORPUS)
    assert tokenizer.encode("the dog sat") == [4, 5, 3]  # 'dog' -> <|unk|> (ID 5)
    assert tokenizer.encode("the mat <|endoftext|> the cat") == [4, 1, 6, 4, 0]
    assert tokenizer.decode([4, 5, 3]) == "the <|unk|> sat"


def test_decode_of_encode_gives_back_the_words() -> None:
    text = "Hello, world. Is this a test? Yes: it is!"
    tokenizer = Tokenizer.from_corpus(text)
    assert tokenizer.decode(tokenizer.encode(text)) == "hello, world. is this a test? yes: it is!"
    text = "Don't stop (now) [really]."
    tokenizer = Tokenizer.from_corpus(text)
    assert tokenizer.tokenize(text) == ["don", "'", "t", "stop", "(", "now", ")", "[", "really",
                                        "]", "."]
    assert tokenizer.decode(tokenizer.encode(text)) == "don't stop (now) [really]."


def test_the_same_corpus_gives_the_same_ids_whatever_the_word_order() -> None:
    assert Tokenizer.from_corpus("b a c").vocab == Tokenizer.from_corpus("c b a").vocab


@pytest.mark.parametrize("call, error, words", [
    (lambda t: t.encode(42), TypeError, "text must be a str, got int"),
    (lambda t: t.tokenize(None), TypeError, "text must be a str, got NoneType"),
    (lambda t: t.decode([0, 7]), IndexError, r"ids\[1\] = 7 is not in the vocabulary: "
                                             r"valid IDs are 0..6"),
    (lambda t: t.decode([-1]), IndexError, "valid IDs are 0..6"),
    (lambda t: t.decode([1.0]), TypeError, r"ids\[0\] must be an int"),
    (lambda t: t.decode("cat"), TypeError, "decode needs a list of int IDs"),
])
def test_bad_input_is_explained(call: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        call(Tokenizer.from_corpus(CORPUS))


def test_bad_corpus() -> None:
    with pytest.raises(ValueError, match="has no words to build a vocabulary from"):
        Tokenizer.from_corpus("  ")
    with pytest.raises(ValueError, match="special tokens like <.endoftext.> do not count"):
        Tokenizer.from_corpus("<|endoftext|>")
    with pytest.raises(TypeError, match="text must be a str, got list"):
        Tokenizer.from_corpus(["the", "cat"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must be distinct"):
        Tokenizer(["a", "a", "<|unk|>"])
    with pytest.raises(ValueError, match=re.escape("must include '<|unk|>'")):
        Tokenizer(["a", "b"])
    with pytest.raises(ValueError, match=r"token 'A' can never come out of tokenize\(\), "
                       r"which gives \['a'\]"):
        Tokenizer(["A", "<|unk|>"])
    with pytest.raises(ValueError, match="token 'a b' can never come out of tokenize"):
        Tokenizer(["a b", "<|unk|>"])


def test_the_vocab_a_caller_gets_is_a_copy() -> None:
    tokenizer = Tokenizer.from_corpus(CORPUS)
    vocab = tokenizer.vocab
    vocab["cat"] = 99
    tokens = ["x", "<|unk|>"]
    built = Tokenizer(tokens)
    tokens[0] = "y"
    assert tokenizer.encode("cat") == [0]
    assert built.encode("x") == [0]


def test_a_tokenizer_cannot_be_changed() -> None:
    tokenizer = Tokenizer.from_corpus(CORPUS)
    with pytest.raises(AttributeError, match="cannot assign to field '_token_to_id'"):
        tokenizer._token_to_id = {}  # type: ignore[misc]


def test_an_accent_typed_as_its_own_character_gives_the_same_id() -> None:
    composed = "un caf\u00e9 noir"  # é as one character, U+00E9
    decomposed = "un cafe\u0301 noir"  # e, then the combining acute accent U+0301 (macOS)
    assert composed != decomposed and len(decomposed) == len(composed) + 1
    for corpus in (composed, decomposed):
        tokenizer = Tokenizer.from_corpus(corpus)
        # sorted words: caf\u00e9 0, noir 1, un 2; then <|unk|> 3, <|endoftext|> 4
        assert tokenizer.tokens == ("caf\u00e9", "noir", "un", "<|unk|>", "<|endoftext|>")
        assert tokenizer.encode(composed) == tokenizer.encode(decomposed) == [2, 0, 1]
        assert tokenizer.decode([2, 0, 1]) == composed  # NFC: the one-character é


def test_a_vocabulary_token_not_in_nfc_is_refused_and_the_sentence_says_why() -> None:
    with pytest.raises(ValueError, match="not in NFC"):
        Tokenizer(["cafe\u0301", "<|unk|>"])


def test_a_long_corpus_without_words_is_named_short() -> None:
    with pytest.raises(ValueError) as error:
        Tokenizer.from_corpus("<|endoftext|> " * 10**5)
    # the first 40 characters: "<|endoftext|> " (14) twice, then 12: "<|endoftext|"
    assert str(error.value).startswith("the text '<|endoftext|> <|endoftext|> <|endoftext|'... "
                                       "has no words")
    assert len(str(error.value)) < 200
