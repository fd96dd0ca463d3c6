"""minipe: how a transformer gets its input, built from the Python standard library.

    text -> tokens -> token IDs -> token embeddings -> + position encodings
         -> input embeddings -> attention -> positions inside attention -> training

The chapter map: read the chapters in this order, which is the order they import.

    1  tokenizer.py       text -> tokens -> IDs and back; a padded batch and its mask
    1b pretokenizer.py    GPT-2's pieces (words, numbers, marks, spaces): no token crosses two
       subword.py         GPT-2's byte-level BPE, exact; train your own; sliding windows
    2  embedding.py       IDs -> vectors: a seeded lookup table, one row per ID
    3  positional.py      sinusoidal, learned and binary position encodings; adding them
    4  attention.py       softmax(Q K^T / sqrt(d_k)) V; the causal mask, a mask, a bias
    5  rotary.py          RoPE: turn the queries and keys instead of adding positions
    6  relative.py        ALiBi, T5 buckets, clipped offsets: biases on the scores
    7  context.py         past the context window: stretching RoPE (PI, NTK, YaRN, Llama 3.1)
       wavelengths.py     each pair's wavelength and turns inside L; far apart: the decay
       low_precision.py   RoPE in float16 and bfloat16: which rounded step breaks the angle
    8  batches.py         positions are data: position_ids from a mask; packed documents
    9  pipeline_trace.py  what run() keeps: a Trace of every stage, and how it prints
       pipeline.py        every stage at once: run(text) -> Trace
       pipeline_batch.py  several texts at once: run_batch(texts), a padded batch
    10 training/          a model trained in seconds: rules -> passes -> model -> lab
    11 plot/              pictures: terminal heatmaps and SVG (import minipe.plot for them)

The appendices, to read when curiosity calls:

    A, B arrays/          Vector, Matrix, Batch; the broadcasting rule; what they check
    C  numerics.py        the numbers a GPU stores: float32, float16, bfloat16; round_to

Support, not chapters: checks.py (the checks several chapters share), display.py (short
reprs, grids), command_line.py (how the commands behave), __main__.py (the commands).
Tools that stand on everything: plot/, book/ (python -m minipe book), exercises/.

Importing minipe does nothing but define these names; it does not import plot.
"""

from minipe.arrays import Batch, Matrix, ShapeError, Vector, add, allclose, broadcast_shapes, subtract
from minipe.numerics import distinct_positions, largest_exact_integer, round_to, spacing
from minipe.tokenizer import PaddedBatch, Tokenizer
from minipe.pretokenizer import pretokenize
from minipe.subword import BytePairTokenizer, sliding_windows
from minipe.embedding import Embedding
from minipe.positional import (
    LearnedPositionalEmbedding,
    binary_encoding,
    relative_shift_matrix,
    sinusoidal_denominators,
    sinusoidal_encoding,
    sinusoidal_position,
)
from minipe.attention import (
    AttentionResult,
    SingleHeadAttention,
    causal_mask,
    scaled_dot_product_attention,
    softmax,
    softmax_naive,
)
from minipe.rotary import RotaryAttention, apply_rotary, rotary_pairs
from minipe.relative import (
    RelativePositionEmbedding,
    alibi_bias,
    alibi_slopes,
    clipped_relative_positions,
    t5_relative_bucket,
)
from minipe.context import rope_frequencies
from minipe.wavelengths import PairFrequency, decay_bound, frequency_table
from minipe.low_precision import (Precision, rounded_angle, rounded_score, rounded_sinusoids,
                                  rounded_turns)
from minipe.batches import PackedDocuments, document_mask, pack_documents, position_ids
from minipe.pipeline import Trace, run
from minipe.pipeline_batch import BatchTrace, run_batch
from minipe.training import (
    TASKS,
    Backprop,
    KVCache,
    Probe,
    TinyModel,
    TrainingResult,
    accuracy,
    evict,
    fit_probe,
    gelu,
    layer_norm,
    next_logits,
    rms_norm,
    task_batch,
    train,
)
from minipe.display import format_matrix

__all__ = [
    "AttentionResult",
    "Backprop",
    "Batch",
    "BatchTrace",
    "BytePairTokenizer",
    "Embedding",
    "KVCache",
    "LearnedPositionalEmbedding",
    "Matrix",
    "PackedDocuments",
    "PaddedBatch",
    "PairFrequency",
    "Precision",
    "Probe",
    "RelativePositionEmbedding",
    "RotaryAttention",
    "ShapeError",
    "SingleHeadAttention",
    "TASKS",
    "TinyModel",
    "Tokenizer",
    "Trace",
    "TrainingResult",
    "Vector",
    "accuracy",
    "add",
    "alibi_bias",
    "alibi_slopes",
    "allclose",
    "apply_rotary",
    "binary_encoding",
    "broadcast_shapes",
    "causal_mask",
    "clipped_relative_positions",
    "decay_bound",
    "distinct_positions",
    "document_mask",
    "evict",
    "fit_probe",
    "format_matrix",
    "next_logits",
    "frequency_table",
    "gelu",
    "largest_exact_integer",
    "layer_norm",
    "pack_documents",
    "position_ids",
    "pretokenize",
    "relative_shift_matrix",
    "rms_norm",
    "rope_frequencies",
    "rotary_pairs",
    "round_to",
    "rounded_angle",
    "rounded_score",
    "rounded_sinusoids",
    "rounded_turns",
    "run",
    "run_batch",
    "scaled_dot_product_attention",
    "sinusoidal_denominators",
    "sinusoidal_encoding",
    "sinusoidal_position",
    "sliding_windows",
    "softmax",
    "softmax_naive",
    "spacing",
    "subtract",
    "t5_relative_bucket",
    "task_batch",
    "train",
]
