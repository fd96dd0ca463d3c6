"""What each exercise is checked against: minipe's own functions, called the learner's way.

Each function here takes the plain lists the learner's function takes, calls the
chapter that computes the same thing, and returns plain lists.
"""

from __future__ import annotations

from minipe.arrays import Matrix, Vector
from minipe.attention import scaled_dot_product_attention, softmax as minipe_softmax
from minipe.arrays import Batch
from minipe.batches import document_mask as minipe_document_mask
from minipe.batches import pack_documents
from minipe.batches import position_ids as minipe_position_ids
from minipe.embedding import Embedding
from minipe.low_precision import Precision, rounded_turns
from minipe.numerics import round_to as numerics_round_to
from minipe.training.block import layer_norm_backward as block_layer_norm_backward
from minipe.training.gradients import broadcast_backward as minipe_broadcast_backward
from minipe.training.gradients import lookup_backward as minipe_lookup_backward
from minipe.training.heads import turned, turned_back
from minipe.positional import relative_shift_matrix, sinusoidal_encoding, sinusoidal_position
from minipe.relative import alibi_bias, t5_relative_bucket
from minipe.relative import alibi_slopes as minipe_alibi_slopes
from minipe.rotary import apply_rotary, rotary_thetas
from minipe.subword import count_pairs, merge, sliding_windows
from minipe.tokenizer import Tokenizer


def encode(text: str, vocabulary: list[str]) -> list[int]:
    return Tokenizer(vocabulary).encode(text)


def lookup(table: list[list[float]], ids: list[int]) -> list[list[float]]:
    return Matrix(table).take(ids).tolist()


def table_of(num_embeddings: int, dim: int, seed: int) -> list[list[float]]:
    """A seeded token table, for the lookup's cases: chapter 2's Embedding."""
    return Embedding(num_embeddings, dim, seed=seed).weight.tolist()


def pe_position(pos: int, d_model: int) -> list[float]:
    return list(sinusoidal_position(pos, d_model))


def pe_table(num_positions: int, d_model: int) -> list[list[float]]:
    return sinusoidal_encoding(num_positions, d_model).tolist()


def add_positions(tokens: list[list[list[float]]],
                  table: list[list[float]]) -> list[list[list[float]]]:
    return (Batch(tokens) + Matrix(table)).tolist()


def softmax(scores: list[float]) -> list[float]:
    return list(minipe_softmax(scores))


def causal_attention(q: list[list[float]], k: list[list[float]],
                     v: list[list[float]]) -> list[list[float]]:
    result = scaled_dot_product_attention(Matrix(q), Matrix(k), Matrix(v), causal=True)
    return result.output.tolist()


def shift_matrix(k: int, d_model: int) -> list[list[float]]:
    return relative_shift_matrix(k, d_model).tolist()


def turn_pair(x: float, y: float, pos: int, theta: float) -> list[float]:
    turned = apply_rotary(Matrix([[x, y]]), positions=[pos], frequencies=Vector([theta]))
    return turned.tolist()[0]


def rotate_row(row: list[float], pos: int, layout: str) -> list[float]:
    return apply_rotary(Matrix([row]), positions=[pos], layout=layout).tolist()[0]


def alibi(seq_len: int, slope: float) -> list[list[float]]:
    return alibi_bias(seq_len, slope).tolist()


def t5_bucket(relative_position: int) -> int:
    return t5_relative_bucket(relative_position)


def position_ids(attention_mask: list[list[int]]) -> list[list[int]]:
    """Chapter 8's position_ids: cumsum(mask) - 1 at the real tokens (only those are checked)."""
    return minipe_position_ids(attention_mask)


def cached_step(q: list[float], k: list[float], v: list[float], keys: list[list[float]],
                values: list[list[float]]) -> list[float]:
    """The new token's output, from the whole sequence at once: the last row of a causal head.

    keys were turned at positions 0 .. n-1 when they entered the cache; the
    whole sequence's keys are those and k turned at n. The earlier queries
    change no row but their own, so the new query, repeated, stands in for them.
    """
    n = len(keys)  # the new token's position
    q_turned = apply_rotary(Matrix([q]), start=n)  # (1, d)
    k_turned = apply_rotary(Matrix([k]), start=n)  # (1, d)
    all_keys = Matrix(keys + k_turned.tolist())  # (n + 1, d)
    all_values = Matrix(values + [v])  # (n + 1, d_v)
    queries = Matrix(q_turned.tolist() * (n + 1))  # (n + 1, d): rows 0 .. n-1 do not matter
    result = scaled_dot_product_attention(queries, all_keys, all_values, causal=True)
    return result.output.tolist()[-1]  # the last row: the new token's


def turned_cache(keys: list[list[float]]) -> list[list[float]]:
    """The cache as it is kept: key j turned by its own position j."""
    return apply_rotary(Matrix(keys)).tolist()


def lookup_backward(ids: list[list[int]], d_X: list[list[float]],
                    vocab_size: int) -> list[list[float]]:
    return minipe_lookup_backward(ids, Matrix(d_X), vocab_size).tolist()


def broadcast_backward(d_X: list[list[list[float]]], context_length: int) -> list[list[float]]:
    return minipe_broadcast_backward([Matrix(d_x) for d_x in d_X], context_length).tolist()


def pack(documents: list[list[int]]) -> list[list[int]]:
    """Chapter 8's pack_documents, as three rows: [ids, position_ids, labels]."""
    packed = pack_documents(documents)
    return [packed.ids, packed.position_ids, packed.labels]


def document_mask(position_ids: list[int]) -> list[list[bool]]:
    return minipe_document_mask(position_ids)


def evict(keys: list[list[float]], values: list[list[float]], sinks: int,
          window: int) -> list[list[list[float]]]:
    """Chapter 10's evict on one head's cache (RoPE, interleaved, base 10000): [K, V] kept."""
    evicted = len(keys) - sinks - window
    if evicted <= 0:
        return [[list(row) for row in keys], [list(row) for row in values]]
    thetas = rotary_thetas(len(keys[0]))
    window_keys = turned_back(Matrix(keys[-window:]), thetas, 1.0, [evicted] * window)
    return [keys[:sinks] + window_keys.tolist(), values[:sinks] + values[-window:]]


def partial_rotary(row: list[float], pos: int, rotary_dims: int) -> list[float]:
    """Chapter 10's `turned`: the first rotary_dims columns turned, theta_i of rotary_dims."""
    return turned(Matrix([row]), rotary_thetas(rotary_dims), 1.0, [pos]).tolist()[0]


def alibi_slopes(num_heads: int) -> list[float]:
    return minipe_alibi_slopes(num_heads)


def merge_step(pieces: list[list[int]], new_id: int) -> list[int]:
    """Chapter 1b's training step: the most frequent pair inside the pieces (ties: the first
    seen) merged in every piece; the pieces' tokens end to end."""
    pair_counts = count_pairs(pieces, [1] * len(pieces))  # each piece as often as it occurs
    if not pair_counts:
        return [token for piece in pieces for token in piece]
    pair = max(pair_counts, key=pair_counts.__getitem__)
    return [token for piece in pieces for token in merge(piece, pair, new_id)]


def windows(ids: list[int], max_length: int, stride: int) -> list[list[list[int]]]:
    """Chapter 1b's sliding_windows, each window as [inputs, targets]."""
    return [[inputs, targets] for inputs, targets in sliding_windows(ids, max_length, stride)]


def round_to(x: float, dtype: str) -> float:
    """Appendix C's round_to: the nearest value of dtype, ties to even, inf past the range."""
    return numerics_round_to(x, dtype)


def layer_norm_backward(x: list[list[float]], weight: list[float], d_out: list[list[float]],
                        eps: float) -> list[list[float]]:
    """Chapter 10's layer_norm_backward, its d_x (its d_weight and d_bias are sums)."""
    d_x, _, _ = block_layer_norm_backward(Matrix(x), weight, Matrix(d_out), eps)
    return d_x.tolist()


def rope_turns(pos: int, d: int, dtype: str) -> list[list[float]]:
    """Chapter 7's rounded_turns with the fix: theta_i and the angle in float32 (the
    position too, exact there below 2**24), only cos a and sin a stored in dtype."""
    at = Precision(pos="float32", theta="float32", angle="float32", table=dtype)
    cosines, sines = rounded_turns([pos], d, at=at)
    return [cosines.tolist()[0], sines.tolist()[0]]
