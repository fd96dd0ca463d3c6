"""More known wrong solutions of exercises 1-8: the ones a set of wrong answers written
from outside the checker found unnamed (tests/exercise_answers_outside/).

As in wrong.py, each function has the signature of the learner's and is wrong in
exactly one way. MORE maps an exercise's number to its (mistake key, wrong solution)
pairs; the catalogue adds them after the exercise's own.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from minipe.exercises import reference, wrong
from minipe.tokenizer import TOKEN_PATTERN, UNKNOWN

# ---------------------------------------------------------------------------
# encode, lookup


def _ids(tokens: list[str], vocabulary: list[str], unknown: int) -> list[int]:
    index = {token: i for i, token in enumerate(vocabulary)}
    return [index.get(token, unknown) for token in tokens]


def encode_not_lowered(text: str, vocabulary: list[str]) -> list[int]:
    """The tokens as written: 'The' is not 'the', so it is unknown."""
    return _ids(TOKEN_PATTERN.findall(text), vocabulary, vocabulary.index(UNKNOWN))


def encode_split_on_spaces(text: str, vocabulary: list[str]) -> list[int]:
    """text.lower().split(): 'mat.' is one token, unknown, where 'mat' and '.' are two."""
    return _ids(text.lower().split(), vocabulary, vocabulary.index(UNKNOWN))


def encode_unknown_dropped(text: str, vocabulary: list[str]) -> list[int]:
    """Unknown tokens left out, where each takes <|unk|>'s ID."""
    return [i for i in encode_unknown_as(-1)(text, vocabulary) if i >= 0]


def encode_unknown_as(unknown: int | None) -> Callable[[str, list[str]], list[int]]:
    """Unknown tokens given ID `unknown` (None: the last index) instead of <|unk|>'s."""
    def encode(text: str, vocabulary: list[str]) -> list[int]:
        chosen = len(vocabulary) - 1 if unknown is None else unknown
        return _ids(TOKEN_PATTERN.findall(text.lower()), vocabulary, chosen)
    return encode


def lookup_by_position(table: list[list[float]], ids: list[int]) -> list[list[float]]:
    """Row t (the token's place in the list) where row ids[t] belongs."""
    return [list(table[t]) for t in range(len(ids))]


# ---------------------------------------------------------------------------
# sinusoids


FREQUENCY_INVERTED = wrong.pe_with_exponent(lambda j, d_model: -2 * (j // 2) / d_model)
INTEGER_DIVISION = wrong.pe_with_exponent(lambda j, d_model: 2 * (j // 2) // d_model)


def table_row_missing(num_positions: int, d_model: int) -> list[list[float]]:
    """range(num_positions - 1): the last position's row left out."""
    return reference.pe_table(num_positions, d_model)[:-1]


def table_transposed(num_positions: int, d_model: int) -> list[list[float]]:
    """One row per column: shape (d_model, num_positions)."""
    return [list(column) for column in zip(*reference.pe_table(num_positions, d_model))]


# ---------------------------------------------------------------------------
# broadcasting, softmax, attention, M_k


def add_to_first_only(tokens: list[list[list[float]]],
                      table: list[list[float]]) -> list[list[list[float]]]:
    """The table added to sequence 0 only; the others come back as they were."""
    return reference.add_positions(tokens[:1], table) + [[list(t) for t in s] for s in tokens[1:]]


def add_row_0(tokens: list[list[list[float]]],
              table: list[list[float]]) -> list[list[list[float]]]:
    """Row 0 of the table added to every token, whatever its position."""
    return reference.add_positions(tokens, [table[0]] * len(tokens[0]))


def softmax_not_normalised(scores: list[float]) -> list[float]:
    """exp(x - m) without the division by their sum."""
    m = max(scores)
    return [math.exp(x - m) for x in scores]


def _attention(q: list[list[float]], k: list[list[float]], v: list[list[float]],
               score: Callable[[float, int], float], seen: Callable[[int, int], bool],
               ) -> list[list[float]]:
    """softmax over the keys j that seen(i, j) allows, of score(q_i . k_j, d_k); then V."""
    out = []
    for i, q_i in enumerate(q):
        scores = [score(sum(a * b for a, b in zip(q_i, k_j)), len(q_i)) if seen(i, j)
                  else -math.inf for j, k_j in enumerate(k)]
        weights = reference.softmax(scores)
        out.append([sum(w * v_j[c] for w, v_j in zip(weights, v)) for c in range(len(v[0]))])
    return out


def attention_over_d_k(q: list[list[float]], k: list[list[float]],
                       v: list[list[float]]) -> list[list[float]]:
    """Scores divided by d_k, not by its square root."""
    return _attention(q, k, v, lambda dot, d_k: dot / d_k, lambda i, j: j <= i)


def attention_mask_reversed(q: list[list[float]], k: list[list[float]],
                            v: list[list[float]]) -> list[list[float]]:
    """The keys before the query hidden, the ones after it seen: j >= i."""
    return _attention(q, k, v, lambda dot, d_k: dot / math.sqrt(d_k), lambda i, j: j >= i)


def shift_half_layout(k: int, d_model: int) -> list[list[float]]:
    """Pair i's block at rows and columns (i, i + d_model/2), the half layout."""
    rows = [[0.0] * d_model for _ in range(d_model)]
    for i in range(d_model // 2):
        w = 1 / 10000 ** (2 * i / d_model)
        a, b = i, i + d_model // 2
        rows[a][a], rows[a][b] = math.cos(k * w), math.sin(k * w)
        rows[b][a], rows[b][b] = -math.sin(k * w), math.cos(k * w)
    return rows


def shift_k_forgotten(k: int, d_model: int) -> list[list[float]]:
    """The block of angle w, not k * w: M_1 whatever k."""
    return reference.shift_matrix(1, d_model)


MORE: dict[int, tuple[tuple[str, Any], ...]] = {
    1: (("encode-not-lowered", encode_not_lowered),
        ("encode-split-on-spaces", encode_split_on_spaces),
        ("encode-unknown-dropped", encode_unknown_dropped),
        ("encode-unknown-id", encode_unknown_as(None)),
        ("encode-unknown-id", encode_unknown_as(-1))),
    2: (("lookup-by-position", lookup_by_position),),
    3: (("frequency-inverted", FREQUENCY_INVERTED), ("integer-division", INTEGER_DIVISION)),
    4: (("frequency-inverted", wrong.table_of_rows(FREQUENCY_INVERTED)),
        ("integer-division", wrong.table_of_rows(INTEGER_DIVISION)),
        ("table-row-missing", table_row_missing), ("table-transposed", table_transposed)),
    5: (("added-to-first-only", add_to_first_only), ("row-0-everywhere", add_row_0)),
    6: (("softmax-not-normalised", softmax_not_normalised),),
    7: (("divided-by-d-k", attention_over_d_k), ("mask-reversed", attention_mask_reversed)),
    8: (("frequency-inverted", wrong.shift_with_exponent(lambda i, d_model: -2 * i / d_model)),
        ("shift-half-layout", shift_half_layout), ("shift-k-forgotten", shift_k_forgotten)),
}
