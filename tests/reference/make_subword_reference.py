"""Write subword_reference.json: OpenAI's tokenizer library (tiktoken) on GPT-2's merges,
and Hugging Face's (tokenizers) where it matters: what its `stride` means.

Run by hand, once, where tiktoken is installed; the test suite never imports it, and
this script reads nothing from minipe but the shipped data files. tiktoken's Encoding
is built here from minipe/data/gpt2-vocab.bpe (no network): its ranks are the 256 bytes
in GPT-2's byte-to-unicode order, then one per merge line, as tiktoken's own
data_gym_to_mergeable_bpe_ranks builds them (which also wants encoder.json, only to
check them). Strings are drawn with random.Random(seed) and stored beside their IDs.
Hugging Face's byte-level BPE is built from the same merges (its vocabulary: each
byte's GPT-2 symbol, then each merge's two halves joined); the script checks that it
encodes every seeded string and The Verdict to tiktoken's IDs, then saves the windows it
returns with enable_truncation(max_length=4, stride=1 or 2): the first window and its
`overflowing` ones.

    python -m pip install tiktoken tokenizers
    python tests/reference/make_subword_reference.py   # rewrites subword_reference.json

tests/test_subword.py compares minipe.BytePairTokenizer with these numbers.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import tiktoken
import tokenizers
from tiktoken import _educational
from tokenizers import decoders, models, pre_tokenizers

ROOT = Path(__file__).resolve().parent.parent.parent
DATA = ROOT / "minipe" / "data"
OUT = Path(__file__).with_name("subword_reference.json")
SEED = 33
HUGGING_FACE_TEXT = "I HAD always thought Jack Gisburn rather a cheap genius"  # The Verdict's start

WORDS = ["the", "The", " the", "cat", "bookshelf", "positional", "encodings", "hello",
         "world", "don't", "I'll", "we've", "she'd", "I'm", "it's", "THEY'RE", "naïve",
         "café", "Straße", "résumé", "transformer", "token", "   ", "tokenization", "GPT-2",
         "<|endoftext", "|>", "<|", "endoftext|>", "'s", "'S", "''", "...", "--", "http://x.y/z"]
POOLS = {
    "ascii": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "digits": "0123456789",
    "punctuation": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
    "spaces": " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2005\u200a\u2028"
              "\u2029\u202f\u205f\u3000\u200b\ufeff",
    "latin": "éèêëàâäçñøåæœßÉÀÖÜýÿłńśźżčřšž",
    "combining": "\u0300\u0301\u0302\u0303\u0308\u0327\u0331\u20dd\u0489\u093f",
    "greek_cyrillic": "αβγδεζηθλμπσωΩΔπжзийклмнопрстуфЖЯ",
    "rtl": "שלוםעולםمرحبابالعالم\u200f\u200e",
    "indic_thai": "नमस्तेदुनियाสวัสดีชาวโลกதமிழ்",
    "cjk": "你好世界日本語の文章です漢字한국어조선글ひらがなカタカナ",
    "numbers": "٠١٢٣٤٥٦٧٨٩०१२३Ⅻⅻ½¾²³①⑩〇零𝟘𝟙",
    "astral": "𝐀𝐁𝐂𝔄𝔅𐌰𐌱𐍈𠀀𠀁𝓐",
    "emoji": ["😀", "🙂", "👍🏽", "👩\u200d💻", "🇫🇷", "❤️", "🧑\u200d🤝\u200d🧑", "🎉", "✨", "🐍"],
    "symbols": "€£¥©®°±×÷→⇒∀∂∑√∞≈≠≤≥■□●◆★☆♠♥",
}


def byte_symbols() -> dict[str, int]:
    """GPT-2's byte-to-unicode table, read backwards: symbol -> byte, in ID order."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    others = [b for b in range(256) if b not in printable]
    return {**{chr(b): b for b in printable},
            **{chr(256 + n): b for n, b in enumerate(others)}}


def merge_lines() -> list[str]:
    return (DATA / "gpt2-vocab.bpe").read_text(encoding="utf-8").split("\n")[1:-1]


def gpt2_ranks() -> dict[bytes, int]:
    """bytes -> rank, from vocab.bpe and GPT-2's byte-to-unicode table (no encoder.json)."""
    symbol = byte_symbols()
    ranks = {bytes([b]): rank for rank, b in enumerate(symbol.values())}
    for line in merge_lines():
        left, right = line.split()
        ranks[bytes(map(symbol.__getitem__, left)) + bytes(map(symbol.__getitem__, right))] = (
            len(ranks))
    assert len(ranks) == 50256
    return ranks


def hugging_face_gpt2() -> tokenizers.Tokenizer:
    """Hugging Face's byte-level BPE on the same merges: symbol strings, not bytes."""
    vocab = {symbol: rank for rank, symbol in enumerate(byte_symbols())}
    merges = [(line.split()[0], line.split()[1]) for line in merge_lines()]
    for left, right in merges:
        vocab[left + right] = len(vocab)
    gpt2 = tokenizers.Tokenizer(models.BPE(vocab=vocab, merges=merges))
    gpt2.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    gpt2.decoder = decoders.ByteLevel()
    return gpt2


def hugging_face_windows(expected: dict[str, list[int]]) -> dict[str, Any]:
    """Its IDs checked against tiktoken's, then its windows for stride 1 and 2."""
    gpt2 = hugging_face_gpt2()
    for text, ids in expected.items():
        assert gpt2.encode(text).ids == ids, text
    windows = {}
    for stride in (1, 2):
        gpt2.enable_truncation(max_length=4, stride=stride)
        encoding = gpt2.encode(HUGGING_FACE_TEXT)
        windows[str(stride)] = [encoding.ids] + [more.ids for more in encoding.overflowing]
    return {"made_by": f"tokenizers {tokenizers.__version__}",
            "agrees_with_tiktoken_on": len(expected), "text": HUGGING_FACE_TEXT,
            "max_length": 4, "windows": windows}


def random_string(rng: random.Random) -> str:
    fragments = []
    for _ in range(rng.randint(1, 8)):
        pick = rng.random()
        if pick < 0.3:
            fragments.append(rng.choice(WORDS))
        else:
            pool = POOLS[rng.choice(sorted(POOLS))]
            fragments.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 4))))
        if rng.random() < 0.5:
            fragments.append(rng.choice([" ", " ", "  ", "\n", " \n ", "\t"]))
    return "".join(fragments)


def main() -> None:
    ranks = gpt2_ranks()
    pattern = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
    gpt2 = tiktoken.Encoding(name="gpt2-from-vocab-bpe", pat_str=pattern, mergeable_ranks=ranks,
                             special_tokens={"<|endoftext|>": 50256})
    rng = random.Random(SEED)
    strings = [random_string(rng) for _ in range(2500)]
    strings = [text for text in strings if "<|endoftext|>" not in text]  # refused: its own test
    verdict = (DATA / "the-verdict.txt").read_text(encoding="utf-8")
    invalid = [[rng.randrange(50256) for _ in range(rng.randint(1, 4))] for _ in range(200)]
    invalid += [[447], [447, 247], [171, 227], [12519, 4210]]  # halves of multi-byte characters
    trainer_pattern = (r"""'s|'t|'re|'ve|'m|'ll|'d| ?[\p{L}]+| ?[\p{N}]+| ?[^\s\p{L}\p{N}]+"""
                       r"""|\s+(?!\S)|\s+""")  # train_simple_encoding's, in _educational
    trained: dict[str, Any] = {}
    for vocab_size in (300, 512, 1000):  # 1000: lesson 24
        learned = _educational.bpe_train(verdict, vocab_size, trainer_pattern, visualise=None)
        assert len(learned) == vocab_size
        simple = _educational.SimpleBytePairEncoding(pat_str=trainer_pattern,
                                                     mergeable_ranks=learned)
        by_rank = sorted(learned, key=learned.__getitem__)
        trained[str(vocab_size)] = {
            "tokens_hex": [token.hex() for token in by_rank[256:]],  # ID 256, 257, ...
            "verdict_ids": simple.encode(verdict, visualise=None),
            "samples": {text: simple.encode(text, visualise=None) for text in strings[:20]},
        }
    wikipedia = _educational.bpe_train("aaabdaaabac", 256 + 3, trainer_pattern, visualise=None)
    wikipedia_encoding = _educational.SimpleBytePairEncoding(pat_str=trainer_pattern,
                                                             mergeable_ranks=wikipedia)
    reference: dict[str, Any] = {
        "made_by": f"tiktoken {tiktoken.__version__}, Python {sys.version.split()[0]}",
        "seed": SEED,
        "strings": [[text, gpt2.encode(text)] for text in strings],
        "verdict_ids": gpt2.encode(verdict),
        "decoded": [[ids, gpt2.decode(ids)] for ids in invalid],
        "special": {"text": "a<|endoftext|>b", "ids": gpt2.encode(
            "a<|endoftext|>b", allowed_special={"<|endoftext|>"})},
        "trained": trained,
        "wikipedia": wikipedia_encoding.encode("aaabdaaabac", visualise=None),
    }
    reference["hugging_face"] = hugging_face_windows(
        {**dict(reference["strings"]), verdict: reference["verdict_ids"]})
    OUT.write_text(json.dumps(reference, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    print(f"wrote {OUT.name}: {len(strings)} strings, The Verdict {len(reference['verdict_ids'])} "
          f"tokens, trained at {sorted(trained)}; Hugging Face agrees on "
          f"{reference['hugging_face']['agrees_with_tiktoken_on']} texts")


if __name__ == "__main__":
    main()
