"""The exercises, in the order of the chapters: what each checks, on which inputs, and why.

Every exercise names a function the learner writes in a stub file under
walkthroughs/exercises/, the inputs it is called with (fixed ones first, the
lectures' own numbers where they have them, then seeded random ones), minipe's
function it is compared with (reference.py), and the known wrong solutions
whose output names a mistake (wrong.py, mistakes.py).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from minipe.exercises import reference, wrong, wrong_1_8, wrong_9_16, wrong_17_21
from minipe.exercises import catalogue_24_26, wrong_22_23, wrong_24_26
from minipe.relative import alibi_slopes

Function = Callable[..., Any]


def call_once(function: Function, args: tuple[Any, ...]) -> Any:
    return function(*args)


def call_each(function: Function, args: tuple[Any, ...]) -> Any:
    """The function called once per item of args[0]: [f(r) for r in offsets]."""
    return [function(item) for item in args[0]]


@dataclass(frozen=True)
class Exercise:
    number: int
    stem: str  # the stub's file name without .py
    function: str  # the name the learner defines
    title: str
    chapter: str  # where the right answer lives
    cases: Callable[[], list[tuple[Any, ...]]]  # built when checked, never at import
    reference: Function
    wrong: tuple[tuple[str, Function], ...]  # (mistake key, the wrong solution)
    hint: str
    call: Callable[[Function, tuple[Any, ...]], Any] = field(default=call_once)
    real_only: bool = False  # compare only where the mask (args[0]) is 1
    copies: bool = False  # the answer's rows must be new lists, not an argument's own


def _uniform(rng: random.Random, *shape: int) -> Any:
    """Numbers in [-1, 1) of the given shape, as nested lists."""
    if len(shape) == 1:
        return [round(rng.uniform(-1, 1), 4) for _ in range(shape[0])]
    return [_uniform(rng, *shape[1:]) for _ in range(shape[0])]


def _encode_cases() -> list[tuple[Any, ...]]:
    vocabulary = ["cat", "mat", "on", "sat", "the", "<|unk|>", "<|endoftext|>"]
    return [("The cat sat on the mat", vocabulary),
            ("The dog sat on the mat.", vocabulary),
            ("On THE mat, the cat sat!", vocabulary)]


def _lookup_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(2)
    ids = [rng.randrange(50) for _ in range(12)]
    return [(reference.table_of(10, 4, 0), [3, 1, 3]),
            (reference.table_of(5, 3, 1), [0, 4, 4, 2]),
            (reference.table_of(50, 8, 2), ids)]


def _pe_position_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(3)
    return [(0, 6), (1, 6), (3, 6), (3, 8), (100, 6), (rng.randrange(1000), 16)]


def _pe_table_cases() -> list[tuple[Any, ...]]:
    return [(4, 4), (4, 6), (6, 8), (64, 32)]


def _broadcast_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(5)
    return [(_uniform(rng, 3, 3, 4), _uniform(rng, 3, 4)),
            (_uniform(rng, 2, 4, 3), _uniform(rng, 4, 3)),
            (_uniform(rng, 8, 4, 256), _uniform(rng, 4, 256))]  # lecture 001's sizes


def _softmax_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(6)
    return [([1.0, 2.0, 3.0],), ([0.0, math.log(3.0)],),
            ([round(rng.gauss(0, 3), 4) for _ in range(10)],),
            ([1000.0, 999.0, 998.0],), ([-1000.0, -1001.0],),
            ([0.0, 1000.0],), ([-1000.0, 0.0, 1000.0],)]  # wide: only the max keeps exp <= 1


def _attention_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(7)
    small = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    return [(small, small, small),
            (_uniform(rng, 4, 4), _uniform(rng, 4, 4), _uniform(rng, 4, 3)),
            (_uniform(rng, 6, 8), _uniform(rng, 6, 8), _uniform(rng, 6, 8)),
            (WIDE, WIDE, small)]  # scores up to 1600 / sqrt(2): exp overflows without the max


WIDE = [[40.0, 0.0], [0.0, 40.0], [40.0, 40.0]]


def _shift_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(8)
    return [(1, 4), (3, 6), (-2, 8), (rng.randrange(1, 50), 16)]


def _pair_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(9)
    return [(1.0, 0.0, 1, 1.0), (1.0, 2.0, 2, 1.0), (3.0, 4.0, 2, 0.01),
            (round(rng.uniform(-1, 1), 4), round(rng.uniform(-1, 1), 4), rng.randrange(100),
             round(rng.uniform(0.001, 1), 4))]


def _row_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(10)
    row = _uniform(rng, 8)
    return [([1.0, 2.0, 3.0, 4.0], 2, "interleaved"), ([1.0, 2.0, 3.0, 4.0], 2, "half"),
            (row, 7, "interleaved"), (row, 7, "half"), (_uniform(rng, 6), 0, "interleaved")]


def _alibi_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(11)
    return [(3, 0.5), (5, 0.25), (8, rng.choice(alibi_slopes(8)))]


def _t5_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(12)
    return [([-200, -10, -1, 0, 1, 10, 200],), (list(range(-20, 21)),),
            ([rng.randrange(-300, 301) for _ in range(30)],)]


def _position_ids_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(13)
    left = []
    for _ in range(4):
        pad = rng.randrange(6)
        left.append([0] * pad + [1] * (6 - pad))
    return [([[1, 1, 1, 0], [1, 1, 1, 1]],), ([[0, 0, 1, 1], [1, 1, 1, 1]],), (left,)]


def _step_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(14)
    cases: list[tuple[Any, ...]] = []
    for n, d in [(3, 4), (5, 8), (1, 4)]:  # n keys in the cache: the new token is at n
        keys = reference.turned_cache(_uniform(rng, n, d))
        cases.append((_uniform(rng, d), _uniform(rng, d), _uniform(rng, d), keys,
                      _uniform(rng, n, d)))
    wide = [40.0, 40.0, 40.0, 40.0]  # the new key's score: 6400 / sqrt(4) = 3200
    cases.append((wide, wide, _uniform(rng, 4), reference.turned_cache([wide, wide]),
                  _uniform(rng, 2, 4)))
    return cases


def _lookup_backward_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(15)
    ids = [[rng.randrange(5) for _ in range(4)] for _ in range(2)]
    return [([[1, 2, 1]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], 4),
            (ids, _uniform(rng, 8, 3), 5)]


def _broadcast_backward_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(16)
    fixed = [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]]]
    return [(fixed, 4), (_uniform(rng, 8, 4, 16), 4)]


def _pack_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(17)
    documents = [[rng.randrange(50) for _ in range(rng.randrange(1, 6))] for _ in range(4)]
    return [([[5, 1, 4], [7, 8]],), ([[3], [1, 2, 3, 4], [9, 9]],), (documents,)]


def _document_mask_cases() -> list[tuple[Any, ...]]:
    return [([0, 1, 2, 0, 1],), ([0, 1, 0],), ([0, 0, 1, 2, 3, 0, 1, 0],)]


def _evict_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(19)
    cases: list[tuple[Any, ...]] = []
    # (4, 4, 1, 3) fits exactly; (5, 4, 2, 4) has room to spare: evicted = -1, nothing goes
    for n, d, sinks, window in [(6, 4, 1, 3), (9, 6, 2, 4), (4, 4, 1, 3), (10, 4, 0, 5),
                                (5, 4, 2, 4)]:
        keys = reference.turned_cache(_uniform(rng, n, d))  # key j turned at position j
        cases.append((keys, _uniform(rng, n, d), sinks, window))
    return cases


def _partial_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(20)
    return [([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 3, 4), (_uniform(rng, 8), 5, 4),
            (_uniform(rng, 12), 11, 6), (_uniform(rng, 8), 7, 8)]


def _slopes_cases() -> list[tuple[Any, ...]]:
    return [(8,), (4,), (6,), (12,), (3,)]


def _bytes_of(*pieces: str) -> list[list[int]]:
    """Pre-tokenizer pieces, in the text's order, as their UTF-8 bytes (a trained
    tokenizer's IDs 0..255)."""
    return [list(piece.encode("utf-8")) for piece in pieces]


def _merge_step_cases() -> list[tuple[Any, ...]]:
    return [(_bytes_of("the", " cat", " sat", " on", " the", " mat"), 256),  # 'a' 't' x 3
            ([[3], [1, 2], [3], [1, 2], [3], [4, 5]], 256),  # (3, 1) x 2 only across pieces
            ([[1, 2], [2, 3], [2, 3], [1, 2]], 300),  # a tie: (1, 2) was seen first
            ([[5, 5, 5, 5], [2, 3], [2, 3]], 256),  # (5, 5) three times in one piece
            ([[7, 7, 7, 7], [7, 7, 7]], 256),  # (7, 7) five times; merged left to right
            ([[1], [2], [3]], 256),  # no pair inside a piece: nothing to merge
            (_bytes_of("low", " low", " low", " lower", " newest", " newest", " widest"), 256)]


def _windows_cases() -> list[tuple[Any, ...]]:
    rng = random.Random(23)
    ids = [rng.randrange(50257) for _ in range(14)]
    return [(list(range(10, 19)), 4, 1), (list(range(10, 16)), 2, 2), (ids, 4, 1), (ids, 4, 4),
            (ids, 4, 5), (ids[:9], 4, 2), (ids[:4], 4, 1)]


PE_MISTAKES = (("sin-cos-swapped", wrong.pe_swapped), ("halves-for-interleaved", wrong.pe_halves),
               ("base-100000", wrong.pe_with_base(100000.0)),
               ("base-1000", wrong.pe_with_base(1000.0)),
               ("positions-from-1", wrong.pe_from_1),
               *(("exponent", wrong.pe_with_exponent(e)) for e in wrong.EXPONENTS))

_EXERCISES = (
    Exercise(1, "01_encode", "encode", "tokenize and encode, with <|unk|>", "minipe/tokenizer.py",
             _encode_cases, reference.encode, (),
             "Lower-case the text, find its tokens with "
             "re.findall(r\"<\\|\\w+\\|>|\\w+|[^\\w\\s]\", text), then give each token "
             "its index in the vocabulary, or the index of '<|unk|>' when it is not there "
             "(dict.get takes a default)."),
    Exercise(2, "02_lookup", "lookup", "an embedding lookup", "minipe/embedding.py",
             _lookup_cases, reference.lookup, (("ids-from-1", wrong.lookup_from_1),),
             "Nothing is multiplied: the answer's row t is the table's row ids[t]. Copy the "
             "row (list(table[i])), so that changing the answer leaves the table alone.",
             copies=True),
    Exercise(3, "03_pe_position", "pe_position", "PE(pos) for d_model = 6",
             "minipe/positional.py", _pe_position_cases, reference.pe_position, PE_MISTAKES,
             "Loop over the pairs i = 0 .. d_model/2 - 1; for each, one angle "
             "pos / 10000 ** (2 * i / d_model); append its sine, then its cosine."),
    Exercise(4, "04_pe_table", "pe_table", "the sinusoidal table", "minipe/positional.py",
             _pe_table_cases, reference.pe_table,
             tuple((key, wrong.table_of_rows(pe)) for key, pe in PE_MISTAKES),
             "Row pos is PE(pos) of exercise 3, for pos = 0 .. num_positions - 1: one row per "
             "position, positions from 0."),
    Exercise(5, "05_add_positions", "add_positions", "broadcasting a (4, 256) table over "
             "(8, 4, 256)", "minipe/positional.py", _broadcast_cases, reference.add_positions,
             (("wrong-axis", wrong.add_along_batch),),
             "Three loops, over b, t and the numbers of a row: out[b][t][c] = tokens[b][t][c] "
             "+ table[t][c]. The table has no b: the same row t goes to every sequence."),
    Exercise(6, "06_softmax", "softmax", "the stable softmax", "minipe/attention.py",
             _softmax_cases, reference.softmax,
             (("softmax-min", wrong.softmax_min), ("softmax-mean", wrong.softmax_mean),
              ("softmax-no-max", wrong.softmax_no_max),
              ("max-in-numerator-only", wrong.softmax_max_in_numerator)),
             "m = max(scores); exps = [math.exp(x - m) for x in scores]; then divide each by "
             "their sum. No exp is ever above 1."),
    Exercise(7, "07_causal_attention", "causal_attention", "one attention head with the "
             "causal mask", "minipe/attention.py", _attention_cases, reference.causal_attention,
             (("missing-sqrt", wrong.attention_unscaled), ("mask-zero", wrong.attention_mask_zero),
              ("mask-missing", wrong.attention_no_mask),
              ("mask-after-softmax", wrong.attention_mask_after_softmax),
              ("sqrt-of-n", wrong.attention_scaled_by_n),
              ("mask-strict", wrong.attention_strict(stable=True)),
              ("mask-strict", wrong.attention_strict(stable=False)),
              ("softmax-no-max", wrong.attention_naive_softmax)),
             "For each query i: scores q_i . k_j / sqrt(d_k) for every j, -inf for j > i, "
             "softmax them (exercise 6), and the output is sum_j weight_j * v_j."),
    Exercise(8, "08_shift_matrix", "shift_matrix", "the shift matrix M_k",
             "minipe/positional.py", _shift_cases, reference.shift_matrix,
             (("shift-the-wrong-way", wrong.shift_back),
              ("base-100000", wrong.shift_with_base(100000.0)),
              ("base-1000", wrong.shift_with_base(1000.0)),
              ("exponent", wrong.shift_with_exponent(lambda i, d_model: i / d_model))),
             "Start from d_model rows of zeros. For pair i, w = 1 / 10000 ** (2 * i / d_model) "
             "and the block at rows and columns (2i, 2i+1) is [[cos kw, sin kw], "
             "[-sin kw, cos kw]]."),
    Exercise(9, "09_turn_pair", "turn_pair", "turning one RoPE pair", "minipe/rotary.py",
             _pair_cases, reference.turn_pair,
             (("turned-the-wrong-way", wrong.turn_back),
              ("rope-positions-from-1", wrong.turn_from_1)),
             "a = pos * theta; return [x * cos a - y * sin a, x * sin a + y * cos a]."),
    Exercise(10, "10_rotate_row", "rotate_row", "a whole row, in both layouts",
             "minipe/rotary.py", _row_cases, reference.rotate_row,
             (("rope-half-for-interleaved", wrong.rotate_in_layout("half")),
              ("rope-interleaved-for-half", wrong.rotate_in_layout("interleaved")),
              ("rope-base-100000", wrong.rotate_with_base(100000.0)),
              ("rope-base-1000", wrong.rotate_with_base(1000.0)),
              ("rope-positions-from-1", wrong.rotate_from_1),
              ("rope-exponent", wrong.rotate_without_the_2)),
             "First the pairs: (2i, 2i+1) interleaved, (i, i + d/2) half. Then turn pair i "
             "by pos * 10000 ** (-2 * i / d), as in exercise 9, into a copy of the row."),
    Exercise(11, "11_alibi", "alibi", "ALiBi's bias", "minipe/relative.py", _alibi_cases,
             reference.alibi,
             (("alibi-sign", wrong.alibi_flipped), ("alibi-no-mask", wrong.alibi_no_mask),
              ("alibi-no-mask", wrong.alibi_symmetric), ("mask-strict", wrong.alibi_strict),
              ("mask-zero", wrong.alibi_zero_above)),
             "Row i, column j: -slope * (i - j) when j <= i, and -math.inf when j > i (the "
             "causal mask). The diagonal is 0.0."),
    Exercise(12, "12_t5_bucket", "t5_bucket", "T5's bucket", "minipe/relative.py", _t5_cases,
             reference.t5_bucket,
             (("t5-sides-swapped", wrong.t5_swapped), ("t5-no-clamp", wrong.t5_no_clamp),
              ("t5-not-halved", wrong.t5_not_halved), ("t5-zero-upper", wrong.t5_zero_upper),
              ("t5-not-halved", wrong.t5_exact_not_halved)),
             "B = 16 buckets per side, E = 8 exact ones. Keys after the query (r > 0) add 16. "
             "n = |r|; n < 8 -> n; else 8 + int(log(n / 8) / log(128 / 8) * 8), at most 15.",
             call=call_each),
    Exercise(13, "13_position_ids", "position_ids", "position_ids from a padding mask",
             "minipe/batches.py", _position_ids_cases, reference.position_ids,
             (("arange-for-cumsum", wrong.position_ids_arange),
              ("position-ids-from-1", wrong.position_ids_from_1)),
             "Walk along each row keeping a running count of the 1s seen so far (cumsum); a "
             "real token's position is that count minus 1.", real_only=True),
    Exercise(14, "14_cached_step", "cached_step", "one cached generation step",
             "minipe/rotary.py", _step_cases, reference.cached_step,
             (("keys-turned-twice", wrong.step_keys_twice),
              ("keys-turned-twice", wrong.step_all_keys_twice),
              ("missing-sqrt", wrong.step_unscaled),
              ("query-not-turned", wrong.step_query_not_turned),
              ("new-token-at-0", wrong.step_at_0), ("v-turned", wrong.step_v_turned),
              ("softmax-no-max", wrong.step_naive_softmax)),
             "n = len(keys) is the new token's position. Turn q and k by n (exercise 10, or "
             "minipe.apply_rotary with start=n), append k to the keys and v to the values, "
             "and attend with the one query: softmax(q K^T / sqrt(d)) V."),
    Exercise(15, "15_lookup_backward", "lookup_backward", "the lookup's backward",
             "minipe/training/gradients.py", _lookup_backward_cases, reference.lookup_backward,
             (("lookup-overwrites", wrong.lookup_backward_overwrites),
              ("lookup-batch-offset", wrong.lookup_backward_no_offset)),
             "Start from vocab_size rows of zeros; walk the IDs of every sequence in order "
             "beside the rows of d_X, and add each row into the row of its ID."),
    Exercise(16, "16_broadcast_backward", "broadcast_backward", "the broadcast's backward",
             "minipe/training/gradients.py", _broadcast_backward_cases, reference.broadcast_backward,
             (("backward-wrong-axis", wrong.broadcast_backward_along_t),
              ("mean-for-sum", wrong.broadcast_backward_mean)),
             "Start from context_length rows of zeros; for every sequence b and every t, add "
             "d_X[b][t] into row t."),
    Exercise(17, "17_pack_documents", "pack_documents", "packing documents into one sequence",
             "minipe/batches.py", _pack_cases, reference.pack,
             (("positions-not-restarted", wrong_17_21.pack_positions_arange),
              ("labels-not-ignored", wrong_17_21.pack_labels_kept),
              ("labels-not-ignored", wrong_17_21.pack_labels_first_only),
              ("labels-shifted", wrong_17_21.pack_labels_shifted)),
             "Three lists, grown document by document: ids += document; position_ids += "
             "0 .. len(document) - 1; labels += [-100] + document[1:]."),
    Exercise(18, "18_document_mask", "document_mask", "the document mask of a packed sequence",
             "minipe/batches.py", _document_mask_cases, reference.document_mask,
             (("document-mask-not-causal", wrong_17_21.document_mask_not_causal),
              ("document-mask-causal-only", wrong_17_21.document_mask_causal_only),
              ("mask-strict", wrong_17_21.document_mask_strict)),
             "Token t's document starts at t - position_ids[t]. Row i, column j is True when "
             "j's start is i's start and j <= i."),
    Exercise(19, "19_evict", "evict", "evicting a RoPE cache: sinks and a window",
             "minipe/training/generation.py", _evict_cases, reference.evict,
             (("evict-not-turned-back", wrong_17_21.evict_not_turned_back),
              ("evict-turned-forward", wrong_17_21.evict_turned_forward),
              ("evict-values-turned", wrong_17_21.evict_values_turned),
              ("evict-no-sinks", wrong_17_21.evict_no_sinks)),
             "evicted = len(keys) - sinks - window; if it is 0 or less, keep everything. Else "
             "keep keys[:sinks] and the last `window` keys, each turned back by evicted "
             "(exercise 10's rotation at position -evicted); the values likewise, unturned."),
    Exercise(20, "20_partial_rotary", "partial_rotary", "partial rotary: turning part of a head",
             "minipe/training/heads.py", _partial_cases, reference.partial_rotary,
             (("partial-theta-of-d", wrong_17_21.partial_theta_of_d),
              ("partial-wrong-columns", wrong_17_21.partial_last_columns),
              ("partial-wrong-columns", wrong_17_21.partial_whole_row)),
             "Turn row[:rotary_dims] as exercise 10 does (interleaved), but with theta_i = "
             "10000 ** (-2 * i / rotary_dims); then append row[rotary_dims:] as it is."),
    Exercise(21, "21_alibi_slopes", "alibi_slopes", "ALiBi's slope for every head",
             "minipe/relative.py", _slopes_cases, reference.alibi_slopes,
             (("slopes-geometric-for-any-n", wrong_17_21.slopes_geometric),
              ("slopes-from-h0", wrong_17_21.slopes_from_h0),
              ("slopes-extra-not-every-other", wrong_17_21.slopes_extra_not_every_other)),
             "power = the largest power of two <= num_heads; slopes 2 ** (-8 * (h + 1) / "
             "power) for h < power; then, while some are missing, every other slope of "
             "2 * power: 2 ** (-8 * (h + 1) / (2 * power)) for h = 0, 2, 4, ..."),
    Exercise(22, "22_merge_step", "merge_step", "one step of training a BPE: merge a pair",
             "minipe/subword.py", _merge_step_cases, reference.merge_step,
             (("merge-across-pieces", wrong_22_23.merge_across_pieces),
              ("ties-to-the-last", wrong_22_23.ties_to_the_last),
              ("merge-first-only", wrong_22_23.merge_first_only)),
             "Count every neighbouring pair inside each piece (zip(piece, piece[1:])), in a "
             "dict that keeps the order pairs were first seen; max(counts, key=counts.get) "
             "is the pair; then walk each piece left to right, writing new_id for the pair "
             "and skipping both its tokens."),
    Exercise(23, "23_windows", "sliding_windows", "sliding windows: inputs and targets",
             "minipe/subword.py", _windows_cases, reference.windows,
             (("stride-skips", wrong_22_23.windows_step_past_the_target),
              ("stride-as-overlap", wrong_22_23.windows_stride_as_overlap),
              ("targets-not-shifted", wrong_22_23.windows_targets_not_shifted),
              ("windows-stop-early", wrong_22_23.windows_stop_early)),
             "for start in range(0, len(ids) - max_length, stride): inputs are "
             "ids[start:start + max_length], targets the same slice one token to the right."),
    Exercise(24, "24_round_to", "round_to", "a number stored in bfloat16 or float16, by hand",
             "minipe/numerics.py", catalogue_24_26.round_cases, reference.round_to,
             wrong_24_26.WRONG[24],
             "0, inf and nan come back as they are. e = math.frexp(abs(x))[1] - 1; spacing "
             "= 2.0 ** (max(e, emin) - p + 1); rounded = round(abs(x) / spacing) * spacing "
             "(round() sends a tie to even); inf if rounded > (2 - 2 ** (1 - p)) * 2 ** emax; "
             "math.copysign(rounded, x)."),
    Exercise(25, "25_layer_norm_backward", "layer_norm_backward", "the layer norm's backward",
             "minipe/training/block.py", catalogue_24_26.layer_norm_cases,
             reference.layer_norm_backward, wrong_24_26.WRONG[25],
             "Row by row: mean, centred = x - mean, var = mean(centred ** 2), r = 1 / "
             "sqrt(var + eps), x_hat = centred * r; g = dy * w; then "
             "dx_j = r * (g_j - mean(g) - x_hat_j * mean(g * x_hat))."),
    Exercise(26, "26_rope_turns", "rope_turns", "RoPE's cos and sin in low precision, fixed",
             "minipe/low_precision.py", catalogue_24_26.rope_cases, reference.rope_turns,
             wrong_24_26.WRONG[26],
             "For each pair i: theta = round_to(10000 ** (-2 * i / d), 'float32'); angle = "
             "round_to(pos * theta, 'float32'); then round_to(math.cos(angle), dtype) and "
             "round_to(math.sin(angle), dtype). Only the last two are in dtype."),
)
# the mistakes found by wrong answers written from outside the checker, after each's own
MORE = {**wrong_1_8.MORE, **wrong_9_16.MORE, **wrong_17_21.MORE, **wrong_22_23.MORE}
EXERCISES = tuple(replace(item, wrong=item.wrong + MORE.get(item.number, ()))
                  for item in _EXERCISES)


def exercise(number: int) -> Exercise:
    """Exercise `number`, 1 .. len(EXERCISES)."""
    return EXERCISES[number - 1]
