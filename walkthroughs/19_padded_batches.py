"""Lesson 19: padded batches

Question: a model reads texts in batches, and texts differ in length. The
short ones are padded to the longest. What does the padding change - the
mask, the positions, the outputs - and how does each text get exactly the
output it would get alone?

Claim checked (lecture 001): one table of positions 0..n-1 is broadcast over
every sequence of a batch, so column t gets position t in every row. That holds
while every text starts in column 0; with left padding it does not. Padding is
said by the attention mask, not by the padding ID, and a text's positions must
be counted over its real tokens (position_ids = cumsum(mask) - 1). Counted by
column, left padding moves the learned and sinusoidal rows and changes the
real tokens' outputs, while RoPE and ALiBi, which see only differences of
positions, stay the same to within rounding. With position_ids from the mask,
every kind gives each text exactly its unpadded output.

Lecture 001, then past it: how padded batches are fed to models today.
Run: python walkthroughs/19_padded_batches.py [--step]
"""

from lesson import Lesson

from minipe import (
    Embedding,
    SingleHeadAttention,
    Tokenizer,
    format_matrix,
    position_ids,
    run_batch,
)

# %% Three texts, one rectangle
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Three texts of 6, 5 and 2 tokens, padded to 6")

    texts = ["The cat sat on the mat", "A dog bites a man", "the cat"]
    tokenizer = Tokenizer.from_corpus(" ".join(texts))
    pad_id = tokenizer.tokens.index("<|endoftext|>")  # 10: the last ID
    print(f"padding ID: {pad_id}, <|endoftext|>'s: GPT-2 has no padding token, so its")
    print("batches are padded with <|endoftext|> as well")
    for side in ("right", "left"):
        batch = tokenizer.encode_batch(texts, padding_side=side)
        print(f"padding_side={side!r}:")
        for ids, mask in zip(batch.ids, batch.attention_mask):
            print(f"   ids {str(ids):<22} attention_mask {mask}")
    print("The mask says which entries are real (1) and which are padding (0);")
    print("the ID cannot, since <|endoftext|> may also be a real token.")

# %% Positions: by column, or counted over the real tokens
if __name__ == "__main__":
    lesson.stage("position_ids = cumsum(attention_mask) - 1 at the real tokens")

    left = tokenizer.encode_batch(texts, padding_side="left")
    by_mask = position_ids(left.attention_mask)  # padding gets 0
    print(f"   {'left padded':<25}{'by column':<20}from the mask")
    for text, positions in zip(texts, by_mask):
        print(f"   {text!r:<25}{str(list(range(6))):<20}{positions}")
    print(f"With left padding, 'the cat' stands in columns 4 and 5, but at positions "
          f"{by_mask[2][4:]}:")
    print("the positions it has when it is read alone. Padding gets 0, and any")
    print("position would do: no real token sees it, and its own outputs are dropped.")

# %% What the mask hides
if __name__ == "__main__":
    lesson.stage("What the mask hides: the padding keys get weight exactly 0")

    d_model = 8
    tokens = Embedding(tokenizer.vocab_size, d_model, seed=0)
    head = SingleHeadAttention(d_model, d_model, seed=2)
    x = tokens(left.ids[2])  # 'the cat', left padded: (6, 8)
    real_keys = [[bool(real) for real in left.attention_mask[2]]] * 6
    weights = head(x, mask=real_keys).weights  # (6, 6)
    labels = [f"{'pad' if not real else token}" for real, token in
              zip(left.attention_mask[2], ["", "", "", "", "the", "cat"])]
    print(format_matrix(weights, row_labels=labels))
    hidden = [weights[i][j] for i in range(6) for j in range(4)]
    print(f"weights on the 4 padding keys: all {max(hidden)}")  # 0.0
    causal = head(x, causal=True, mask=real_keys).weights  # a padding query sees no key
    print("causal too: the padding query in column 0 may see only column 0, padding:")
    print(f"no key at all. Its weights: {causal[0].tolist()}, and its output")
    print(f"{head(x, causal=True, mask=real_keys).output[0].tolist()[:3]}... - zeros, not "
          f"0/0 = NaN.")

# %% Positions counted over the padding
if __name__ == "__main__":
    lesson.stage("Counted by column: which kinds change a real token's output?")

    print("max |output - output alone| over the real tokens of 'the cat', left padded")
    by_column = {}
    for kind in ("learned", "sinusoidal", "rope", "alibi"):
        trace = run_batch(texts, positions=kind, padding_side="left")
        by_column[kind] = trace.largest_difference(2, trace.by_column)
        print(f"   {kind:<10} positions 4, 5 (by column): {by_column[kind]:.3g}")
    print("learned and sinusoidal add the rows of positions 4 and 5, not 0 and 1:")
    print("the inputs change, and so do the outputs. RoPE's score depends on the")
    print("angle between q_i and k_j, (p_i - p_j) * theta: 5 - 4 = 1 - 0, so only")
    print(f"rounding is left ({by_column['rope']:.2g}). ALiBi adds -m |p_i - p_j|: "
          f"exactly the same ({by_column['alibi']:.3g}).")

# %% position_ids from the mask: every kind, exactly
if __name__ == "__main__":
    lesson.stage("With position_ids from the mask, each text gets its output alone")

    print("max |output - output alone| over each text's real tokens, all three texts")
    largest = 0.0
    for kind in ("learned", "sinusoidal", "rope", "alibi", "none"):
        for side in ("right", "left"):
            trace = run_batch(texts, positions=kind, padding_side=side)
            worst = max(trace.largest_difference(b, trace.outputs) for b in range(3))
            largest = max(largest, worst)
            print(f"   {kind:<10} padding_side={side!r:<8} {worst}")
    print(f"Every kind, both sides: {largest} - not small, zero. The padding keys")
    print("add exp(-inf) = 0 to each sum, and the real tokens stand where they would")
    print("alone. Try it:")
    print('   python -m minipe "The cat sat on the mat" "the cat" --padding-side left')
