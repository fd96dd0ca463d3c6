"""Lesson 23: positions count tokens

Question: GPT-2 has 1,024 positions. Are they 1,024 words?

Claim checked (lecture 001): the lecture's tokenizer gives one token per word,
so a position is a word and "same word, same ID". GPT-2's tokenizer (chapter
1b, byte-level BPE, exactly as OpenAI's tokenizer library) cuts text into
tokens that are often whole words with the space before them, and often
pieces of words: positions count those tokens. A word is counted here as
Python's str.split() counts it: a run of characters between whitespace.

Lecture 001, then past it: GPT-2's own tokens.
Run: python walkthroughs/23_positions_count_tokens.py [--step]
"""

import textwrap
from pathlib import Path

from lesson import Lesson

from minipe import BytePairTokenizer, LearnedPositionalEmbedding

DATA = Path(__file__).resolve().parent.parent / "minipe" / "data"
VERDICT = DATA / "the-verdict.txt"
MERGES = DATA / "gpt2-vocab.bpe"  # GPT-2's 50,000 merges, one a line, in rank order
CONTEXT = 1024  # GPT-2's positions: its learned table has 1,024 rows, 0..1023


def show(gpt2: BytePairTokenizer, text: str) -> list[int]:
    """Print text's tokens, their IDs and the word (pre-tokenizer piece) each came from."""
    ids = gpt2.encode(text)
    tokens = [gpt2.decode([token_id]) for token_id in ids]
    print(f"   {text!r}: {len(text.split())} words, {len(ids)} tokens")
    print(f"   tokens   {tokens}")
    print(f"   IDs      {ids}")
    print(f"   word_ids {gpt2.word_ids(text)}")
    return ids


# %% Words, tokens, positions
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Words, tokens, positions: 'The cat sat on the bookshelf'")

    gpt2 = BytePairTokenizer.gpt2()
    sentence = "The cat sat on the bookshelf"
    ids = show(gpt2, sentence)  # [464, 3797, 3332, 319, 262, 3835, 258, 1652]
    positions = list(range(len(ids)))
    print(f"   position {positions}")
    lesson.check("6 words take 8 tokens, 'bookshelf' positions 5, 6 and 7",
                 len(sentence.split()) == 6 and len(ids) == 8
                 and gpt2.word_ids(sentence)[5:] == [5, 5, 5])
    print("6 words, 8 tokens, 8 positions: ' bookshelf' is ' books' + 'he' + 'lf' and")
    print("takes positions 5, 6 and 7. A token keeps the space before its word: ' cat'.")

# %% Long words split
if __name__ == "__main__":
    lesson.stage("Words GPT-2 never merged whole: 'positional encodings'")

    alone = show(gpt2, "positional encodings")  # pos itional  enc od ings
    after_a_space = show(gpt2, " positional encodings")  # ' positional' is one token
    lesson.check("'positional encodings' is 5 tokens, and 4 after a space",
                 len(alone) == 5 and len(after_a_space) == 4)
    print("2 words, 5 tokens; after a space 4: ' positional' (with its space) is one of")
    print("the 50,000 merges' tokens, 'positional' (without) is not. In running text most")
    print("words follow a space, and the merges were learned from running text.")

# %% One word, four IDs
if __name__ == "__main__":
    lesson.stage("One word, four IDs")

    spellings = ["the", " the", "The", " The"]
    four = [gpt2.encode(spelling) for spelling in spellings]  # [[1169], [262], [464], [383]]
    for spelling, spelled in zip(spellings, four):
        print(f"   {spelling!r:8} -> {spelled}")
    lesson.check("the four spellings are one token each, four different IDs",
                 all(len(spelled) == 1 for spelled in four) and len({*map(tuple, four)}) == 4)
    print("Four IDs, so four rows of the token table, for one word. Lesson 2's 'same")
    print("word, same ID' holds only for the same bytes: GPT-2 keeps case and the space.")
    first_merge = MERGES.read_text(encoding="utf-8").splitlines()[1]  # after its version line
    lesson.check("GPT-2's first merge is 'Ġ t'", first_merge == "Ġ t")
    print(f"GPT-2's first merge, in minipe/data/gpt2-vocab.bpe, is {first_merge!r}: a space "
          f"and a t.")
    print("The file writes each byte as a printable character, the space as 'Ġ': the 'Ġ'")
    print("that starts so many tokens in GPT-2's vocabulary is the space before a word.")

# %% The same tokens in another order
if __name__ == "__main__":
    lesson.stage("'A dog bites a man' and 'A man bites a dog'")

    dog_first = show(gpt2, "A dog bites a man")  # [32, 3290, 26081, 257, 582]
    man_first = show(gpt2, "A man bites a dog")  # [32, 582, 26081, 257, 3290]
    lesson.check("the two sentences are the same tokens in another order",
                 sorted(dog_first) == sorted(man_first) and dog_first != man_first)
    print("The same five tokens, in another order: lesson 3's point survives real")
    print("tokens. Without positions, attention cannot tell who bit whom.")

# %% The Verdict: 1,024 positions
if __name__ == "__main__":
    lesson.stage("The Verdict (Edith Wharton, 1908): what 1,024 positions hold")

    verdict = VERDICT.read_text(encoding="utf-8")
    verdict_ids = gpt2.encode(verdict)
    words = len(verdict.split())
    print(f"   {len(verdict):,} characters, {words:,} words, {len(verdict_ids):,} tokens")
    lesson.check("The Verdict is 3,634 words and 5,145 tokens",
                 words == 3634 and len(verdict_ids) == 5145)
    print(f"   {len(verdict_ids) / words:.2f} tokens per word")
    first = gpt2.decode(verdict_ids[:CONTEXT])  # the text of positions 0..1023
    rest = verdict[len(first):]  # where token 1,025 begins
    whole = len(first.split()) - (not first[-1].isspace() and not rest[:1].isspace())
    print(f"   the first {CONTEXT:,} tokens hold {whole} whole words; token 1,025 is "
          f"{gpt2.decode(verdict_ids[CONTEXT:CONTEXT + 1])!r}")
    lesson.check("GPT-2's 1,024 positions hold 726 words of The Verdict", whole == 726)
    print(f"GPT-2's context of {CONTEXT:,} positions holds {whole} words of this text, not "
          f"{CONTEXT:,}.")

# %% Where a learned table runs out
if __name__ == "__main__":
    lesson.stage("A learned table runs out at token 1,025, not word 1,025")

    table = LearnedPositionalEmbedding(CONTEXT, 8, seed=0)  # GPT-2's 1,024 rows, 8 wide here
    print(f"   table(1024): shape {table(CONTEXT).shape}, positions 0..1023")
    try:
        table(CONTEXT + 1)
        refused = ""
    except ValueError as error:
        refused = str(error)
    lesson.check("a table of 1,024 rows refuses a 1,025th token", bool(refused))
    print(textwrap.indent(textwrap.fill(f"table(1025): {refused}", 74), "   "))
    lesson.check(f"token 1,025 begins word {whole + 1}", rest[:1].isspace())
    print("A learned table has a row per position, and positions count tokens: The")
    print(f"Verdict's word {whole + 1} begins at token 1,025, past GPT-2's table. A text's")
    print("length, for a model, is its tokens, counted by the model's own tokenizer.")
