"""Lesson 2: token embeddings

Question: a token embedding turns each ID into a vector. Does a word's vector
change with where the word stands?

Claim checked (lecture 001): a token embedding looks a row up by ID alone,
so a word gets the same vector at every position: it says what, not where.

Lecture 001. Run: python walkthroughs/02_token_embeddings.py [--step]
"""

from lesson import Lesson

from minipe import Embedding, Matrix, Tokenizer, allclose, format_matrix

# %% The token table: one row per ID
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("The token table: vocab_size rows, one per token ID")

    first = "The cat sat on the mat"
    second = "On the mat the cat sat"
    tokenizer = Tokenizer.from_corpus(first + "\n" + second)
    vocab_size = tokenizer.vocab_size  # 7: cat mat on sat the <|unk|> <|endoftext|>
    d_model = 4  # small, so every number fits on a line
    token_table = Embedding(vocab_size, d_model, seed=0)  # N(0, 1) values, seeded
    print(f"token_table = {token_table!r}")
    print(f"token_table.weight.shape = {token_table.weight.shape}"
          "  (vocab_size rows, d_model columns)")
    words = list(tokenizer.vocab)
    print(format_matrix(token_table.weight, row_labels=[f"{i} {w:>13}" for i, w in
                                                        enumerate(words)]))
    # Row 4 ('the') is [2.4041, -1.5311, 0.7965, -2.0036] with seed 0.
    print("The values are random (seeded) until training moves them; this lesson")
    print("never trains, so only their equality matters here.")

# %% Looking up a sentence
if __name__ == "__main__":
    lesson.stage("A sentence's embeddings: the table's row for each ID")

    first_ids = tokenizer.encode(first)  # [4, 0, 3, 2, 4, 1]
    first_embeddings = token_table(first_ids)  # (6, 4): one row per token
    print(f"IDs {first_ids} -> token embeddings of shape {first_embeddings.shape}")
    labels = [f"pos {pos} {token:>3}" for pos, token in enumerate(tokenizer.tokenize(first))]
    print(format_matrix(first_embeddings, row_labels=labels))
    print("'the' at positions 0 and 4: identical rows? "
          f"{first_embeddings[0].tolist() == first_embeddings[4].tolist()}")  # True
    lesson.check("'the' at positions 0 and 4 gets identical rows",
                 first_embeddings[0].tolist() == first_embeddings[4].tolist())

# %% A lookup is a matrix product with a one-hot vector
if __name__ == "__main__":
    lesson.stage("A lookup is a one-hot row times the table")

    cat_id = tokenizer.vocab["cat"]  # 0
    one_hot = Matrix([[1.0 if j == cat_id else 0.0 for j in range(vocab_size)]])  # (1, 7)
    picked = one_hot @ token_table.weight  # (1, 7) @ (7, 4) -> (1, 4)
    print(f"one_hot('cat') = {one_hot.tolist()[0]}")
    print(f"one_hot @ weight = {picked[0]!r}")  # [0.94172, -1.3966, -0.67971, 0.3705]
    print(f"weight[{cat_id}]        = {token_table.weight[cat_id]!r}")
    print(f"the same? {allclose(picked[0], token_table.weight[cat_id])}")  # True
    lesson.check("one-hot times the table picks the token's row",
                 allclose(picked[0], token_table.weight[cat_id]))
    print("Indexing row i is the fast way to compute the same product.")

# %% The same word in another sentence
if __name__ == "__main__":
    lesson.stage("'cat' in the other sentence")

    second_ids = tokenizer.encode(second)  # [2, 4, 1, 4, 0, 3]
    second_embeddings = token_table(second_ids)
    cat_first = first_embeddings[first_ids.index(cat_id)]  # position 1
    cat_second = second_embeddings[second_ids.index(cat_id)]  # position 4
    both = Matrix([cat_first.tolist(), cat_second.tolist()])  # (2, 4)
    print(format_matrix(both, row_labels=["'cat', first sentence, pos 1 ",
                                          "'cat', second sentence, pos 4"]))
    # both rows: [0.9417, -1.3966, -0.6797, 0.3705]
    print(f"identical? {cat_first.tolist() == cat_second.tolist()}")  # True
    lesson.check("'cat' gets one vector in both sentences",
                 cat_first.tolist() == cat_second.tolist())
    print("The vector says WHAT the word is and nothing about WHERE it is. Both")
    print("sentences give the same set of six rows, only stacked in another order.")
    print("Lesson 3 shows that attention cannot recover the order from these rows;")
    print("positions (lessons 4-7) give each row a mark of where it stands.")
    print("Now try exercise 2: python -m minipe exercises check 2")
