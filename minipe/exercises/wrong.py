"""The known wrong solutions: each computes one catalogued mistake (mistakes.py).

Every function here has the signature of a learner's function and is wrong in
exactly one way. When a learner's output equals one of them on the case that
failed, the checker names that mistake. Most are minipe's right answer with one
thing changed (a column order, a base, a sign), so each reads as its mistake.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from minipe.arrays import Matrix, Vector
from minipe.attention import softmax_naive
from minipe.exercises import reference
from minipe.positional import relative_shift_matrix, sinusoidal_position
from minipe.relative import t5_relative_bucket
from minipe.rotary import apply_rotary

# ---------------------------------------------------------------------------
# Sinusoids: one row, or a table of them
# ---------------------------------------------------------------------------


def swapped(row: list[float]) -> list[float]:
    """Columns 2i and 2i+1 exchanged: cos where sin belongs."""
    out = list(row)
    for j in range(0, len(row) - 1, 2):
        out[j], out[j + 1] = row[j + 1], row[j]
    return out


def halves(row: list[float]) -> list[float]:
    """[sin | cos]: the sines (even columns) first, then the cosines (odd columns)."""
    return row[0::2] + row[1::2]


def pe_with_base(base: float) -> Callable[[int, int], list[float]]:
    def pe(pos: int, d_model: int) -> list[float]:
        return list(sinusoidal_position(pos, d_model, base=base))
    return pe


def pe_with_exponent(exponent: Callable[[int, int], float]) -> Callable[[int, int], list[float]]:
    """PE(pos) with column j's angle pos / 10000**exponent(j, d_model): a wrong exponent."""
    def pe(pos: int, d_model: int) -> list[float]:
        row = []
        for j in range(d_model):
            angle = pos / 10000.0 ** exponent(j, d_model)
            row.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
        return row
    return pe


EXPONENTS = [
    lambda j, d_model: j / d_model,  # the column's own number j for 2i: cos uses (2i+1)/d
    lambda j, d_model: 2 * j / d_model,  # 2j, the column number doubled
    lambda j, d_model: (j // 2) / d_model,  # i / d_model: the 2 of 2i left out
    lambda j, d_model: 2 * (j // 2) * d_model,  # 2i * d_model: multiplied, not divided
]


def pe_from_1(pos: int, d_model: int) -> list[float]:
    return reference.pe_position(pos + 1, d_model)


def pe_swapped(pos: int, d_model: int) -> list[float]:
    return swapped(reference.pe_position(pos, d_model))


def pe_halves(pos: int, d_model: int) -> list[float]:
    return halves(reference.pe_position(pos, d_model))


def table_of_rows(pe: Callable[[int, int], list[float]]) -> Callable[[int, int], list[list[float]]]:
    """The table whose row pos is pe(pos, d_model): a wrong row makes a wrong table."""
    def table(num_positions: int, d_model: int) -> list[list[float]]:
        return [pe(pos, d_model) for pos in range(num_positions)]
    return table


# ---------------------------------------------------------------------------
# Broadcasting, softmax, attention
# ---------------------------------------------------------------------------


def add_along_batch(tokens: list[list[list[float]]],
                    table: list[list[float]]) -> list[list[list[float]]]:
    """Row b of the table added to every token of sequence b: the wrong axis."""
    return [[[x + p for x, p in zip(token, table[b])] for token in sequence]
            for b, sequence in enumerate(tokens)]


def softmax_no_max(scores: list[float]) -> list[float]:
    return list(softmax_naive(scores))


def _attention(q: list[list[float]], k: list[list[float]], v: list[list[float]],
               scale: float, hidden: float | None) -> list[list[float]]:
    """softmax(q K^T * scale) V, with the scores of keys j > i set to `hidden` (None: kept)."""
    out = []
    for i, q_i in enumerate(q):
        scores = [sum(a * b for a, b in zip(q_i, k_j)) * scale for k_j in k]
        if hidden is not None:
            scores = [s if j <= i else hidden for j, s in enumerate(scores)]
        weights = reference.softmax(scores)
        out.append([sum(w * v_j[c] for w, v_j in zip(weights, v)) for c in range(len(v[0]))])
    return out


def attention_unscaled(q: list[list[float]], k: list[list[float]],
                       v: list[list[float]]) -> list[list[float]]:
    return _attention(q, k, v, 1.0, -math.inf)


def attention_mask_zero(q: list[list[float]], k: list[list[float]],
                        v: list[list[float]]) -> list[list[float]]:
    return _attention(q, k, v, 1 / math.sqrt(len(q[0])), 0.0)


def attention_no_mask(q: list[list[float]], k: list[list[float]],
                      v: list[list[float]]) -> list[list[float]]:
    return _attention(q, k, v, 1 / math.sqrt(len(q[0])), None)


# ---------------------------------------------------------------------------
# Rotations: M_k, RoPE
# ---------------------------------------------------------------------------


def shift_back(k: int, d_model: int) -> list[list[float]]:
    return relative_shift_matrix(-k, d_model).tolist()


def shift_with_base(base: float) -> Callable[[int, int], list[list[float]]]:
    def shift(k: int, d_model: int) -> list[list[float]]:
        return relative_shift_matrix(k, d_model, base=base).tolist()
    return shift


def turn_back(x: float, y: float, pos: int, theta: float) -> list[float]:
    angle = -pos * theta  # the wrong way
    return [x * math.cos(angle) - y * math.sin(angle), x * math.sin(angle) + y * math.cos(angle)]


def turn_from_1(x: float, y: float, pos: int, theta: float) -> list[float]:
    return reference.turn_pair(x, y, pos + 1, theta)


def rotate_in_layout(layout: str) -> Callable[[list[float], int, str], list[float]]:
    def rotate(row: list[float], pos: int, asked: str) -> list[float]:
        return reference.rotate_row(row, pos, layout)
    return rotate


def rotate_with_base(base: float) -> Callable[[list[float], int, str], list[float]]:
    def rotate(row: list[float], pos: int, layout: str) -> list[float]:
        return apply_rotary(Matrix([row]), positions=[pos], layout=layout, base=base).tolist()[0]
    return rotate


def rotate_from_1(row: list[float], pos: int, layout: str) -> list[float]:
    return reference.rotate_row(row, pos + 1, layout)


# ---------------------------------------------------------------------------
# Relative positions, position_ids, the cache
# ---------------------------------------------------------------------------


def alibi_flipped(seq_len: int, slope: float) -> list[list[float]]:
    return [[-b if b != -math.inf else b for b in row] for row in reference.alibi(seq_len, slope)]


def t5_swapped(relative_position: int) -> int:
    return t5_relative_bucket(-relative_position)


def position_ids_arange(attention_mask: list[list[int]]) -> list[list[int]]:
    return [list(range(len(mask))) for mask in attention_mask]


def position_ids_from_1(attention_mask: list[list[int]]) -> list[list[int]]:
    return [[p + 1 for p in row] for row in reference.position_ids(attention_mask)]


def step_keys_twice(q: list[float], k: list[float], v: list[float], keys: list[list[float]],
                    values: list[list[float]]) -> list[float]:
    return reference.cached_step(q, k, v, reference.turned_cache(keys), values)


def step_all_keys_twice(q: list[float], k: list[float], v: list[float],
                        keys: list[list[float]], values: list[list[float]]) -> list[float]:
    """k turned at n, appended, and then every key turned again: the new one twice as well."""
    k_turned = apply_rotary(Matrix([k]), start=len(keys)).tolist()[0]
    return reference.cached_step(q, k_turned, v, reference.turned_cache(keys), values)


def step_unscaled(q: list[float], k: list[float], v: list[float], keys: list[list[float]],
                  values: list[list[float]]) -> list[float]:
    scaled = [x * math.sqrt(len(q)) for x in q]  # sqrt(d) times the query: no division left
    return reference.cached_step(scaled, k, v, keys, values)


def step_query_not_turned(q: list[float], k: list[float], v: list[float],
                          keys: list[list[float]], values: list[list[float]]) -> list[float]:
    n = len(keys)
    k_turned = apply_rotary(Matrix([k]), start=n).tolist()[0]
    scores = [sum(a * b for a, b in zip(q, key)) / math.sqrt(len(q)) for key in keys + [k_turned]]
    weights = reference.softmax(scores)
    rows = values + [v]
    return [sum(w * row[c] for w, row in zip(weights, rows)) for c in range(len(v))]


# ---------------------------------------------------------------------------
# Backward
# ---------------------------------------------------------------------------


def lookup_backward_overwrites(ids: list[list[int]], d_X: list[list[float]],
                               vocab_size: int) -> list[list[float]]:
    d_E = [[0.0] * len(d_X[0]) for _ in range(vocab_size)]
    all_ids = [token_id for sequence in ids for token_id in sequence]
    for token_id, d_x in zip(all_ids, d_X):
        d_E[token_id] = list(d_x)  # the last one wins
    return d_E


def broadcast_backward_along_t(d_X: list[list[list[float]]],
                               context_length: int) -> list[list[float]]:
    """dP[b] = sum over t of dX[b][t]: summed along the sequence, not the batch."""
    d_P = [[0.0] * len(d_X[0][0]) for _ in range(context_length)]
    for b, d_x in enumerate(d_X[:context_length]):
        d_P[b] = [math.fsum(column) for column in zip(*d_x)]
    return d_P


def broadcast_backward_mean(d_X: list[list[list[float]]],
                            context_length: int) -> list[list[float]]:
    summed = reference.broadcast_backward(d_X, context_length)
    return [[x / len(d_X) for x in row] for row in summed]


# ---------------------------------------------------------------------------
# The mistakes the lessons warn of (issue 30), exercises 1-16
# ---------------------------------------------------------------------------


def lookup_from_1(table: list[list[float]], ids: list[int]) -> list[list[float]]:
    """IDs read as if they counted from 1: row id - 1 (and ID 0 wraps to the last row)."""
    return [list(table[token_id - 1]) for token_id in ids]


def softmax_min(scores: list[float]) -> list[float]:
    """The smallest score subtracted: the same weights until the spread passes ~709."""
    low = min(scores)
    exps = [math.exp(x - low) for x in scores]
    return [e / sum(exps) for e in exps]


def softmax_mean(scores: list[float]) -> list[float]:
    """The mean subtracted: the same weights until a score is ~709 above the mean."""
    mean = sum(scores) / len(scores)
    exps = [math.exp(x - mean) for x in scores]
    return [e / sum(exps) for e in exps]


def attention_scaled_by_n(q: list[list[float]], k: list[list[float]],
                          v: list[list[float]]) -> list[list[float]]:
    """Scores over sqrt(n), the number of tokens, where sqrt(d_k) belongs."""
    return _attention(q, k, v, 1 / math.sqrt(len(q)), -math.inf)


def rotate_without_the_2(row: list[float], pos: int, layout: str) -> list[float]:
    """theta_i = 10000**(-i / d): the 2 of 2i left out."""
    d = len(row)
    thetas = Vector([10000.0 ** (-i / d) for i in range(d // 2)])
    return apply_rotary(Matrix([row]), positions=[pos], layout=layout,
                        frequencies=thetas).tolist()[0]


def t5_zero_upper(relative_position: int) -> int:
    """Offset 0 (the query's own key) counted with the keys after it, in the upper half."""
    if relative_position == 0:
        return 16
    return t5_relative_bucket(relative_position)


def softmax_max_in_numerator(scores: list[float]) -> list[float]:
    """exp(x - m) / sum(exp(x)): the weights sum to exp(-m), not 1."""
    m = max(scores)
    total = sum(math.exp(x) for x in scores)
    return [math.exp(x - m) / total for x in scores]


def _weights(scores: list[float], stable: bool) -> list[float]:
    """softmax written the two ways a learner writes it: all -inf is nan (stable: exp(nan))
    or a ZeroDivisionError (exp(x) summed to 0), as the learner's own would be."""
    m = max(scores) if stable else 0.0
    exps = [math.exp(x - m) for x in scores]
    return [e / sum(exps) for e in exps]


def attention_strict(stable: bool) -> Callable[..., list[list[float]]]:
    """Keys j < i only: the diagonal hidden too, so query 0 sees nothing."""
    def attention(q: list[list[float]], k: list[list[float]],
                  v: list[list[float]]) -> list[list[float]]:
        out = []
        for i, q_i in enumerate(q):
            scores = [sum(a * b for a, b in zip(q_i, k_j)) / math.sqrt(len(q_i)) if j < i
                      else -math.inf for j, k_j in enumerate(k)]
            weights = _weights(scores, stable)
            out.append([sum(w * v_j[c] for w, v_j in zip(weights, v)) for c in range(len(v[0]))])
        return out
    return attention


def attention_mask_after_softmax(q: list[list[float]], k: list[list[float]],
                                 v: list[list[float]]) -> list[list[float]]:
    """softmax over every key, then the weights of keys j > i set to 0: rows sum below 1."""
    out = []
    for i, q_i in enumerate(q):
        scores = [sum(a * b for a, b in zip(q_i, k_j)) / math.sqrt(len(q_i)) for k_j in k]
        weights = [w if j <= i else 0.0 for j, w in enumerate(reference.softmax(scores))]
        out.append([sum(w * v_j[c] for w, v_j in zip(weights, v)) for c in range(len(v[0]))])
    return out


def attention_naive_softmax(q: list[list[float]], k: list[list[float]],
                            v: list[list[float]]) -> list[list[float]]:
    """exp(score) without the max: a score of 1000 overflows."""
    out = []
    for i, q_i in enumerate(q):
        scores = [sum(a * b for a, b in zip(q_i, k_j)) / math.sqrt(len(q_i)) if j <= i
                  else -math.inf for j, k_j in enumerate(k)]
        weights = _weights(scores, stable=False)
        out.append([sum(w * v_j[c] for w, v_j in zip(weights, v)) for c in range(len(v[0]))])
    return out


def shift_with_exponent(exponent: Callable[[int, int], float]) -> Callable[[int, int], Any]:
    """M_k with w_i = 1 / 10000**exponent(i, d_model): i/d where 2i/d was meant."""
    def shift(k: int, d_model: int) -> list[list[float]]:
        rows = [[0.0] * d_model for _ in range(d_model)]
        for i in range(d_model // 2):
            w = 1 / 10000 ** exponent(i, d_model)
            rows[2 * i][2 * i], rows[2 * i][2 * i + 1] = math.cos(k * w), math.sin(k * w)
            rows[2 * i + 1][2 * i], rows[2 * i + 1][2 * i + 1] = -math.sin(k * w), math.cos(k * w)
        return rows
    return shift


def alibi_no_mask(seq_len: int, slope: float) -> list[list[float]]:
    """-slope * (i - j) everywhere: keys after the query get a bonus and stay visible."""
    return [[-slope * (i - j) for j in range(seq_len)] for i in range(seq_len)]


def alibi_symmetric(seq_len: int, slope: float) -> list[list[float]]:
    """-slope * |i - j| everywhere: the bidirectional bias, keys after the query visible."""
    return [[-slope * abs(i - j) for j in range(seq_len)] for i in range(seq_len)]


def alibi_strict(seq_len: int, slope: float) -> list[list[float]]:
    """-inf for j >= i: the diagonal hidden, the query cannot see itself."""
    return [[-slope * (i - j) if j < i else -math.inf for j in range(seq_len)]
            for i in range(seq_len)]


def alibi_zero_above(seq_len: int, slope: float) -> list[list[float]]:
    """0.0 above the diagonal where -inf hides the keys after the query."""
    return [[-slope * (i - j) if j <= i else 0.0 for j in range(seq_len)] for i in range(seq_len)]

def t5_no_clamp(relative_position: int) -> int:
    """The log bucket without min(..., B - 1): far offsets spill into the other half."""
    offset = 16 if relative_position > 0 else 0
    n = abs(relative_position)
    if n < 8:
        return offset + n
    return offset + 8 + int(math.log(n / 8) / math.log(128 / 8) * 8)


def t5_not_halved(relative_position: int) -> int:
    """All 32 buckets on each side (exact up to 16): num_buckets not halved."""
    return t5_relative_bucket(relative_position, num_buckets=64)


def t5_exact_not_halved(relative_position: int) -> int:
    """B = 16 per side, but max_exact = 16 too, where it is B // 2 = 8."""
    offset = 16 if relative_position > 0 else 0
    n = abs(relative_position)
    if n < 16:
        return offset + min(n, 15)
    return offset + 15


def position_ids_cumsum(attention_mask: list[list[int]]) -> list[list[int]]:
    """cumsum(mask) without the - 1: positions counted from 1."""
    return [[p + 1 for p in row] for row in reference.position_ids(attention_mask)]


def step_at_0(q: list[float], k: list[float], v: list[float], keys: list[list[float]],
              values: list[list[float]]) -> list[float]:
    """The new token turned at position 0 (apply_rotary's default start): not turned at all."""
    scores = [sum(a * b for a, b in zip(q, key)) / math.sqrt(len(q)) for key in keys + [k]]
    weights = reference.softmax(scores)
    rows = values + [v]
    return [sum(w * row[c] for w, row in zip(weights, rows)) for c in range(len(v))]


def step_v_turned(q: list[float], k: list[float], v: list[float], keys: list[list[float]],
                  values: list[list[float]]) -> list[float]:
    """v turned by RoPE with q and k: each value then carries its own position."""
    v_turned = apply_rotary(Matrix([v]), start=len(keys)).tolist()[0]
    return reference.cached_step(q, k, v_turned, keys, values)


def step_naive_softmax(q: list[float], k: list[float], v: list[float], keys: list[list[float]],
                       values: list[list[float]]) -> list[float]:
    n = len(keys)
    q_turned = apply_rotary(Matrix([q]), start=n).tolist()[0]
    k_turned = apply_rotary(Matrix([k]), start=n).tolist()[0]
    scores = [sum(a * b for a, b in zip(q_turned, key)) / math.sqrt(len(q))
              for key in keys + [k_turned]]
    weights = _weights(scores, stable=False)
    rows = values + [v]
    return [sum(w * row[c] for w, row in zip(weights, rows)) for c in range(len(v))]


def lookup_backward_no_offset(ids: list[list[int]], d_X: list[list[float]],
                              vocab_size: int) -> list[list[float]]:
    """Every sequence reads d_X from row 0: the rows of sequence b start at b * seq_len."""
    d_E = [[0.0] * len(d_X[0]) for _ in range(vocab_size)]
    for sequence in ids:
        for t, token_id in enumerate(sequence):
            d_E[token_id] = [a + b for a, b in zip(d_E[token_id], d_X[t])]
    return d_E
