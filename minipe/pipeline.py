"""Chapter 9 - the pipeline: every stage from text to attention, kept for inspection.

Lecture 001's summary, as one function, from the text "The cat sat on the mat":

    1. tokens             ['the', 'cat', 'sat', 'on', 'the', 'mat']
    2. token IDs          [4, 0, 3, 2, 4, 1]
    3. token embeddings   (6, d_model)   one row of the token table per ID
    4. position encodings (6, d_model)   row pos for the token at position pos
    5. input embeddings   (6, d_model)   token embeddings + position encodings
    6. attention weights  (6, 6)         softmax(Q K^T / sqrt(d_k)), row by row
    7. attention output   (6, d_model)   weights @ V

`run` returns a Trace holding all of them (minipe/pipeline_trace.py, read just
before); `print(trace)` shows each stage with its shape and its first and last numbers.

`tokenizer="words"` is chapter 1's (a position is a word); "gpt2", or a
BytePairTokenizer you trained, is chapter 1b's: "The cat sat on the bookshelf" is
8 tokens, ' books' 'he' 'lf' the last three, so positions count tokens. It costs a
token table of 50,257 rows, drawn whole (402,056 numbers at d_model 8, 13 MB,
about 0.3 s), and GPT-2's merges, read once (about 0.1 s).

Five kinds of positions (`positions=`). Two add a vector to every token
embedding at stage 5; two leave the token embeddings alone and act inside
attention at stage 6 instead; one does nothing:

    "sinusoidal"  + the fixed sin/cos table             (chapter 3)
    "learned"     + a GPT-style table                   (chapter 3)
    "rope"        the head rotates q and k by position  (chapter 5)
    "alibi"       score(i, j) gets -m * |i - j|         (chapter 6)
    "none"        nothing: attention is blind to order, unless
                  causal=True (the mask alone leaks order)

ALiBi's slope: the pipeline has one head, and the rule of Press et al. would
give one head alibi_slopes(1) = [1/256], a bias of -0.02 at distance 5 -
too gentle to see in a sentence. It takes m = 1/2 instead, the steepest of
the paper's 8 heads (alibi_slopes(8)[0]), so the pull towards near tokens
shows in the printed weights.

Three tables are drawn at random, each with its own seed so that they differ:
the token table uses `seed`, the learned position table `seed + 1`, and the
attention head `seed + 2`.
"""

from __future__ import annotations

from minipe.arrays import Matrix
from minipe.attention import SingleHeadAttention
from minipe.checks import POSITION_KINDS as POSITION_KINDS  # the five kinds, for the commands
from minipe.checks import check_settings as check_settings  # run()'s, run_batch's, TinyModel's
from minipe.checks import check_choice, check_table_size
from minipe.embedding import Embedding
from minipe.positional import LearnedPositionalEmbedding, sinusoidal_encoding
from minipe.relative import alibi_bias
from minipe.rotary import RotaryAttention
from minipe.pipeline_trace import ALIBI_SLOPE as ALIBI_SLOPE  # chapter 10 builds on it
from minipe.pipeline_trace import WIDTH as WIDTH  # run_batch's printout
from minipe.pipeline_trace import Trace as Trace  # what run() returns, and how it prints
from minipe.pipeline_trace import WORDS_VOCABULARY, clip
from minipe.pretokenizer import pretokenize
from minipe.subword import BytePairTokenizer
from minipe.tokenizer import Tokenizer, tokenize

DEFAULT_TEXT = "The cat sat on the mat"
TOKENIZERS = ("words", "gpt2")  # run(tokenizer=...) by name; or a BytePairTokenizer


def run(
    text: str = DEFAULT_TEXT,
    *,
    d_model: int = 8,
    positions: str = "sinusoidal",
    seed: int = 0,
    causal: bool = False,
    tokenizer: str | BytePairTokenizer = "words",
) -> Trace:
    """Take `text` through every stage and keep them all.

    tokenizer "words" (chapter 1) builds the vocabulary from `text` itself; "gpt2",
    or a BytePairTokenizer, cuts it into byte-pair tokens (chapter 1b). positions is "sinusoidal"
    (fixed), "learned" (a random table with one row per token of `text`),
    "rope" (the head rotates q and k; d_model must be even), "alibi" (a bias
    -m * |i - j| on the scores, masked above the diagonal when causal), or
    "none". With "rope", "alibi" and "none" the token embeddings go into
    attention as they are.

    >>> trace = run("The cat sat on the mat", d_model=8)
    >>> trace.token_ids, trace.input_embeddings.shape
    ((4, 0, 3, 2, 4, 1), (6, 8))
    >>> run("The cat sat on the bookshelf", tokenizer="gpt2").token_ids[4:]
    (262, 3835, 258, 1652)

    What a long text costs: the trace keeps every stage, and attention's
    scores and weights are n x n, so memory and time grow with the square of
    the number of tokens (each score is a dot product of d_model numbers).
    Every number is a float object and a pointer to it in its row, 32 bytes,
    where NumPy stores 8: 1,000 tokens at d_model 8 hold about 2 million
    numbers, 66 MB (NumPy's arrays would take 17), and a text past 4 GB is
    refused before anything is built. benchmarks/ measures the time.

    >>> from minipe.checks import BYTES_PER_NUMBER
    >>> held = numbers_held(1000, 8)  # numbers; then MB in Python, MB in NumPy's float64
    >>> held, round(held * BYTES_PER_NUMBER / 1e6), round(held * 8 / 1e6)
    (2064192, 66, 17)
    """
    _check_run(text, d_model, positions, seed, causal, tokenizer)
    words = word_ids = None  # chapter 1's tokens are the words
    vocabulary = WORDS_VOCABULARY
    if tokenizer == "words":
        tokens = tokenize(text)  # 1. text -> tokens
        by_words = Tokenizer.from_corpus(text)  # the vocabulary: the text's own words, sorted
        token_ids = by_words.encode(text)  # 2. tokens -> token IDs
        vocab_size = by_words.vocab_size
    else:  # chapter 1b: pieces -> bytes -> merges; a word may take several positions
        bpe = byte_pair_tokenizer(tokenizer)
        token_ids = bpe.encode(text)  # 2. text -> token IDs
        tokens = [bpe.decode([token_id]) for token_id in token_ids]  # 1. each ID's text
        words, word_ids = tuple(pretokenize(text)), tuple(bpe.word_ids(text))
        vocab_size = bpe.vocab_size
        vocabulary = f"256 bytes, {len(bpe.merges):,} merges" + (
            ", <|endoftext|>" if bpe.special_tokens else "")
    n = len(tokens)

    token_table = Embedding(vocab_size, d_model, seed=seed)  # (vocab_size, d_model), all drawn
    token_embeddings = token_table(token_ids)  # 3. (n, d_model): row token_ids[pos] per pos

    position_encodings: Matrix | None = None  # "none", "rope", "alibi": nothing is added
    if positions == "sinusoidal":
        position_encodings = sinusoidal_encoding(n, d_model)  # 4. (n, d_model)
    elif positions == "learned":
        position_table = LearnedPositionalEmbedding(n, d_model, seed=seed + 1)
        position_encodings = position_table(n)  # 4. (n, d_model)

    input_embeddings = token_embeddings  # 5. (n, d_model)
    if position_encodings is not None:
        input_embeddings = token_embeddings + position_encodings  # 5. row pos + PE(pos)

    attention_bias = None
    if positions == "alibi":
        attention_bias = alibi_bias(n, ALIBI_SLOPE, causal=causal)  # (n, n): -m * |i - j|
    head_kind = RotaryAttention if positions == "rope" else SingleHeadAttention
    head = head_kind(d_model, d_model, seed=seed + 2)
    attention = head(input_embeddings, causal=causal, bias=attention_bias)  # 6. and 7.

    return Trace(
        text=text,
        tokens=tuple(tokens),
        token_ids=tuple(token_ids),
        vocab_size=vocab_size,
        token_embeddings=token_embeddings,
        position_encodings=position_encodings,
        input_embeddings=input_embeddings,
        attention=attention,
        positions=positions,
        causal=causal,
        attention_bias=attention_bias,
        tokenizer=tokenizer if isinstance(tokenizer, str) else "bpe",
        vocabulary=vocabulary,
        words=words,
        word_ids=word_ids,
    )


def byte_pair_tokenizer(tokenizer: str | BytePairTokenizer) -> BytePairTokenizer:
    """"gpt2" -> GPT-2's tokenizer; a BytePairTokenizer is itself. (The caller checked it.)"""
    return BytePairTokenizer.gpt2() if tokenizer == "gpt2" else tokenizer  # type: ignore


def count_tokens(text: str, tokenizer: str | BytePairTokenizer = "words") -> int:
    """How many tokens, so positions, `text` takes: words, or byte-pair tokens.

    >>> count_tokens("The cat sat on the bookshelf"), count_tokens("The bookshelf", "gpt2")
    (6, 4)
    """
    _check_tokenizer(tokenizer)
    if tokenizer == "words":
        return len(tokenize(text))
    return len(byte_pair_tokenizer(tokenizer).encode(text))


def numbers_held(n: int, d_model: int, positions: str = "sinusoidal", vocab_size: int = 0
                 ) -> int:
    """How many numbers a run on n tokens holds: n x n attention grows fastest.

    >>> numbers_held(6000, 8)    # 2 x 36,000,000 scores and weights, and the rest
    72384192

    The token table's vocab_size x d_model are counted when given: a few rows for
    chapter 1's vocabulary, 50,257 for GPT-2's (at d_model 8, 402,056 numbers).
    """
    head_weights = 3 * d_model * d_model  # W_q, W_k, W_v: (d_model, d_model) each
    vectors = 8 * n * d_model  # (n, d_model): token rows, table, inputs, q, k, v, output ...
    scores = (3 if positions == "alibi" else 2) * n * n  # (n, n): scores, weights, bias
    return vocab_size * d_model + head_weights + vectors + scores


# The door, after the idea it guards: the text, the settings, and a trace that fits in memory.
def _check_run(text: str, d_model: int, positions: str, seed: int, causal: bool,
               tokenizer: str | BytePairTokenizer) -> None:
    n = count_tokens(text, tokenizer)  # the tokenizer's own door: text must be a str
    if not n:
        raise ValueError(f"text {clip(repr(text), 40)} has no tokens: give some words, like "
                         f"{DEFAULT_TEXT!r}")
    check_settings(d_model, positions, seed, causal)
    vocab_size = 0 if tokenizer == "words" else byte_pair_tokenizer(tokenizer).vocab_size
    check_table_size(numbers_held(n, d_model, positions, vocab_size),
                     f"run() on {n:,} tokens at d_model = {d_model}")


def _check_tokenizer(tokenizer: object) -> None:
    if not isinstance(tokenizer, BytePairTokenizer):
        check_choice(tokenizer, TOKENIZERS, "tokenizer must be 'words' (chapter 1), 'gpt2' "
                     "(GPT-2's byte-level BPE, chapter 1b) or a BytePairTokenizer", got="; got")
