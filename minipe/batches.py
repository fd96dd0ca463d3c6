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
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass

IGNORE_INDEX = -100  # a label no loss counts: PyTorch's cross_entropy ignore_index default


def position_ids(attention_mask: Sequence[Sequence[int]]) -> list[list[int]]:
    """Each real token's position: cumsum(attention_mask) - 1 along its row; padding gets 0.

    >>> position_ids([[0, 0, 1, 1, 1], [1, 1, 1, 0, 0]])
    [[0, 0, 0, 1, 2], [0, 1, 2, 0, 0]]
    """
    _check_attention_mask(attention_mask)
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
    (1, n); here they are one row, a list of n ints.
    """

    ids: list[int]
    position_ids: list[int]
    labels: list[int]

    def __repr__(self) -> str:
        documents = self.position_ids.count(0)
        return f"PackedDocuments(documents={documents}, tokens={len(self.ids)})"


def pack_documents(documents: Sequence[Sequence[int]]) -> PackedDocuments:
    """Pack lists of token IDs into one sequence, positions restarting per document.

    >>> packed = pack_documents([[5, 1, 4], [7, 8]])
    >>> packed.ids, packed.position_ids, packed.labels
    ([5, 1, 4, 7, 8], [0, 1, 2, 0, 1], [-100, 1, 4, -100, 8])
    """
    _check_documents(documents)
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
    return [[starts[j] == starts[i] and j <= i for j in range(len(starts))]
            for i in range(len(starts))]


# The doors' checks, after the ideas they guard.
def _check_attention_mask(attention_mask: object) -> None:
    if isinstance(attention_mask, (str, bytes)) or not isinstance(attention_mask, (list, tuple)):
        raise TypeError(f"attention_mask must be a list of rows, each a list of 1 (a real "
                        f"token) and 0 (padding), got {type(attention_mask).__name__}")
    if not attention_mask:
        raise ValueError("attention_mask is empty; a batch needs at least one row")
    width = None
    for b, row in enumerate(attention_mask):
        if isinstance(row, (str, bytes)) or not isinstance(row, (list, tuple)):
            raise TypeError(f"attention_mask[{b}] must be a list of 1s and 0s (one row per "
                            f"text: for one text, wrap it in a list), got {row!r:.40}")
        if not row:
            raise ValueError(f"attention_mask[{b}] is empty; every row needs at least one "
                             f"entry")
        if width is None:
            width = len(row)
        if len(row) != width:
            raise ValueError(f"attention_mask[{b}] has {len(row)} entries but attention_mask[0] "
                             f"has {width}: a padded batch is a rectangle, every row padded "
                             f"to the longest")
        if operator.countOf(map(type, row), int) != len(row) or not set(row) <= {0, 1}:
            bad = next(x for x in row if type(x) is not int or x not in (0, 1))
            raise ValueError(f"attention_mask[{b}] holds {bad!r}: a mask holds 1 (a real "
                             f"token) and 0 (padding), nothing else")


def _check_documents(documents: object) -> None:
    if isinstance(documents, (str, bytes)) or not isinstance(documents, (list, tuple)):
        raise TypeError(f"documents must be a list of documents, each a list of int token "
                        f"IDs, got {type(documents).__name__}")
    if not documents:
        raise ValueError("documents is empty; packing needs at least one document")
    for d, document in enumerate(documents):
        if isinstance(document, (str, bytes)) or not isinstance(document, (list, tuple)):
            raise TypeError(f"documents[{d}] must be a list of int token IDs (encode the "
                            f"text first), got {type(document).__name__}")
        if not document:
            raise ValueError(f"documents[{d}] is empty; every document needs a token")
        if operator.countOf(map(type, document), int) != len(document) or min(document) < 0:
            bad = next(x for x in document if type(x) is not int or x < 0)
            raise ValueError(f"documents[{d}] holds {bad!r}: token IDs are ints >= 0")


def _check_packed_positions(position_ids: object) -> None:
    if isinstance(position_ids, (str, bytes)) or not isinstance(position_ids, (list, tuple)):
        raise TypeError(f"position_ids must be one packed sequence's positions, a list of "
                        f"ints, got {type(position_ids).__name__}")
    if not position_ids:
        raise ValueError("position_ids is empty; the mask needs at least one token")
    for t, position in enumerate(position_ids):
        if isinstance(position, bool) or not isinstance(position, int):
            raise TypeError(f"position_ids[{t}] must be an int position, got {position!r}")
        if t == 0 and position != 0:
            raise ValueError(f"position_ids[0] = {position}: a packed sequence begins with a "
                             f"document, at position 0")
        previous = position_ids[t - 1] if t else -1
        if position not in (0, previous + 1):
            raise ValueError(f"position_ids[{t}] = {position} follows {previous}: packed "
                             f"positions count 0, 1, 2, ... within a document and restart "
                             f"at 0 where the next begins (the first must be 0)")
