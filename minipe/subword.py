"""Chapter 1b - subword: GPT-2's byte-level BPE, exactly, and training your own.

Chapter 1 cut text into words. GPT-2 cuts it into bytes and then glues pairs back
together, one merge at a time, the lowest-ranked (the earliest learned) first:

    " bookshelf"             ' ' b o o k s h e l f        its 10 bytes
    rank 2 (h e)             ' ' b o o k s he l f
    rank 19 (' ' b)          ' b' o o k s he l f
    ranks 226, 310, 1236     ' book' s he l f             o k, o ok, ' b' ook
    ranks 1396, 3579         ' books' he lf               l f, ' book' s: no pair left

    >>> gpt2 = BytePairTokenizer.gpt2()
    >>> gpt2.encode("The cat sat on the bookshelf")
    [464, 3797, 3332, 319, 262, 3835, 258, 1652]
    >>> gpt2.word_ids("The cat sat on the bookshelf")    # "bookshelf" takes 3 positions
    [0, 1, 2, 3, 4, 5, 5, 5]

The whole vocabulary follows from one file, minipe/data/gpt2-vocab.bpe: IDs 0..255
are the 256 bytes (in GPT-2's byte-to-unicode order, so "!" is 0 and a space is
220), merge line k makes ID 255 + k, and <|endoftext|> is 50256. So ' the' (262)
and 'the' (1169) are different tokens: same word, other bytes.

Before merging, the pre-tokenizer cuts the text into pieces (a word with the space
before it, a number, a run of punctuation, spaces), and no merge crosses two pieces:
`word_ids` says which piece each token came from (see minipe/pretokenizer.py).

`train` learns merges from a text: count every neighbouring pair inside the pieces,
merge the most frequent (ties: the pair seen first), repeat - the same merges and IDs
as the pure-Python trainer in OpenAI's tokenizer library (tiktoken._educational).
`sliding_windows` cuts a long list of IDs into a model's (inputs, targets).

A piece seen before is not merged again: its IDs are kept (up to CACHE_SIZE pieces),
as GPT-2's own encoder.py keeps them; so a debugger's `s` lands in the merge loop the
first time a word comes, not the second.

Left out: the other pre-tokenizers (GPT-4's, SentencePiece's), normalisation (GPT-2
has none: text goes in as it is), and byte sequences two merges both spell, which
tiktoken's trainer keeps under one ID and this one under two.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from pathlib import Path
from types import MappingProxyType
from typing import AbstractSet, Any, Iterable, Mapping, Sequence

from minipe.checks import check_choice, check_decode, check_ids, check_type, checked_size
from minipe.pretokenizer import pretokenize
from minipe.tokenizer import END_OF_TEXT, PaddedBatch, pad_rows

NOT_A_MERGE = 1 << 62  # the rank of a pair no merge makes: larger than every real rank
CACHE_SIZE = 100_000  # pieces whose IDs a tokenizer keeps


def merge(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Every `pair` in `ids`, left to right, becomes `new_id`.

    >>> merge([5, 6, 5, 6, 7], (5, 6), 256)
    [256, 256, 7]
    """
    first, second = pair
    merged = []
    i = 0
    while i < len(ids):
        if ids[i] == first and i + 1 < len(ids) and ids[i + 1] == second:
            merged.append(new_id)  # the pair becomes one token
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged


def byte_pair_encode(ids: list[int], merges: Mapping[tuple[int, int], int]) -> list[int]:
    """One piece's byte IDs -> its tokens: merge the lowest-ranked pair, until none is a merge.

    A merge's new ID is its rank: merges learned first have the smaller IDs.

    >>> byte_pair_encode([97, 97, 97, 98], {(97, 97): 256, (256, 97): 257})   # 'aaab'
    [257, 98]
    """
    while len(ids) >= 2:
        ranks = [merges.get(pair, NOT_A_MERGE) for pair in zip(ids, ids[1:])]  # neighbours'
        new_id = min(ranks)  # the lowest rank first (a merge's new ID is its rank)
        if new_id == NOT_A_MERGE:
            break  # no neighbouring pair is a merge: done
        i = ranks.index(new_id)  # the first place it stands
        ids = merge(ids, (ids[i], ids[i + 1]), new_id)
    return ids


class BytePairTokenizer:
    """Byte-level BPE: text -> pieces -> bytes -> merges -> token IDs, and back.

    byte_ids        byte value -> its ID (GPT-2: byte-to-unicode order; trained: the byte)
    merges          (left ID, right ID) -> new ID; merge k makes ID 256 + k, its rank
    special_tokens  text -> ID, after the merges: GPT-2 has {'<|endoftext|>': 50256}
    vocab           ID -> the bytes it stands for (a special token: its text's bytes)

    >>> BytePairTokenizer([(97, 97), (256, 97)])      # 'aa' is 256, 'aa' + 'a' is 257
    BytePairTokenizer(vocab_size=258, merges=2)
    """

    __slots__ = ("byte_ids", "merges", "special_tokens", "vocab", "_seen")
    byte_ids: tuple[int, ...]
    merges: Mapping[tuple[int, int], int]
    special_tokens: Mapping[str, int]
    vocab: tuple[bytes, ...]
    _seen: dict[str, list[int]]  # piece -> its IDs, merged once (not part of the value)

    def __init__(self, merges: Sequence[tuple[int, int]], *, byte_ids: Sequence[int] = range(256),
                 special_tokens: Sequence[str] = ()) -> None:
        """`merges` in rank order (each pair of IDs made before it), then the special tokens."""
        _check_vocabulary(merges, byte_ids, special_tokens)
        vocab = [b""] * 256
        for byte, token_id in enumerate(byte_ids):
            vocab[token_id] = bytes([byte])
        for left, right in merges:
            vocab.append(vocab[left] + vocab[right])  # ID 256 + k: the bytes of its two halves
        special_ids = {text: len(vocab) + k for k, text in enumerate(special_tokens)}
        vocab += [text.encode("utf-8") for text in special_tokens]
        new_ids = range(256, 256 + len(merges))
        object.__setattr__(self, "byte_ids", tuple(byte_ids))
        object.__setattr__(self, "merges", MappingProxyType(dict(zip(map(tuple, merges),
                                                                     new_ids))))
        object.__setattr__(self, "special_tokens", MappingProxyType(special_ids))
        object.__setattr__(self, "vocab", tuple(vocab))
        object.__setattr__(self, "_seen", {})

    @classmethod
    def gpt2(cls) -> BytePairTokenizer:
        """GPT-2's tokenizer, from the 50,000 merges shipped in minipe/data (read once)."""
        return _gpt2()

    @classmethod
    def train(cls, text: str, vocab_size: int) -> BytePairTokenizer:
        """Learn vocab_size - 256 merges from `text`: the most frequent pair, again and again.

        >>> BytePairTokenizer.train("aaabdaaabac", 256 + 3).encode("aaabdaaabac")
        [258, 100, 258, 97, 99]

        (minbpe's example from Wikipedia: 'aa' -> 256, 'aa' 'a' -> 257, 'aaa' 'b' -> 258.)
        Ties go to the pair seen first. A text that runs out of pairs stops early.
        """
        _check_training(text, vocab_size)
        counts = Counter(pretokenize(text))  # each distinct piece once, in order of first sight
        pieces = {piece: list(piece.encode("utf-8")) for piece in counts}  # byte b is ID b
        merges: list[tuple[int, int]] = []
        for new_id in range(256, vocab_size):
            pair_counts = count_pairs(pieces.values(), counts.values())
            if not pair_counts:
                break  # every piece is one token: nothing left to merge
            pair = max(pair_counts, key=pair_counts.__getitem__)  # ties: the first seen
            merges.append(pair)
            pieces = {piece: merge(ids, pair, new_id) for piece, ids in pieces.items()}
        return cls(merges)

    @property
    def vocab_size(self) -> int:
        """How many IDs there are: 256 bytes + merges + special tokens (GPT-2: 50,257)."""
        return len(self.vocab)

    def encode(self, text: str, *, allowed_special: AbstractSet[str] = frozenset()) -> list[int]:
        """Text -> token IDs. A special token's text is refused unless in `allowed_special`.

        >>> BytePairTokenizer.gpt2().encode("hello world")
        [31373, 995]
        """
        _check_text(text, allowed_special, self.special_tokens)
        ids: list[int] = []
        for piece in self._pieces(text, allowed_special):
            ids += self._encode_piece(piece)
        return ids

    def encode_batch(self, texts: Sequence[str], *, padding_side: str = "right") -> PaddedBatch:
        """Several texts -> IDs padded to the longest with <|endoftext|>'s ID, and the mask.

        GPT-2 has no pad token: <|endoftext|> (50256) pads, as it separates documents.

        >>> batch = BytePairTokenizer.gpt2().encode_batch(["hello world", "hi"])
        >>> batch.ids, batch.attention_mask
        ([[31373, 995], [5303, 50256]], [[1, 1], [1, 0]])
        """
        _check_batch(texts, padding_side, self.special_tokens)
        rows = [self.encode(text) for text in texts]
        return pad_rows(rows, self.special_tokens[END_OF_TEXT], padding_side)

    def word_ids(self, text: str, *, allowed_special: AbstractSet[str] = frozenset()
                 ) -> list[int]:
        """For each token of encode(text), the index of the piece it came from."""
        _check_text(text, allowed_special, self.special_tokens)
        word_ids: list[int] = []
        for index, piece in enumerate(self._pieces(text, allowed_special)):
            word_ids += [index] * len(self._encode_piece(piece))
        return word_ids

    def decode(self, ids: Sequence[int]) -> str:
        """Token IDs -> text; bytes that are not UTF-8 on their own become U+FFFD.

        >>> gpt2 = BytePairTokenizer.gpt2()
        >>> gpt2.decode([464, 3797]), gpt2.decode([447]), gpt2.decode([447, 247])
        ('The cat', '\ufffd', '’')
        """
        check_decode(ids, self.vocab_size)
        text_bytes = b"".join([self.vocab[token_id] for token_id in ids])
        return text_bytes.decode("utf-8", errors="replace")

    def _pieces(self, text: str, allowed_special: AbstractSet[str]) -> list[str | int]:
        """The pre-tokenizer's pieces; an allowed special token is already its ID."""
        if not allowed_special:
            return list(pretokenize(text))
        specials = "|".join(map(re.escape, sorted(allowed_special, key=len, reverse=True)))
        pieces: list[str | int] = []
        for k, part in enumerate(re.split(f"({specials})", text)):
            pieces += [self.special_tokens[part]] if k % 2 else pretokenize(part)
        return pieces

    def _encode_piece(self, piece: str | int) -> list[int]:
        """One piece's token IDs (a special token is its ID already)."""
        if isinstance(piece, int):
            return [piece]
        if piece in self._seen:
            return self._seen[piece]  # merged before: the same IDs again
        ids = [self.byte_ids[byte] for byte in piece.encode("utf-8")]
        ids = byte_pair_encode(ids, self.merges)
        if len(self._seen) < CACHE_SIZE:
            self._seen[piece] = ids
        return ids

    def __setattr__(self, name: str, value: object) -> None:
        _check_unchanged(name)

    def __delattr__(self, name: str) -> None:
        _check_unchanged(name, "deleting")

    def __repr__(self) -> str:
        return f"BytePairTokenizer(vocab_size={self.vocab_size}, merges={len(self.merges)})"


def count_pairs(pieces: Iterable[list[int]], counts: Iterable[int]) -> dict[tuple[int, int], int]:
    """How often each neighbouring pair occurs, inside pieces only, in order of first sight.

    >>> count_pairs([[1, 2, 3], [2, 3]], [1, 5])     # piece [2, 3] occurs 5 times
    {(1, 2): 1, (2, 3): 6}
    """
    pair_counts: dict[tuple[int, int], int] = {}
    for ids, count in zip(pieces, counts):
        for pair in zip(ids, ids[1:]):
            pair_counts[pair] = pair_counts.get(pair, 0) + count
    return pair_counts


def sliding_windows(ids: Sequence[int], max_length: int, stride: int
                    ) -> list[tuple[list[int], list[int]]]:
    """(inputs, targets) windows from 0, stride, 2 * stride, ... while a full target fits.

    targets are the inputs shifted by one: the token each position must predict.

    >>> sliding_windows([10, 11, 12, 13, 14, 15], max_length=2, stride=2)
    [([10, 11], [11, 12]), ([12, 13], [13, 14])]

    stride < max_length overlaps windows; stride > max_length skips tokens as inputs.
    """
    _check_windows(ids, max_length, stride)
    windows = []
    for start in range(0, len(ids) - max_length, stride):
        inputs = list(ids[start:start + max_length])
        targets = list(ids[start + 1:start + max_length + 1])  # one to the right
        windows.append((inputs, targets))
    return windows


# GPT-2's byte-to-unicode table: the printable bytes stand for themselves, the other 68
# (controls, space, 0x7f-0xa0, 0xad) for 256 + n in byte order, so a space is shown 'Ġ'
# (chr(256 + 32)) and a newline 'Ċ'. The bytes in this order are IDs 0..255.
PRINTABLE = (*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
             *range(ord("®"), ord("ÿ") + 1))


def byte_to_unicode() -> dict[int, str]:
    """Byte value -> the character vocab.bpe writes it as, in ID order ('!' first)."""
    shifted = [byte for byte in range(256) if byte not in PRINTABLE]
    table = {byte: chr(byte) for byte in PRINTABLE}
    table.update({byte: chr(256 + n) for n, byte in enumerate(shifted)})
    return table


@functools.cache
def _gpt2() -> BytePairTokenizer:
    """Read vocab.bpe: a version line, then 50,000 lines 'left right' in rank order."""
    table = byte_to_unicode()
    symbol_ids = {symbol: token_id for token_id, symbol in enumerate(table.values())}
    byte_ids = [symbol_ids[table[byte]] for byte in range(256)]
    text = (Path(__file__).parent / "data" / "gpt2-vocab.bpe").read_text(encoding="utf-8")
    merges = []
    for line in text.splitlines()[1:]:
        left, right = line.split(" ")
        merges.append((symbol_ids[left], symbol_ids[right]))
        symbol_ids[left + right] = 255 + len(merges)  # merge line k makes ID 255 + k
    return BytePairTokenizer(merges, byte_ids=byte_ids, special_tokens=["<|endoftext|>"])


# ---------------------------------------------------------------------------
# The door: what the public functions above refuse, and the sentences they say
# ---------------------------------------------------------------------------


def _check_text(text: Any, allowed_special: Any, special_tokens: Mapping[str, int]) -> None:
    """A str that UTF-8 can spell, and no special token's text unless it is allowed."""
    check_type(text, str, "text must be a str")
    check_type(allowed_special, (set, frozenset), "allowed_special must be a set of special "
               f"token texts, such as {{'<|endoftext|>'}}")
    unknown = sorted(set(allowed_special) - set(special_tokens))
    if unknown:
        raise ValueError(f"allowed_special names {unknown[0]!r}, which is not a special token "
                         f"of this tokenizer; it has {sorted(special_tokens) or 'none'}")
    for special in special_tokens:
        at = text.find(special)
        if at >= 0 and special not in allowed_special:
            raise ValueError(f"text holds the special token {special!r} at index {at}; to "
                             f"encode it as its one token (ID {special_tokens[special]}), pass "
                             f"allowed_special={{{special!r}}}; text never becomes a special "
                             f"token by accident")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"text holds a lone surrogate {text[error.start]!r} at index "
                         f"{error.start}, which no UTF-8 bytes spell; it is half of a pair "
                         f"that UTF-16 needs, not a character") from None


def _check_batch(texts: Any, padding_side: Any, special_tokens: Mapping[str, int]) -> None:
    """A list of str (each then through encode's door), a side, and a token to pad with."""
    check_type(texts, (list, tuple), "texts must be a list of str, one per row of the batch",
               " (for one text, use encode)", empty="texts is empty; a batch needs a text")
    for b, text in enumerate(texts):
        check_type(text, str, f"texts[{b}] must be a str", empty=f"texts[{b}] is empty: "
                   f"every text of a batch needs at least one token")
    check_choice(padding_side, ("right", "left"), "padding_side must be 'right' (padding after "
                 "each text) or 'left' (before it)")
    if END_OF_TEXT not in special_tokens:
        raise ValueError(f"this tokenizer has no {END_OF_TEXT!r} to pad with (train makes "
                         f"none); GPT-2's has: BytePairTokenizer.gpt2()")


def _check_unchanged(name: str, doing: str = "setting") -> None:
    """A tokenizer is a value: its IDs never change under a text being encoded."""
    raise AttributeError(f"a BytePairTokenizer cannot be changed ({doing} {name}); "
                         f"train or build a new one")


def _check_windows(ids: Any, max_length: Any, stride: Any) -> None:
    """A list of IDs (of any vocabulary) and two sizes."""
    check_ids(ids, 2**63, "ids", "is out of range:")
    checked_size(max_length, "max_length")
    checked_size(stride, "stride")


def _check_training(text: Any, vocab_size: Any) -> None:
    """A str to learn from, and a vocabulary of at least the 256 bytes."""
    check_type(text, str, "train needs the text to learn from as a str")
    checked_size(vocab_size, "vocab_size", minimum=256)


def _check_vocabulary(merges: Any, byte_ids: Any, special_tokens: Any) -> None:
    """Merges of IDs made before them, the 256 bytes' IDs in some order, special texts."""
    check_type(merges, (list, tuple), "merges must be a list of (left ID, right ID) pairs")
    if sorted(byte_ids) != list(range(256)):
        raise ValueError("byte_ids must give each of the 256 bytes one of the IDs 0..255")
    for k, pair in enumerate(merges):
        made = 256 + k  # the IDs that exist before merge k
        if (not isinstance(pair, (tuple, list)) or len(pair) != 2
                or not all(type(half) is int and 0 <= half < made for half in pair)):
            raise ValueError(f"merges[{k}] = {pair!r} must be two IDs made before it, "
                             f"each in 0..{made - 1}")
    check_type(special_tokens, (list, tuple), "special_tokens must be a list of str")
