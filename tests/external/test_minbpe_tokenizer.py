"""Andrej Karpathy's minbpe, tests/test_tokenizer.py, test_wikipedia_example (MIT licence).

Wikipedia's byte pair encoding example: "aaabdaaabac" trained to 256 + 3 IDs merges
aa -> 256 (Z), aa a -> 257 (Y in minbpe's numbering), aaa b -> 258 (X), and encodes to
"XdXac". minbpe asserts the IDs and the round trip; the merges are the ones its docstring
derives (a=97, b=98, c=99, d=100).
"""

from __future__ import annotations

from minipe import BytePairTokenizer


def test_wikipedia_example() -> None:
    text = "aaabdaaabac"
    tokenizer = BytePairTokenizer.train(text, 256 + 3)
    ids = tokenizer.encode(text)
    assert ids == [258, 100, 258, 97, 99]
    assert tokenizer.decode(tokenizer.encode(text)) == text
    assert dict(tokenizer.merges) == {(97, 97): 256, (256, 97): 257, (257, 98): 258}
