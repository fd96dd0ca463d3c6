"""The battery: every public door, knocked on with what a learner might pass by mistake.

One table, CASES: each row is a call that must be refused, with the exception it
must raise and a fragment of the sentence that must name the argument. One
parametrized test runs them all. To cover a new public function, add rows:

    Case(sinusoidal_encoding, (4, None), {}, TypeError, "d_model"),

or, for one argument given each wrong value a size can be (None, "3", 3.0, True,
a dict, -1), `*wrong_sizes(sinusoidal_encoding, {"num_positions": 4, "d_model": 8},
"d_model")`. A size past memory must be refused at the door with an estimate (a
ValueError saying what it "would hold", naming the call and its sizes), never attempted:
the sizes here are so big (10**9 and more) that an attempt would run out of memory or
hang, not pass.

A second table, ALIASES, holds calls that must succeed; the test checks that the
call changes none of its arguments, that changing the lists passed in afterwards
changes nothing of what came back, and that changing what came back (a list, or
what .tolist() gives) changes neither the object nor the next call's answer. A record or a
class is knocked on through `held(record)`, all it hands out: changing any list in that
must not change what it hands out next (`batch.ids[0][0] = 99` changes nothing held).

A row of chapter 10 (minipe/training) that finds a gap is marked `xfail="training: ..."`.
The last two tests hold that every callable in minipe.__all__, and every public function
or class of a chapter outside training/ (tests/test_doors.py's CHAPTERS), has a row in
one table: a new public name without a row fails.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import re
import reprlib
from typing import Any, Callable, NamedTuple

import pytest

import minipe
from test_doors import CHAPTERS
from minipe import (
    Batch, BytePairTokenizer, Embedding, KVCache, LearnedPositionalEmbedding, Matrix,
    Precision, RelativePositionEmbedding, RotaryAttention, ShapeError, SingleHeadAttention,
    TinyModel, Tokenizer, Vector, accuracy, add, alibi_bias, alibi_slopes, allclose,
    apply_rotary, binary_encoding, broadcast_shapes, causal_mask, clipped_relative_positions,
    decay_bound, distinct_positions, document_mask, evict, format_matrix, frequency_table,
    gelu, largest_exact_integer, layer_norm, next_logits, pack_documents, position_ids,
    pretokenize, relative_shift_matrix, rms_norm, rope_frequencies, rotary_pairs, round_to,
    rounded_angle, rounded_score, rounded_sinusoids, rounded_turns, run, run_batch,
    scaled_dot_product_attention, sinusoidal_denominators, sinusoidal_encoding,
    sinusoidal_position, sliding_windows, softmax, softmax_naive, spacing, subtract,
    t5_relative_bucket, task_batch, train,
)
from minipe.batches import PackedDocuments
from minipe.pipeline import byte_pair_tokenizer, count_tokens, numbers_held
from minipe.pipeline_trace import clip, indent
from minipe.positional import sinusoidal_rows
from minipe.low_precision import stored
from minipe.relative import alibi_bias_at
from minipe.rotary import rotary_thetas
from minipe.subword import byte_pair_encode, byte_to_unicode, count_pairs, merge
from minipe.tokenizer import PaddedBatch, pad_rows, tokenize
from minipe.training.probe import fit_probe


class Case(NamedTuple):
    """A call that must be refused: call(*args, **kwargs) raises `raises`, whose sentence
    holds `names` (the argument's name, or what it is about) as a word."""

    call: Callable[..., object]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    raises: type[BaseException]
    names: str
    xfail: str = ""  # "training: ..." for a gap in chapter 10; "(not run: ...)" if it hangs


BIG = 10**9  # a size past memory: 10**9 numbers are about 32 GB in Python lists
HUGE = 10**400  # past any float: int(float(HUGE)) overflows


def wrong_sizes(call: Callable[..., object], good: dict[str, Any], name: str,
                minimum: int = 1) -> list[Case]:
    """One row per wrong value of the size `name` (all arguments by keyword, from `good`):
    None, a str, a float, a bool, a dict (TypeError); below `minimum` (ValueError)."""
    rows = [Case(call, (), {**good, name: wrong}, TypeError, name)
            for wrong in (None, "3", 3.0, True, {3: 3})]
    rows.append(Case(call, (), {**good, name: minimum - 1}, ValueError, name))
    return rows


def wrong_numbers(call: Callable[..., object], good: dict[str, Any], name: str) -> list[Case]:
    """One row per wrong value of the real number `name`: None, a str (TypeError); NaN,
    inf, -inf (ValueError)."""
    rows = [Case(call, (), {**good, name: wrong}, TypeError, name) for wrong in (None, "1.0")]
    rows += [Case(call, (), {**good, name: wrong}, ValueError, name)
             for wrong in (math.nan, math.inf, -math.inf)]
    return rows


def wrong_lists(call: Callable[..., object], good: dict[str, Any], name: str) -> list[Case]:
    """One row per wrong container for the list `name`: None, a str, a set, a dict (a set and
    a dict have no order a list's rows could follow)."""
    return [Case(call, (), {**good, name: wrong}, TypeError, name)
            for wrong in (None, "0 1", {0, 1}, {0: 1})]


# Small objects the rows knock on (built once: each is a few hundred numbers).
X = Matrix([[1.0, 0.0, 2.0, 0.5], [0.0, 1.0, -1.0, 0.5], [0.5, 0.5, 0.0, 1.0]])  # (3, 4)
TOKENIZER = Tokenizer.from_corpus("the cat sat")
BPE = BytePairTokenizer([(116, 104)], special_tokens=["<|endoftext|>"])  # "t" "h" -> 256
EMBEDDING = Embedding(10, 4)
LEARNED = LearnedPositionalEmbedding(8, 4)
RELATIVE = RelativePositionEmbedding(4, 4)
ATTENTION = SingleHeadAttention(4, 4)
ROTARY = RotaryAttention(4, 4)
MODEL = TinyModel(6, 4, 8)
BLOCK = TinyModel(6, 4, 8, num_heads=2, num_layers=2, mlp=True, norm="layer")
TASK = "previous-token"  # one of minipe.TASKS
ONE_TOKEN_CACHE = KVCache([Matrix([[0.0] * 4])], [Matrix([[0.0] * 4])])  # one head, one token

CASES: list[Case] = [
    # Appendix A, B: arrays
    *wrong_lists(Vector, {}, "values"),
    Case(Vector, ([],), {}, ValueError, "empty"),
    Case(Vector, ([1.0, math.nan],), {}, ValueError, "values[1]"),
    Case(Vector, ([1.0, "2"],), {}, TypeError, "values[1]"),
    Case(Vector, ([1.0, True],), {}, TypeError, "values[1]"),
    Case(Matrix, (None,), {}, TypeError, "rows"),
    Case(Matrix, ([[1.0, 2.0], [3.0]],), {}, ShapeError, "row"),
    Case(Matrix, ([[1.0, math.nan]],), {}, ValueError, "NaN"),
    Case(Matrix, ({0: [1.0]},), {}, TypeError, "rows"),
    Case(Matrix, ({(1.0,), (2.0,)},), {}, TypeError, "rows"),
    Case(Matrix.zeros, (BIG, BIG), {}, ValueError, "would hold"),
    Case(Matrix.zeros, (None, 2), {}, TypeError, "rows"),
    Case(Vector([1.0]).dot, (None,), {}, TypeError, "Vector"),
    Case(Vector([1.0]).dot, (Vector([1.0, 2.0]),), {}, ShapeError, "axis"),
    Case(X.__matmul__, (X,), {}, ShapeError, "columns"),
    Case(X.__getitem__, (None,), {}, TypeError, "index"),
    Case(X.__getitem__, ((0, 9),), {}, IndexError, "column index 9"),
    Case(X.__mul__, (math.nan,), {}, ValueError, "NaN"),
    Case(X.__mul__, ("a",), {}, TypeError, "number"),
    Case(X.__truediv__, (0,), {}, ZeroDivisionError, "by 0"),
    Case(Batch, (None,), {}, TypeError, "matrices"),
    Case(Batch, ({X},), {}, TypeError, "in order"),
    Case(Batch([X]).__getitem__, (5,), {}, IndexError, "Batch index 5"),
    Case(Batch, ([X, Matrix([[1.0]])],), {}, ShapeError, "shape"),
    Case(add, (X, Matrix([[1.0, 2.0]])), {}, ShapeError, "axis"),
    Case(add, (X, None), {}, TypeError, "NoneType"),
    Case(subtract, (X, "1"), {}, TypeError, "str"),
    Case(allclose, (X, None), {}, TypeError, "None"),
    Case(allclose, (X, X), {"rel_tol": -1.0}, ValueError, "rel_tol"),
    Case(allclose, (X, X), {"abs_tol": math.nan}, ValueError, "abs_tol"),
    Case(broadcast_shapes, ((3, 4), (5,)), {}, ShapeError, "axis"),
    Case(broadcast_shapes, ((3, -4),), {}, ValueError, "-4"),
    Case(broadcast_shapes, (None,), {}, TypeError, "shape"),
    Case(format_matrix, (None,), {}, TypeError, "Matrix"),
    Case(X.take, ([0, 7],), {}, IndexError, "ids[1]"),
    Case(X.__getitem__, (5,), {}, IndexError, "5"),
    # Chapter 1: words -> IDs
    *wrong_lists(Tokenizer, {}, "tokens"),
    Case(Tokenizer, ([],), {}, ValueError, "tokens"),
    Case(Tokenizer, (["cat", 3],), {}, TypeError, "tokens"),
    Case(Tokenizer, (["cat", "<|unk|>", "cat"],), {}, ValueError, "'cat' comes twice"),
    Case(tokenize, (None,), {}, TypeError, "text"),
    Case(tokenize, (b"cat",), {}, TypeError, "text"),
    Case(TOKENIZER.encode, (None,), {}, TypeError, "text"),
    Case(TOKENIZER.encode, (["the cat"],), {}, TypeError, "text"),
    Case(TOKENIZER.decode, ([0, 99],), {}, IndexError, "ids[1]"),
    Case(TOKENIZER.decode, ([0, -1],), {}, IndexError, "ids[1]"),
    Case(TOKENIZER.decode, ([0, 1.0],), {}, TypeError, "ids[1]"),
    Case(TOKENIZER.decode, ("0 1",), {}, TypeError, "IDs"),
    Case(TOKENIZER.decode, ({0, 1},), {}, TypeError, "IDs"),
    Case(Tokenizer.from_corpus, (None,), {}, TypeError, "text"),
    *wrong_lists(TOKENIZER.encode_batch, {}, "texts"),
    Case(TOKENIZER.encode_batch, (["the cat"],), {"padding_side": "top"}, ValueError,
         "padding_side"),
    Case(TOKENIZER.encode_batch, ([],), {}, ValueError, "texts"),
    # Chapter 1b: GPT-2's pieces and byte-pair merges
    Case(pretokenize, (None,), {}, TypeError, "pretokenize needs a str"),
    Case(pretokenize, (3,), {}, TypeError, "pretokenize needs a str"),
    *wrong_lists(BytePairTokenizer, {}, "merges"),
    Case(BytePairTokenizer, ([(116, 999)],), {}, ValueError, "merges[0]"),
    Case(BytePairTokenizer, ([],), {"special_tokens": {"<|endoftext|>"}}, TypeError,
         "special_tokens"),
    Case(BytePairTokenizer, ([],), {"byte_ids": [0, 1]}, ValueError, "byte_ids"),
    Case(BytePairTokenizer.train, (None, 300), {}, TypeError, "text"),
    Case(BPE.encode, (None,), {}, TypeError, "text"),
    Case(BPE.encode, ("the",), {"allowed_special": "all"}, TypeError, "allowed_special"),
    Case(BPE.decode, ([0, 258],), {}, IndexError, "ids[1]"),
    Case(BPE.decode, ([0, None],), {}, TypeError, "ids[1]"),
    Case(BPE.word_ids, (["the"],), {}, TypeError, "text"),
    Case(BPE.__setattr__, ("vocab", ()), {}, AttributeError, "vocab"),
    Case(BPE.__delattr__, ("vocab",), {}, AttributeError, "vocab"),  # a slot deleted, else
    *wrong_lists(BPE.encode_batch, {}, "texts"),
    *wrong_sizes(BytePairTokenizer.train, {"text": "the cat"}, "vocab_size", minimum=256),
    *wrong_lists(sliding_windows, {"max_length": 4, "stride": 2}, "ids"),
    *wrong_sizes(sliding_windows, {"ids": [1, 2, 3], "stride": 1}, "max_length"),
    *wrong_sizes(sliding_windows, {"ids": [1, 2, 3], "max_length": 2}, "stride"),
    # Chapter 2: IDs -> vectors
    *wrong_sizes(Embedding, {"dim": 4}, "num_embeddings"),
    *wrong_sizes(Embedding, {"num_embeddings": 4}, "dim"),
    *wrong_sizes(Embedding, {"num_embeddings": 4, "dim": 4}, "seed", minimum=0),
    Case(Embedding, (BIG, BIG), {}, ValueError, "would hold"),
    Case(EMBEDDING, ([0, 10],), {}, IndexError, "ids[1]"),
    Case(EMBEDDING, ([0, -1],), {}, IndexError, "ids[1]"),
    Case(EMBEDDING, ([],), {}, ValueError, "ids"),
    Case(EMBEDDING, ([[0, 1], [2]],), {}, ValueError, "ids"),
    *wrong_lists(EMBEDDING, {}, "ids"),
    Case(EMBEDDING, ([True, 0],), {}, TypeError, "ids[0]"),
    # Chapter 3: positions added
    *wrong_sizes(sinusoidal_encoding, {"d_model": 4}, "num_positions"),
    *wrong_sizes(sinusoidal_encoding, {"num_positions": 4}, "d_model"),
    *wrong_numbers(sinusoidal_encoding, {"num_positions": 4, "d_model": 4}, "base"),
    Case(sinusoidal_encoding, (4, 4), {"base": -1.0}, ValueError, "base"),
    Case(sinusoidal_encoding, (BIG, BIG), {}, ValueError, "would hold"),
    Case(sinusoidal_encoding, (HUGE, 4), {}, ValueError, "would hold"),
    *wrong_sizes(sinusoidal_position, {"d_model": 4}, "pos", minimum=0),
    Case(sinusoidal_position, (2**60, 4), {}, ValueError, "pos"),
    Case(sinusoidal_position, (3, BIG), {}, ValueError, "would hold"),
    *wrong_sizes(sinusoidal_denominators, {}, "d_model"),
    Case(sinusoidal_denominators, (HUGE,), {}, ValueError, "would hold"),
    *wrong_lists(sinusoidal_rows, {"d_model": 4}, "positions"),
    Case(sinusoidal_rows, ([0, -1], 4), {}, ValueError, "positions[1]"),
    Case(sinusoidal_rows, ([0, 1.5], 4), {}, TypeError, "positions[1]"),
    Case(sinusoidal_rows, ([0] * 10, BIG), {}, ValueError, "would hold"),
    *wrong_sizes(binary_encoding, {"bits": 4}, "num_positions"),
    *wrong_sizes(binary_encoding, {"num_positions": 4}, "bits"),
    Case(binary_encoding, (BIG, BIG), {}, ValueError, "would hold"),
    Case(binary_encoding, (17, 4), {}, ValueError, "bits"),
    Case(relative_shift_matrix, (None, 4), {}, TypeError, "k"),
    Case(relative_shift_matrix, (1.0, 4), {}, TypeError, "k"),
    Case(relative_shift_matrix, (-HUGE, 4), {}, ValueError, "k"),
    *wrong_sizes(relative_shift_matrix, {"k": 1}, "d_model"),
    Case(relative_shift_matrix, (1, 5), {}, ValueError, "d_model"),
    Case(relative_shift_matrix, (1, BIG), {}, ValueError, "would hold"),
    *wrong_sizes(LearnedPositionalEmbedding, {"dim": 4}, "context_length"),
    Case(LearnedPositionalEmbedding, (BIG, BIG), {}, ValueError, "would hold"),
    Case(LEARNED, (9,), {}, ValueError, "context_length"),
    Case(LEARNED, (None,), {}, TypeError, "n"),
    # Chapter 4: attention
    Case(softmax, ([],), {}, ValueError, "softmax needs at least one value"),
    Case(softmax, (None,), {}, TypeError, "softmax needs a list of numbers"),
    Case(softmax, ([1.0, math.nan],), {}, ValueError, "values[1]"),
    Case(softmax, ([1.0, "2"],), {}, TypeError, "values[1]"),
    Case(softmax, ({1.0, 2.0},), {}, TypeError, "in order"),
    Case(softmax, ({1.0: 2.0},), {}, TypeError, "in order"),
    Case(softmax_naive, ([],), {}, ValueError, "empty"),
    Case(softmax_naive, ([1.0, math.inf],), {}, ValueError, "inf"),
    *wrong_sizes(causal_mask, {}, "n"),
    Case(causal_mask, (BIG,), {}, ValueError, "would hold"),
    Case(scaled_dot_product_attention, (X, X, None), {}, TypeError, "v"),
    Case(scaled_dot_product_attention, ([[1.0]], X, X), {}, TypeError, "q"),
    Case(scaled_dot_product_attention, (X, Matrix([[1.0, 2.0]]), X), {}, ShapeError, "k"),
    Case(scaled_dot_product_attention, (X, X, Matrix([[1.0]])), {}, ShapeError, "v"),
    Case(scaled_dot_product_attention, (X, X, X), {"causal": "yes"}, TypeError, "causal"),
    Case(scaled_dot_product_attention, (Matrix([[1e200]]), Matrix([[1e200]]), Matrix([[1.0]])),
         {}, ValueError, "q"),
    Case(scaled_dot_product_attention, (X, X, X), {"mask": [[True] * 3] * 2}, ShapeError, "mask"),
    Case(scaled_dot_product_attention, (X, X, X), {"mask": {0: 1}}, TypeError, "mask"),
    Case(scaled_dot_product_attention, (X, X, X), {"bias": [[0.0] * 3] * 3}, TypeError, "bias"),
    Case(scaled_dot_product_attention, (X, X, X), {"bias": Matrix([[0.0] * 3])}, ShapeError,
         "bias"),
    *wrong_sizes(SingleHeadAttention, {"d_out": 4}, "d_in"),
    *wrong_sizes(SingleHeadAttention, {"d_in": 4}, "d_out"),
    Case(SingleHeadAttention, (BIG, BIG), {}, ValueError, "would hold"),
    Case(ATTENTION, (Matrix([[1.0, 2.0]]),), {}, ShapeError, "x"),
    Case(ATTENTION, ([[1.0] * 4],), {}, TypeError, "x"),
    Case(ATTENTION.qkv, (None,), {}, TypeError, "x"),
    # Chapter 5: RoPE
    Case(apply_rotary, (Matrix([[1.0, 2.0, 3.0]]),), {}, ValueError, "even"),
    Case(apply_rotary, (None,), {}, TypeError, "x"),
    *wrong_numbers(apply_rotary, {"x": X}, "base"),
    *wrong_sizes(apply_rotary, {"x": X}, "start", minimum=0),
    Case(apply_rotary, (X,), {"start": 2**60}, ValueError, "start"),
    Case(apply_rotary, (X,), {"positions": [0, 1]}, ValueError, "positions"),
    Case(apply_rotary, (X,), {"positions": {0, 1, 2}}, TypeError, "positions"),
    Case(apply_rotary, (X,), {"positions": [0, 1, -2]}, ValueError, "positions[2]"),
    Case(apply_rotary, (X,), {"layout": "spiral"}, ValueError, "layout"),
    Case(apply_rotary, (X,), {"frequencies": [1.0, 0.5]}, ValueError, "frequencies"),
    Case(apply_rotary, (X,), {"frequencies": Vector([1.0, math.inf])}, ValueError,
         "frequencies"),
    *wrong_sizes(rotary_pairs, {}, "d"),
    Case(rotary_pairs, (3,), {}, ValueError, "even"),
    Case(rotary_pairs, (4, "spiral"), {}, ValueError, "layout"),
    Case(rotary_pairs, (BIG * 2,), {}, ValueError, "would hold"),
    *wrong_sizes(rotary_thetas, {}, "d"),
    Case(rotary_thetas, (4, math.nan), {}, ValueError, "base"),
    Case(rotary_thetas, (HUGE,), {}, ValueError, "would hold"),
    Case(RotaryAttention, (4, 3), {}, ValueError, "even"),
    Case(RotaryAttention, (4, 4), {"base": 0.0}, ValueError, "base"),
    Case(RotaryAttention, (BIG, BIG), {}, ValueError, "would hold"),
    Case(ROTARY, (Matrix([[1.0, 2.0]]),), {}, ShapeError, "x"),
    # Chapter 6: biases on the scores
    *wrong_sizes(alibi_slopes, {}, "num_heads"),
    Case(alibi_slopes, (BIG,), {}, ValueError, "would hold"),
    *wrong_sizes(alibi_bias, {"slope": 0.5}, "seq_len"),
    *wrong_numbers(alibi_bias, {"seq_len": 4}, "slope"),
    Case(alibi_bias, (4, -0.5), {}, ValueError, "slope"),
    Case(alibi_bias, (4, 1e300), {}, ValueError, "slope"),
    Case(alibi_bias, (BIG, 0.5), {}, ValueError, "would hold"),
    Case(alibi_bias, (4, 0.5), {"causal": None}, TypeError, "causal"),
    *wrong_lists(alibi_bias_at, {"key_positions": [0, 1], "slope": 0.5}, "query_positions"),
    *wrong_lists(alibi_bias_at, {"query_positions": [0, 1], "slope": 0.5}, "key_positions"),
    Case(alibi_bias_at, ([0, -1], [0], 0.5), {}, ValueError, "query_positions[1]"),
    Case(alibi_bias_at, ([0], [0], math.nan), {}, ValueError, "slope"),
    Case(alibi_bias_at, ([0] * 20_000, [0] * 20_000, 0.5), {}, ValueError, "would hold"),
    Case(t5_relative_bucket, (None,), {}, TypeError, "relative_position"),
    Case(t5_relative_bucket, (2.5,), {}, TypeError, "relative_position"),
    *wrong_sizes(t5_relative_bucket, {"relative_position": 3}, "num_buckets"),
    *wrong_sizes(t5_relative_bucket, {"relative_position": 3}, "max_distance"),
    Case(t5_relative_bucket, (3,), {"bidirectional": "no"}, TypeError, "bidirectional"),
    *wrong_sizes(clipped_relative_positions, {"max_distance": 2}, "seq_len"),
    *wrong_sizes(clipped_relative_positions, {"seq_len": 4}, "max_distance"),
    Case(clipped_relative_positions, (BIG, 2), {}, ValueError, "would hold"),
    *wrong_sizes(RelativePositionEmbedding, {"dim": 4}, "max_distance"),
    Case(RelativePositionEmbedding, (BIG, BIG), {}, ValueError, "would hold"),
    Case(RELATIVE, (None,), {}, TypeError, "seq_len"),
    Case(RELATIVE, (BIG,), {}, ValueError, "would hold"),
    Case(RELATIVE.bias, (Matrix([[1.0, 2.0]]),), {}, ShapeError, "q"),
    Case(RELATIVE.bias, (None,), {}, TypeError, "q"),
    Case(t5_relative_bucket, (3,), {"num_buckets": 3}, ValueError, "num_buckets"),
    Case(t5_relative_bucket, (3,), {"max_distance": 4}, ValueError, "max_distance"),
    # Chapter 7: past the context window
    *wrong_sizes(rope_frequencies, {}, "d"),
    Case(rope_frequencies, (3,), {}, ValueError, "even"),
    Case(rope_frequencies, (HUGE,), {}, ValueError, "would hold"),
    *wrong_numbers(rope_frequencies, {"d": 8}, "base"),
    Case(rope_frequencies, (8,), {"method": "pi"}, ValueError, "method"),
    Case(rope_frequencies, (8,), {"method": None}, ValueError, "method"),
    *wrong_numbers(rope_frequencies, {"d": 8, "method": "linear"}, "factor"),
    Case(rope_frequencies, (8,), {"method": "linear", "factor": 0.5}, ValueError, "factor"),
    Case(rope_frequencies, (8,), {"method": "dynamic", "factor": 0.5,
                                  "original_context_length": 16, "seq_len": 32}, ValueError,
         "factor"),  # was `math domain error`
    Case(rope_frequencies, (8,), {"method": "ntk", "factor": 1e300}, ValueError, "factor"),
    Case(rope_frequencies, (8,), {"method": "dynamic", "factor": 1e300,
                                  "original_context_length": 16, "seq_len": 10**15},
         ValueError, "factor"),  # was an overflow
    Case(rope_frequencies, (8,), {"method": "dynamic", "factor": 2.0,
                                  "original_context_length": 16, "seq_len": HUGE},
         ValueError, "seq_len"),
    Case(rope_frequencies, (8,), {"method": "yarn", "factor": 4.0}, ValueError,
         "original_context_length"),
    Case(rope_frequencies, (8,), {"method": "yarn", "factor": 4.0, "original_context_length": 16,
                                  "beta_fast": math.nan}, ValueError, "beta_fast"),
    Case(rope_frequencies, (8,), {"method": "yarn", "factor": 4.0, "original_context_length": 16,
                                  "ramp": "steep"}, ValueError, "ramp"),
    Case(rope_frequencies, (8,), {"method": "llama3", "factor": 8.0,
                                  "original_context_length": 16, "low_freq_factor": 4.0,
                                  "high_freq_factor": 1.0}, ValueError, "low_freq_factor"),
    Case(rope_frequencies, (8,), {"method": "yarn", "factor": 4.0, "original_context_length": HUGE},
         ValueError, "original_context_length"),
    Case(rope_frequencies, (8,), {"method": "dynamic", "factor": 4.0,
                                  "original_context_length": 16}, ValueError, "seq_len"),
    Case(frequency_table, (8,), {"original_context_length": 0}, ValueError,
         "original_context_length"),
    Case(frequency_table, (8,), {"original_context_length": None}, ValueError,
         "original_context_length"),
    *wrong_sizes(frequency_table, {"original_context_length": 16}, "d"),
    Case(frequency_table, (8,), {"original_context_length": 16, "method": "ntk",
                                 "factor": math.inf}, ValueError, "factor"),
    *wrong_lists(decay_bound, {"d": 8}, "distances"),
    Case(decay_bound, ([0, -3], 8), {}, ValueError, "distance r"),
    *wrong_sizes(decay_bound, {"distances": [1, 2]}, "d"),
    Case(decay_bound, ([1], HUGE), {}, ValueError, "would hold"),
    # Chapter 8: positions are data
    *wrong_lists(position_ids, {}, "attention_mask"),
    Case(position_ids, ([[1, 1], [1]],), {}, ValueError, "attention_mask[1]"),
    Case(position_ids, ([[1, 2]],), {}, ValueError, "attention_mask[0]"),
    Case(position_ids, ([1, 1, 0],), {}, TypeError, "attention_mask[0]"),
    Case(position_ids, ([],), {}, ValueError, "attention_mask"),
    Case(position_ids, ([[1] * 10**4] * 10**4,), {}, ValueError, "would hold"),  # one row, shared
    *wrong_lists(pack_documents, {}, "documents"),
    Case(pack_documents, ([[1, 2], []],), {}, ValueError, "documents[1]"),
    Case(pack_documents, ([[1, -2]],), {}, ValueError, "documents[0]"),
    Case(pack_documents, ([[1, 2.0]],), {}, ValueError, "documents[0]"),
    Case(pack_documents, ([[1] * 10**5] * 10**4,), {}, ValueError, "would hold"),
    *wrong_lists(document_mask, {}, "position_ids"),
    Case(document_mask, ([0, 1, 3],), {}, ValueError, "position_ids[2]"),
    Case(document_mask, ([1, 2],), {}, ValueError, "position_ids[0]"),
    Case(document_mask, ([0, 1.0],), {}, TypeError, "position_ids[1]"),
    Case(document_mask, ([0] * 30_000,), {}, ValueError, "would hold"),
    # Chapter 9: the pipeline
    Case(run, (None,), {}, TypeError, "text"),
    Case(run, ("",), {}, ValueError, "text"),
    *wrong_sizes(run, {"text": "the cat"}, "d_model"),
    *wrong_sizes(run, {"text": "the cat"}, "seed", minimum=0),
    Case(run, ("the cat",), {"positions": "rotary"}, ValueError, "positions"),
    Case(run, ("the cat",), {"positions": "rope", "d_model": 5}, ValueError, "d_model"),
    Case(run, ("the cat",), {"causal": 1}, TypeError, "causal"),
    Case(run, ("the cat",), {"tokenizer": "chars"}, ValueError, "tokenizer"),
    Case(run, ("the cat",), {"d_model": BIG}, ValueError, "would hold"),
    Case(run, ("the cat " * 20_000,), {}, ValueError, "would hold"),
    *wrong_lists(run_batch, {}, "texts"),
    Case(run_batch, ([],), {}, TypeError, "texts"),
    Case(run_batch, (["the cat", None],), {}, TypeError, "texts"),
    Case(run_batch, (["the cat " * 20_000],), {}, ValueError, "would hold"),
    Case(run_batch, (["the cat"],), {"padding_side": "top"}, ValueError, "padding_side"),
    Case(run_batch, (["the cat"],), {"d_model": BIG}, ValueError, "would hold"),
    Case(count_tokens, (None,), {}, TypeError, "text"),
    Case(count_tokens, ("the cat",), {"tokenizer": "chars"}, ValueError, "tokenizer"),
    # Chapter 10: a model trained (gaps here are marked xfail "training: ...")
    *wrong_sizes(TinyModel, {"d_model": 4, "context_length": 8}, "vocab_size"),
    *wrong_sizes(TinyModel, {"vocab_size": 6, "context_length": 8}, "d_model"),
    *wrong_sizes(TinyModel, {"vocab_size": 6, "d_model": 4}, "context_length"),
    Case(TinyModel, (6, 4, 8), {"positions": "rotary"}, ValueError, "positions"),
    Case(TinyModel, (6, 4, 8), {"positions": "rope", "rotary_fraction": math.inf}, ValueError,
         "rotary_fraction"),
    Case(TinyModel, (6, 4, 8), {"positions": "alibi", "num_heads": 10**6}, ValueError,
         "num_heads"),
    Case(TinyModel, (BIG, BIG, 8), {}, ValueError, "would hold"),
    Case(MODEL.logits, ([],), {}, ValueError, "ids"),  # was an IndexError
    Case(MODEL.logits, ([0, 6],), {}, IndexError, "ids[1]"),
    Case(MODEL.logits, ([0] * 9,), {}, ValueError, "context_length"),
    *wrong_lists(MODEL.logits, {}, "ids"),
    Case(MODEL.generate, ([0], -1), {}, ValueError, "max_new_tokens"),
    Case(MODEL.generate, ([0], None), {}, TypeError, "max_new_tokens"),
    Case(MODEL.generate, ([0], BIG), {}, ValueError, "max_new_tokens"),
    Case(MODEL.generate, ([0], 1), {"use_cache": "no"}, TypeError, "use_cache"),
    Case(MODEL.generate, ({0}, 1), {}, TypeError, "ids"),
    Case(MODEL.logits, ([0, 1],), {"attention_mask": [1]}, ValueError, "attention_mask"),
    Case(MODEL.logits, ([0, 1],), {"position_ids": [0, -1]}, ValueError, "position_ids[1]"),
    Case(MODEL.loss_and_gradients, ([0, 1, 2], [1, 2]), {}, ValueError, "targets[0]"),
    Case(MODEL.loss_and_gradients, ([0, 1, 2], [1, 2, 99]), {}, ValueError, "targets[0][2]"),
    Case(TinyModel(6, 4, 8, positions="alibi").with_alibi_slopes, ((math.nan,),), {}, ValueError,
         "slopes[0]"),
    Case(TinyModel, (6, 4, 8), {"weights": [1]}, TypeError, "parameters"),
    Case(TinyModel, (6, 4, 8), {"positions": "rope", "attention_scale": math.nan}, ValueError,
         "attention_scale"),
    Case(TinyModel, (6, 4, 8), {"positions": "rope", "base": 0.0}, ValueError, "base"),
    Case(TinyModel, (6, 4, 8), {"positions": "rope", "attention_scale": math.inf}, ValueError,
         "attention_scale"),
    Case(TinyModel, (6, 4, 8), {"positions": "rope", "rotary_fraction": 0.0}, ValueError,
         "rotary_fraction"),
    *wrong_sizes(TinyModel, {"vocab_size": 6, "d_model": 4, "context_length": 8}, "num_heads"),
    *wrong_sizes(TinyModel, {"vocab_size": 6, "d_model": 4, "context_length": 8}, "seed",
                 minimum=0),
    Case(MODEL.with_frequencies, (Vector([1.0, 0.5]),), {}, ValueError, "frequencies"),
    Case(MODEL.generate, ([], 1), {}, TypeError, "ids"),
    Case(MODEL.generate, ([0] * 9, 1), {}, ValueError, "context_length"),
    Case(MODEL.with_parameters, ({"W_q": None},), {}, TypeError, "parameters['token_embedding']"),
    Case(train, (MODEL, TASK), {"steps": -1}, ValueError, "steps"),
    Case(train, (MODEL, "nonsense"), {}, ValueError, "task"),
    Case(train, (MODEL, TASK), {"learning_rate": math.nan}, ValueError, "learning_rate"),
    Case(train, (MODEL, TASK), {"batch_size": BIG, "steps": 1}, ValueError, "batch_size"),
    Case(train, (MODEL, TASK), {"seq_len": BIG, "steps": 1}, ValueError, "would hold"),
    Case(train, (MODEL, TASK), {"on_step": 3}, TypeError, "on_step"),
    *wrong_numbers(train, {"model": MODEL, "task": TASK}, "learning_rate"),
    Case(train, (MODEL, TASK), {"learning_rate": -1.0}, ValueError, "learning_rate"),
    *wrong_sizes(train, {"model": MODEL, "task": TASK}, "steps"),
    Case(train, (MODEL, TASK), {"steps": BIG}, ValueError, "steps"),
    Case(train, (None, TASK), {}, TypeError, "model"),
    Case(accuracy, (MODEL, "nonsense"), {}, ValueError, "task"),
    Case(accuracy, (MODEL, TASK), {"samples": 0}, ValueError, "samples"),
    Case(accuracy, (None, TASK), {}, TypeError, "model"),
    Case(accuracy, (MODEL, TASK), {"samples": BIG}, ValueError, "samples"),
    Case(accuracy, (MODEL, TASK), {"seq_len": BIG}, ValueError, "seq_len"),
    Case(task_batch, (TASK, 6, 4, BIG), {}, ValueError, "batch_size"),
    *wrong_sizes(task_batch, {"task": TASK, "vocab_size": 6, "seq_len": 4}, "batch_size"),
    Case(task_batch, ("nonsense", 6, 4, 2), {}, ValueError, "task"),
    Case(task_batch, (TASK, 6, BIG, 2), {}, ValueError, "seq_len"),
    Case(task_batch, ("induction", 6, 3, 2), {}, ValueError, "seq_len"),
    Case(task_batch, (TASK, 6, 4, 2), {"k": -1}, ValueError, "k"),
    Case(KVCache, ({X}, {X}), {}, TypeError, "keys"),
    Case(evict, (MODEL, ONE_TOKEN_CACHE), {"sinks": 0, "window": 0}, ValueError, "window"),
    Case(KVCache, (None, None), {}, TypeError, "keys"),
    Case(KVCache, ([X], [Matrix([[1.0]])]), {}, ValueError, "values"),
    Case(next_logits, (MODEL, ONE_TOKEN_CACHE, 6), {}, IndexError, "token_id"),
    Case(next_logits, (MODEL, None, 0), {}, TypeError, "cache"),
    Case(next_logits, (MODEL, ONE_TOKEN_CACHE, -1), {}, IndexError, "token_id"),
    Case(evict, (None, ONE_TOKEN_CACHE), {"sinks": 1, "window": 1}, TypeError, "model"),
    *wrong_sizes(evict, {"model": MODEL, "cache": ONE_TOKEN_CACHE, "window": 1}, "sinks",
                 minimum=0),
    Case(evict, (MODEL, ONE_TOKEN_CACHE), {"sinks": -1, "window": 2}, ValueError, "sinks"),
    Case(evict, (MODEL, ONE_TOKEN_CACHE), {"sinks": 1, "window": None}, TypeError, "window"),
    Case(gelu, ([[1.0]],), {}, TypeError, "x"),
    Case(layer_norm, (X, [1.0] * 4, [0.0] * 3), {}, ShapeError, "bias"),
    *wrong_lists(layer_norm, {"x": X, "bias": [0.0] * 4}, "weight"),
    *wrong_numbers(layer_norm, {"x": X, "weight": [1.0] * 4, "bias": [0.0] * 4}, "eps"),
    Case(rms_norm, ("x", [1.0] * 4), {}, TypeError, "x"),
    Case(rms_norm, (X, [1.0] * 3), {}, ShapeError, "weight"),
    Case(rms_norm, (X, [1.0] * 4), {"eps": 0.0}, ValueError, "eps"),
    # Chapter 10, part 3: the probe
    *wrong_lists(fit_probe, {}, "sequences"),
    Case(fit_probe, ([],), {}, ValueError, "sequences"),
    Case(fit_probe, ([X, None],), {}, TypeError, "sequences"),
    Case(fit_probe, ([X, Matrix([[1.0]])],), {}, ValueError, "sequences"),
    *wrong_numbers(fit_probe, {"sequences": [X]}, "ridge"),
    Case(fit_probe, ([X],), {"ridge": 0.0}, ValueError, "ridge"),
    Case(fit_probe([X]).accuracy, ([Matrix([[1.0]])],), {}, ValueError, "rows of 4"),
    # Appendix C: the numbers a GPU stores
    Case(round_to, (None, "float16"), {}, TypeError, "x"),
    Case(round_to, (1.0, "float8"), {}, ValueError, "dtype"),
    Case(round_to, (1.0, None), {}, ValueError, "dtype"),
    Case(distinct_positions, (None, "bfloat16"), {}, ValueError, "n"),
    Case(distinct_positions, (4, "float8"), {}, ValueError, "dtype"),
    Case(distinct_positions, (2**60, "float32"), {}, ValueError, "n"),
    Case(largest_exact_integer, ("float8",), {}, ValueError, "dtype"),
    Case(spacing, (None, "bfloat16"), {}, TypeError, "x"),
    Case(spacing, (1e39, "bfloat16"), {}, ValueError, "range"),
    # Chapter 7, part 3: RoPE in low precision
    Case(Precision, (), {"pos": "float8"}, ValueError, "pos"),
    Case(Precision, (), {"table": None}, ValueError, "table"),
    *wrong_sizes(rounded_angle, {"i": 1, "d": 4}, "pos", minimum=0),
    *wrong_sizes(rounded_angle, {"pos": 3, "d": 4}, "i", minimum=0),
    *wrong_sizes(rounded_angle, {"pos": 3, "i": 1}, "d"),
    Case(rounded_angle, (3, 2, 4), {}, ValueError, "i"),
    *wrong_lists(rounded_turns, {"d": 4}, "positions"),
    *wrong_sizes(rounded_turns, {"positions": [0, 1]}, "d"),
    Case(rounded_turns, ([70000], 4), {"at": Precision(pos="float16")}, ValueError, "position"),
    Case(rounded_turns, ([0], 4), {"at": "bfloat16"}, TypeError, "at"),
    Case(rounded_turns, ([0], BIG), {}, ValueError, "would hold"),
    Case(rounded_score, (None, Vector([1.0, 2.0]), 0, 1), {}, TypeError, "q"),
    Case(rounded_score, (Vector([1.0, 2.0]), Vector([1.0]), 0, 1), {}, ValueError, "width"),
    *wrong_sizes(rounded_score, {"q": Vector([1.0, 2.0]), "k": Vector([1.0, 2.0]), "n": 1}, "m",
                 minimum=0),
    *wrong_lists(rounded_sinusoids, {"d_model": 4}, "positions"),
    *wrong_sizes(rounded_sinusoids, {"positions": [0, 1]}, "d_model"),
    Case(rounded_sinusoids, ([0], BIG), {}, ValueError, "would hold"),
    Case(stored, (1.0, "float8"), {}, ValueError, "dtype"),
    Case(stored, (None, "float16"), {}, TypeError, "x"),
]


def _label(case: Case | Alias) -> str:
    name = getattr(case.call, "__qualname__", type(case.call).__name__)
    shown = ", ".join([(reprlib.repr(a) if isinstance(a, list) else repr(a))[:20]
                       for a in case.args]  # a list by its first items: a long one is huge
                      + [f"{k}={v!r:.20}" for k, v in case.kwargs.items()])
    return f"{name}({shown})"


def _marks(xfail: str) -> list[pytest.MarkDecorator]:
    """A known gap is expected to fail, and once mended the row says so (strict): run it,
    unless attempting it would run out of memory."""
    return [pytest.mark.xfail(reason=xfail, strict=True, run="(not run:" not in xfail)
            ] if xfail else []


@pytest.mark.parametrize("case", [pytest.param(case, id=_label(case), marks=_marks(case.xfail))
                                  for case in CASES])
def test_a_door_refuses_with_a_sentence_naming_the_argument(case: Case) -> None:
    with pytest.raises(case.raises) as caught:
        case.call(*case.args, **case.kwargs)
    sentence = str(caught.value)
    word = r"(?<![A-Za-z_])" + re.escape(case.names) + r"(?![A-Za-z_])"
    assert re.search(word, sentence), f"{sentence!r} does not name {case.names!r}"


class Alias(NamedTuple):
    """A call that must succeed, then keep to itself: what it was given and what it gave."""

    call: Callable[..., object]
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = {}
    xfail: str = ""


def held(record: object) -> list[object]:
    """What `record` hands out: each public attribute, a field or a property (not a method).
    The test changes every list in them; asking again must give what it gave before."""
    return [getattr(record, name) for name in dir(record)
            if name[0] != "_" and not callable(getattr(record, name))]


CAUSAL = [[True, False, False], [True, True, False], [True, True, True]]  # (3, 3)
CACHE_ROWS = ([Matrix([[0.5] * 4])], [Matrix([[0.25] * 4])])  # one head's K and V, one token

ALIASES: list[Alias] = [
    # Appendix A, B: arrays
    Alias(Vector, ([1.0, 2.0],)),
    Alias(Matrix, ([[1.0, 2.0], [3.0, 4.0]],)),
    Alias(Matrix, ([Vector([1.0, 2.0]), [3.0, 4.0]],)),
    Alias(Batch, ([[[1.0, 2.0]], [[3.0, 4.0]]],)),
    Alias(X.tolist, ()),
    Alias(Vector([1.0, 2.0]).tolist, ()),
    Alias(Batch([X, X]).tolist, ()),
    Alias(X.take, ([2, 0],)),
    Alias(add, (X, Vector([1.0, 2.0, 3.0, 4.0]))),
    Alias(subtract, (Matrix([[1.0, 2.0, 3.0, 4.0]]), X)),
    Alias(allclose, ([1.0, 2.0], [1.0, 2.0])),
    Alias(broadcast_shapes, ([3, 4], [4])),
    Alias(format_matrix, (X, ["a", "b", "c"])),
    # Chapter 1, 1b
    Alias(Tokenizer, (["cat", "sat", "<|unk|>", "<|endoftext|>"],)),
    Alias(Tokenizer.from_corpus, ("the cat sat",)),
    Alias(lambda tokenizer: tokenizer.vocab, (TOKENIZER,)),
    Alias(TOKENIZER.encode, ("the cat",)),
    Alias(TOKENIZER.encode_batch, (["the cat", "sat"],)),
    Alias(TOKENIZER.decode, ([0, 1],)),
    Alias(tokenize, ("the cat.",)),
    Alias(pad_rows, ([[1], [1, 2]], 0, "left")),
    Alias(pretokenize, ("the cat's 42 mats",)),
    Alias(BytePairTokenizer, ([(116, 104)],), {"byte_ids": list(range(256)),
                                               "special_tokens": ["<|endoftext|>"]}),
    Alias(BytePairTokenizer.train, ("the cat the cat", 258)),
    Alias(BPE.encode, ("the cat",), {"allowed_special": set()}),
    Alias(BPE.word_ids, ("the cat",)),
    Alias(BPE.encode_batch, (["the cat", "a"],)),
    Alias(BPE.decode, ([256, 101],)),
    Alias(sliding_windows, ([1, 2, 3, 4, 5], 2, 1)),
    # Chapter 2, 3
    Alias(Embedding, (10, 4)),
    Alias(EMBEDDING, ([0, 3],)),
    Alias(EMBEDDING, ([[0, 1], [2, 3]],)),
    Alias(sinusoidal_encoding, (4, 4)),
    Alias(sinusoidal_position, (3, 4)),
    Alias(sinusoidal_denominators, (4,)),
    Alias(sinusoidal_rows, ([0, 5, 2], 4)),
    Alias(binary_encoding, (4, 2)),
    Alias(relative_shift_matrix, (1, 4)),
    Alias(LearnedPositionalEmbedding, (4, 4)),
    Alias(LEARNED, (3,)),
    # Chapter 4, 5, 6
    Alias(softmax, ([1.0, 2.0, 3.0],)),
    Alias(softmax_naive, ([1.0, 2.0, 3.0],)),
    Alias(causal_mask, (3,)),
    Alias(scaled_dot_product_attention, (X, X, X), {"mask": CAUSAL}),
    Alias(SingleHeadAttention, (4, 4)),
    Alias(ATTENTION, (X,), {"mask": CAUSAL}),
    Alias(ATTENTION.qkv, (X,)),
    Alias(apply_rotary, (X,), {"positions": [0, 2, 5]}),
    Alias(rotary_pairs, (4,)),
    Alias(rotary_thetas, (4,)),
    Alias(RotaryAttention, (4, 4)),
    Alias(ROTARY, (X,), {"mask": CAUSAL}),
    Alias(alibi_slopes, (4,)),
    Alias(alibi_bias, (3, 0.5)),
    Alias(alibi_bias_at, ([0, 1], [0, 1, 2], 0.5)),
    Alias(t5_relative_bucket, (5,)),
    Alias(clipped_relative_positions, (3, 1)),
    Alias(RelativePositionEmbedding, (2, 4)),
    Alias(RELATIVE, (3,)),
    Alias(RELATIVE.bias, (X,)),
    # Chapter 7, 8, 9
    Alias(rope_frequencies, (8,), {"method": "yarn", "factor": 4.0,
                                   "original_context_length": 16}),
    Alias(frequency_table, (8,), {"original_context_length": 16}),
    Alias(decay_bound, ([1, 2, 3], 8)),
    Alias(position_ids, ([[1, 1, 0], [0, 1, 1]],)),
    Alias(pack_documents, ([[5, 1, 4], [7, 8]],)),
    Alias(document_mask, ([0, 1, 0],)),
    Alias(run, ("the cat sat",)),
    Alias(run_batch, (["the cat", "the cat sat"],)),
    Alias(count_tokens, ("the cat sat",)),
    Alias(stored, (4095.0, "bfloat16")),
    # Helpers a chapter shows bare, after its door checked what they get: no refusal rows
    Alias(merge, ([5, 6, 5, 6, 7], (5, 6), 256)),  # BytePairTokenizer's steps
    Alias(byte_pair_encode, ([97, 97, 97, 98], {(97, 97): 256, (256, 97): 257})),
    Alias(count_pairs, ([[1, 2, 3], [2, 3]], [1, 5])),
    Alias(byte_to_unicode, ()),
    Alias(byte_pair_tokenizer, (BPE,)),  # run's and run_batch's, after their doors
    Alias(numbers_held, (6, 8)),
    Alias(clip, ("the cat sat on the mat", 10)),  # a Trace's printing, of its own strings
    Alias(indent, ("the\ncat",)),
    # What a record or a class hands out (held): a copy, or something that cannot change
    Alias(PaddedBatch, ([[5, 6], [7, 0]], [[1, 1], [1, 0]])),
    Alias(held, (TOKENIZER.encode_batch(["the cat", "sat"]),)),  # PaddedBatch
    Alias(PackedDocuments, ([5, 1, 7], [0, 1, 0], [-100, 1, -100])),
    Alias(held, (pack_documents([[5, 1, 4], [7, 8]]),)),  # PackedDocuments
    Alias(held, (run_batch(["the cat", "the cat sat"]),)),  # BatchTrace
    Alias(held, (run("the cat sat"),)),  # Trace
    Alias(held, (ATTENTION(X),)),  # AttentionResult
    Alias(held, (frequency_table(8, original_context_length=16)[0],)),  # PairFrequency
    Alias(held, (TOKENIZER,)),
    Alias(held, (BPE,)),
    Alias(held, (EMBEDDING,)),
    Alias(held, (LEARNED,)),
    Alias(held, (RELATIVE,)),
    Alias(held, (ATTENTION,)),
    Alias(held, (ROTARY,)),
    # Chapter 10
    Alias(TinyModel, (6, 4, 8), {"weights": dict(MODEL.parameters())}),
    Alias(MODEL.parameters, ()),
    Alias(MODEL.with_parameters, (dict(MODEL.parameters()),)),
    Alias(MODEL.logits, ([0, 1, 2],)),
    Alias(MODEL.backprop, ([0, 1, 2], [1, 2, 3])),
    Alias(MODEL.generate, ([0, 1], 2)),
    Alias(train, (MODEL, TASK), {"steps": 1, "batch_size": 2}),
    Alias(accuracy, (MODEL, TASK), {"samples": 2}),
    Alias(task_batch, (TASK, 6, 4, 2)),
    Alias(KVCache, CACHE_ROWS),
    Alias(next_logits, (MODEL, KVCache(*CACHE_ROWS), 1)),
    Alias(evict, (MODEL, KVCache(*CACHE_ROWS)), {"sinks": 1, "window": 1}),
    Alias(lambda passed: [passed.gradients, passed.d_inputs],  # Backprop's, none its own
          (MODEL.backprop([0, 1, 2], [1, 2, 3]),)),
    Alias(lambda passed: [passed.gradients, passed.d_inputs],  # a block model's
          (BLOCK.backprop([[0, 1, 2], [3, 4]], [[1, 2, 3], [4, 5]]),)),
    Alias(BLOCK.residuals, ([0, 1, 2],)),
    Alias(BLOCK.attention_weights, ([0, 1, 2],)),
    Alias(gelu, (X,)),
    Alias(layer_norm, (X, [1.0, 2.0, 1.0, 0.5], [0.0, 0.5, 0.0, 1.0])),
    Alias(rms_norm, (X, [1.0, 2.0, 1.0, 0.5])),
    Alias(fit_probe, ([X, X],)),
    Alias(round_to, (0.1, "bfloat16")),
    Alias(distinct_positions, (300, "bfloat16")),
    Alias(distinct_positions, (10**9, "bfloat16")),  # counted, not looped over 10**9 positions
    Alias(largest_exact_integer, ("float16",)),
    Alias(spacing, (65536.0, "bfloat16")),
    Alias(Precision, (), {"theta": "bfloat16"}),
    Alias(rounded_angle, (1857, 1, 32), {"at": Precision.everywhere("float16")}),
    Alias(rounded_turns, ([0, 4095], 4), {"at": Precision(theta="bfloat16")}),
    Alias(rounded_score, (Vector([1.0, 2.0, 3.0, 4.0]), Vector([0.5, -1.0, 2.0, 1.0]), 10, 3),
          {"at": Precision.everywhere("bfloat16")}),
    Alias(rounded_sinusoids, ([2048, 2049], 4), {"at": Precision(pos="float16")}),
]


def contents(value: object) -> object:
    """Everything `value` holds, as plain lists and dicts: two equal answers give equal
    contents. A private attribute (a cache) is not part of what an object holds."""
    if isinstance(value, (Vector, Matrix, Batch)):
        return value.tolist()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: contents(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [contents(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted(map(repr, value))
    if hasattr(value, "items"):  # a dict, or a read-only view of one
        return {key: contents(item) for key, item in value.items()}
    names = getattr(type(value), "__slots__", None) or list(getattr(value, "__dict__", ()))
    if names and not callable(value):
        return {name: contents(getattr(value, name)) for name in names if name[0] != "_"}
    return value


def fresh(value: object) -> Any:
    """A copy of every list, tuple, dict and set in `value`; other objects shared."""
    if isinstance(value, (list, tuple, set)):
        return type(value)(fresh(item) for item in value)
    if isinstance(value, dict):
        return {key: fresh(item) for key, item in value.items()}
    return value


def scramble(value: object, records: bool = False) -> None:
    """Change every list, dict and set in `value`, in place, however deep; with `records`,
    the public fields of a record (a dataclass) too."""
    if records and dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = [getattr(value, f.name) for f in dataclasses.fields(value) if f.name[0] != "_"]
    if isinstance(value, (list, tuple)):
        for item in value:
            scramble(item, records)
    if isinstance(value, dict):
        for item in value.values():
            scramble(item, records)
        value["changed"] = "changed"
    if isinstance(value, list):
        value.append("changed")
    if isinstance(value, set):
        value.add("changed")


@pytest.mark.parametrize("alias", [pytest.param(alias, id=_label(alias), marks=_marks(alias.xfail))
                                   for alias in ALIASES])
def test_a_call_changes_nothing_it_is_given_and_keeps_nothing_it_gives(alias: Alias) -> None:
    args, kwargs = fresh(alias.args), fresh(alias.kwargs)
    given = contents((args, kwargs))
    got = alias.call(*args, **kwargs)
    assert contents((args, kwargs)) == given, "the call changed what it was given"
    seen = contents(got)
    scramble((args, kwargs))
    assert contents(got) == seen, "changing a list after passing it in changed the answer"
    if isinstance(got, (Vector, Matrix, Batch)):
        scramble(got.tolist())
        assert contents(got) == seen, "changing what .tolist() gave changed the object"
    scramble(got, records=True)  # a list, a dict, or a record's lists: the caller's to change
    again = alias.call(*fresh(alias.args), **fresh(alias.kwargs))
    assert contents(again) == seen, "changing one call's answer changed the next call's"


def _covered() -> set[object]:
    """What the tables knock on: each call, a bound method's class, and each answer's type."""
    covered: set[object] = set()
    for call in [case.call for case in CASES] + [alias.call for alias in ALIASES]:
        owner = getattr(call, "__self__", None)
        covered |= {call, owner, type(owner)}
    for alias in ALIASES:  # a record (PackedDocuments, Trace, ...) is knocked on through its maker
        got = alias.call(*fresh(alias.args), **fresh(alias.kwargs))
        covered |= {type(got)} | ({type(got[0])} if isinstance(got, (list, tuple)) and got
                                  else set())
    return covered


# Public helpers pretokenize calls after its door, each a scan of every Unicode code point
# (about 0.1 s, built once): no row, by name.
TRUSTED = ("pretokenizer.category_class", "pretokenizer.gpt2_pattern")


def test_every_public_function_of_chapters_1_to_9_has_a_row() -> None:
    """Exported or not: a function or class a chapter of test_doors.CHAPTERS outside training/
    defines without a leading underscore."""
    covered = _covered()
    missing = []
    for chapter in [name for name in CHAPTERS if "/" not in name]:  # chapter 10 is minipe.__all__'s
        module = importlib.import_module(f"minipe.{chapter}")
        missing += [f"{chapter}.{name}" for name, value in vars(module).items()
                    if name[0] != "_" and (inspect.isroutine(value) or inspect.isclass(value))
                    if getattr(value, "__module__", "") == module.__name__ and value not in covered]
    missing = [name for name in missing if name not in TRUSTED]
    assert not missing, f"no row in tests/test_battery.py knocks on {missing}"


def test_every_public_callable_has_a_row() -> None:
    """A new name in minipe.__all__ needs a row in CASES or ALIASES (an exception class is
    raised, never called, so it needs none)."""
    covered = _covered()
    missing = [name for name in minipe.__all__ if callable(getattr(minipe, name))
               and not (isinstance(getattr(minipe, name), type)
                        and issubclass(getattr(minipe, name), BaseException))
               and getattr(minipe, name) not in covered]
    assert not missing, f"no row in tests/test_battery.py knocks on {missing}"
