"""The known wrong solutions of exercises 17-21: packing, the document mask, evict,
partial rotary, ALiBi's slopes (the earlier exercises' are in wrong.py).

As in wrong.py, each function has the signature of the learner's and is wrong in
exactly one way, mostly minipe's right answer (reference.py) with one thing changed.
"""

from __future__ import annotations

import math
from typing import Any

from minipe.arrays import Matrix, Vector
from minipe.exercises import reference
from minipe.rotary import apply_rotary

# ---------------------------------------------------------------------------
# packing and the document mask


def pack_positions_arange(documents: list[list[int]]) -> list[list[int]]:
    """position_ids 0 .. n-1 over the whole packed sequence: they never restart."""
    ids, _, labels = reference.pack(documents)
    return [ids, list(range(len(ids))), labels]


def pack_labels_kept(documents: list[list[int]]) -> list[list[int]]:
    """labels = ids: each document's first token keeps its ID where -100 belongs."""
    ids, positions, _ = reference.pack(documents)
    return [ids, positions, list(ids)]


def pack_labels_first_only(documents: list[list[int]]) -> list[list[int]]:
    """-100 only at the packed sequence's first token, not at every document's."""
    ids, positions, _ = reference.pack(documents)
    return [ids, positions, [-100] + ids[1:]]


def pack_labels_shifted(documents: list[list[int]]) -> list[list[int]]:
    """labels shifted by one (the next token's ID): the loss shifts them itself."""
    ids, positions, _ = reference.pack(documents)
    labels = []
    for document in documents:
        labels += list(document[1:]) + [-100]
    return [ids, positions, labels]


def _starts(position_ids: list[int]) -> list[int]:
    return [t - p for t, p in enumerate(position_ids)]


def document_mask_not_causal(position_ids: list[int]) -> list[list[bool]]:
    """Same document only: a token sees the later tokens of its document."""
    starts = _starts(position_ids)
    return [[s_i == s_j for s_j in starts] for s_i in starts]


def document_mask_causal_only(position_ids: list[int]) -> list[list[bool]]:
    """j <= i only: a token sees the documents packed before its own."""
    n = len(position_ids)
    return [[j <= i for j in range(n)] for i in range(n)]


def document_mask_strict(position_ids: list[int]) -> list[list[bool]]:
    """j < i: a token cannot see itself, and a document's first token sees nothing."""
    starts = _starts(position_ids)
    return [[starts[i] == starts[j] and j < i for j in range(len(starts))]
            for i in range(len(starts))]


# evict


def evict_not_turned_back(keys: list[list[float]], values: list[list[float]], sinks: int,
                          window: int) -> list[list[list[float]]]:
    """The window's keys kept as they were stored: each sits `evicted` positions too far on."""
    return [keys[:sinks] + keys[len(keys) - window:], values[:sinks] + values[len(values) - window:]]


def evict_turned_forward(keys: list[list[float]], values: list[list[float]], sinks: int,
                         window: int) -> list[list[list[float]]]:
    """The window's keys turned on by evicted, not back."""
    evicted = len(keys) - sinks - window
    kept = apply_rotary(Matrix(keys[len(keys) - window:]), start=0,
                        positions=[evicted] * window).tolist()
    return [keys[:sinks] + kept, values[:sinks] + values[len(values) - window:]]


def evict_values_turned(keys: list[list[float]], values: list[list[float]], sinks: int,
                        window: int) -> list[list[list[float]]]:
    """The values turned back too: RoPE never turned them."""
    turned_keys, _ = reference.evict(keys, values, sinks, window)
    turned_values, _ = reference.evict(values, values, sinks, window)
    return [turned_keys, turned_values]


def evict_no_sinks(keys: list[list[float]], values: list[list[float]], sinks: int,
                   window: int) -> list[list[list[float]]]:
    """The last sinks + window tokens kept: the sinks dropped, the first tokens attention
    leans on."""
    return reference.evict(keys, values, 0, sinks + window)


# partial rotary


def partial_theta_of_d(row: list[float], pos: int, rotary_dims: int) -> list[float]:
    """theta_i = 10000**(-2i / d) with d the whole row, where rotary_dims was meant."""
    d = len(row)
    thetas = [10000.0 ** (-2 * i / d) for i in range(rotary_dims // 2)]
    part = apply_rotary(Matrix([row[:rotary_dims]]), positions=[pos],
                        frequencies=Vector(thetas)).tolist()[0]
    return part + row[rotary_dims:]


def partial_last_columns(row: list[float], pos: int, rotary_dims: int) -> list[float]:
    """The last rotary_dims columns turned, the first kept: GPT-NeoX turns the first."""
    cut = len(row) - rotary_dims
    turned = apply_rotary(Matrix([row[cut:]]), positions=[pos]).tolist()[0]
    return row[:cut] + turned


def partial_whole_row(row: list[float], pos: int, rotary_dims: int) -> list[float]:
    """Every column turned: rotary_dims ignored."""
    return reference.rotate_row(row, pos, "interleaved")


# ALiBi's slopes


def slopes_geometric(num_heads: int) -> list[float]:
    """2**(-8 (h + 1) / n) for every n: the rule of a power of two, used where n is not one."""
    return [2 ** (-8 * (h + 1) / num_heads) for h in range(num_heads)]


def slopes_from_h0(num_heads: int) -> list[float]:
    """2**(-8 h / n): the first head gets slope 1, the steepest, one step too early."""
    power = 2 ** (num_heads.bit_length() - 1)
    slopes = [2 ** (-8 * h / power) for h in range(power)]
    extra = [2 ** (-8 * h / (2 * power)) for h in range(2 * power)][0::2]
    return slopes + extra[:num_heads - power]


def slopes_extra_not_every_other(num_heads: int) -> list[float]:
    """The extra heads take the first slopes of twice the power, not every other one."""
    power = 2 ** (num_heads.bit_length() - 1)
    slopes = [2 ** (-8 * (h + 1) / power) for h in range(power)]
    extra = [2 ** (-8 * (h + 1) / (2 * power)) for h in range(2 * power)]
    return slopes + extra[:num_heads - power]


# ---------------------------------------------------------------------------
# found by the wrong answers written from outside the checker
# (tests/exercise_answers_outside/)


def pack_labels_last_ignored(documents: list[list[int]]) -> list[list[int]]:
    """-100 at each document's last token, where its first belongs."""
    ids, positions, _ = reference.pack(documents)
    return [ids, positions, [label for d in documents for label in d[:-1] + [-100]]]


def pack_positions_from_1(documents: list[list[int]]) -> list[list[int]]:
    """Each document's positions 1 .. len, not 0 .. len - 1."""
    ids, positions, labels = reference.pack(documents)
    return [ids, [p + 1 for p in positions], labels]


def document_mask_by_position(position_ids: list[int]) -> list[list[bool]]:
    """j <= i and position_ids[j] <= position_ids[i]: the start of an earlier document,
    at position 0, is seen too."""
    n = len(position_ids)
    return [[j <= i and position_ids[j] <= position_ids[i] for j in range(n)] for i in range(n)]


def _turned(row: list[float], pos: int) -> list[float]:
    """row turned by RoPE at pos (interleaved, base 10000); a negative pos turns it back."""
    out = list(row)
    for i in range(len(row) // 2):
        a = pos * 10000 ** (-2 * i / len(row))
        x, y = row[2 * i], row[2 * i + 1]
        out[2 * i] = x * math.cos(a) - y * math.sin(a)
        out[2 * i + 1] = x * math.sin(a) + y * math.cos(a)
    return out


def evict_sinks_turned(keys: list[list[float]], values: list[list[float]], sinks: int,
                       window: int) -> list[list[list[float]]]:
    """The sinks turned back by evicted too, though they did not move."""
    evicted = len(keys) - sinks - window
    kept, kept_values = reference.evict(keys, values, sinks, window)
    if evicted <= 0:
        return [kept, kept_values]
    return [[_turned(key, -evicted) for key in kept[:sinks]] + kept[sinks:], kept_values]


def evict_nothing_to_drop(keys: list[list[float]], values: list[list[float]], sinks: int,
                          window: int) -> list[list[list[float]]]:
    """No `evicted <= 0` case: a short cache is cut (the sinks and the window overlap) and
    its window turned on by -evicted."""
    evicted = len(keys) - sinks - window
    kept = [_turned(key, -evicted) for key in keys[len(keys) - window:]]  # < 0: from the end
    return [keys[:sinks] + kept, values[:sinks] + values[len(values) - window:]]


def partial_half_layout(row: list[float], pos: int, rotary_dims: int) -> list[float]:
    """The turned part paired (i, i + rotary_dims/2), the half layout, where interleaved was
    asked."""
    part = apply_rotary(Matrix([row[:rotary_dims]]), positions=[pos], layout="half")
    return part.tolist()[0] + row[rotary_dims:]


def partial_rest_dropped(row: list[float], pos: int, rotary_dims: int) -> list[float]:
    """Only the turned part returned: row[rotary_dims:] left out."""
    return reference.partial_rotary(row, pos, rotary_dims)[:rotary_dims]


def _power(num_heads: int) -> int:
    """The largest power of two <= num_heads."""
    return 1 << (num_heads.bit_length() - 1)


def slopes_extra_odd(num_heads: int) -> list[float]:
    """The extra heads take the 2nd, 4th, ... slopes of twice the power ([1::2]): the
    power's own slopes again."""
    power = _power(num_heads)
    extra = slopes_geometric(2 * power)[1::2]
    return slopes_geometric(power) + extra[:num_heads - power]


def slopes_extra_first(num_heads: int) -> list[float]:
    """The right slopes, the extra heads' put before the power's."""
    power = _power(num_heads)
    return reference.alibi_slopes(num_heads)[power:] + slopes_geometric(power)


def slopes_power_above(num_heads: int) -> list[float]:
    """The slopes of the power of two above n, the first n of them."""
    power = 1 << (num_heads - 1).bit_length()  # the smallest power of two >= num_heads
    return slopes_geometric(power)[:num_heads]


MORE: dict[int, tuple[tuple[str, Any], ...]] = {
    17: (("labels-last-ignored", pack_labels_last_ignored),
         ("pack-positions-from-1", pack_positions_from_1)),
    18: (("document-mask-by-position", document_mask_by_position),),
    19: (("evict-sinks-turned", evict_sinks_turned),
         ("evict-nothing-to-drop", evict_nothing_to_drop)),
    20: (("rope-half-for-interleaved", partial_half_layout),
         ("partial-rest-dropped", partial_rest_dropped)),
    21: (("slopes-extra-odd", slopes_extra_odd), ("slopes-extra-first", slopes_extra_first),
         ("slopes-power-above", slopes_power_above)),
}
