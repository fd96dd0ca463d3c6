"""OpenAI tiktoken, tests/test_encoding.py (MIT licence): the GPT-2 vectors.

minipe's `BytePairTokenizer.gpt2()` reads the same merges tiktoken's "gpt2" encoding pins
(tests/test_subword.py checks their hash). tiktoken's r50k_base is GPT-2's encoding under
another name; only the gpt2 and r50k_base lines are copied, not cl100k_base's or o200k_base's.
"""

from __future__ import annotations

import pytest

from minipe import BytePairTokenizer


@pytest.fixture(scope="module")
def gpt2() -> BytePairTokenizer:
    return BytePairTokenizer.gpt2()


def test_simple(gpt2: BytePairTokenizer) -> None:
    assert gpt2.encode("hello world") == [31373, 995]
    assert gpt2.decode([31373, 995]) == "hello world"
    # tiktoken: allowed_special="all"; minipe takes the set of allowed special tokens
    assert gpt2.encode("hello <|endoftext|>", allowed_special={"<|endoftext|>"}) == [
        31373, 220, 50256]


def test_simple_repeated(gpt2: BytePairTokenizer) -> None:
    expected = {
        "0": [15], "00": [405], "000": [830], "0000": [2388], "00000": [20483],
        "000000": [10535], "0000000": [24598], "00000000": [8269],
        "000000000": [10535, 830], "0000000000": [8269, 405], "00000000000": [8269, 830],
        "000000000000": [8269, 2388], "0000000000000": [8269, 20483],
        "00000000000000": [8269, 10535], "000000000000000": [8269, 24598],
        "0000000000000000": [25645], "00000000000000000": [8269, 10535, 830],
    }
    assert {text: gpt2.encode(text) for text in expected} == expected


def test_basic_encode_and_encode_empty_r50k(gpt2: BytePairTokenizer) -> None:
    assert gpt2.encode("hello world") == [31373, 995]  # test_basic_encode, r50k_base
    assert gpt2.encode("") == []  # test_encode_empty, r50k_base
