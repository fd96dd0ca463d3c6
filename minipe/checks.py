"""The argument checks every chapter shares, and the sentences they fail with.

A learner's mistake should end in an error that names the argument, what it
got, and what is allowed - at the public function, not three frames down:

>>> checked_size(0, "d_model")
Traceback (most recent call last):
ValueError: d_model must be >= 1, got 0

Not a chapter of the pipeline: the plumbing each chapter would otherwise repeat.
"""

from __future__ import annotations

import math
import operator
import sys
from collections.abc import Iterable, Mapping, Set as AbstractSet  # isinstance: quicker
from typing import Sequence


class ShapeError(ValueError):
    """Two shapes that disagree: in `+`, `@`, `dot`, attention, or a ragged list.

    It is a ValueError, so `except ValueError` catches it too.
    """


def checked_number(value: object, where: str) -> float:
    """A float from `value`, or an error naming `where` it came from."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where} must be a number, got {value!r} ({type(value).__name__})")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"{where} = {value} is too large for a float (about 1.8e308 at most)") \
            from None
    if number != number:
        raise ValueError(f"{where} is NaN (inf - inf and inf * 0 make NaN); minipe refuses "
                         f"NaN so it cannot spread silently")
    return number


def checked_values(values: object, what: str) -> tuple[float, ...]:
    """`values` as a tuple of floats, read number by number; an error names the first bad one.

    Vector's constructor takes a quicker look first and calls this only for a
    row that fails it, so the sentence can say which number is wrong.
    """
    if isinstance(values, (str, bytes, AbstractSet, Mapping)) or not isinstance(values, Iterable):
        raise TypeError(f"{what} must be a list of numbers, got {type(values).__name__}"
                        + (" (a set or a dict keeps no order of its own for the numbers)"
                           if isinstance(values, (AbstractSet, Mapping)) else ""))
    numbers = tuple([checked_number(x, f"{what}[{j}]") for j, x in enumerate(values)])
    if not numbers:
        raise ValueError(f"{what} is empty; it needs at least one number")
    return numbers


def checked_base(base: object) -> float:
    """The base of the sinusoids' and RoPE's frequencies: a finite number > 0."""
    if isinstance(base, bool) or not isinstance(base, (int, float)):
        raise TypeError(f"base must be a number, got {base!r}")
    if not 0 < base <= sys.float_info.max:  # NaN, inf, and ints too large for a float fail
        shown = base if isinstance(base, float) else _count(base)
        raise ValueError(f"base must be a finite number > 0 (the 2017 paper, RoFormer and "
                         f"Llama use 10000), got {shown}")
    return float(base)


def checked_rotary_width(d: object, name: str = "d", who: str = "RoPE") -> int:
    """d, if it is an even int >= 2: RoPE turns the numbers two at a time. `name` is the
    argument's name, `who` what needs it (a class, or "positions='rope'"). Chapters 5, 7, 9, 10.

    >>> checked_rotary_width(3, "d_model")
    Traceback (most recent call last):
    ValueError: RoPE needs an even d_model, got d_model=3: it turns the numbers of q and k two \
at a time, one angle theta_i per pair, so an odd one would have no partner
    """
    width = checked_size(d, name)
    check_table_size(width // 2, f"{name}={_count(width)} (RoPE turns a head's width: 64 or 128 "
                                 f"in most models) means d/2 = {_count(width // 2)} angles "
                                 f"theta_i: that")
    if width % 2:
        raise ValueError(f"{who} needs an even {name}, got {name}={d}: it turns the numbers "
                         f"of q and k two at a time, one angle theta_i per pair, so an odd "
                         f"one would have no partner")
    return width


def check_frequencies(frequencies: object, pairs: int, width: str = "d/2") -> None:
    """theta_i given by hand: a Vector of one finite angle > 0 per pair (`pairs` of them,
    `width` saying where that number comes from, e.g. "d_model/2"). Chapters 5 and 10.

    A Vector is known here by its shape, (pairs,): this module imports nothing of minipe.
    """
    if getattr(frequencies, "shape", None) != (pairs,) \
            or not all(0 < theta < math.inf for theta in frequencies):  # type: ignore[attr-defined]
        raise ValueError(f"frequencies must be a Vector of {width} = {pairs} finite angles "
                         f"theta_i > 0, one per pair (rope_frequencies makes them), got "
                         f"{frequencies!r:.80}")


def checked_size(value: object, name: str, minimum: int = 1) -> int:
    """`value` if it is an int >= minimum; else an error naming the argument.

    Every chapter checks its sizes (d_model, num_embeddings, ...) with this.
    """
    if type(value) is int and value >= minimum:
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {value!r} ({type(value).__name__})")
    raise ValueError(f"{name} must be >= {minimum}, got {value}")


EXACT_INTEGERS = 2**53  # a float holds every integer up to here; past it, pos and pos + 1 merge


def checked_position(value: object, name: str, minimum: int = 0) -> int:
    """An int position (or offset, with a negative minimum) at most 2**53 from 0.

    Angles are pos / base**(2i / d_model), computed in floats; past 2**53 a float
    cannot tell pos from pos + 1, so the table would silently repeat rows.
    """
    position = checked_size(value, name, minimum)
    if abs(position) > EXACT_INTEGERS:
        shown = ("-" if position < 0 else "") + _count(abs(position))
        raise ValueError(f"{name} = {shown} is past 2**53 = {EXACT_INTEGERS:,}, where floats "
                         f"stop counting every integer (pos and pos + 1 become one number)")
    return position


def checked_flag(value: object, name: str) -> bool:
    """`value` if it is True or False; a string like "no" would otherwise count as True."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


MEMORY_LIMIT = 4 * 10**9  # bytes: about what a laptop can give one Python process
BYTES_PER_NUMBER = 32  # a float in a Python list: a 24-byte object and an 8-byte pointer
MAX_NUMBERS = MEMORY_LIMIT // BYTES_PER_NUMBER  # 125,000,000


def check_table_size(numbers: int, what: str) -> None:
    """Refuse, before building it, a table that would not fit in a laptop's memory.

    >>> check_table_size(10**6 * 10**6, "causal_mask(1000000)")
    Traceback (most recent call last):
    ValueError: causal_mask(1000000) would hold 1,000,000,000,000 numbers, about 32,000 GB at \
~32 bytes per number in Python lists; minipe builds at most about 4 GB (125,000,000 numbers)
    """
    needed = numbers * BYTES_PER_NUMBER  # bytes
    if needed > MEMORY_LIMIT:
        gigabytes = (needed + 10**9 // 2) // 10**9  # in ints: 10**400 numbers cannot overflow
        raise ValueError(f"{what} would hold {_count(numbers)} numbers, about "
                         f"{_count(gigabytes)} GB at ~{BYTES_PER_NUMBER} bytes per number in "
                         f"Python lists; minipe builds at most about {MEMORY_LIMIT // 10**9} GB "
                         f"({MAX_NUMBERS:,} numbers)")


def check_table(what: str, times: int = 1, **sizes: object) -> None:
    """Each size an int >= 1, named by its keyword, and then `times` tables of their product
    refused by check_table_size if they would not fit in memory: the one door of a table.

    >>> check_table("sinusoidal_encoding(1000000, 10000)", num_positions=10**6, d_model=10**4)
    Traceback (most recent call last):
    ValueError: sinusoidal_encoding(1000000, 10000) would hold 10,000,000,000 numbers, about \
320 GB at ~32 bytes per number in Python lists; minipe builds at most about 4 GB \
(125,000,000 numbers)
    """
    numbers = times
    for name, size in sizes.items():
        numbers *= checked_size(size, name)
    check_table_size(numbers, what)


def check_type(value: object, kinds: type | tuple[type, ...], sentence: str,
               hint: str = "", *, empty: str = "") -> None:
    """Refuse `value` unless it is one of `kinds`, saying `sentence`, what it got, and `hint`;
    with `empty`, refuse an empty one too, saying `empty`.

    A str is refused even where any iterable would do: it is text, not a list of things.

    >>> check_type("abc", (list, tuple), "texts must be a list of str")
    Traceback (most recent call last):
    TypeError: texts must be a list of str, got str
    """
    if not isinstance(value, kinds) or (kinds is not str and isinstance(value, (str, bytes))):
        raise TypeError(f"{sentence}, got {type(value).__name__}{hint}")
    if empty and not value:
        raise ValueError(empty)


def check_choice(value: object, choices: tuple[str, ...], sentence: str,
                 got: str = ", got") -> None:
    """Refuse `value` unless it is one of `choices`: `sentence` says what each one means.

    >>> check_choice("top", ("right", "left"), "padding_side must be 'right' or 'left'")
    Traceback (most recent call last):
    ValueError: padding_side must be 'right' or 'left', got 'top'
    """
    if value not in choices:
        raise ValueError(f"{sentence}{got} {value!r}")


def _count(n: int) -> str:
    """1,000,000 with commas; a number of more than 20 digits as `~10**k`."""
    return f"{n:,}" if n < 10**20 else f"~10**{len(str(n)) - 1}"


def check_ids(ids: object, size: int, where: str, out_of_range: str) -> None:
    """`ids` must be a non-empty list of int IDs in 0 .. size - 1; else a sentence
    naming the first bad one, `out_of_range` saying what the range belongs to.

    The usual list is checked whole, at C speed (how many IDs are ints, the
    smallest and the largest); only one that fails is read ID by ID.
    """
    if isinstance(ids, (str, bytes)) or not isinstance(ids, (list, tuple)):
        raise TypeError(f"{where} must be a list of int IDs (or, for a batch, a list of such "
                        f"lists), got {type(ids).__name__}")
    if not ids:
        raise ValueError(f"{where} is empty; a lookup needs at least one ID")
    if operator.countOf(map(type, ids), int) == len(ids) and 0 <= min(ids) and max(ids) < size:
        return
    for t, token_id in enumerate(ids):
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TypeError(f"{where}[{t}] must be an int ID, got {token_id!r}")
        if not 0 <= token_id < size:
            raise IndexError(f"{where}[{t}] = {token_id} {out_of_range} valid IDs are "
                             f"0..{size - 1}"
                             + (" (negative IDs do not wrap around)" if token_id < 0 else ""))


def checked_positions(positions: object, name: str, what: str, count: int | None = None,
                      of: str = "", each: str = "") -> list[int]:
    """Positions (or distances) given one per row, as a list: ints 0 .. 2**53, at least one,
    `what` they are in the sentence refusing the list, each one `each` (else name[t]) in
    its own; with `count`, exactly that many, `of` saying what they stand for. Chapters 5,
    6, 7, 10. The usual list is looked at whole (its types, smallest and largest).

    >>> checked_positions([0, 1], "positions", "int positions", 3, "x has 3 rows")
    Traceback (most recent call last):
    ValueError: positions has 2 entries but x has 3 rows
    """
    if isinstance(positions, (AbstractSet, Mapping)):
        raise TypeError(f"{name} must be a list of {what}, in the order of the rows; a "
                        f"{type(positions).__name__} has no such order, got {positions!r:.60}")
    listed = (None if isinstance(positions, (str, bytes)) or not isinstance(positions, Iterable)
              else list(positions))
    if not listed:
        raise TypeError(f"{name} must be a non-empty list of {what}, got {positions!r:.60}")
    if count is not None and len(listed) != count:
        raise ValueError(f"{name} has {len(listed)} entries but {of}")
    if (operator.countOf(map(type, listed), int) != len(listed)
            or not 0 <= min(listed) <= max(listed) <= EXACT_INTEGERS):
        for t, position in enumerate(listed):  # only a list that fails: its first bad one
            checked_position(position, each or f"{name}[{t}]")
    return listed


def check_angle(pos: int, theta: float, where: str = "", angle: str = "pos * theta_i") -> None:
    """The largest angle a rotation turns by, `angle` = pos * theta, must be a float: cos and
    sin need one. `where` opens the sentence (whose positions). Chapters 5, 7, 10.

    >>> check_angle(2, 1e308)
    Traceback (most recent call last):
    ValueError: the angle pos * theta_i = 2 * 1e+308 is past the largest float (about \
1.8e308), so no cos or sin can be taken of it: keep pos * theta_i below 1.8e308 (a theta \
near 1, as RoPE's)
    """
    if math.isinf(pos * theta):
        raise ValueError(f"{where}the angle {angle} = {pos} * {theta:.4g} is past the largest "
                         f"float (about 1.8e308), so no cos or sin can be taken of it: keep "
                         f"{angle} below 1.8e308 (a theta near 1, as RoPE's)")


def check_axis(a: str, a_shape: tuple[int, ...], b: str, b_shape: tuple[int, ...], why: str,
               axes: tuple[int, int] | None = None, label: str = "") -> None:
    """Two shapes that must agree along one axis of each (`axes`), or whole (None): else a
    ShapeError naming both shapes, the axis where they differ (`label` says what it is), and
    `why` they must agree. Chapters 4 and 10.

    >>> check_axis("q", (4, 8), "k", (4, 6), "q_i . k_j needs one width", (-1, -1), " (d_k)")
    Traceback (most recent call last):
    minipe.checks.ShapeError: q has shape (4, 8) and k has shape (4, 6): axis -1 (d_k) has 8 \
vs 6; q_i . k_j needs one width
    """
    i, j = axes or next(((i, i) for i, sizes in enumerate(zip(a_shape, b_shape))
                         if sizes[0] != sizes[1]), (0, 0))  # the first axis that differs
    if a_shape[i] != b_shape[j]:
        sizes = (f"axis {i}{label} has {a_shape[i]} vs {b_shape[j]}" if i == j else
                 f"{a}'s axis {i}{label} has {a_shape[i]} but {b}'s axis {j} has {b_shape[j]}")
        raise ShapeError(f"{a} has shape {a_shape} and {b} has shape {b_shape}: {sizes}; {why}")


def check_mask(mask: Sequence[Sequence[object]], n_q: int, n_k: int, name: str = "mask",
               bias: bool = True) -> None:
    """A boolean (query, key) table: n_q rows (lists or tuples) of n_k entries, each True or
    False (or 1 and 0); mask[i][j] is True where query i may attend key j. With `bias`, the
    sentences say that numbers to add to the scores go in bias= instead. Chapters 4, 10.
    The usual row is looked at whole; only a row that fails is read entry by entry.
    """
    if hasattr(mask, "shape"):  # a Matrix, known by its shape: this module imports no minipe
        raise TypeError(f"{name} holds True/False per (query, key) - a list of lists of bools - "
                        f"not a Matrix" + ("; an additive table of 0.0 and -inf goes in bias="
                                           if bias else ""))
    check_type(mask, (list, tuple), f"{name} must be a list of {n_q} rows (one per query), "
                                    f"each a list of {n_k} booleans (one per key)")
    if len(mask) != n_q:
        raise ShapeError(f"{name} has {len(mask)} rows but there are {n_q} queries: "
                         f"{name}[i][j] says whether query i may attend key j, so it needs "
                         f"shape ({n_q}, {n_k})")
    for i, row in enumerate(mask):
        check_type(row, (list, tuple), f"{name}[{i}] must be a list of {n_k} booleans (one "
                                       f"per key)")
        if len(row) != n_k:
            raise ShapeError(f"{name}[{i}] has {len(row)} entries but there are {n_k} keys: "
                             f"{name} needs shape ({n_q}, {n_k}), one boolean per (query, key)")
        if not (set(map(type, row)) <= {bool, int} and set(row) <= {0, 1}):
            j = next(j for j, may in enumerate(row) if type(may) not in (bool, int)
                     or may not in (0, 1))  # only a row that fails: its first bad entry
            raise ValueError(f"{name}[{i}][{j}] = {row[j]!r}: a mask holds True (may attend) "
                             f"or False (may not), or 1 and 0"
                             + ("; a number to add to the score goes in bias=" if bias else ""))


def check_unused(value: object, name: str, default: object, why: str) -> None:
    """A setting that must stay at its default, since something else given makes it unused:
    `why` says what. Chapters 5 and 10.

    >>> check_unused(3, "start", 0, "give start or positions, not both")
    Traceback (most recent call last):
    ValueError: give start or positions, not both, so leave start at 0 (got start=3)
    """
    if value != default:
        raise ValueError(f"{why}, so leave {name} at {default} (got {name}={value!r})")


def checked_at_least(value: object, name: str, minimum: float, why: str,
                     maximum: float = sys.float_info.max) -> float:
    """A finite number >= minimum (and <= maximum), as a float; `why` ends the sentence.

    >>> checked_at_least(-0.5, "slope", 0, "alibi_slopes gives one per head, e.g. 0.5")
    Traceback (most recent call last):
    ValueError: slope must be a finite number >= 0, got -0.5: alibi_slopes gives one per \
head, e.g. 0.5
    """
    number = checked_number(value, name)
    if not minimum <= number <= maximum:
        raise ValueError(f"{name} must be a finite number >= {minimum:g}" + (
            f" and at most {maximum:g}" if maximum < sys.float_info.max else "")
            + f", got {number}: {why}")
    return number


POSITION_KINDS = ("sinusoidal", "learned", "none", "rope", "alibi")  # run(positions=...), TinyModel


def check_settings(d_model: object, positions: object, seed: object, causal: object) -> None:
    """The settings of a run of the pipeline (chapter 9) and of a model (chapter 10): d_model,
    seed, causal, and a known kind of positions; an even d_model for RoPE."""
    checked_size(d_model, "d_model")
    checked_size(seed, "seed", minimum=0)
    checked_flag(causal, "causal")
    check_choice(positions, POSITION_KINDS, f"positions must be one of {', '.join(POSITION_KINDS)}",
                 got="; got")
    if positions == "rope":
        checked_rotary_width(d_model, "d_model", "positions='rope'")


def check_decode(ids: object, vocab_size: int) -> None:
    """What decode takes, for both tokenizers: a list of IDs in the vocabulary (an empty one
    decodes to '')."""
    check_type(ids, (list, tuple), "decode needs a list of int IDs")
    if ids:
        check_ids(ids, vocab_size, "ids", "is not in the vocabulary:")
