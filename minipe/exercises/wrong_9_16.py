"""More known wrong solutions of exercises 9-16: the ones a set of wrong answers written
from outside the checker found unnamed (tests/exercise_answers_outside/).

As in wrong.py, each function has the signature of the learner's and is wrong in
exactly one way. MORE maps an exercise's number to its (mistake key, wrong solution)
pairs; the catalogue adds them after the exercise's own.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from minipe.arrays import Matrix
from minipe.exercises import reference
from minipe.rotary import apply_rotary

# ---------------------------------------------------------------------------
# RoPE: one pair, a row


def turn_by_pos_over_theta(x: float, y: float, pos: int, theta: float) -> list[float]:
    """a = pos / theta, as the sinusoids divide; RoPE's theta is already the inverse."""
    return reference.turn_pair(x, y, 1, pos / theta)


def turn_without_pos(x: float, y: float, pos: int, theta: float) -> list[float]:
    """a = theta: every position turned as if it were position 1."""
    return reference.turn_pair(x, y, 1, theta)


def turn_sin_cos_swapped(x: float, y: float, pos: int, theta: float) -> list[float]:
    a = pos * theta
    return [x * math.sin(a) - y * math.cos(a), x * math.cos(a) + y * math.sin(a)]


def turn_x_overwritten(x: float, y: float, pos: int, theta: float) -> list[float]:
    """x' written over x first, and y' then computed from the new x."""
    a = pos * theta
    x = x * math.cos(a) - y * math.sin(a)
    return [x, x * math.sin(a) + y * math.cos(a)]


def _pairs(d: int, layout: str) -> list[tuple[int, int]]:
    if layout == "interleaved":
        return [(2 * i, 2 * i + 1) for i in range(d // 2)]
    return [(i, i + d // 2) for i in range(d // 2)]


def rotate_theta_of_column(row: list[float], pos: int, layout: str) -> list[float]:
    """theta from the pair's first column c for i: 10000**(-2c/d), which is 10000**(-4i/d)
    in the interleaved layout."""
    out = list(row)
    for first, second in _pairs(len(row), layout):
        out[first], out[second] = reference.turn_pair(
            row[first], row[second], pos, 10000 ** (-2 * first / len(row)))
    return out


def rotate_x_overwritten(row: list[float], pos: int, layout: str) -> list[float]:
    """Each pair turned with exercise 9's x-overwritten slip."""
    out = list(row)
    for i, (first, second) in enumerate(_pairs(len(row), layout)):
        out[first], out[second] = turn_x_overwritten(
            row[first], row[second], pos, 10000 ** (-2 * i / len(row)))
    return out


# ---------------------------------------------------------------------------
# ALiBi, T5, position_ids


def alibi_transposed(seq_len: int, slope: float) -> list[list[float]]:
    """-slope * (j - i) above the diagonal and -inf below it: the keys after the query seen."""
    return [list(column) for column in zip(*reference.alibi(seq_len, slope))]


def t5_offset_16_exact_16(relative_position: int) -> int:
    """B = 32 and E = 16 (num_buckets not halved), with the upper side's offset 16."""
    offset = 16 if relative_position > 0 else 0
    n = abs(relative_position)
    if n < 16:
        return offset + n
    return offset + min(16 + int(math.log(n / 16) / math.log(128 / 16) * 16), 31)


def _t5(relative_position: int, to_int: Callable[[float], int], log_of: float) -> int:
    offset = 16 if relative_position > 0 else 0
    n = abs(relative_position)
    if n < 8:
        return offset + n
    return offset + min(8 + to_int(math.log(n / 8) / math.log(log_of) * 8), 15)


def t5_rounded(relative_position: int) -> int:
    """round(...) where int(...) truncates: a far offset lands one bucket up."""
    return _t5(relative_position, round, 128 / 8)


def t5_log_of_max_distance(relative_position: int) -> int:
    """log(n / E) / log(128): the log range starts at 1, not at E."""
    return _t5(relative_position, int, 128)


def position_ids_minus_padding(attention_mask: list[list[int]]) -> list[list[int]]:
    """t - (the row's padding count): right for a left-padded row only."""
    return [[t - (len(row) - sum(row)) for t in range(len(row))] for row in attention_mask]


# ---------------------------------------------------------------------------
# the cached step, the backward passes


def _step(q: list[float], k: list[float], v: list[float], keys: list[list[float]],
          values: list[list[float]], position: int, layout: str) -> list[float]:
    """q and k turned at `position` in `layout`, appended, and attended with the one query."""
    q_turned = apply_rotary(Matrix([q]), start=position, layout=layout).tolist()[0]
    k_turned = apply_rotary(Matrix([k]), start=position, layout=layout).tolist()[0]
    scores = [sum(a * b for a, b in zip(q_turned, key)) / math.sqrt(len(q))
              for key in keys + [k_turned]]
    weights = reference.softmax(scores)
    rows = values + [v]
    return [sum(w * row[c] for w, row in zip(weights, rows)) for c in range(len(v))]


def step_half_layout(q: list[float], k: list[float], v: list[float], keys: list[list[float]],
                     values: list[list[float]]) -> list[float]:
    return _step(q, k, v, keys, values, len(keys), "half")


def step_at_n_plus_1(q: list[float], k: list[float], v: list[float], keys: list[list[float]],
                     values: list[list[float]]) -> list[float]:
    return _step(q, k, v, keys, values, len(keys) + 1, "interleaved")


def step_at_n_minus_1(q: list[float], k: list[float], v: list[float], keys: list[list[float]],
                      values: list[list[float]]) -> list[float]:
    return _step(q, k, v, keys, values, len(keys) - 1, "interleaved")


def lookup_backward_mean(ids: list[list[int]], d_X: list[list[float]],
                         vocab_size: int) -> list[list[float]]:
    """A repeated ID's gradients averaged, not summed."""
    summed = reference.lookup_backward(ids, d_X, vocab_size)
    flat = [token_id for sequence in ids for token_id in sequence]
    return [[g / max(flat.count(token_id), 1) for g in row] for token_id, row in enumerate(summed)]


def broadcast_backward_first_only(d_X: list[list[list[float]]],
                                  context_length: int) -> list[list[float]]:
    """Sequence 0's gradient only, where every sequence's adds in."""
    return reference.broadcast_backward(d_X[:1], context_length)


def broadcast_backward_seq_rows(d_X: list[list[list[float]]],
                                context_length: int) -> list[list[float]]:
    """seq rows, not context_length: the rows no sequence reached are missing."""
    return reference.broadcast_backward(d_X, context_length)[:len(d_X[0])]


MORE: dict[int, tuple[tuple[str, Any], ...]] = {
    9: (("rope-angle-divided", turn_by_pos_over_theta), ("rope-pos-forgotten", turn_without_pos),
        ("rope-sin-cos-swapped", turn_sin_cos_swapped), ("x-overwritten", turn_x_overwritten)),
    10: (("rope-theta-of-column", rotate_theta_of_column),
         ("x-overwritten", rotate_x_overwritten)),
    11: (("mask-reversed", alibi_transposed),),
    12: (("t5-not-halved", t5_offset_16_exact_16), ("t5-rounded", t5_rounded),
         ("t5-log-of-max-distance", t5_log_of_max_distance)),
    13: (("position-ids-padding-count", position_ids_minus_padding),),
    14: (("rope-half-for-interleaved", step_half_layout),
         ("new-token-one-off", step_at_n_plus_1), ("new-token-one-off", step_at_n_minus_1)),
    15: (("lookup-averaged", lookup_backward_mean),),
    16: (("backward-first-sequence-only", broadcast_backward_first_only),
         ("backward-rows-missing", broadcast_backward_seq_rows)),
}
