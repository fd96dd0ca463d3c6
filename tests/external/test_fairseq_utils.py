"""fairseq, tests/test_utils.py, TestUtils.test_make_positions (MIT licence).

fairseq's utils.make_positions(tensor, padding_idx) numbers the non-padding tokens of each
row padding_idx + 1, padding_idx + 2, ... and leaves each padding token at padding_idx.
The test uses padding_idx 1 (token 1 is padding, 9 is a word), so positions start at 2.

minipe's `position_ids(attention_mask)` counts from 0 and gives padding 0 (Hugging Face's
convention, chapter 8). The conversion, visible below: the mask is 1 where the token is not
padding; a real token's fairseq position is minipe's + padding_idx + 1; padding stays
padding_idx. The copied numbers are compared exactly, as the source's max |difference| < 1e-4
does on integers.
"""

from __future__ import annotations

from minipe import position_ids

PAD = 1  # the source's `pad = 1`


def _fairseq_positions(tokens: list[list[int]], padding_idx: int) -> list[list[int]]:
    """make_positions' numbers from minipe's: count from padding_idx + 1, padding at padding_idx."""
    mask = [[int(token != padding_idx) for token in row] for row in tokens]
    return [[p + padding_idx + 1 if real else padding_idx for p, real in zip(prow, mrow)]
            for prow, mrow in zip(position_ids(mask), mask)]


def test_make_positions_left_pad() -> None:
    left_pad_input = [[9, 9, 9, 9, 9],
                      [1, 9, 9, 9, 9],
                      [1, 1, 1, 9, 9]]
    left_pad_output = [[2, 3, 4, 5, 6],
                       [1, 2, 3, 4, 5],
                       [1, 1, 1, 2, 3]]
    assert _fairseq_positions(left_pad_input, PAD) == left_pad_output


def test_make_positions_right_pad() -> None:
    right_pad_input = [[9, 9, 9, 9, 9],
                       [9, 9, 9, 9, 1],
                       [9, 9, 1, 1, 1]]
    right_pad_output = [[2, 3, 4, 5, 6],
                        [2, 3, 4, 5, 1],
                        [2, 3, 1, 1, 1]]
    assert _fairseq_positions(right_pad_input, PAD) == right_pad_output


def test_minipes_own_numbers_before_the_offset() -> None:
    """The same left-padded rows in minipe's convention: from 0, padding 0."""
    assert position_ids([[1, 1, 1, 1, 1], [0, 1, 1, 1, 1], [0, 0, 0, 1, 1]]) == [
        [0, 1, 2, 3, 4], [0, 0, 1, 2, 3], [0, 0, 0, 0, 1]]
