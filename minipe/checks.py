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
from collections.abc import Iterable, Mapping  # isinstance: quicker than typing's
from itertools import chain
from typing import Any, Sequence, TypeVar

from minipe.broadcast import ShapeError


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
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{what} must be a list of numbers, got {type(values).__name__}")
    numbers = tuple([checked_number(x, f"{what}[{j}]") for j, x in enumerate(values)])
    if not numbers:
        raise ValueError(f"{what} is empty; it needs at least one number")
    return numbers


def checked_base(base: object) -> float:
    """The base of the sinusoids' and RoPE's frequencies: a finite number > 0."""
    if isinstance(base, bool) or not isinstance(base, (int, float)):
        raise TypeError(f"base must be a number, got {base!r}")
    if not base > 0 or math.isinf(base):
        raise ValueError(f"base must be a finite number > 0 (the 2017 paper, RoFormer and "
                         f"Llama use 10000), got {base}")
    return float(base)


def checked_size(value: object, name: str, minimum: int = 1) -> int:
    """`value` if it is an int >= minimum; else an error naming the argument.

    Every chapter checks its sizes (d_model, num_embeddings, ...) with this.
    """
    if type(value) is int and value >= minimum:
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {value!r} ({type(value).__name__})")
    raise ValueError(f"{name} must be >= {minimum}, got {value}")


def checked_flag(value: object, name: str) -> bool:
    """`value` if it is True or False; a string like "no" would otherwise count as True."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def checked_index(index: object, size: int, what: str) -> int:
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"{what} index must be an int, got {index!r}")
    if not -size <= index < size:
        raise IndexError(f"{what} index {index} is out of range: valid are 0..{size - 1} "
                         f"(or -{size}..-1 counting from the end)")
    return index


Item = TypeVar("Item")
_VALUES = operator.attrgetter("values")  # a Vector's tuple of floats


def non_empty_slice(items: Sequence[Item], index: slice, size: int, what: str) -> Sequence[Item]:
    """items, a slice of a Vector or Matrix, unless it is empty (an array has at least one item)."""
    if not items:
        start = "" if index.start is None else index.start
        stop = "" if index.stop is None else index.stop
        raise IndexError(f"{what}[{start}:{stop}] would be empty: the {what} has "
                         f"{size} {'rows' if what == 'Matrix' else 'values'}")
    return items


def matmul_message(left: tuple[int, ...], right: tuple[int, ...]) -> str:
    """What went wrong in left @ right: the inner sizes differ."""
    return (f"cannot multiply {left} @ {right}: the left has {left[-1]} columns but the "
            f"right has {right[0]} rows; (n, k) @ (k, m) needs the same k on both sides")


def checked_factor(value: object, factor: object, symbol: str) -> float:
    """The number in `value * factor` or `value / factor` (symbol is "*" or "/")."""
    name = type(value).__name__
    if hasattr(factor, "shape"):  # a Vector, Matrix or Batch
        hint = "use @ for a matrix product, or .dot for two Vectors" if symbol == "*" else \
            "divide by a number"
        raise TypeError(f"{name} {symbol} {type(factor).__name__} is not defined here: {hint}")
    number = checked_number(factor, f"the number in {name} {symbol} number")
    if symbol == "/" and number == 0.0:
        raise ZeroDivisionError(f"cannot divide a {name} by 0")
    return number


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


def check_attention_shapes(q: tuple[int, int], k: tuple[int, int], v: tuple[int, int],
                           causal: bool, bias: tuple[int, int] | None) -> None:
    """Shapes that attention can combine: q (n_q, d_k), k (n_k, d_k), v (n_k, d_v),
    a causal mask only with n_q == n_k, a bias of shape (n_q, n_k)."""
    if q[1] != k[1]:
        raise ShapeError(f"q has shape {q} and k has shape {k}: axis -1 (d_k) has {q[1]} vs "
                         f"{k[1]}; each score is a dot product q_i . k_j, so queries and "
                         f"keys need the same width")
    if k[0] != v[0]:
        raise ShapeError(f"k has shape {k} and v has shape {v}: axis 0 has {k[0]} vs {v[0]}; "
                         f"every key needs its value")
    if causal and q[0] != k[0]:
        raise ShapeError(f"a causal mask needs as many queries as keys, got q {q} and k {k}")
    if bias is not None and bias != (q[0], k[0]):
        raise ShapeError(f"bias has shape {bias} but the scores have shape ({q[0]}, {k[0]}) "
                         f"(queries, keys): B[i, j] is added to score(i, j), so the two "
                         f"shapes must be equal")


def checked_rows(rows: object, what: str, vector: type) -> tuple[tuple[float, ...], ...]:
    """The rows as tuples of floats, all of one length; a sentence naming a bad one otherwise.

    Rows that are Vectors (the class `vector`) were checked when they were
    built. Others are looked at whole, at C speed: how many of all their
    numbers are floats, and the sum, NaN if any number is. Only rows that fail
    that are read one by one.
    """
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Iterable):
        raise TypeError(f"{what} must be a list of rows, got {type(rows).__name__}")
    listed = list(rows)
    if not listed:
        raise ValueError(f"{what} has no rows; it needs at least one")
    if operator.countOf(map(type, listed), vector) == len(listed):
        numbers = tuple(map(_VALUES, listed))  # Vectors: checked when they were built
    elif not _floats_only(listed):  # a closer look: ints become floats, a bad number is named
        numbers = tuple([checked_values(row, f"{what}[{i}]") for i, row in enumerate(listed)])
    else:
        numbers = tuple(map(tuple, listed))
    width = len(numbers[0])
    if set(map(len, numbers)) != {width}:
        i = next(i for i, row in enumerate(numbers) if len(row) != width)
        raise ShapeError(f"ragged rows: {what}[0] has {width} values but {what}[{i}] "
                         f"has {len(numbers[i])}; every row of a Matrix needs the same length")
    return numbers


def _floats_only(rows: list[Any]) -> bool:
    """True if every row is a list or tuple of floats, none of them NaN."""
    if set(map(type, rows)) - {list, tuple}:
        return False
    count = sum(map(len, rows))  # how many numbers there are
    floats = operator.countOf(map(type, chain.from_iterable(rows)), float)
    return 0 < count == floats and not math.isnan(sum(map(sum, rows)))


LAPTOP_BYTES = 4 * 10**9  # about what a laptop can spare: 4 GB
BYTES_PER_NUMBER = 32  # a float in a Python list: an 8-byte pointer and a 24-byte float


def check_memory(numbers: int, what: str) -> None:
    """A size that needs more memory than a laptop has is refused before any work starts.

    >>> check_memory(10**10, "numbers in its tables")
    Traceback (most recent call last):
    ValueError: this would store 10,000,000,000 numbers in its tables: about 320 GB at 32 bytes \
a number in Python lists, more than the 4 GB a laptop can spare (a typo?)
    """
    if numbers * BYTES_PER_NUMBER > LAPTOP_BYTES:
        raise ValueError(f"this would store {numbers:,} {what}: about "
                         f"{numbers * BYTES_PER_NUMBER / 1e9:,.0f} GB at {BYTES_PER_NUMBER} "
                         f"bytes a number in Python lists, more than the "
                         f"{LAPTOP_BYTES // 10**9} GB a laptop can spare (a typo?)")


def check_frequencies(frequencies: object, pairs: int, vector: type, width: str) -> None:
    """RoPE's theta_i: a `vector` of one finite angle > 0 per pair. Chapters 5 and 9."""
    if not isinstance(frequencies, vector) or not isinstance(frequencies, Iterable) \
            or len(list(frequencies)) != pairs \
            or not all(0 < theta < math.inf for theta in frequencies):
        raise ValueError(f"frequencies must be a Vector of {width} = {pairs} finite angles "
                         f"theta_i > 0, one per pair (rope_frequencies makes them), got "
                         f"{frequencies!r:.80}")
