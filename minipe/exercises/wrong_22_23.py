"""The known wrong solutions of exercises 22 and 23: a merge step, sliding windows.

As in wrong.py, each function has the signature of the learner's and is wrong in
exactly one way, mostly minipe's right answer (reference.py) with one thing changed.
"""

from __future__ import annotations

from typing import Any

from minipe.subword import count_pairs, merge

# ---------------------------------------------------------------------------
# a merge step


def _merged(pieces: list[list[int]], pair: tuple[int, int] | None, new_id: int) -> list[int]:
    """Every piece with `pair` merged (None: unchanged), end to end."""
    if pair is None:
        return [token for piece in pieces for token in piece]
    return [token for piece in pieces for token in merge(piece, pair, new_id)]


def _most_frequent(pieces: list[list[int]]) -> tuple[int, int] | None:
    """The pair merge_step merges (ties: the first seen); None when there is none."""
    pair_counts = count_pairs(pieces, [1] * len(pieces))
    return max(pair_counts, key=pair_counts.__getitem__) if pair_counts else None


def merge_across_pieces(pieces: list[list[int]], new_id: int) -> list[int]:
    """Pairs counted over the pieces end to end: a piece's last token and the next one's
    first make a pair the pre-tokenizer never allows."""
    joined = [token for piece in pieces for token in piece]
    pair_counts = count_pairs([joined], [1])
    pair = max(pair_counts, key=pair_counts.__getitem__) if pair_counts else None
    return _merged(pieces, pair, new_id)


def ties_to_the_last(pieces: list[list[int]], new_id: int) -> list[int]:
    """The most frequent pair, ties going to the pair seen last (a >= where > belongs)."""
    pair_counts = count_pairs(pieces, [1] * len(pieces))
    pair, best = None, 0
    for candidate, count in pair_counts.items():
        if count >= best:
            pair, best = candidate, count
    return _merged(pieces, pair, new_id)


def merge_first_only(pieces: list[list[int]], new_id: int) -> list[int]:
    """The right pair, but only its first occurrence in each piece merged."""
    pair = _most_frequent(pieces)
    tokens: list[int] = []
    for piece in pieces:
        at = next((i for i in range(len(piece) - 1) if (piece[i], piece[i + 1]) == pair), None)
        tokens += piece if at is None else piece[:at] + [new_id] + piece[at + 2:]
    return tokens


# ---------------------------------------------------------------------------
# sliding windows


def _windows(ids: list[int], max_length: int, starts: range) -> list[list[list[int]]]:
    return [[ids[start:start + max_length], ids[start + 1:start + max_length + 1]]
            for start in starts]


def windows_step_past_the_target(ids: list[int], max_length: int,
                                 stride: int) -> list[list[list[int]]]:
    """Each window stride + 1 tokens after the last (past its extra target token)."""
    return _windows(ids, max_length, range(0, len(ids) - max_length, stride + 1))


def windows_stride_as_overlap(ids: list[int], max_length: int,
                              stride: int) -> list[list[list[int]]]:
    """stride read as Hugging Face's tokenizers read it: tokens shared, so a step of
    max_length - stride."""
    if stride >= max_length:
        raise ValueError("an overlap must be less than max_length")
    return _windows(ids, max_length, range(0, len(ids) - max_length, max_length - stride))


def windows_targets_not_shifted(ids: list[int], max_length: int,
                                stride: int) -> list[list[list[int]]]:
    """targets = the inputs themselves: each position asked for its own token."""
    starts = range(0, len(ids) - max_length, stride)
    return [[ids[start:start + max_length], ids[start:start + max_length]] for start in starts]


def windows_stop_early(ids: list[int], max_length: int, stride: int) -> list[list[list[int]]]:
    """The last start one too soon: a window whose target is the text's last token is lost."""
    return _windows(ids, max_length, range(0, len(ids) - max_length - 1, stride))


# ---------------------------------------------------------------------------
# found by the wrong answers written from outside the checker
# (tests/exercise_answers_outside/)


def merge_without_a_pair(pieces: list[list[int]], new_id: int) -> list[int]:
    """max() of the counts with no check that there are any: ValueError with no pair."""
    pair_counts = count_pairs(pieces, [1] * len(pieces))
    pair = max(pair_counts, key=pair_counts.__getitem__)  # ValueError when it is empty
    return _merged(pieces, pair, new_id)


def merge_no_skip(pieces: list[list[int]], new_id: int) -> list[int]:
    """new_id written for the pair, but the walk moves on one token, not two: the pair's
    second token stays (and may start the next pair)."""
    pair = _most_frequent(pieces)
    tokens: list[int] = []
    for piece in pieces:
        for i, token in enumerate(piece):
            tokens.append(new_id if tuple(piece[i:i + 2]) == pair else token)
    return tokens


def windows_one_too_many(ids: list[int], max_length: int,
                         stride: int) -> list[list[list[int]]]:
    """Starts up to len(ids) - max_length: the last window's targets run past the text."""
    return _windows(ids, max_length, range(0, len(ids) - max_length + 1, stride))


MORE: dict[int, tuple[tuple[str, Any], ...]] = {
    22: (("merge-no-pair", merge_without_a_pair), ("merge-no-skip", merge_no_skip)),
    23: (("windows-one-too-many", windows_one_too_many),),
}
