"""Chapter 8 - batches: positions are data, read off a padding mask or document boundaries.

Until now a sequence's positions were 0, 1, ..., n-1 of one clean sequence.
Real inputs are not like that, and this is where positions go wrong in practice:

    a padded batch      rows of different lengths, padded to one width
                        (chapter 1's encode_batch). With left padding the
                        first real token of a short row stands at column 2,
                        say; counted by column, its position would be 2, not 0.
    packed documents    several documents end to end in one sequence, with no
                        padding at all; each must start again at position 0,
                        and must not see the documents before it.

Either way each token's position is a number given with it - `position_ids` -
not its column. Every kind of position can take them: a learned or sinusoidal
table gives token t row position_ids[t] instead of row t, RoPE turns it by
position_ids[t] * theta_i (chapter 5's apply_rotary(x, positions=...)), and
ALiBi's distances are |p_i - p_j| between them. TinyModel (chapter 10) does all four.

From a padding mask (1 real, 0 padding), a real token's position counts the
real tokens before it:

    position_ids = cumsum(attention_mask) - 1          at the real tokens

    attention_mask   [0, 0, 1, 1, 1]       [1, 1, 1, 0, 0]
    position_ids     [0, 0, 0, 1, 2]       [0, 1, 2, 0, 0]

Padding gets 0, as Hugging Face transformers' generate gives it (release 5.23,
GenerationMixin._prepare_position_ids_for_generation: masked_fill(mask == 0, 0));
the 4.x releases' prepare_inputs_for_generation of GPT-2 and others gave it 1. Any valid position
would do: the mask hides padding from every real query, and padding's own
outputs are thrown away, so its position reaches nothing that is kept. It must
only be a row that exists (cumsum - 1 would be -1 before the first real token).

Packed documents (Hugging Face's DataCollatorWithFlattening) are one row: the
IDs end to end, positions restarting at 0 for each document, and labels that
refuse to predict a document's first token from the end of the one before it.
The positions alone do not stop a token from attending the documents before it;
`document_mask` does: token i may see token j if j <= i and both are in one
document. chapter 4's scaled_dot_product_attention(..., mask=...) takes it.

With GPT-2's tokens (chapter 1b) each document ends with <|endoftext|>, ID 50256,
the token GPT-2 was trained to see between documents; the same ID pads a batch,
as GPT-2 has no pad token (the mask, not the ID, says which is padding).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass

from minipe.checks import check_table_size, check_type

IGNORE_INDEX = -100  # a label no loss counts: PyTorch's cross_entropy ignore_index default


def position_ids(attention_mask: Sequence[Sequence[int]]) -> list[list[int]]:
    """Each real token's position: cumsum(attention_mask) - 1 along its row; padding gets 0.

    >>> position_ids([[0, 0, 1, 1, 1], [1, 1, 1, 0, 0]])
    [[0, 0, 0, 1, 2], [0, 1, 2, 0, 0]]
    """
    _check_rows(attention_mask, "attention_mask")
    result = []
    for mask in attention_mask:
        cumsum = _running_total(mask)  # real tokens up to and including each column
        positions = [total - 1 if real else 0 for total, real in zip(cumsum, mask)]
        result.append(positions)
    return result


def _running_total(values: Sequence[int]) -> list[int]:
    totals, total = [], 0
    for value in values:
        total += value
        totals.append(total)
    return totals


@dataclass(frozen=True, repr=False)
class PackedDocuments:
    """Documents end to end in one sequence, as DataCollatorWithFlattening makes them.

    ids           the documents' IDs, one after another
    position_ids  0, 1, ... within each document: they restart at 0 where one begins
    labels        the IDs, but -100 at each document's first token: nothing before it
                  in its own document predicts it (a loss skips -100)

    Hugging Face's collator returns each as a tensor with a batch axis of 1, shape
    (1, n); here they are one row, a list of n ints (kept as a tuple, handed out as a
    fresh list: changing one changes nothing here).
    """

    _ids: tuple[int, ...]  # (n,)
    _position_ids: tuple[int, ...]  # (n,)
    _labels: tuple[int, ...]  # (n,)

    def __init__(self, ids: Sequence[int], position_ids: Sequence[int],
                 labels: Sequence[int]) -> None:
        object.__setattr__(self, "_ids", tuple(ids))
        object.__setattr__(self, "_position_ids", tuple(position_ids))
        object.__setattr__(self, "_labels", tuple(labels))

    @property
    def ids(self) -> list[int]:
        return list(self._ids)

    @property
    def position_ids(self) -> list[int]:
        return list(self._position_ids)

    @property
    def labels(self) -> list[int]:
        return list(self._labels)

    def __repr__(self) -> str:
        documents = self.position_ids.count(0)
        return f"PackedDocuments(documents={documents}, tokens={len(self.ids)})"


def pack_documents(documents: Sequence[Sequence[int]]) -> PackedDocuments:
    """Pack lists of token IDs into one sequence, positions restarting per document.

    >>> packed = pack_documents([[5, 1, 4], [7, 8]])
    >>> packed.ids, packed.position_ids, packed.labels
    ([5, 1, 4, 7, 8], [0, 1, 2, 0, 1], [-100, 1, 4, -100, 8])
    """
    _check_rows(documents, "documents")
    ids: list[int] = []
    positions: list[int] = []
    labels: list[int] = []
    for document in documents:
        ids += document
        positions += range(len(document))  # 0, 1, ..., len - 1: a fresh start
        labels += [IGNORE_INDEX] + list(document[1:])  # the first token has nothing before it
    return PackedDocuments(ids=ids, position_ids=positions, labels=labels)


def document_mask(position_ids: Sequence[int]) -> list[list[bool]]:
    """(n, n) booleans: True where token i may attend token j - j <= i, in i's document.

    A document starts where position_ids is 0; within one it counts 0, 1, 2, ...

    >>> document_mask([0, 1, 0])
    [[True, False, False], [True, True, False], [False, False, True]]
    """
    _check_packed_positions(position_ids)
    starts = []  # starts[t]: the index where token t's document begins
    for t, position in enumerate(position_ids):
        starts.append(t - position)
    n = len(starts)  # the packed sequence's tokens: the mask is (n, n)
    mask = []
    for i, start in enumerate(starts):
        row = [starts[j] == start and j <= i for j in range(n)]  # i's document, j <= i
        mask.append(row)
    return mask  # (n, n)


# ---------------------------------------------------------------------------
# The doors, after the ideas they guard: each list once, with a sentence that teaches
# ---------------------------------------------------------------------------


def _check_rows(rows: Sequence[Sequence[int]], name: str) -> None:
    """attention_mask or documents: a non-empty list of non-empty rows of ints from 0 to the
    largest (the mask's rows all as wide), each row counted at C speed; a row that fails is
    read one by one, to name its first bad value; first, what the call would build beside
    them is refused if past memory. The words of each sentence, by argument:"""
    row_is, holds, entry, hint, largest, rule, builds, tables = {"attention_mask": (
        "row", "1s and 0s", "entry", "one row per text: for one text, wrap it in a list", 1,
        "a mask holds 1 (a real token) and 0 (padding), nothing else", "position_ids("
        "attention_mask) of {:,} entries (a position for each, beside the mask)", 2),
        "documents": (
        "document", "int token IDs", "token", "encode the text first", math.inf,
        "token IDs are ints >= 0", "pack_documents(documents) of {:,} tokens (ids, "
        "position_ids and labels for each, beside the documents)", 4)}[name]
    check_type(rows, (list, tuple), f"{name} must be a list of {row_is}s, each a list of {holds}",
               empty=f"{name} is empty; it needs at least one {row_is}")
    entries = sum([len(row) for row in rows if isinstance(row, (list, tuple))])
    check_table_size(tables * entries, builds.format(entries))
    for b, row in enumerate(rows):
        check_type(row, (list, tuple), f"{name}[{b}] must be a list of {holds} ({hint})",
                   empty=f"{name}[{b}] is empty; every {row_is} needs at least one {entry}")
        if name == "attention_mask" and len(row) != len(rows[0]):
            raise ValueError(f"{name}[{b}] has {len(row)} entries but {name}[0] has {len(rows[0])}"
                             f": a padded batch is a rectangle, every row padded to the longest")
        if operator.countOf(map(type, row), int) != len(row) \
                or not 0 <= min(row) <= max(row) <= largest:
            bad = next(x for x in row if type(x) is not int or not 0 <= x <= largest)
            raise ValueError(f"{name}[{b}] holds {bad!r}: {rule}")


def _check_packed_positions(position_ids: Sequence[int]) -> None:
    check_type(position_ids, (list, tuple), "position_ids must be one packed sequence's "
               "positions, a list of ints", empty="position_ids is empty; the mask needs a token")
    check_table_size(len(position_ids) ** 2, "document_mask(position_ids), n x n for n tokens,")
    for t, (position, previous) in enumerate(zip(position_ids, [-1, *position_ids])):
        if type(position) is not int:
            raise TypeError(f"position_ids[{t}] must be an int position, got {position!r}")
        if position not in (0, previous + 1):  # previous -1 before the first: it must be 0
            raise ValueError(f"position_ids[{t}] = {position}" + (f" follows {previous}: packed "
                             f"positions count 0, 1, 2, ... within a document and restart at 0 "
                             f"where the next begins" if t else ": a packed sequence begins with "
                             f"a document, at position 0"))
