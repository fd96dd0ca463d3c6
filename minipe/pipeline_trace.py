"""Chapter 9 - what the pipeline keeps: a Trace of every stage, and how it prints.

`run` (minipe/pipeline.py, next) takes a text through every stage, from its
tokens to attention's output, and keeps them all in a Trace. `print(trace)`
shows each stage with its shape and its first and last numbers, and says what
a learner might miss in them: a token that comes back gets the same ID and the
same row (until positions tell the two apart), a word may take several tokens
(so positions count tokens), and a large token table is drawn whole for the few
rows read. Every line fits an 80-column terminal.
"""

from __future__ import annotations

from dataclasses import dataclass

from minipe.arrays import Matrix
from minipe.attention import AttentionResult
from minipe.checks import BYTES_PER_NUMBER
from minipe.display import format_matrix, short_list

ALIBI_SLOPE = 0.5  # alibi_slopes(8)[0], the steepest head of 8 (minipe/pipeline.py says why)
WIDTH = 80  # print(trace) fits an 80-column terminal
WORDS_VOCABULARY = "the words sorted, <|unk|>, <|endoftext|>"


@dataclass(frozen=True, repr=False)
class Trace:
    """Every stage of `run`, in pipeline order."""

    text: str
    tokens: tuple[str, ...]
    token_ids: tuple[int, ...]
    vocab_size: int
    token_embeddings: Matrix  # (n, d_model)
    position_encodings: Matrix | None  # (n, d_model); None unless a table is added
    input_embeddings: Matrix  # (n, d_model)
    attention: AttentionResult  # weights (n, n), output (n, d_model)
    positions: str
    causal: bool
    attention_bias: Matrix | None = None  # (n, n): ALiBi's bias; None for the others
    tokenizer: str = "words"  # "words", "gpt2", or "bpe" (a BytePairTokenizer of your own)
    vocabulary: str = WORDS_VOCABULARY  # what the IDs number
    words: tuple[str, ...] | None = None  # byte-pair tokenizers: the pre-tokenizer's pieces
    word_ids: tuple[int, ...] | None = None  # and, per token, the piece it came from

    def __str__(self) -> str:
        n, d_model = self.input_embeddings.shape
        token_width = 9 - len(str(n - 1))  # "12 " + token: 10 characters at most
        labels = [f"{pos} {token[:token_width]}" for pos, token in enumerate(self.tokens)]
        repeated = _first_repeat(self.tokens)
        settings = f"d_model={d_model}, positions={self.positions}" + \
            (", causal" if self.causal else "") + \
            ("" if self.tokenizer == "words" else f", tokenizer={self.tokenizer}")
        lines = [
            clip(f"text: {self.text!r}", WIDTH - len(settings) - 5) + f"   ({settings})",
            "",
            f"1. tokens: {n}{'' if self.words is None else f' from {len(self.words)} words'}"
            f", numbered by position from 0",
            clip("   " + short_list(self.tokens, repr)),
            *self._split_word(),
            clip(f"2. token IDs (vocabulary of {self.vocab_size:,}: {self.vocabulary})"),
            clip("   " + short_list(self.token_ids, str)),
            f"3. token embeddings, shape {self.token_embeddings.shape}: "
            f"the token table's row for each ID",
            *self._table_cost(),
            indent(format_matrix(self.token_embeddings, labels)),
        ]
        if repeated:
            token, first, second = repeated
            lines.append(clip(f"   {token!r} at positions {first} and {second}: same ID, "
                               f"same row - nothing tells them apart"))
        table = self.position_encodings
        bias = self.attention_bias
        step_5 = "5. input embeddings = the token embeddings, unchanged"
        if table is not None:  # sinusoidal or learned: a vector added to each token
            lines += [
                f"4. position encodings ({self.positions}), shape "
                f"{table.shape}: row pos for position pos",
                indent(format_matrix(table, labels)),
            ]
            step_5 = "5. input embeddings = token embeddings + position encodings"
        elif self.positions == "rope":
            lines += [
                "4. position encodings: none added. RoPE rotates each query and key inside",
                "   the head instead: pair i at position pos turns by pos * 10000**(-2i/d)",
            ]
        elif bias is not None:  # alibi
            lines += [
                "4. position encodings: none added. ALiBi adds -m * |i - j| to score(i, j)",
                f"   instead, m = {ALIBI_SLOPE} (the steepest of 8 heads; alibi_slopes(1) "
                f"= [1/256]",
                f"   is too gentle to see). The bias, shape {bias.shape}:",
                indent(format_matrix(bias, labels)),
            ]
        elif self.causal:  # the mask alone leaks order: token i sees tokens 0..i
            lines += [
                "4. position encodings: none. Without the mask attention would be blind to",
                "   word order; with it, order leaks in: token i sees tokens 0..i only",
            ]
        else:
            lines.append("4. position encodings: none, so attention is blind to word order")
        lines += [
            f"{step_5}, shape {self.input_embeddings.shape}",
            indent(format_matrix(self.input_embeddings, labels)),
        ]
        if repeated and self.positions != "none":
            token, first, second = repeated
            apart = {"rope": "same row, but RoPE turns its q and k apart",
                     "alibi": "same row; ALiBi tells them apart by distance"}
            lines.append(clip(f"   {token!r} at positions {first} and {second}: "
                               + apart.get(self.positions, "now two different rows")))
        mask = "; causal: 0 above diagonal" if self.causal else ""
        lines += [
            f"6. attention weights, shape {self.attention.weights.shape}: "
            f"row i sums to 1{mask}",
            indent(format_matrix(self.attention.weights, labels)),
            f"7. attention output = weights @ V, shape {self.attention.output.shape}",
            indent(format_matrix(self.attention.output, labels)),
        ]
        return "\n".join(lines)

    def _split_word(self) -> list[str]:
        """The first word that takes several tokens, and the positions it takes."""
        if self.words is None or self.word_ids is None:
            return []
        for word in range(len(self.words)):
            taken = [pos for pos, of in enumerate(self.word_ids) if of == word]
            if len(taken) > 1:
                return [clip(f"   {self.words[word]!r} (word {word}) takes positions "
                              f"{taken[0]}..{taken[-1]}: positions count tokens, not words")]
        return ["   every word is one token here: positions and words agree"]

    def _table_cost(self) -> list[str]:
        """What a large token table costs: every row is drawn, a few are read."""
        if self.words is None:
            return []
        d_model = self.token_embeddings.shape[1]
        numbers = self.vocab_size * d_model
        return [clip(f"   the token table: {self.vocab_size:,} rows x {d_model} = "
                      f"{numbers:,} numbers ({numbers * BYTES_PER_NUMBER / 1e6:.0f} MB) "
                      f"for {len(self.tokens)} rows read")]

    def __repr__(self) -> str:
        return (f"Trace({clip(repr(self.text), 40)}, tokens={len(self.tokens)}, "
                f"shape={self.input_embeddings.shape}, positions={self.positions!r})")


def _first_repeat(tokens: tuple[str, ...]) -> tuple[str, int, int] | None:
    """The first token that occurs twice, with both positions; None if all differ."""
    first_seen: dict[str, int] = {}
    for pos, token in enumerate(tokens):
        if token in first_seen:
            return token, first_seen[token], pos
        first_seen[token] = pos
    return None


def clip(line: str, width: int = WIDTH) -> str:
    """`line`, cut to `width` characters with '...' if it is longer."""
    return line if len(line) <= width else line[:width - 3] + "..."


def indent(block: str) -> str:
    return "\n".join("   " + line for line in block.splitlines())
