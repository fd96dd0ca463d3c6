"""Lesson 9: the whole pipeline

Question: what happens, stage by stage and shape by shape, between the text
"The cat sat on the mat" and the output of a causal attention head?

Claim checked (lecture 001): text -> IDs -> embeddings -> + positions ->
input embeddings feeds attention, with the shapes the lecture gives.

    text -> tokens -> token IDs -> token embeddings -> + positions
         -> input embeddings -> Q, K, V -> masked softmax -> output

Lecture 001's summary. Run: python walkthroughs/09_the_whole_pipeline.py [--step]
"""

import math

from lesson import Lesson

from minipe import (
    Embedding,
    SingleHeadAttention,
    Tokenizer,
    allclose,
    format_matrix,
    run,
    scaled_dot_product_attention,
    sinusoidal_encoding,
)
from minipe.plot import attention_weights

# %% Text -> tokens -> IDs
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Text -> tokens -> token IDs")

    text = "The cat sat on the mat"
    d_model = 8  # numbers per token, small enough to print
    seed = 0
    tokenizer = Tokenizer.from_corpus(text)  # the vocabulary of this one text
    tokens = tokenizer.tokenize(text)  # ['the', 'cat', 'sat', 'on', 'the', 'mat']
    token_ids = tokenizer.encode(text)  # [4, 0, 3, 2, 4, 1]
    n = len(token_ids)  # 6 tokens, at positions 0..5
    labels = [f"{pos} {token}" for pos, token in enumerate(tokens)]
    print(f"text:      {text!r}")
    print(f"tokens:    {tokens}")
    print(f"token IDs: {token_ids}  (vocab_size {tokenizer.vocab_size}), shape ({n},)")

# %% Token embeddings
if __name__ == "__main__":
    lesson.stage("Token embeddings: (6,) IDs -> (6, 8)")

    token_table = Embedding(tokenizer.vocab_size, d_model, seed=seed)  # (7, 8)
    token_embeddings = token_table(token_ids)  # (6, 8)
    print(f"token table {token_table.weight.shape} -> token embeddings "
          f"{token_embeddings.shape}")
    print(format_matrix(token_embeddings, row_labels=labels))
    # row 'the' (pos 0 and 4): [-0.1191, 1.8043, -0.1604, -0.0507, ...]

# %% + positions
if __name__ == "__main__":
    lesson.stage("+ sinusoidal positions -> input embeddings, (6, 8)")

    position_encodings = sinusoidal_encoding(n, d_model)  # (6, 8): rows 0..5
    input_embeddings = token_embeddings + position_encodings  # (6, 8) + (6, 8)
    print(f"position encodings {position_encodings.shape} + token embeddings "
          f"{token_embeddings.shape} -> input embeddings {input_embeddings.shape}")
    print(format_matrix(input_embeddings, row_labels=labels))
    print("Now the two 'the' rows differ: one carries PE(0), the other PE(4).")

# %% Queries, keys, values
if __name__ == "__main__":
    lesson.stage("Q = X W_q, K = X W_k, V = X W_v: each (6, 8)")

    head = SingleHeadAttention(d_model, d_model, seed=seed + 2)  # W_q, W_k, W_v: (8, 8)
    queries = input_embeddings @ head.W_q  # (6, 8) @ (8, 8) -> (6, 8)
    keys = input_embeddings @ head.W_k  # (6, 8)
    values = input_embeddings @ head.W_v  # (6, 8)
    print(f"W_q, W_k, W_v: {head.W_q.shape} each (seeded, untrained)")
    print(f"Q {queries.shape}, K {keys.shape}, V {values.shape}")

# %% Scores, the causal mask, the weights
if __name__ == "__main__":
    lesson.stage("Scores Q K^T / sqrt(d_k), the causal mask, the softmax: (6, 6)")

    result = scaled_dot_product_attention(queries, keys, values, causal=True)
    sqrt_d_k = math.sqrt(d_model)  # 2.8284
    print(f"scores {result.scores.shape}; sqrt(d_k) = sqrt({d_model}) = {sqrt_d_k:.4f}")
    print("weights (row i: how much token i takes from each token j <= i):")
    print(format_matrix(result.weights, row_labels=labels))
    # row 0 is [1, 0, 0, 0, 0, 0]: the first token can only see itself
    # row 1 is [0.4325, 0.5675, 0, 0, 0, 0]: "cat" sees "the" and itself
    row_sums = [sum(row) for row in result.weights]
    print(f"every row sums to 1: {all(math.isclose(s, 1.0) for s in row_sums)}")
    lesson.check("every row of the weights sums to 1", all(math.isclose(s, 1.0) for s in row_sums))
    print("The mask sets score (i, j) to -inf for j > i, and exp(-inf) = 0: a")
    print("token never looks ahead. That is how GPT is trained to predict the next.")

# %% The output
if __name__ == "__main__":
    lesson.stage("Output = weights @ V: (6, 6) @ (6, 8) -> (6, 8)")

    print(format_matrix(result.output, row_labels=labels))
    trace = run(text, d_model=d_model, seed=seed, causal=True)  # all of it in one call
    print(f"minipe.run(text, causal=True) gives the same output? "
          f"{allclose(trace.attention.output, result.output)}")  # True
    lesson.check("minipe.run gives the output worked step by step",
                 allclose(trace.attention.output, result.output))
    print("Shapes along the way: (6,) -> (6, 8) -> (6, 8) -> 3 x (6, 8) -> (6, 6)")
    print("-> (6, 8). The output has one row per token, as the input did.")
    lesson.save_figure("causal_weights.svg", attention_weights(trace))
