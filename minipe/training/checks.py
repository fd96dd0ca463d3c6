"""Chapter 10's door: what `TinyModel` accepts, and the sentences it says otherwise.

A model's settings, its tables by name, RoPE's theta_i and scale, ALiBi's
slopes, the sequences it reads and the targets it is taught: each is checked
here once, with a sentence naming the argument and the valid range, and what
minipe/training/model.py and the passes compute trusts them. What a chapter's
own function checks when the model calls it (the base of rotary_thetas, the
positions of alibi_bias_at) is left to that chapter's door. They live apart
so that model.py reads as the model, as appendix A's checks live in
minipe/arrays/checks.py.

>>> from minipe.training import TinyModel
>>> model = TinyModel(vocab_size=5, d_model=4, context_length=4)
>>> checked_examples(model, [[0, 1]], [[-100, -100]], None, None)
Traceback (most recent call last):
ValueError: every target is -100: with nothing to predict, the loss (a mean over the \
targets) is undefined
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Mapping

from minipe.arrays import Matrix
from minipe.checks import (MAX_NUMBERS, check_axis, check_frequencies, check_ids, check_mask,
                           check_table_size, check_type, check_unused, checked_base,
                           checked_flag, checked_number, checked_positions, checked_size)
from minipe.pipeline import ALIBI_SLOPE, check_settings
from minipe.relative import LARGEST_SLOPE, alibi_slopes
from minipe.training.gradients import IGNORE
from minipe.training.passes import Inputs

TABLES_KEPT = ("the tables given (dataclasses.replace keeps a model's) fix vocab_size, d_model, "
               "context_length, positions, num_layers, mlp and norm; to change one, pass "
               "weights=None as well, and new tables are drawn from seed")
NORMS = (None, "layer", "rms")  # a block model's norm: none, layer_norm, rms_norm
LARGEST_WEIGHT = 1e30  # dW_q = x^T dq multiplies 6 weights: 1e180, far below 1.8e308
MAX_TOKENS = math.isqrt(MAX_NUMBERS)  # 11,180: n x n attention weights fit in memory
LARGEST_SCALE = 1e6  # YaRN's is 0.1 ln(factor) + 1, near 1; scores grow with its square
ONLY = (  # a setting only one kind of positions has: (name, that kind, else, what it does)
    ("rotary_fraction", "rope", 1.0, "only a RoPE model turns a fraction of each head"),
    ("frequencies", "rope", None, "only a RoPE model turns q and k by frequencies theta_i"),
    ("attention_scale", "rope", 1.0, "only a RoPE model turns q and k by frequencies theta_i "
                                     "and scales them"),
    ("alibi_slopes", "alibi", None, "only an ALiBi model has slopes m"),
)


def checked_model(model: Any, shapes: Callable[[], dict[str, tuple[int, int]]]
                  ) -> tuple[float, float, Any, tuple[float, ...] | None]:
    """Every setting of a TinyModel, once: sizes >= 1 (seed >= 0), a flag, a base > 0, a known
    kind of positions, tables that fit in memory, num_heads dividing d_model; the settings
    only one kind has; the tables, RoPE's theta_i and ALiBi's slopes if given. Returns the
    base, attention_scale, theta_i and the slopes (a tuple) as given: None where they were
    made from the settings (dataclasses.replace then makes them again from the new ones)."""
    d, positions = model.d_model, model.positions
    check_settings(d, positions, model.seed, model.causal)  # run()'s, chapter 9: the same
    for name in ("vocab_size", "context_length", "num_heads", "num_layers"):
        checked_size(getattr(model, name), name)
    checked_flag(model.mlp, "mlp")
    if model.norm not in NORMS:
        raise ValueError(f"norm must be None (no norm), 'layer' (layer_norm) or 'rms' "
                         f"(rms_norm): the norm each layer's rows pass before its heads and "
                         f"MLP; got {model.norm!r:.60}")
    base = checked_base(model.base)
    rows = model.context_length if positions == "learned" else 0
    layers = model.num_layers * (3 + 8 * model.mlp)  # W_q, W_k, W_v (+ W_1, W_2: 8 d x d)
    check_table_size((2 * model.vocab_size + rows + layers * d) * d,
                     f"TinyModel's tables, (2 vocab_size + {layers} d_model"
                     + (" + context_length" if rows else "") + ") x d_model,")
    if d % model.num_heads:
        raise ValueError(f"num_heads={model.num_heads} must divide d_model={d}: each head "
                         f"takes head_dim = d_model / num_heads of the columns of q, k and v")
    for name, kind, otherwise, what in ONLY:
        if positions != kind:
            check_unused(_given(getattr(model, name)), name, otherwise,
                         f"{what}; this one has positions={positions!r}")
    if model.weights is not None:
        _check_parameters(model.weights, shapes())
    scale = _checked_rope(model) if positions == "rope" else 1.0
    return (base, scale, _given(model.frequencies),
            _checked_slopes(_given(model.alibi_slopes), model.num_heads))


def _given(value: object) -> Any:
    """A setting as given, or None if the model made it from its other settings."""
    return None if getattr(value, "made_from_settings", False) else value


def _check_parameters(parameters: Any, shapes: dict[str, tuple[int, int]]) -> None:
    """A model's tables by name: exactly the names of `shapes`, each a Matrix of its shape
    whose numbers are finite and at most LARGEST_WEIGHT in size."""
    check_type(parameters, Mapping, "parameters must be a dict of tables by name")
    extra = sorted(set(parameters) - set(shapes))
    if extra:
        raise ValueError(f"this model has no parameters named {extra}; it has "
                         f"{sorted(shapes)}: {TABLES_KEPT}")
    for name, shape in shapes.items():
        table = parameters.get(name)
        check_type(table, Matrix, f"parameters[{name!r}] must be a Matrix of shape {shape}",
                   f" (None: missing; the model needs every table parameters() gives): "
                   f"{TABLES_KEPT}")
        check_axis(f"parameters[{name!r}]", table.shape, f"the {name} these settings need",
                   shape, TABLES_KEPT)
        largest = max(max(map(abs, row)) for row in table.rows)  # inf if any is
        if not largest <= LARGEST_WEIGHT:
            raise ValueError(f"parameters[{name!r}] holds a number of size {largest:g}; "
                             f"weights must be finite and at most {LARGEST_WEIGHT:g}, so "
                             f"that the products of the forward and backward passes stay "
                             f"below a float's limit, about 1.8e308")


def _checked_rope(model: Any) -> float:
    """RoPE's rotary_fraction of each head (an even whole number of columns, at least 2),
    theta_i if given (one per pair), and a scale in (0, LARGEST_SCALE], returned."""
    head_dim = model.d_model // model.num_heads
    fraction = checked_number(model.rotary_fraction, "rotary_fraction")
    rotary_dims = fraction * head_dim  # (an odd d_model: check_settings said so, above)
    if not (0 < fraction <= 1 and rotary_dims % 2 == 0):
        raise ValueError(f"rotary_fraction={model.rotary_fraction!r} of head_dim={head_dim} "
                         f"gives {rotary_dims:g} dimensions to turn; RoPE turns pairs, so it "
                         f"must be a fraction in (0, 1] giving an even whole number, such as "
                         f"{2 / head_dim:g} (one pair)"
                         + (f" or 1.0 (all {head_dim})" if head_dim % 2 == 0 else ""))
    if _given(model.frequencies) is not None:
        check_frequencies(model.frequencies, int(rotary_dims) // 2,
                          "d_model/2" if rotary_dims == model.d_model else "rotary_dims/2")
    scale = checked_number(model.attention_scale, "attention_scale")
    if not 0 < scale <= LARGEST_SCALE:
        raise ValueError(f"attention_scale multiplies q and k, so it must be a number > 0 "
                         f"and at most {LARGEST_SCALE:g} (YaRN's is near 1, and the "
                         f"scores grow with its square); got {scale}")
    return scale


def _checked_slopes(slopes: object, num_heads: int) -> tuple[float, ...] | None:
    """ALiBi's slopes if given: a tuple of one finite m > 0 per head."""
    if slopes is None:
        return None
    if not isinstance(slopes, (tuple, list)) or len(slopes) != num_heads:
        example = (ALIBI_SLOPE,) if num_heads == 1 else tuple(alibi_slopes(num_heads))
        raise ValueError(f"slopes must be a tuple of {num_heads} number"
                         f"{'s' if num_heads > 1 else ''}, one m per head, such as "
                         f"{example}; got {slopes!r:.60} (the slopes given are kept by "
                         f"dataclasses.replace: for num_heads={num_heads}, pass "
                         f"alibi_slopes=None)")
    checked = tuple(checked_number(m, f"slopes[{h}]") for h, m in enumerate(slopes))
    if not all(0 < m <= LARGEST_SLOPE for m in checked):
        raise ValueError(f"each ALiBi slope m must be a finite number > 0 and at most "
                         f"{LARGEST_SLOPE:g} (the penalty -m |i - j| grows with distance, and "
                         f"past that it overflows to -inf at a distance up to 2**53), got "
                         f"{slopes!r}")
    return checked


def checked_inputs(model: Any, ids: Any, name: str, attention_mask: Any, position_ids: Any, *,
                   same_length: bool = False) -> Inputs:
    """One sequence of IDs in 0 .. vocab_size - 1, or a non-empty batch of them; a mask per
    token (0/1) or an (n, n) table of booleans per sequence; a position per token, within
    a learned table's rows (that pos * theta_i is a float, apply_rotary's door says).

    Hugging Face's way: `ids` a list of ints is one sequence, a list of lists a batch,
    and attention_mask and position_ids have the shape of `ids`. A 0/1 mask comes back as
    the (n, n) table it means: every query sees the keys that are 1 (real tokens).
    """
    one = isinstance(ids, (list, tuple)) and bool(ids) and not isinstance(ids[0], (list, tuple))
    sequences, masks, positions = (([ids], [attention_mask], [position_ids]) if one
                                   else (ids, attention_mask, position_ids))
    if isinstance(ids, (list, tuple)) and not ids:
        raise ValueError(f"{name} is empty: a model reads at least one token (one sequence "
                         f"is a list of IDs, a batch a list of such lists)")
    if not isinstance(sequences, (list, tuple)) or not sequences:
        raise TypeError(f"{name} must be a sequence of IDs or a non-empty list of them, "
                        f"got {ids!r:.60}")
    lengths = sorted(set(map(len, sequences)))
    if same_length and len(lengths) > 1:
        raise ValueError(f"the sequences of {name} have {lengths[0]} to {lengths[-1]} tokens; "
                         f"a batch's are padded to one length (Tokenizer.encode_batch), "
                         f"with an attention_mask saying which tokens are padding")
    tables: list[list[list[bool]] | None] = (  # (n, n) per sequence, or None: no mask
        [None] * len(sequences) if masks in (None, [None])
        else _checked_masks(masks, sequences, one))
    positions = (None if positions in (None, [None])
                 else _checked_positions(positions, sequences, one))
    rows = model.context_length if model.positions == "learned" else math.inf
    for b, sequence in enumerate(sequences):
        n, at = len(sequence), "" if one else f"[{b}]"  # name[b], or name for one sequence
        check_ids(sequence, model.vocab_size, name + at,
                  f"is out of range: this model has vocab_size={model.vocab_size}, so")
        last = n - 1 if positions is None else max(positions[b])
        if last >= rows:
            who, span = ((f"{name}{at} has {n} tokens", "") if positions is None else
                         (f"position_ids{at} go up to {last}", f" (0 .. {rows - 1})"))
            raise ValueError(f"{who}, but a learned position table has only context_length="
                             f"{rows} rows{span}: there is no row for position "
                             f"{rows if positions is None else last} to look up")
        check_table_size(n * n, f"the attention weights for {name}{at}, n x n,")
    return Inputs([list(sequence) for sequence in sequences], tables, positions, one)


def checked_sequence(model: Any, ids: Any, position_ids: Any) -> Inputs:
    """One sequence of IDs (a lesson reads one at a time) and its positions, as checked_inputs."""
    if isinstance(ids, (list, tuple)) and ids and isinstance(ids[0], (list, tuple)):
        raise TypeError(f"ids must be one sequence of IDs (a list of ints): the residual "
                        f"stream and the attention weights are read one sequence at a time, "
                        f"got a batch of {len(ids)}")
    return checked_inputs(model, ids, "ids", None, position_ids)


def _checked_masks(masks: Any, sequences: Any, one: bool) -> list[list[list[bool]] | None]:
    """Each mask as the (n, n) table it means: a 0/1 per token hides the keys that are 0
    (padding) from every query; a table is chapter 4's boolean (query, key) mask."""
    _check_one_each(masks, sequences, "attention_mask must hold one mask per sequence")
    tables: list[list[list[bool]] | None] = []
    for b, (mask, sequence) in enumerate(zip(masks, sequences)):
        n, where = len(sequence), "attention_mask" if one else f"attention_mask[{b}]"
        if isinstance(mask, (list, tuple)) and mask and isinstance(mask[0], (list, tuple)):
            check_mask(mask, n, n, where, bias=False)  # (n, n): query i may attend key j
            tables.append([list(map(bool, row)) for row in mask])
            continue
        if not (isinstance(mask, (list, tuple)) and len(mask) == n
                and all(type(m) in (int, bool) and m in (0, 1) for m in mask)):
            raise ValueError(f"{where} must hold a 0 or 1 per token ({n}: 1 = a real token, 0 = "
                             f"padding), or an ({n}, {n}) table of True and False (True where "
                             f"query i may attend key j); got {mask!r:.60}")
        tables.append([[m == 1 for m in mask]] * n)  # key j: a real token, or padding
    return tables


def _checked_positions(positions: Any, sequences: Any, one: bool) -> list[list[int]]:
    """position_ids: one whole number >= 0 per token, at most 2**53."""
    _check_one_each(positions, sequences, "position_ids must hold one list per sequence")
    return [checked_positions(pos, "position_ids" if one else f"position_ids[{b}]",
                              "int positions, one per token", len(sequence),
                              f"there are {len(sequence)} tokens: one position per token")
            for b, (pos, sequence) in enumerate(zip(positions, sequences))]


def _check_one_each(given: object, sequences: list[list[int]], each: str) -> None:
    if not isinstance(given, (list, tuple)) or len(given) != len(sequences):
        raise ValueError(f"{each} ({len(sequences)}), got {given!r:.60}")


def checked_examples(model: Any, inputs: object, targets: Any, attention_mask: object,
                     position_ids: object) -> tuple[Inputs, list[list[int]]]:
    """The inputs (checked_inputs), and one target per input token: an ID in 0 ..
    vocab_size - 1, or -100 (skip it), at least one that is not -100. One sequence's
    targets come back as a batch of one."""
    given = checked_inputs(model, inputs, "inputs", attention_mask, position_ids)
    targets = [targets] if given.one else targets
    _check_one_each(targets, given.sequences,
                    "targets must be a list with one list per input sequence")
    allowed = set(range(model.vocab_size)) | {IGNORE}
    for b, (ids, wanted) in enumerate(zip(given.sequences, targets)):
        if not isinstance(wanted, (list, tuple)) or len(wanted) != len(ids):
            raise ValueError(f"targets[{b}] must hold one target per token of inputs[{b}] "
                             f"({len(ids)}), got {wanted!r:.60}")
        if operator.countOf(map(type, wanted), int) == len(wanted) and allowed >= set(wanted):
            continue  # the usual list, looked at whole; a bad one is read target by target
        for t, target in enumerate(wanted):
            if type(target) is not int or target not in allowed:
                raise ValueError(f"targets[{b}][{t}] = {target!r}: a target is an ID in "
                                 f"0..{model.vocab_size - 1}, or -100 to skip that position")
    if sum(map(len, targets)) == sum(wanted.count(IGNORE) for wanted in targets):
        raise ValueError("every target is -100: with nothing to predict, the loss (a mean "
                         "over the targets) is undefined")
    return given, [list(wanted) for wanted in targets]


def checked_generation(model: Any, ids: object, max_new_tokens: object,
                       use_cache: object) -> int:
    """A prompt of IDs, a count >= 0 of new tokens, a flag, a causal model; a learned table
    needs a row for every position fed in: the prompt's and all new ones but the last; the
    prompt and the new tokens at most MAX_TOKENS, checked before anything is built."""
    if not isinstance(ids, (list, tuple)) or not ids or isinstance(ids[0], (list, tuple)):
        raise TypeError(f"ids must be one non-empty sequence of IDs (the prompt), "
                        f"got {ids!r:.60}")
    count = checked_size(max_new_tokens, "max_new_tokens", minimum=0)
    checked_flag(use_cache, "use_cache")
    if not model.causal:
        raise ValueError("generate needs a causal model (causal=True): a cache keeps the "
                         "keys and values of earlier tokens unchanged, which is true only "
                         "when no token sees the ones after it")
    prompt, rows = len(ids), model.context_length
    if model.positions == "learned" and prompt > rows:
        raise ValueError(f"the prompt ids has {prompt} tokens, but a learned position table "
                         f"has only context_length={rows} rows (0 .. {rows - 1}): the prompt "
                         f"alone does not fit; give at most its last {rows} tokens")
    last = prompt + count - 2  # the last new token is not fed
    if model.positions == "learned" and last >= rows:
        raise ValueError(f"a prompt of {prompt} tokens and max_new_tokens={count} feed the "
                         f"model positions up to {last}, but a learned position table has "
                         f"only context_length={rows} rows (0 .. {rows - 1}): ask for at most "
                         f"{rows + 1 - prompt} new tokens")
    n = prompt + count  # the tokens generation ends with
    if n * n > MAX_NUMBERS:  # the cache: n (n + 1) / 2 scores per head; without, n x n at once
        raise ValueError(f"a prompt of {prompt} tokens and max_new_tokens={count} make "
                         f"n = {n:,} tokens; " + (
                             "with the cache, token p computes p + 1 scores per head, "
                             f"about n**2 / 2 = {n * n // 2:,} in all, one at a time"
                             if use_cache else "without the cache, the last pass holds n x n "
                             f"= {n * n:,} attention weights")
                         + f"; minipe generates at most {MAX_TOKENS:,} tokens in all, so ask "
                         f"for at most {max(MAX_TOKENS - prompt, 0):,} new tokens")
    checked_inputs(model, ids, "ids", None, None)  # the prompt's IDs
    return count
