"""Lesson 1: text to token IDs

Question: "The cat sat on the mat" and "On the mat the cat sat" use the same
words. Do they get the same token IDs?

Claim checked (lecture 001): a tokenizer gives a word the same ID wherever
it stands, so reordering the words only reorders the IDs.

Lecture 001. Run: python walkthroughs/01_text_to_ids.py [--step]
"""

from lesson import Lesson

from minipe import Tokenizer

# %% A vocabulary from the two sentences
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("A vocabulary: every distinct word, sorted, gets an ID")

    first = "The cat sat on the mat"
    second = "On the mat the cat sat"
    tokenizer = Tokenizer.from_corpus(first + "\n" + second)
    for word, token_id in tokenizer.vocab.items():
        print(f"   {token_id}  {word}")
    print(f"vocab_size = {tokenizer.vocab_size}: 5 words, then the two special tokens")
    # 0 cat, 1 mat, 2 on, 3 sat, 4 the, 5 <|unk|>, 6 <|endoftext|>

# %% Text -> tokens -> IDs
if __name__ == "__main__":
    lesson.stage("Text -> tokens -> token IDs")

    first_tokens = tokenizer.tokenize(first)
    second_tokens = tokenizer.tokenize(second)
    first_ids = tokenizer.encode(first)  # [4, 0, 3, 2, 4, 1]
    second_ids = tokenizer.encode(second)  # [2, 4, 1, 4, 0, 3]
    print(f"{first!r:26} -> {first_tokens}")
    print(f"{'':26} -> {first_ids}")
    print(f"{second!r:26} -> {second_tokens}")
    print(f"{'':26} -> {second_ids}")
    print("'The' and 'the' are one token: the tokenizer lower-cases the text.")

# %% Same IDs, different order
if __name__ == "__main__":
    lesson.stage("Same IDs, different order")

    print(f"sorted IDs, first sentence:  {sorted(first_ids)}")
    print(f"sorted IDs, second sentence: {sorted(second_ids)}")
    print(f"the same multiset of IDs? {sorted(first_ids) == sorted(second_ids)}")  # True
    lesson.check("both sentences hold the same multiset of IDs",
                 sorted(first_ids) == sorted(second_ids))
    print(f"the same sequence?        {first_ids == second_ids}")  # False
    lesson.check("the two sentences are different sequences of IDs", first_ids != second_ids)
    cat_id = tokenizer.vocab["cat"]  # 0
    print(f"'cat' is ID {cat_id} in both sentences: at position {first_ids.index(cat_id)} "
          f"in the first,\n{second_ids.index(cat_id)} in the second (positions count from 0).")
    # 'cat' stands at position 1 in the first sentence and at position 4 in the second.
    print("An ID says WHAT the token is, never WHERE it stands. The order lives only")
    print("in the order of the list; lessons 2 and 3 show why that is not enough.")

# %% Back from IDs to text, and a word the vocabulary has never seen
if __name__ == "__main__":
    lesson.stage("Back to text, and a word the vocabulary has never seen")

    print(f"decode({second_ids}) -> {tokenizer.decode(second_ids)!r}")
    unseen = "The dog sat on the mat"
    unseen_ids = tokenizer.encode(unseen)  # [4, 5, 3, 2, 4, 1]: 'dog' is <|unk|>
    print(f"encode({unseen!r}) -> {unseen_ids}")
    print(f"decode again -> {tokenizer.decode(unseen_ids)!r}")
    print("A word outside the vocabulary becomes <|unk|> (ID 5); its identity is lost.")
    print("Now try exercise 1: python -m minipe exercises check 1")
