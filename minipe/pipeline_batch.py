"""Chapter 9, part 2 - the pipeline on several texts at once: a padded batch.

`run` (minipe/pipeline.py) takes one text. `run_batch` takes several, as a
model is fed: chapter 1's encode_batch pads them to the longest with
<|endoftext|>'s ID and says which entries are real, chapter 8's position_ids
gives each real token its place in its own text, and attention gets a mask
that hides the padding keys from every query:

>>> trace = run_batch(["The cat sat on the mat", "A dog bites a man"])
>>> trace.ids               # <|endoftext|> is ID 10 in these texts' vocabulary
[[8, 2, 7, 6, 8, 5], [0, 3, 1, 0, 4, 10]]
>>> trace.attention_mask
[[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0]]
>>> trace.position_ids
[[0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 0]]

Then each real row of the batch's attention output is exactly the row the
text gives alone, through the same tables. The trace checks that, and also
what happens when positions are counted by column instead (0, 1, ... over the
padding too): with left padding the sinusoidal and learned rows move, and the
real rows change; RoPE and ALiBi see only differences between positions, which
within one text are the same either way. Padding rows compute something too;
it is thrown away.

With tokenizer="gpt2" (chapter 1b) the rows are GPT-2's tokens. GPT-2 has no pad
token: <|endoftext|>, ID 50256, pads the rows, the token that also separates its
documents. The mask, not the ID, says which entries are padding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from minipe.arrays import Matrix
from minipe.attention import SingleHeadAttention, scaled_dot_product_attention
from minipe.batches import position_ids
from minipe.checks import check_settings, check_table_size
from minipe.display import counted, short_list
from minipe.embedding import Embedding
from minipe.pipeline import ALIBI_SLOPE, WIDTH, byte_pair_tokenizer, count_tokens, numbers_held
from minipe.positional import LearnedPositionalEmbedding, sinusoidal_encoding
from minipe.relative import alibi_bias_at
from minipe.rotary import apply_rotary
from minipe.subword import BytePairTokenizer
from minipe.tokenizer import END_OF_TEXT, PaddedBatch, Tokenizer


@dataclass(frozen=True, repr=False)
class BatchTrace:
    """A padded batch through the pipeline, and each text through it alone.

    outputs[b]    (longest, d_model)  row b's attention output in the batch
    alone[b]      (len_b, d_model)    text b alone: no padding, positions 0..len_b - 1
    by_column[b]  (longest, d_model)  row b in the batch with positions 0..longest - 1
    """

    texts: tuple[str, ...]
    padding_side: str
    pad_id: int
    batch: PaddedBatch  # the IDs and the mask, as encode_batch gave them
    outputs: tuple[Matrix, ...]
    alone: tuple[Matrix, ...]
    by_column: tuple[Matrix, ...]
    positions: str
    causal: bool
    d_model: int
    tokenizer: str = "words"  # "words", "gpt2", or "bpe" (a BytePairTokenizer of your own)

    @property
    def ids(self) -> list[list[int]]:
        """(batch, longest) token IDs, as fresh lists (changing them changes nothing here)."""
        return self.batch.ids

    @property
    def attention_mask(self) -> list[list[int]]:
        """(batch, longest) 1 a real token, 0 padding, as fresh lists."""
        return self.batch.attention_mask

    @property
    def position_ids(self) -> list[list[int]]:
        """(batch, longest) chapter 8's cumsum(attention_mask) - 1 at the real tokens."""
        return position_ids(self.attention_mask)

    def real_rows(self, b: int, outputs: Sequence[Matrix]) -> list[list[float]]:
        """The rows of outputs[b] that hold row b's real tokens."""
        mask = self.attention_mask[b]
        return [row for row, real in zip(outputs[b].tolist(), mask) if real]

    def largest_difference(self, b: int, outputs: Sequence[Matrix]) -> float:
        """max |x - y| between text b's real rows in `outputs` and text b alone."""
        pairs = zip(self.real_rows(b, outputs), self.alone[b].tolist())
        return max(abs(x - y) for got, want in pairs for x, y in zip(got, want))

    def __str__(self) -> str:
        longest = len(self.ids[0])
        settings = (f"d_model={self.d_model}, positions={self.positions}"
                    + (", causal" if self.causal else "")
                    + ("" if self.tokenizer == "words" else f", tokenizer={self.tokenizer}"))
        labels = [f"{b} {_clip(repr(text), 22):<24}" for b, text in enumerate(self.texts)]
        lines = [
            f"{len(self.texts)} texts, padded on the {self.padding_side} to "
            f"{counted(longest, 'token')} "
            f"with {END_OF_TEXT}'s ID {self.pad_id}   ({settings})",
            "",
            f"ids: each text's token IDs, the padding {self._where_padding()}",
            *_rows(labels, self.ids),
            "attention_mask: 1 a real token, 0 padding - the mask, not the ID, says which",
            *_rows(labels, self.attention_mask),
            "position_ids = cumsum(attention_mask) - 1 at the real tokens; padding gets 0",
            *_rows(labels, self.position_ids),
            "attention: every query sees only the real keys (the mask; padding is hidden)",
            "real rows of the output vs. each text alone (same tables), max |difference|:",
        ]
        for b, label in enumerate(labels):
            lines.append(_clip(f"   {label} {self.largest_difference(b, self.outputs):.3g}"))
        lines.append("the same, with positions counted by column (0.."
                     f"{longest - 1} over the padding too):")
        for b, label in enumerate(labels):
            lines.append(_clip(f"   {label} {self.largest_difference(b, self.by_column):.3g}"))
        return "\n".join(lines)

    def _where_padding(self) -> str:
        return "after them" if self.padding_side == "right" else "before them"

    def __repr__(self) -> str:
        return (f"BatchTrace(texts={len(self.texts)}, longest={len(self.ids[0])}, "
                f"positions={self.positions!r}, padding_side={self.padding_side!r})")


def _rows(labels: list[str], rows: list[list[int]]) -> list[str]:
    return [_clip(f"   {label} {short_list(row, str)}") for label, row in zip(labels, rows)]


def _clip(line: str, width: int = WIDTH) -> str:
    return line if len(line) <= width else line[:width - 3] + "..."


def run_batch(
    texts: Sequence[str],
    *,
    d_model: int = 8,
    positions: str = "sinusoidal",
    seed: int = 0,
    causal: bool = False,
    padding_side: str = "right",
    tokenizer: str | BytePairTokenizer = "words",
) -> BatchTrace:
    """Several texts through the pipeline as one padded batch, and each alone.

    tokenizer "words" builds the vocabulary from all the texts; "gpt2" (or a
    BytePairTokenizer with <|endoftext|>) pads with 50256. The tables are seeded as in
    `run` (tokens: seed, learned positions: seed + 1, the head: seed + 2).

    >>> trace = run_batch(["The cat sat on the mat", "A dog bites a man"])
    >>> trace.position_ids[1], trace.largest_difference(1, trace.outputs)
    ([0, 1, 2, 3, 4, 0], 0.0)
    >>> run_batch(["The bookshelf", "A dog"], tokenizer="gpt2").ids
    [[464, 3835, 258, 1652], [32, 3290, 50256, 50256]]
    """
    _check_batch(texts, d_model, positions, seed, causal, tokenizer)
    if tokenizer == "words":
        by_words = Tokenizer.from_corpus(" ".join(texts))  # the vocabulary: all the texts' words
        batch = by_words.encode_batch(texts, padding_side=padding_side)  # its door: the side
        vocab_size, pad_id = by_words.vocab_size, by_words.tokens.index(END_OF_TEXT)
    else:  # GPT-2's byte-pair tokens, padded with <|endoftext|>: it has no pad token
        bpe = byte_pair_tokenizer(tokenizer)
        batch = bpe.encode_batch(texts, padding_side=padding_side)  # its door: the side
        vocab_size, pad_id = bpe.vocab_size, bpe.special_tokens[END_OF_TEXT]
    longest = len(batch.ids[0])
    positions_of = position_ids(batch.attention_mask)  # 0, 1, ... within each text

    token_table = Embedding(vocab_size, d_model, seed=seed)
    learned = LearnedPositionalEmbedding(longest, d_model, seed=seed + 1).weight
    sinusoids = sinusoidal_encoding(longest, d_model)
    head = SingleHeadAttention(d_model, d_model, seed=seed + 2)  # RotaryAttention's weights too

    def attend(ids: list[int], where: list[int], real: list[int]) -> Matrix:
        """One row: ids at positions `where`; keys with real[j] == 0 are hidden."""
        x = token_table(ids)  # (n, d_model)
        if positions == "sinusoidal":
            x = x + Matrix([sinusoids[pos] for pos in where])  # row position_ids[t] of the table
        elif positions == "learned":
            x = x + Matrix([learned[pos] for pos in where])
        q, k, v = head.qkv(x)
        if positions == "rope":
            q = apply_rotary(q, positions=where)  # turned by position_ids[t] * theta_i
            k = apply_rotary(k, positions=where)
        bias = None
        if positions == "alibi":  # -m |p_i - p_j|, over the positions `where`
            bias = alibi_bias_at(where, where, ALIBI_SLOPE)
        mask = [[bool(key) for key in real]] * len(ids)  # every query: the real keys only
        return scaled_dot_product_attention(q, k, v, causal=causal, bias=bias, mask=mask).output

    outputs, alone, by_column = [], [], []
    for ids, real, where in zip(batch.ids, batch.attention_mask, positions_of):
        text_ids = [token_id for token_id, is_real in zip(ids, real) if is_real]
        outputs.append(attend(ids, where, real))
        alone.append(attend(text_ids, list(range(len(text_ids))), [1] * len(text_ids)))
        by_column.append(attend(ids, list(range(longest)), real))
    return BatchTrace(
        texts=tuple(texts), padding_side=padding_side, pad_id=pad_id,
        batch=batch,
        outputs=tuple(outputs), alone=tuple(alone), by_column=tuple(by_column),
        positions=positions, causal=causal, d_model=d_model,
        tokenizer=tokenizer if isinstance(tokenizer, str) else "bpe",
    )


# The door, after the idea it guards: the texts, the settings (run's), and memory.
def _check_batch(texts: Sequence[str], d_model: int, positions: str, seed: int,
                 causal: bool, tokenizer: str | BytePairTokenizer) -> None:
    if isinstance(texts, str) or not isinstance(texts, (list, tuple)) or not texts \
            or not all(isinstance(text, str) for text in texts):
        raise TypeError(f"texts must be a non-empty list of str, one per row of the batch, "
                        f"got {texts!r:.60} (for one text, use run)")
    check_settings(d_model, positions, seed, causal)
    longest = max(count_tokens(text, tokenizer) for text in texts)  # the longest row's tokens
    vocab_size = 0 if tokenizer == "words" else byte_pair_tokenizer(tokenizer).vocab_size
    check_table_size(vocab_size * d_model + len(texts) * numbers_held(longest, d_model, positions),
                     f"run_batch() on {len(texts)} texts of up to {longest} tokens")
