"""The known wrong solutions of exercises 17-21: packing, the document mask, evict,
partial rotary, ALiBi's slopes (the earlier exercises' are in wrong.py).

As in wrong.py, each function has the signature of the learner's and is wrong in
exactly one way, mostly minipe's right answer (reference.py) with one thing changed.
"""

from __future__ import annotations

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
