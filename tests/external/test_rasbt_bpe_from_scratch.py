"""Sebastian Raschka's LLMs-from-scratch, ch02/05_bpe-from-scratch/tests.py (MIT licence):
the GPT-2 IDs its BPE-from-scratch tests assert, each also checked against tiktoken there.

test_gpt2_tokenizer_openai_simple: "This is some text".
test_gpt2_tokenizer_openai_edgecases: the four other strings.
The source asserts encode only; the round trip through decode is minipe's own addition.
(Its test_tokenizer_training trains its own character-level tokenizer on The Verdict; those
IDs depend on that tokenizer's numbering and are not copied.)
"""

from __future__ import annotations

import pytest

from minipe import BytePairTokenizer

VECTORS = {
    "This is some text": [1212, 318, 617, 2420],
    "Hello,": [15496, 11],
    "Implementations": [3546, 26908, 602],
    "asdf asdfasdf a!!, @aba 9asdf90asdfk": [292, 7568, 355, 7568, 292, 7568, 257, 3228, 11,
                                             2488, 15498, 860, 292, 7568, 3829, 292, 7568, 74],
    "Hello, world. Is this-- a test?": [15496, 11, 995, 13, 1148, 428, 438, 257, 1332, 30],
}


@pytest.fixture(scope="module")
def gpt2() -> BytePairTokenizer:
    return BytePairTokenizer.gpt2()


@pytest.mark.parametrize("text", VECTORS)
def test_gpt2_tokenizer_openai_edgecases(gpt2: BytePairTokenizer, text: str) -> None:
    assert gpt2.encode(text) == VECTORS[text]
    assert gpt2.decode(VECTORS[text]) == text
