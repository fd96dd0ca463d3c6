"""Chapter 9's door: what `TinyModel` accepts, and the sentences it says otherwise.

A model's settings, its tables by name, RoPE's theta_i and scale, ALiBi's
slopes, the sequences it reads and the targets it is taught: each is checked
here once, with a sentence naming the argument and the valid range, and what
minipe/training.py computes trusts them. They live apart so that training.py
reads as the model and its forward and backward chains, as appendix A's
checks live in minipe/array_checks.py.

>>> check_targets([[0, 1]], [[-100, -100]], vocab_size=5)
Traceback (most recent call last):
ValueError: every target is -100: with nothing to predict, the loss (a mean over the \
targets) is undefined
"""

from __future__ import annotations

import math
import operator
from typing import Mapping, Sequence

from minipe.arrays import Matrix, Vector
from minipe.checks import (check_ids, check_table_size, checked_base, checked_flag,
                           checked_number, checked_size)
from minipe.gradients import IGNORE
from minipe.pipeline import ALIBI_SLOPE, POSITION_KINDS
from minipe.rotary import check_frequencies, checked_rotary_width, rotary_thetas

LARGEST_WEIGHT = 1e30  # dW_q = x^T dq multiplies 6 weights: 1e180, far below 1.8e308
LARGEST_SCALE = 1e6  # YaRN's is 0.1 ln(factor) + 1, near 1; scores grow with its square


def checked_settings(vocab_size: int, d_model: int, context_length: int, positions: str, *,
                     seed: int, causal: bool, base: float) -> float:
    """Sizes >= 1 (seed >= 0), a flag, a base > 1, a known kind of positions, and tables
    that fit in memory; the base comes back as a float."""
    d = checked_size(d_model, "d_model")
    checked_size(vocab_size, "vocab_size")
    checked_size(context_length, "context_length")
    checked_size(seed, "seed", minimum=0)
    checked_flag(causal, "causal")
    base = checked_base(base)
    if positions not in POSITION_KINDS:
        raise ValueError(f"positions must be one of {', '.join(POSITION_KINDS)}; "
                         f"got {positions!r}")
    rows = context_length if positions == "learned" else 0
    check_table_size((2 * vocab_size + rows + 3 * d) * d,
                     "TinyModel's tables, (2 vocab_size + 3 d_model"
                     + (" + context_length" if rows else "") + ") x d_model,")
    return base


def check_parameters(parameters: object, shapes: dict[str, tuple[int, int]]) -> None:
    """A model's tables by name: exactly the names of `shapes`, each a Matrix of its shape
    whose numbers are finite and at most LARGEST_WEIGHT in size."""
    if not isinstance(parameters, Mapping):
        raise TypeError(f"parameters must be a dict of tables by name, "
                        f"got {type(parameters).__name__}")
    extra = sorted(set(parameters) - set(shapes))
    if extra:
        raise ValueError(f"this model has no parameters named {extra}; it has "
                         f"{sorted(shapes)} (to change its settings, build a new TinyModel)")
    for name, shape in shapes.items():
        table = parameters.get(name)
        if not isinstance(table, Matrix) or table.shape != shape:
            got = table.shape if isinstance(table, Matrix) else type(table).__name__
            raise ValueError(f"parameters[{name!r}] must be a Matrix of shape {shape}, "
                             f"got {got}")
        largest = max(max(map(abs, row)) for row in table.rows)  # inf if any is
        if not largest <= LARGEST_WEIGHT:
            raise ValueError(f"parameters[{name!r}] holds a number of size {largest:g}; "
                             f"weights must be finite and at most {LARGEST_WEIGHT:g}, so "
                             f"that the products of the forward and backward passes stay "
                             f"below a float's limit, about 1.8e308")


def checked_rope(positions: str, d_model: int, base: float, frequencies: Vector | None,
                 attention_scale: float) -> tuple[Vector | None, float]:
    """RoPE's theta_i and scale: base**(-2i/d) (chapter 5's) and 1 unless given; a scale in
    (0, LARGEST_SCALE]. Only a RoPE model has them: any other keeps them as given."""
    if positions != "rope":
        if frequencies is not None or attention_scale != 1.0:
            raise ValueError(f"only a RoPE model turns q and k by frequencies theta_i "
                             f"and scales them; this one has positions={positions!r}")
        return frequencies, attention_scale
    checked_rotary_width(d_model, "d_model", "positions='rope'")
    if frequencies is None:
        frequencies = rotary_thetas(d_model, base)
    check_frequencies(frequencies, d_model // 2, "d_model/2")
    scale = checked_number(attention_scale, "attention_scale")
    if not 0 < scale <= LARGEST_SCALE:
        raise ValueError(f"attention_scale multiplies q and k, so it must be a number > 0 "
                         f"and at most {LARGEST_SCALE:g} (YaRN's is near 1, and the "
                         f"scores grow with its square); got {scale}")
    return frequencies, scale


def checked_slopes(slopes: tuple[float, ...] | None, positions: str) -> tuple[float, ...] | None:
    """ALiBi's slopes: (1/2,) unless given, one m per head; only ALiBi has them (else None)."""
    if positions != "alibi":
        if slopes is not None:
            raise ValueError(f"only an ALiBi model has slopes m; this one has "
                             f"positions={positions!r}")
        return None
    if slopes is None:
        slopes = (ALIBI_SLOPE,)  # one head, one m: chapter 8's
    if not isinstance(slopes, (tuple, list)) or len(slopes) != 1:
        raise ValueError(f"slopes must be a tuple of 1 number, one m per head, such as "
                         f"(0.5,); got {slopes!r:.60}")
    checked = tuple(checked_number(m, f"slopes[{h}]") for h, m in enumerate(slopes))
    if not all(0 < m < math.inf for m in checked):
        raise ValueError(f"each ALiBi slope m must be a finite number > 0 (the penalty "
                         f"-m |i - j| grows with distance), got {slopes!r}")
    return checked


def check_sequences(inputs: object, name: str, vocab_size: int, rows: int | None,
                    frequencies: Vector | None) -> None:
    """`inputs` must be a non-empty list of sequences of IDs in 0 .. vocab_size - 1, none
    longer than a learned table's `rows` (None: no table), nor so long that an angle
    pos * theta_i overflows."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise TypeError(f"{name} must be a non-empty list of sequences of IDs, "
                        f"got {inputs!r:.60}")
    for b, ids in enumerate(inputs):
        where = name if name == "ids" else f"{name}[{b}]"
        check_ids(ids, vocab_size,
                  where, f"is out of range: this model has vocab_size={vocab_size}, so")
        if rows is not None and len(ids) > rows:
            raise ValueError(f"{where} has {len(ids)} tokens, but a learned position table "
                             f"has only context_length={rows} rows: there is no row for "
                             f"position {rows} to look up")
        check_table_size(len(ids) ** 2, f"the attention weights for {where}, n x n,")
        largest_theta = max(frequencies or [0.0])
        if math.isinf((len(ids) - 1) * largest_theta):  # the largest angle, pos * theta_i
            raise ValueError(f"{where} has {len(ids)} tokens: position {len(ids) - 1} times "
                             f"theta_i = {largest_theta:g} is past a "
                             f"float's limit (about 1.8e308), so RoPE has no angle to turn by")


def check_targets(inputs: Sequence[Sequence[int]], targets: object, vocab_size: int) -> None:
    """One target per input token: an ID in 0 .. vocab_size - 1, or -100 (skip it), and
    at least one that is not -100."""
    if not isinstance(targets, (list, tuple)) or len(targets) != len(inputs):
        raise ValueError(f"targets must be a list with one list per input sequence "
                         f"({len(inputs)}), got {targets!r:.60}")
    allowed = set(range(vocab_size)) | {IGNORE}
    for b, (ids, wanted) in enumerate(zip(inputs, targets)):
        if not isinstance(wanted, (list, tuple)) or len(wanted) != len(ids):
            raise ValueError(f"targets[{b}] must hold one target per token of inputs[{b}] "
                             f"({len(ids)}), got {wanted!r:.60}")
        if operator.countOf(map(type, wanted), int) == len(wanted) and allowed >= set(wanted):
            continue  # the usual list, looked at whole; a bad one is read target by target
        for t, target in enumerate(wanted):
            if type(target) is not int or target not in allowed:
                raise ValueError(f"targets[{b}][{t}] = {target!r}: a target is an ID in "
                                 f"0..{vocab_size - 1}, or -100 to skip that position")
    if sum(map(len, targets)) == sum(wanted.count(IGNORE) for wanted in targets):
        raise ValueError("every target is -100: with nothing to predict, the loss (a mean "
                         "over the targets) is undefined")
