"""Lesson 3: attention is blind to order

Question: "A man bites a dog" and "A dog bites a man" mean different things.
Without positions, can self-attention tell them apart?

Claim checked (lecture 000): without positions, self-attention only
permutes its outputs when the words are permuted, and adding sinusoidal
positions ends that. Also: GPT's causal mask alone lets order in.

Lecture 000. Run: python walkthroughs/03_attention_is_blind_to_order.py [--step]
"""

from lesson import Lesson

from minipe import (
    Embedding,
    Matrix,
    SingleHeadAttention,
    Tokenizer,
    allclose,
    format_matrix,
    scaled_dot_product_attention,
    sinusoidal_encoding,
)
from minipe.plot import Heatmap

# %% Two sentences, the same tokens
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Two sentences, the same five tokens in another order")

    first = "A man bites a dog"
    second = "A dog bites a man"
    tokenizer = Tokenizer.from_corpus(first + "\n" + second)
    first_tokens = tokenizer.tokenize(first)  # ['a', 'man', 'bites', 'a', 'dog']
    second_tokens = tokenizer.tokenize(second)  # ['a', 'dog', 'bites', 'a', 'man']
    print(f"{first!r:20} -> {first_tokens}")
    print(f"{second!r:20} -> {second_tokens}")
    man_first = first_tokens.index("man")  # position 1
    man_second = second_tokens.index("man")  # position 4
    print(f"'man' stands at position {man_first} in the first, {man_second} in the second.")

# %% Token embeddings, then one attention head
if __name__ == "__main__":
    lesson.stage("Token embeddings -> one attention head (no positions yet)")

    d_model = 8
    token_table = Embedding(tokenizer.vocab_size, d_model, seed=0)
    head = SingleHeadAttention(d_model, d_model, seed=2)  # untrained, seeded weights
    x_first = token_table(tokenizer.encode(first))  # (5, 8)
    x_second = token_table(tokenizer.encode(second))  # (5, 8)
    out_first = head(x_first).output  # (5, 8): one output row per token
    out_second = head(x_second).output  # (5, 8)
    print(f"inputs {x_first.shape} -> {head!r} -> outputs {out_first.shape}")
    man_out = Matrix([out_first[man_first].tolist(), out_second[man_second].tolist()])
    print(format_matrix(man_out, row_labels=["1st: man", "2nd: man"]))
    # both rows start [0.9651, 0.1473, -0.2512, ...]
    print(f"the same output for 'man'? {allclose(man_out[0], man_out[1])}")  # True
    lesson.check("without positions 'man' gets the same output in both sentences",
                 allclose(man_out[0], man_out[1]))
    lesson.save_figure("weights_without_positions.svg", Heatmap(
        head(x_first).weights, title=f"Attention weights for {first!r}, no positions",
        x_name="key: token j", y_name="query: token i",
        row_labels=tuple(first_tokens), col_labels=tuple(first_tokens),
        palette="sequential", color_range=(0.0, 1.0)))  # both figures: one scale from 0
    print("Attention mixed the same five vectors with the same weights: nothing in")
    print("them says where each token stands, so 'man' cannot know who bites whom.")

# %% Permuting the inputs permutes the outputs
if __name__ == "__main__":
    lesson.stage("Permute the inputs -> the outputs are permuted the same way")

    # second[j] is first[permutation[j]]: a, dog, bites, a, man = first's 0, 4, 2, 3, 1
    permutation = [0, 4, 2, 3, 1]
    print(f"second sentence = first sentence's tokens in the order {permutation}")
    permuted_outputs = Matrix([out_first[j].tolist() for j in permutation])
    print(f"outputs of the second == outputs of the first, permuted? "
          f"{allclose(out_second, permuted_outputs)}")  # True
    lesson.check("the second sentence's outputs are the first's, permuted",
                 allclose(out_second, permuted_outputs))
    print("This is permutation equivariance: reorder the words and every output")
    print("row moves with its word, unchanged. A bag of words, not a sentence.")
    print(f"Only a pooled result is invariant: the sum of the output rows, the same? "
          f"{allclose(sum(out_second), sum(out_first))}")  # True
    lesson.check("the sum of the output rows is the same",
                 allclose(sum(out_second), sum(out_first)))
    print("Lecture 000 calls attention itself 'invariant' (errata E2).")

# %% Add positions, and the two sentences come apart
if __name__ == "__main__":
    lesson.stage("Add sinusoidal positions: X' = X + PE")

    positions = sinusoidal_encoding(5, d_model)  # (5, 8): row pos for position pos
    pos_out_first = head(x_first + positions).output  # (5, 8)
    pos_out_second = head(x_second + positions).output  # (5, 8)
    man_out = Matrix([pos_out_first[man_first].tolist(), pos_out_second[man_second].tolist()])
    print(format_matrix(man_out, row_labels=["man @ 1", "man @ 4"]))
    # now [0.5869, 0.1720, ...] at position 1 and [0.5166, 0.2488, ...] at position 4
    print(f"the same output for 'man'? {allclose(man_out[0], man_out[1])}")  # False
    lesson.check("with positions added 'man' gets different outputs",
                 not allclose(man_out[0], man_out[1]))
    permuted_outputs = Matrix([pos_out_first[j].tolist() for j in permutation])
    print(f"still just a permutation?  {allclose(pos_out_second, permuted_outputs)}")  # False
    lesson.check("with positions the outputs are no longer a permutation",
                 not allclose(pos_out_second, permuted_outputs))
    lesson.save_figure("weights_with_positions.svg", Heatmap(
        head(x_first + positions).weights, title=f"Attention weights for {first!r}, X + PE",
        x_name="key: token j", y_name="query: token i",
        row_labels=tuple(first_tokens), col_labels=tuple(first_tokens),
        palette="sequential", color_range=(0.0, 1.0)))  # both figures: one scale from 0
    print("Each row now carries its position, so the order changes what attention")
    print("computes. That is the whole job of a positional encoding.")

# %% The causal mask lets order in, even without positions
if __name__ == "__main__":
    lesson.stage("The causal mask alone lets order in (still no positions)")

    masked_first = head(x_first, causal=True).output  # (5, 8): token i sees tokens 0..i
    masked_second = head(x_second, causal=True).output  # (5, 8)
    a_out = Matrix([masked_first[0].tolist(), masked_first[3].tolist()])
    print(format_matrix(a_out, row_labels=["a @ 0", "a @ 3"]))
    print(f"'a' at 0 and 3: one token row, the same output? "
          f"{allclose(a_out[0], a_out[1])}")  # False
    lesson.check("under the causal mask 'a' at 0 and 3 gets different outputs",
                 not allclose(a_out[0], a_out[1]))
    print(f"'man' in the two sentences, the same output? "
          f"{allclose(masked_first[man_first], masked_second[man_second])}")  # False
    lesson.check("under the causal mask 'man' gets different outputs in the two sentences",
                 not allclose(masked_first[man_first], masked_second[man_second]))
    print("Under GPT's mask token i sees tokens 0..i only: 'a' at 0 sees itself,")
    print("'a' at 3 sees four tokens. What a token sees depends on where it stands.")
    n = len(first_tokens)
    flat = Matrix.zeros(n, 1)  # q = k = 0: every score is 0, so the weights are equal
    first_only = Matrix([[1.0]] + [[0.0]] * (n - 1))  # a value that is 1 at token 0 only
    average = scaled_dot_product_attention(flat, flat, first_only, causal=True).output  # (5, 1)
    for i in range(n):
        print(f"   position {i}: causal average {average[i, 0]:.4f}, "
              f"1/(i+1) = {1 / (i + 1):.4f}")  # 1, 0.5, 0.3333, 0.25, 0.2
    print("Row i averages i + 1 values, so the first token's 1 arrives as 1/(i+1):")
    print("a signal that falls with the position, made by the mask alone. Attention")
    print("is blind to order without positions AND without the mask; with the mask,")
    print("order leaks in.")
    print("Now try exercises 6 and 7: python -m minipe exercises check 6")
