"""minipe: how a transformer gets its input, built from the Python standard library.

    text -> tokens -> token IDs -> token embeddings -> + position encodings
         -> input embeddings -> single-head attention

Read the chapters in this order:

    1 tokenizer.py   text -> tokens -> IDs and back
    2 embedding.py   IDs -> vectors, a seeded lookup table
    3 positional.py  sinusoidal, learned and binary position encodings; adding them
    4 attention.py   softmax and scaled dot-product attention
    5 rotary.py      RoPE: rotate the queries and keys instead of adding positions
    6 relative.py    ALiBi, T5 buckets, clipped relative positions: biases on the scores
    7 context.py     past the context window: stretching RoPE (PI, NTK, YaRN, Llama 3.1)
      wavelengths.py each pair's wavelength and turns inside L; far apart: the decay
    8 batches.py     positions are data: position_ids from a padding mask; packed documents
    9 pipeline.py    every stage at once: run(text) -> Trace; several texts: a padded batch
   10 gradients.py   the backward rules, one function each (from minipe.gradients)
      training.py    backpropagation written out: TinyModel learns where tokens are
                     (its door, the argument checks: training_checks.py)
      lab.py         tasks that need positions, Adam, train(); python -m minipe train
   11 plot/          pictures: terminal heatmaps and SVG (import minipe.plot for them)

The chapters stand on two appendices, to read when curiosity calls:

    A arrays.py      Vector, Matrix: immutable, built one way, with typed arithmetic
      batch.py       Batch, a stack of sequences; add, subtract, allclose
    B broadcast.py   the broadcasting rule: (8, 4, 256) + (4, 256)

Importing minipe does nothing but define these names; it does not import plot.
"""

from minipe.arrays import Matrix, Vector
from minipe.batch import Batch, add, allclose, subtract
from minipe.batches import PackedDocuments, document_mask, pack_documents, position_ids
from minipe.attention import (
    AttentionResult,
    SingleHeadAttention,
    causal_mask,
    scaled_dot_product_attention,
    softmax,
    softmax_naive,
)
from minipe.broadcast import ShapeError, broadcast_shapes
from minipe.context import rope_frequencies
from minipe.display import format_matrix
from minipe.embedding import Embedding
from minipe.generation import KVCache, evict, next_logits
from minipe.lab import TASKS, TrainingResult, accuracy, task_batch, train
from minipe.pipeline import Trace, run
from minipe.pipeline_batch import BatchTrace, run_batch
from minipe.positional import (
    LearnedPositionalEmbedding,
    binary_encoding,
    relative_shift_matrix,
    sinusoidal_denominators,
    sinusoidal_encoding,
    sinusoidal_position,
)
from minipe.relative import (
    RelativePositionEmbedding,
    alibi_bias,
    alibi_slopes,
    clipped_relative_positions,
    t5_relative_bucket,
)
from minipe.rotary import RotaryAttention, apply_rotary, rotary_pairs
from minipe.tokenizer import PaddedBatch, Tokenizer
from minipe.training import Backprop, TinyModel
from minipe.wavelengths import PairFrequency, decay_bound, frequency_table

__all__ = [
    "AttentionResult",
    "Backprop",
    "Batch",
    "BatchTrace",
    "Embedding",
    "KVCache",
    "LearnedPositionalEmbedding",
    "Matrix",
    "PackedDocuments",
    "PaddedBatch",
    "PairFrequency",
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
    "document_mask",
    "evict",
    "format_matrix",
    "next_logits",
    "frequency_table",
    "pack_documents",
    "position_ids",
    "relative_shift_matrix",
    "rope_frequencies",
    "rotary_pairs",
    "run",
    "run_batch",
    "scaled_dot_product_attention",
    "sinusoidal_denominators",
    "sinusoidal_encoding",
    "sinusoidal_position",
    "softmax",
    "softmax_naive",
    "subtract",
    "t5_relative_bucket",
    "task_batch",
    "train",
]
