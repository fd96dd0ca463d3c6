"""Lesson 10: check yourself

Question: can you answer lecture 000's five self-assessment questions? Each
answer here is computed, not just stated. Try each one before you read it:
with --step, each question waits for Enter before its answer is computed.

Claim checked (lecture 000): each of its five questions has an answer that
a computation can show.

Lecture 000. Run: python walkthroughs/10_check_yourself.py [--step]
"""

import math

from lesson import Lesson

from minipe import (
    Embedding,
    LearnedPositionalEmbedding,
    Matrix,
    SingleHeadAttention,
    Tokenizer,
    allclose,
    sinusoidal_encoding,
)

# %% Question 1: why is self-attention permutation-invariant?
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Why is self-attention 'permutation-invariant', and why is that bad?")
    lesson.answer()  # under --step: a pause, then the answer is computed

    tokenizer = Tokenizer.from_corpus("a man bites a dog")
    ids = tokenizer.encode("a man bites a dog")  # [0, 3, 1, 0, 2]
    reversed_ids = ids[::-1]  # "dog a bites man a"
    d_model = 8
    token_table = Embedding(tokenizer.vocab_size, d_model, seed=0)
    head = SingleHeadAttention(d_model, d_model, seed=2)
    output = head(token_table(ids)).output  # (5, 8)
    reversed_output = head(token_table(reversed_ids)).output  # (5, 8)
    undone = Matrix([reversed_output[j].tolist() for j in range(4, -1, -1)])
    print("reverse the 5 tokens, run the head, reverse the outputs back:")
    print(f"   identical to the outputs of the original order? {allclose(undone, output)}")
    lesson.check("undoing the reordering gives the original outputs", allclose(undone, output))
    print("Each output is a weighted mix of all tokens, and the weights depend only")
    print("on the vectors, not on where they stand. So any reordering just reorders")
    print("the outputs: strictly, attention is 'equivariant' (errata E2), and 'man")
    print("bites dog' reads like 'dog bites man'. Word order carries meaning, so")
    print("this loses it.")

# %% Question 2: what does a positional encoding do, and how is it integrated?
if __name__ == "__main__":
    lesson.stage("What is a positional encoding for, and how is it combined?")
    lesson.answer()  # under --step: a pause, then the answer is computed

    x = token_table(ids)  # (5, 8)
    pe = sinusoidal_encoding(len(ids), d_model)  # (5, 8): row pos for position pos
    x_prime = x + pe  # X' = X + PE: element by element, shape unchanged
    print(f"X {x.shape} + PE {pe.shape} -> X' {x_prime.shape}")
    first_a, second_a = x_prime[0], x_prime[3]  # 'a' at positions 0 and 3
    print(f"'a' at pos 0 and pos 3: same token row in X? {allclose(x[0], x[3])}")  # True
    lesson.check("'a' has one token row at positions 0 and 3", allclose(x[0], x[3]))
    print(f"                        same row in X'?      {allclose(first_a, second_a)}")
    lesson.check("'a' at positions 0 and 3 differs once positions are added",
                 not allclose(first_a, second_a))
    print("It gives each token a mark of where it stands. It is added, not")
    print(f"concatenated: concatenating would give ({len(ids)}, {2 * d_model}) and make every")
    print("later weight matrix bigger; adding keeps d_model, and training learns")
    print("to keep 'what' and 'where' apart in the same numbers.")

# %% Question 3: what does "fixed" mean?
if __name__ == "__main__":
    lesson.stage("What does 'fixed' mean, compared with 'learned'?")
    lesson.answer()  # under --step: a pause, then the answer is computed

    once = sinusoidal_encoding(4, d_model)
    again = sinusoidal_encoding(4, d_model)
    print(f"sinusoidal table, two calls: identical? {once.tolist() == again.tolist()}")
    lesson.check("the sinusoidal table is the same on every call", once.tolist() == again.tolist())
    print("   (sinusoidal_encoding takes no seed at all: nothing random, nothing trained)")
    learned_0 = LearnedPositionalEmbedding(4, d_model, seed=0).weight
    learned_0_again = LearnedPositionalEmbedding(4, d_model, seed=0).weight
    learned_1 = LearnedPositionalEmbedding(4, d_model, seed=1).weight
    print(f"learned table, seed 0 twice: identical? "
          f"{learned_0.tolist() == learned_0_again.tolist()}")  # True
    lesson.check("the learned table is the same for the same seed",
                 learned_0.tolist() == learned_0_again.tolist())
    print(f"learned table, seed 0 vs 1:  identical? "
          f"{learned_0.tolist() == learned_1.tolist()}")  # False
    lesson.check("another seed draws another learned table",
                 learned_0.tolist() != learned_1.tolist())
    print("Fixed: a formula decides every number, the same in every model and run.")
    print("Learned: random numbers that training then moves; a new model, a new table.")

# %% Question 4: PE(pos, 0) and PE(pos, 1) as expressions
if __name__ == "__main__":
    lesson.stage("Write PE(pos, 0) and PE(pos, 1); evaluate them")
    lesson.answer()  # under --step: a pause, then the answer is computed

    print("PE(pos, 0) = sin(pos / 10000**(0/d_model)) = sin(pos)")
    print("PE(pos, 1) = cos(pos / 10000**(0/d_model)) = cos(pos)")
    print("Both belong to i = 0: column 2i is a sine and column 2i + 1 its cosine;")
    print("lecture 000 calls them i = 0 and i = 1 (errata E3).")
    table = sinusoidal_encoding(11, d_model)  # positions 0..10
    for pos in (0, 1, 2, 3, 10):
        by_formula = (math.sin(pos), math.cos(pos))
        from_table = (table[pos][0], table[pos][1])
        agree = allclose(list(by_formula), list(from_table))
        print(f"   pos {pos:2}: sin = {by_formula[0]:7.4f}, cos = {by_formula[1]:7.4f}"
              f"   table agrees: {agree}")
        lesson.check("PE(pos, 0) and PE(pos, 1) by the formula are the table's", agree)
    # pos 1: 0.8415, 0.5403;  pos 3: 0.1411, -0.9900;  pos 10: -0.5440, -0.8391
    print("With i = 1 the denominator is 10000**(2/d_model): for d_model = 4 that is")
    print("100, so PE(pos, 2) = sin(pos / 100) and PE(pos, 3) = cos(pos / 100).")

# %% Question 5: the role of 10000**(2i/d_model)
if __name__ == "__main__":
    lesson.stage("What does 10000**(2i/d_model) do, and at what scales?")
    lesson.answer()  # under --step: a pause, then the answer is computed

    wide = 16  # 8 column pairs: 8 hands
    print("turns of each pair's 'hand' = pos / (2*pi * 10000**(2i/16)), at a few pos:")
    print("    pos" + "".join(f"   i = {i}" for i in range(wide // 2)))
    for pos in (1, 10, 100, 1000):
        turns = [pos / (2 * math.pi * 10000 ** (2 * i / wide)) for i in range(wide // 2)]
        print(f"   {pos:4}" + "".join(f" {t:7.3f}" for t in turns))
    # pos 1000: i = 0 has turned 159.155 times, i = 7 only 0.050 of a turn
    print("The term sets each pair's speed, in a geometric progression; i = 0 is")
    print("the fastest (errata E1). Fast hands (small i) tell neighbours apart but")
    print("spin round many times over a long text; slow hands (large i) barely move")
    print("between neighbours but place a token far along. Together they give every")
    print("position its own vector, at every scale.")
