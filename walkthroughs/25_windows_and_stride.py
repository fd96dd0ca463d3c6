"""Lesson 25: windows and stride

Question: a model reads max_length tokens at a time. How is a long text cut
into its training examples, and what does the stride change?

Claim checked (lecture 001): a model's inputs are token IDs at positions
0..max_length-1. A long text becomes many such windows: each input is
max_length tokens from the text, its target the same tokens shifted by one
(the token each position must predict), and the next window starts `stride`
tokens later. A stride below max_length overlaps windows, equal to it tiles
the text, above it skips tokens as inputs.

Lecture 001, then past it: the data loader of the from-scratch books.
Run: python walkthroughs/25_windows_and_stride.py [--step]
"""

import math
from pathlib import Path

from lesson import Lesson

from minipe import BytePairTokenizer, sliding_windows

VERDICT = Path(__file__).resolve().parent.parent / "minipe" / "data" / "the-verdict.txt"
MAX_LENGTH = 4  # tokens per window: the positions 0..3
# What Hugging Face's tokenizers (0.23.3) returned for The Verdict's first 13 tokens
# with enable_truncation(max_length=4, stride=1): the first window, then the
# encoding's `overflowing` ones. Saved by tests/reference/make_subword_reference.py;
# tests/test_subword.py checks these numbers against it.
HUGGING_FACE_STRIDE_1 = [[40, 367, 2885, 1464], [1464, 1807, 3619, 402],
                         [402, 271, 10899, 2138], [2138, 257, 7026, 15632]]


def show(windows: list[tuple[list[int], list[int]]], count: int) -> None:
    """The first `count` windows: inputs -> targets."""
    for k, (inputs, targets) in enumerate(windows[:count]):
        print(f"   window {k}: inputs {inputs}  targets {targets}")


# %% The first tokens of The Verdict
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("The Verdict's first tokens")

    gpt2 = BytePairTokenizer.gpt2()
    ids = gpt2.encode(VERDICT.read_text(encoding="utf-8"))  # 5,145 tokens
    head = ids[:8]
    print(f"   {head}")
    print(f"   {[gpt2.decode([token_id]) for token_id in head]}")
    print(f"{len(ids):,} tokens. A window of {MAX_LENGTH} inputs needs {MAX_LENGTH + 1} "
          f"tokens: its targets reach one")
    print("token further.")

# %% Stride 1: every start
if __name__ == "__main__":
    lesson.stage("max_length 4, stride 1: a window at every token")

    one = sliding_windows(ids, max_length=MAX_LENGTH, stride=1)
    show(one, 3)
    lesson.check("window 0's targets are its inputs shifted by one",
                 one[0][1] == one[0][0][1:] + [ids[MAX_LENGTH]])
    lesson.check(f"stride 1 gives {len(ids) - MAX_LENGTH:,} windows",
                 len(one) == len(ids) - MAX_LENGTH)
    print(f"{len(one):,} windows ({len(ids):,} - {MAX_LENGTH}): each target is the next "
          f"token. A token is an input")
    print(f"in up to {MAX_LENGTH} windows, each time at another position: overlap, "
          f"4 times the work.")

# %% Stride 4: tiles
if __name__ == "__main__":
    lesson.stage("stride 4 = max_length: the windows tile the text")

    four = sliding_windows(ids, max_length=MAX_LENGTH, stride=4)
    show(four, 3)
    inputs_four = [token for inputs, _ in four for token in inputs]
    lesson.check("with stride 4 the inputs are the text's tokens in order, once each",
                 inputs_four == ids[:len(inputs_four)])
    print(f"{len(four):,} windows (ceil({len(ids) - MAX_LENGTH:,} / 4)): the inputs, "
          f"read one after another,")
    print("are the text, each token once: the from-scratch books' choice, no overlap.")

# %% Stride 5: a token skipped
if __name__ == "__main__":
    lesson.stage("stride 5 > max_length: a token never read as an input")

    five = sliding_windows(ids, max_length=MAX_LENGTH, stride=5)
    show(five, 2)
    skipped = ids[MAX_LENGTH]  # between window 0 (0..3) and window 1 (5..8)
    read = {token_at for start in range(0, len(ids) - MAX_LENGTH, 5)
            for token_at in range(start, start + MAX_LENGTH)}
    never = [at for at in range(5 * (len(five) - 1) + MAX_LENGTH) if at not in read]
    lesson.check("stride 5 skips token 4, then every fifth", never[:3] == [4, 9, 14])
    lesson.check("the skipped token is window 0's last target", five[0][1][-1] == skipped)
    print(f"Window 1 starts at token 5: token 4 ({skipped}, {gpt2.decode([skipped])!r}) "
          f"is never an input,")
    print(f"only window 0's last target. {len(never):,} tokens (4, 9, 14, ...) are never "
          f"read at a")
    print(f"position; {len(five):,} windows. Nothing fails: no error says a token "
          f"was skipped.")
    lesson.check(f"{len(five):,} windows is ceil(5,141 / 5)",
                 len(five) == math.ceil((len(ids) - MAX_LENGTH) / 5))

# %% Hugging Face's stride is an overlap
if __name__ == "__main__":
    lesson.stage("Hugging Face's tokenizer stride: an overlap, not a step")

    print("Hugging Face's tokenizers, max_length=4 and stride=1, on the first 13 tokens:")
    for pair in range(0, len(HUGGING_FACE_STRIDE_1), 2):
        print("   " + "  ".join(f"{window}" for window in HUGGING_FACE_STRIDE_1[pair:pair + 2]))
    overlap = 1  # their stride=1
    lesson.check("each of their windows starts with the last token of the one before",
                 all(before[-overlap:] == after[:overlap]
                     for before, after in zip(HUGGING_FACE_STRIDE_1, HUGGING_FACE_STRIDE_1[1:])))
    hugging = sliding_windows(ids, max_length=MAX_LENGTH, stride=MAX_LENGTH - overlap)
    lesson.check("they are the inputs of sliding_windows(ids, 4, stride=3)",
                 [inputs for inputs, _ in hugging[:4]] == HUGGING_FACE_STRIDE_1)
    print("Ours, sliding_windows(ids, 4, stride=3):")
    show(hugging, 2)
    print("Their stride is the number of tokens two windows share, an overlap: their")
    print("stride=1 at max_length 4 starts a window every 3 tokens, our stride=3. (Their")
    print("stride=2 starts one every 2.) One word, two meanings: check which one a")
    print("library means.")
    print("Now try exercise 23: python -m minipe exercises check 23")
