"""Chapter 1 - tokenizer: text -> tokens -> token IDs, and back.

A model cannot read letters; it reads integers. This chapter cuts text into
tokens (words and punctuation marks), gives every distinct token of a corpus
an ID, and turns text into a list of IDs:

    "The cat sat on the mat."
    -> ['the', 'cat', 'sat', 'on', 'the', 'mat', '.']     tokenize
    -> [5, 1, 4, 3, 5, 2, 0]                              encode

The vocabulary is the sorted list of distinct tokens, so IDs never depend on
the order words first appear - the same corpus gives the same IDs on every
machine. Two special tokens close the vocabulary:

    <|unk|>        stands for any word the corpus never contained
    <|endoftext|>  marks where one text ends and the next begins (GPT-2's name)

Text is lower-cased, so "The" and "the" are one token and the vocabulary stays
small. (GPT-2's tokenizer keeps case and splits words into sub-word pieces by
byte-pair encoding; this chapter leaves that out - a token here is a word.)

A batch of texts must be a rectangle: every row as long as the longest.
`encode_batch` pads the shorter rows with <|endoftext|>'s ID, the usual choice
for GPT-2 (its tokenizer has no padding token of its own; with Hugging Face one
sets pad_token = eos_token), and says in
`attention_mask` which entries are real (1) and which are padding (0). The
mask, not the ID, tells them apart: <|endoftext|> may also be a real token.

    "the cat sat" and "a dog"   padding_side="right"       padding_side="left"
    ids                         [[9, 3, 8], [1, 4, 11]]    [[9, 3, 8], [11, 1, 4]]
    attention_mask              [[1, 1, 1], [1, 1, 0]]     [[1, 1, 1], [0, 1, 1]]

(the vocabulary of "The cat sat on the mat. A dog bites a man", where
<|endoftext|> is ID 11). Left padding is what generation wants: every row's
last entry is a real token, so each row's next token goes right after it.

Before anything else, text is put in Unicode's NFC form. One word can arrive
as two different byte sequences: "café" typed with the single letter é
(U+00E9, UTF-8 bytes C3 A9), or with a plain e and then a combining acute
accent (U+0065 U+0301, bytes 65 CC 81), which is how macOS writes file names.
On screen it is one word; to Python they are two different strings, and the
letters a token is made of do not include a lone combining accent, so the
second spelling would split into 'cafe' and an accent. NFC composes each
letter-plus-accent that has a one-character form into that character: both
spellings become the one token 'café', with one ID, and decode gives it back
in that form.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Sequence

from minipe.checks import check_choice, check_decode, check_type

UNKNOWN = "<|unk|>"
END_OF_TEXT = "<|endoftext|>"

# A token is a special token like <|endoftext|>, a run of letters/digits, or
# one punctuation mark. Spaces separate tokens and are dropped.
TOKEN_PATTERN = re.compile(r"<\|\w+\|>|\w+|[^\w\s]")

# When decoding: no space before closing punctuation, none after an opening
# bracket, and none around an apostrophe between two letters ("don't").
_NO_SPACE_BEFORE = re.compile(r" ([.,;:!?)\]}])")
_NO_SPACE_AFTER = re.compile(r"([(\[{]) ")
_APOSTROPHE = re.compile(r"(\w) ' (\w)")


def tokenize(text: str) -> list[str]:
    """'The cat sat.' -> ['the', 'cat', 'sat', '.']: lower-cased words and punctuation marks.

    The text is put in NFC first, so an accent typed as its own character
    joins its letter (see the chapter's docstring).
    """
    check_type(text, str, "text must be a str")
    composed = unicodedata.normalize("NFC", text)  # e + U+0301 -> é: one spelling per word
    return TOKEN_PATTERN.findall(composed.lower())


@dataclass(frozen=True, repr=False)
class Tokenizer:
    """Maps tokens to IDs and back, for the vocabulary of one corpus.

    `tokens[i]` is the token with ID i.

    >>> tokenizer = Tokenizer.from_corpus("The cat sat on the mat")
    >>> tokenizer.tokens
    ('cat', 'mat', 'on', 'sat', 'the', '<|unk|>', '<|endoftext|>')
    >>> tokenizer.encode("the mat"), tokenizer.vocab_size
    ([4, 1], 7)
    >>> tokenizer.decode([4, 0, 2])
    'the cat on'
    """

    tokens: tuple[str, ...]
    _token_to_id: dict[str, int] = field(compare=False)  # private; `vocab` hands out copies

    def __init__(self, tokens: Sequence[str]) -> None:
        """Build from a vocabulary: `tokens[i]` gets ID i. Usually you want `from_corpus`."""
        vocabulary = _checked_vocabulary(tokens)
        object.__setattr__(self, "tokens", vocabulary)
        object.__setattr__(self, "_token_to_id", dict(zip(vocabulary, range(len(vocabulary)))))

    @classmethod
    def from_corpus(cls, text: str) -> Tokenizer:
        """The vocabulary of `text`: its distinct tokens, sorted, then the two special ones."""
        _check_corpus(text)
        words = sorted(set(tokenize(text)) - {UNKNOWN, END_OF_TEXT})
        return cls(words + [UNKNOWN, END_OF_TEXT])

    @property
    def vocab_size(self) -> int:
        """How many IDs there are: the token table of an Embedding needs this many rows."""
        return len(self.tokens)

    @property
    def vocab(self) -> dict[str, int]:
        """token -> ID, as a fresh dict (changing it changes nothing here)."""
        return dict(self._token_to_id)

    def tokenize(self, text: str) -> list[str]:
        """Text -> tokens: lower-cased words and punctuation marks."""
        return tokenize(text)

    def encode(self, text: str) -> list[int]:
        """Text -> token IDs; a word outside the vocabulary becomes <|unk|>'s ID."""
        unknown_id = self._token_to_id[UNKNOWN]
        return [self._token_to_id.get(token, unknown_id) for token in tokenize(text)]

    def encode_batch(self, texts: Sequence[str], *, padding_side: str = "right") -> PaddedBatch:
        """Several texts -> IDs padded with <|endoftext|>'s ID to the longest, and their mask.

        >>> tokenizer = Tokenizer.from_corpus("The cat sat on the mat")
        >>> batch = tokenizer.encode_batch(["the cat sat", "the mat"], padding_side="left")
        >>> batch.ids, batch.attention_mask
        ([[4, 0, 3], [6, 4, 1]], [[1, 1, 1], [0, 1, 1]])

        padding_side="right" puts the padding after each text, "left" before it.
        """
        _check_batch(texts, padding_side, self.tokens)
        pad_id = self._token_to_id[END_OF_TEXT]
        rows = [self.encode(text) for text in texts]
        return pad_rows(rows, pad_id, padding_side)

    def decode(self, ids: Sequence[int]) -> str:
        """Token IDs -> text: tokens joined by spaces, except around punctuation.

        The words come back exactly; the spacing is a best guess, since
        tokenize() threw the spaces away ("a , b" and "a, b" encode alike).
        """
        check_decode(ids, self.vocab_size)
        text = " ".join([self.tokens[token_id] for token_id in ids])
        text = _NO_SPACE_BEFORE.sub(r"\1", text)
        text = _NO_SPACE_AFTER.sub(r"\1", text)
        return _APOSTROPHE.sub(r"\1'\2", text)

    def __repr__(self) -> str:
        return f"Tokenizer(vocab_size={self.vocab_size})"


def pad_rows(rows: list[list[int]], pad_id: int, padding_side: str) -> PaddedBatch:
    """Rows of IDs -> a rectangle: each padded with pad_id to the longest, and the mask.

    Chapter 1b's BytePairTokenizer.encode_batch pads this way too. Its caller checks.
    """
    longest = max(map(len, rows))
    ids, attention_mask = [], []
    for row in rows:
        padding = longest - len(row)
        if padding_side == "right":
            ids.append(row + [pad_id] * padding)
            attention_mask.append([1] * len(row) + [0] * padding)
        else:
            ids.append([pad_id] * padding + row)
            attention_mask.append([0] * padding + [1] * len(row))
    return PaddedBatch(ids=ids, attention_mask=attention_mask)


@dataclass(frozen=True, repr=False)
class PaddedBatch:
    """Texts as a rectangle of IDs, and which entries are real.

    ids             (batch, longest)  token IDs; padding holds <|endoftext|>'s ID
    attention_mask  (batch, longest)  1 for a real token, 0 for padding

    Each is kept as tuples and handed out as fresh lists: changing one changes nothing here.
    """

    _ids: tuple[tuple[int, ...], ...]  # (batch, longest)
    _attention_mask: tuple[tuple[int, ...], ...]  # (batch, longest)

    def __init__(self, ids: Sequence[Sequence[int]],
                 attention_mask: Sequence[Sequence[int]]) -> None:
        object.__setattr__(self, "_ids", tuple(map(tuple, ids)))
        object.__setattr__(self, "_attention_mask", tuple(map(tuple, attention_mask)))

    @property
    def ids(self) -> list[list[int]]:
        return list(map(list, self._ids))

    @property
    def attention_mask(self) -> list[list[int]]:
        return list(map(list, self._attention_mask))

    def __repr__(self) -> str:
        real = sum(map(sum, self.attention_mask))
        return (f"PaddedBatch(shape=({len(self.ids)}, {len(self.ids[0])}), "
                f"real={real}, padding={len(self.ids) * len(self.ids[0]) - real})")


# ---------------------------------------------------------------------------
# The door: what the public functions above refuse, and the sentences they say
# ---------------------------------------------------------------------------


def _check_corpus(text: str) -> None:
    """A text with at least one word besides the special tokens."""
    if not set(tokenize(text)) - {UNKNOWN, END_OF_TEXT}:
        raise ValueError(f"the text {text[:40]!r}{'...' * (len(text) > 40)} has no words to build "
                         f"a vocabulary from (special tokens like {END_OF_TEXT} do not count)")


def _check_batch(texts: Sequence[str], padding_side: str, tokens: tuple[str, ...]) -> None:
    """A list of texts with a token each, a padding side, and a vocabulary with a pad token."""
    check_type(texts, (list, tuple), "texts must be a list of str, one per row of the batch",
               " (for one text, use encode)",
               empty="texts is empty; a batch needs at least one text")
    for b, text in enumerate(texts):
        check_type(text, str, f"texts[{b}] must be a str")
        if not text.split():  # only spaces: tokenize() would find no token
            raise ValueError(f"texts[{b}] = {text!r} has no tokens; every text of a batch "
                             f"needs at least one")
    check_choice(padding_side, ("right", "left"), "padding_side must be 'right' (padding after "
                 "each text) or 'left' (before it)")
    if END_OF_TEXT not in tokens:
        raise ValueError(f"this vocabulary has no {END_OF_TEXT!r} to pad with; "
                         f"Tokenizer.from_corpus always adds one")


def _checked_vocabulary(tokens: object) -> tuple[str, ...]:
    """The tokens of a vocabulary, each one a token that tokenize() can give."""
    if not isinstance(tokens, (list, tuple)) or set(map(type, tokens)) - {str}:
        raise TypeError("Tokenizer needs a list of str tokens; to start from text, "
                        "use Tokenizer.from_corpus(text)")
    if len(set(tokens)) != len(tokens):
        twice = next(token for token in tokens if tokens.count(token) > 1)
        raise ValueError(f"Tokenizer's tokens must be distinct: each token gets one ID, but "
                         f"{twice!r} comes twice")
    if UNKNOWN not in tokens:
        raise ValueError(f"Tokenizer's tokens must include {UNKNOWN!r} for unknown words")
    for token in tokens:
        if tokenize(token) != [token]:  # e.g. "Cat" (text is lower-cased) or "a b"
            hint = ("" if unicodedata.is_normalized("NFC", token) else
                    " (it is not in NFC: tokenize() composes letter and accent first)")
            raise ValueError(f"Tokenizer's token {token!r} can never come out of tokenize(), "
                             f"which gives {tokenize(token)}{hint}; use lower-case words and "
                             f"single punctuation marks")
    return tuple(tokens)
