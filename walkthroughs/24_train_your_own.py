"""Lesson 24: train your own tokenizer

Question: where do GPT-2's 50,000 merges come from, and what does a smaller
vocabulary cost?

Claim checked (lecture 001): the vocabulary is a design choice. Byte-pair
encoding learns one from a text: count every neighbouring pair of tokens
inside the pre-tokenizer's pieces, merge the most frequent into a new token,
repeat (ties: the pair seen first; the same merges as the pure-Python trainer
in OpenAI's tokenizer library). Fewer merges, a smaller token table, but more
tokens for the same text: table rows are traded for positions.

Lecture 001, then past it: byte-level BPE as GPT-2's tokenizer is built.
Run: python walkthroughs/24_train_your_own.py [--step]
"""

import math
from collections import Counter
from pathlib import Path

from lesson import Lesson

from minipe import BytePairTokenizer, pretokenize

VERDICT = Path(__file__).resolve().parent.parent / "minipe" / "data" / "the-verdict.txt"
SMALL = ("low low low low low lower lower newest newest newest newest newest newest "
         "widest widest widest")  # Sennrich et al.'s example (2016), as one text
STEPS = 6  # merges learned step by step
CONTEXT = 1024  # GPT-2's positions
SIZES = (300, 512, 1000)  # the vocabularies trained here


def spelled(tokenizer: BytePairTokenizer, piece: str) -> str:
    """A piece's tokens as text, separated by '|': ' n|e|w|es|t'."""
    return "|".join(tokenizer.decode([token_id]) for token_id in tokenizer.encode(piece))


# %% The pieces and their counts
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("A small text: the pre-tokenizer's pieces, counted")

    counts = Counter(pretokenize(SMALL))  # each distinct piece, in order of first sight
    for piece, count in counts.items():
        print(f"   {piece!r:10} x {count}")
    print("Each piece starts as its bytes, IDs 0..255 (a trained tokenizer numbers the")
    print("bytes in byte order). Pairs are counted inside a piece, times its count.")

# %% Merge, step by step
if __name__ == "__main__":
    lesson.stage(f"The first {STEPS} merges, as they happen")

    print("   ID   the pair       merged   a piece it changed")
    learned = []
    for new_id in range(256, 256 + STEPS):
        step = BytePairTokenizer.train(SMALL, new_id + 1)  # its last merge makes new_id
        pair = next(pair for pair, made in step.merges.items() if made == new_id)
        learned.append(pair)
        merged = step.encode(SMALL).count(new_id)  # the pair's count: nothing merged it yet
        halves = f"{step.decode([pair[0]])!r} + {step.decode([pair[1]])!r}"
        touched = next(piece for piece in counts if new_id in step.encode(piece))
        print(f"   {new_id}  {halves:14} x {merged}   {touched!r:9} is now "
              f"{spelled(step, touched)!r}")
    lesson.check("each step's merges are the steps before it, and one more",
                 sorted(step.merges, key=step.merges.__getitem__) == learned)
    print(f"BytePairTokenizer.train(text, {256 + STEPS}) learns these {STEPS} merges, in "
          f"this order:")
    print("training to a larger size only adds merges after them.")
    crossing = [token for token in step.vocab if b" " in token[1:]]
    lesson.check("no token holds a space after its first byte", not crossing)
    print("No merge crosses two pieces, so no token holds a space after its first")
    print("byte: ' low' is a token, 'low ' can never be.")

# %% The Verdict at three vocabularies
if __name__ == "__main__":
    lesson.stage("The Verdict at vocabularies of 300, 512 and 1,000, and GPT-2's")

    verdict = VERDICT.read_text(encoding="utf-8")
    largest = BytePairTokenizer.train(verdict, SIZES[-1])  # 744 merges, about 1.5 s
    in_order = sorted(largest.merges, key=largest.merges.__getitem__)
    smallest = BytePairTokenizer.train(verdict, SIZES[0])
    lesson.check("training to 300 learns the first 44 merges of training to 1,000",
                 sorted(smallest.merges, key=smallest.merges.__getitem__) == in_order[:44])
    print("Training is greedy: a vocabulary of 300 is the first 44 merges of 1,000's.")
    tokenizers = [BytePairTokenizer(in_order[:size - 256]) for size in SIZES]
    tokenizers.append(BytePairTokenizer.gpt2())
    print("   vocabulary  table rows x 768   tokens   windows of 1,024")
    counted = []
    for tokenizer in tokenizers:
        tokens = len(tokenizer.encode(verdict))
        counted.append(tokens)
        print(f"   {tokenizer.vocab_size:>10,}  {tokenizer.vocab_size * 768:>16,}  "
              f"{tokens:>7,}   {math.ceil(tokens / CONTEXT):>16}")
    lesson.check("The Verdict is 14,029, 9,299, 6,998 and 5,145 tokens",
                 counted == [14029, 9299, 6998, 5145])
    print("More rows in the token table (GPT-2's rows are 768 wide), fewer tokens: 300")
    print("IDs spell The Verdict in 14,029 tokens, 14 windows of GPT-2's 1,024")
    print("positions; GPT-2's 50,257 in 5,145, 6 windows. The three were trained on")
    print("The Verdict itself, GPT-2's on other text, and still GPT-2's is shortest.")

# %% What the largest learned
if __name__ == "__main__":
    lesson.stage("What the vocabulary of 1,000 learned last")

    last = [largest.vocab[largest.merges[pair]].decode("utf-8", "replace")
            for pair in in_order[-6:]]
    print(f"   its last 6 merges: {last}")
    longest = max(largest.vocab, key=len).decode("utf-8", "replace")
    print(f"   its longest token: {longest!r}")
    lesson.check("the last merges hold ' then' and 'aking'", " then" in last and "aking" in last)
    print("Late merges join rarer pairs: pieces of words ('aking') and whole words of")
    print("this story with their space (' then'). GPT-2 went on to 50,000.")
    print("Now try exercise 22: python -m minipe exercises check 22")
