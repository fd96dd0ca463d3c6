"""Chapter 10's door: what `TinyModel` accepts, and the sentences it says otherwise.

A model's settings, its tables by name, RoPE's theta_i and scale, ALiBi's
slopes, the sequences it reads and the targets it is taught: each is checked
here once, with a sentence naming the argument and the valid range, and what
minipe/training/model.py computes trusts them. They live apart so that training.py
reads as the model and its forward and backward chains, as appendix A's
checks live in minipe/arrays/checks.py.

>>> checked_targets(Inputs([[0, 1]], [None], None, False), [[-100, -100]], vocab_size=5)
Traceback (most recent call last):
ValueError: every target is -100: with nothing to predict, the loss (a mean over the \
targets) is undefined
"""

from __future__ import annotations

import math
import operator
from typing import Any, Mapping, NamedTuple, Sequence

from minipe.arrays import Matrix, Vector
from minipe.checks import (check_ids, check_table_size, checked_base, checked_flag,
                           checked_number, checked_position, checked_size)
from minipe.training.gradients import IGNORE
from minipe.pipeline import ALIBI_SLOPE, POSITION_KINDS
from minipe.relative import alibi_slopes
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


def checked_heads(d_model: int, num_heads: int, rotary_fraction: float,
                  positions: str) -> int:
    """num_heads dividing d_model, and RoPE's rotary_fraction of each head's columns: an even
    whole number of them, at least 2. Returns rotary_dims (0 for a model without RoPE)."""
    heads = checked_size(num_heads, "num_heads")
    if d_model % heads:
        raise ValueError(f"num_heads={heads} must divide d_model={d_model}: each head takes "
                         f"head_dim = d_model / num_heads of the columns of q, k and v")
    fraction = checked_number(rotary_fraction, "rotary_fraction")
    if positions != "rope":
        if fraction != 1.0:
            raise ValueError(f"only a RoPE model turns a fraction of each head; this one has "
                             f"positions={positions!r}, so rotary_fraction must be 1.0")
        return 0
    head_dim = d_model // heads
    rotary_dims = fraction * head_dim
    whole_and_even = rotary_dims == int(rotary_dims) and int(rotary_dims) % 2 == 0
    if not 0 < fraction <= 1 or (fraction != 1.0 and not whole_and_even):  # 1.0: checked_rope
        raise ValueError(f"rotary_fraction={rotary_fraction!r} of head_dim={head_dim} gives "
                         f"{rotary_dims:g} dimensions to turn; RoPE turns pairs, so it must be "
                         f"a fraction in (0, 1] giving an even whole number, such as "
                         f"{2 / head_dim:g} (one pair) or 1.0 (all {head_dim})")
    return int(rotary_dims)


def checked_rope(positions: str, rotary_dims: int, d_model: int, base: float,
                 frequencies: Vector | None, attention_scale: float
                 ) -> tuple[Vector | None, float]:
    """RoPE's theta_i and scale: base**(-2i/rotary_dims) (chapter 5's) and 1 unless given; a
    scale in (0, LARGEST_SCALE]. Only a RoPE model has them: any other keeps them as given."""
    if positions != "rope":
        if frequencies is not None or attention_scale != 1.0:
            raise ValueError(f"only a RoPE model turns q and k by frequencies theta_i "
                             f"and scales them; this one has positions={positions!r}")
        return frequencies, attention_scale
    checked_rotary_width(rotary_dims, "d_model" if rotary_dims == d_model else "head_dim",
                         "positions='rope'")
    if frequencies is None:
        frequencies = rotary_thetas(rotary_dims, base)
    width = "d_model/2" if rotary_dims == d_model else "rotary_dims/2"
    check_frequencies(frequencies, rotary_dims // 2, width)
    scale = checked_number(attention_scale, "attention_scale")
    if not 0 < scale <= LARGEST_SCALE:
        raise ValueError(f"attention_scale multiplies q and k, so it must be a number > 0 "
                         f"and at most {LARGEST_SCALE:g} (YaRN's is near 1, and the "
                         f"scores grow with its square); got {scale}")
    return frequencies, scale


def checked_slopes(slopes: tuple[float, ...] | None, positions: str,
                   num_heads: int) -> tuple[float, ...] | None:
    """ALiBi's slopes, one m per head: (1/2,) for one head and alibi_slopes(h) for h heads,
    unless given; only ALiBi has them (else None)."""
    if positions != "alibi":
        if slopes is not None:
            raise ValueError(f"only an ALiBi model has slopes m; this one has "
                             f"positions={positions!r}")
        return None
    if slopes is None:  # one head, one m: the pipeline's (chapter 9); h: the paper's
        slopes = (ALIBI_SLOPE,) if num_heads == 1 else tuple(alibi_slopes(num_heads))
    if not isinstance(slopes, (tuple, list)) or len(slopes) != num_heads:
        example = (ALIBI_SLOPE,) if num_heads == 1 else tuple(alibi_slopes(num_heads))
        raise ValueError(f"slopes must be a tuple of {num_heads} number"
                         f"{'s' if num_heads > 1 else ''}, one m per head, such as "
                         f"{example}; got {slopes!r:.60}")
    checked = tuple(checked_number(m, f"slopes[{h}]") for h, m in enumerate(slopes))
    if not all(0 < m < math.inf for m in checked):
        raise ValueError(f"each ALiBi slope m must be a finite number > 0 (the penalty "
                         f"-m |i - j| grows with distance), got {slopes!r}")
    return checked


class Inputs(NamedTuple):
    """What the door hands the forward pass, one entry per sequence of the batch."""

    sequences: list[list[int]]  # the IDs
    masks: list[list[list[bool]] | None]  # (n, n): True where query i may attend key j
    positions: list[list[int]] | None  # position_ids; None: 0 .. n-1 in every sequence
    one: bool  # one sequence was given (not a batch): the answer is a Matrix

    def each_position(self) -> list[list[int] | None]:
        """The position_ids of each sequence, or None for 0 .. n-1."""
        if self.positions is None:
            return [None] * len(self.sequences)
        return [pos for pos in self.positions]


def checked_inputs(ids: object, name: str, attention_mask: object, position_ids: object,
                   vocab_size: int, rows: int | None, frequencies: Vector | None, *,
                   same_length: bool = False) -> Inputs:
    """One sequence of IDs in 0 .. vocab_size - 1, or a non-empty batch of them; a mask per
    token (0/1) or an (n, n) table of booleans per sequence; a position per token, within
    a learned table's `rows` (None: no table) and small enough that pos * theta_i is a float.

    Hugging Face's way: `ids` a list of ints is one sequence, a list of lists a batch,
    and attention_mask and position_ids have the shape of `ids`.
    """
    one = isinstance(ids, (list, tuple)) and bool(ids) and not isinstance(ids[0], (list, tuple))
    sequences = [ids] if one else ids
    if not isinstance(sequences, (list, tuple)) or not sequences:
        raise TypeError(f"{name} must be a sequence of IDs or a non-empty list of them, "
                        f"got {ids!r:.60}")
    lengths = sorted(set(map(len, sequences)))
    if same_length and len(lengths) > 1:
        raise ValueError(f"the sequences of {name} have {lengths[0]} to {lengths[-1]} tokens; "
                         f"a batch's are padded to one length (Tokenizer.encode_batch), "
                         f"with an attention_mask saying which tokens are padding")
    masks = _checked_masks([attention_mask] if one else attention_mask, sequences, one)
    positions = _checked_positions([position_ids] if one else position_ids, sequences, one)
    for b, sequence in enumerate(sequences):
        where = name if one else f"{name}[{b}]"
        check_ids(sequence, vocab_size,
                  where, f"is out of range: this model has vocab_size={vocab_size}, so")
        last = len(sequence) - 1 if positions is None else max(positions[b])
        if rows is not None and last >= rows and positions is None:
            raise ValueError(f"{where} has {len(sequence)} tokens, but a learned position table "
                             f"has only context_length={rows} rows: there is no row for "
                             f"position {rows} to look up")
        if rows is not None and last >= rows:
            raise ValueError(f"position_ids{'' if one else f'[{b}]'} go up to {last}, but a "
                             f"learned position table has only context_length={rows} rows "
                             f"(0 .. {rows - 1}): there is no row for position {last} to "
                             f"look up")
        check_table_size(len(sequence) ** 2, f"the attention weights for {where}, n x n,")
        largest_theta = max(frequencies or [0.0])
        if math.isinf(last * largest_theta):  # the largest angle, pos * theta_i
            raise ValueError(f"{where} has {len(sequence)} tokens: position {last} times "
                             f"theta_i = {largest_theta:g} is past a "
                             f"float's limit (about 1.8e308), so RoPE has no angle to turn by")
    return Inputs([list(sequence) for sequence in sequences], masks, positions, one)


def _checked_masks(masks: object, sequences: Sequence[Sequence[int]],
                   one: bool) -> list[list[list[bool]] | None]:
    """Each mask as an (n, n) table: a per-token 0/1 mask hides the keys that are 0."""
    if masks == [None] or masks is None:
        return [None] * len(sequences)
    if not isinstance(masks, (list, tuple)) or len(masks) != len(sequences):
        raise ValueError(f"attention_mask must hold one mask per sequence "
                         f"({len(sequences)}), got {masks!r:.60}")
    tables: list[list[list[bool]] | None] = []
    for b, (mask, sequence) in enumerate(zip(masks, sequences)):
        n = len(sequence)
        if isinstance(mask, (list, tuple)) and len(mask) == n:
            if all(type(m) in (int, bool) and m in (0, 1) for m in mask):
                visible = [m == 1 for m in mask]  # key j: a real token, or padding
                tables.append([visible] * n)  # every query sees the real keys
                continue
            if all(isinstance(row, (list, tuple)) and len(row) == n
                   and operator.countOf(map(type, row), bool) == n for row in mask):
                tables.append([list(row) for row in mask])
                continue
        where = "attention_mask" if one else f"attention_mask[{b}]"
        raise ValueError(f"{where} must hold a 0 or 1 per token ({n}: 1 = a real token, "
                         f"0 = padding), or an ({n}, {n}) table of True and False (True "
                         f"where query i may attend key j); got {mask!r:.60}")
    return tables


def _checked_positions(positions: object, sequences: Sequence[Sequence[int]],
                       one: bool) -> list[list[int]] | None:
    """position_ids: one whole number >= 0 per token, or None for 0 .. n-1."""
    if positions == [None] or positions is None:
        return None
    if not isinstance(positions, (list, tuple)) or len(positions) != len(sequences):
        raise ValueError(f"position_ids must hold one list per sequence "
                         f"({len(sequences)}), got {positions!r:.60}")
    for b, (pos, sequence) in enumerate(zip(positions, sequences)):
        where = "position_ids" if one else f"position_ids[{b}]"
        if (not isinstance(pos, (list, tuple)) or len(pos) != len(sequence)
                or operator.countOf(map(type, pos), int) != len(pos) or min(pos) < 0):
            raise ValueError(f"{where} must hold one position per token ({len(sequence)}), "
                             f"each a whole number >= 0 (positions count from 0); "
                             f"got {pos!r:.60}")
        checked_position(max(pos), where)
    return [list(pos) for pos in positions]


def checked_generation(ids: object, max_new_tokens: object, use_cache: object, causal: bool,
                       vocab_size: int, rows: int | None, frequencies: Vector | None) -> int:
    """A prompt of IDs, a count >= 0 of new tokens, a flag, a causal model; a learned table
    needs a row for every position fed in: the prompt's and all new ones but the last."""
    if not isinstance(ids, (list, tuple)) or not ids or isinstance(ids[0], (list, tuple)):
        raise TypeError(f"ids must be one non-empty sequence of IDs (the prompt), "
                        f"got {ids!r:.60}")
    count = checked_size(max_new_tokens, "max_new_tokens", minimum=0)
    checked_flag(use_cache, "use_cache")
    if not causal:
        raise ValueError("generate needs a causal model (causal=True): a cache keeps the "
                         "keys and values of earlier tokens unchanged, which is true only "
                         "when no token sees the ones after it")
    last = len(ids) + count - 2  # the last position fed in: the last new token is not
    if rows is not None and last >= rows:
        raise ValueError(f"a prompt of {len(ids)} tokens and max_new_tokens={count} feed the "
                         f"model positions up to {last}, but a learned position table has "
                         f"only context_length={rows} rows (0 .. {rows - 1}): ask for at most "
                         f"{rows + 1 - len(ids)} new tokens")
    checked_inputs(list(ids) + [0] * max(count - 1, 0), "ids", None, None, vocab_size, None,
                   frequencies)
    return count


def checked_targets(inputs: Inputs, targets: Any, vocab_size: int) -> list[list[int]]:
    """One target per input token: an ID in 0 .. vocab_size - 1, or -100 (skip it), and
    at least one that is not -100. One sequence's targets come back as a batch of one."""
    if inputs.one:
        targets = [targets]
    inputs_ids = inputs.sequences
    if not isinstance(targets, (list, tuple)) or len(targets) != len(inputs_ids):
        raise ValueError(f"targets must be a list with one list per input sequence "
                         f"({len(inputs_ids)}), got {targets!r:.60}")
    allowed = set(range(vocab_size)) | {IGNORE}
    for b, (ids, wanted) in enumerate(zip(inputs_ids, targets)):
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
    return [list(wanted) for wanted in targets]
