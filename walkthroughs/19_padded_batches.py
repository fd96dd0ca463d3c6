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
every kind gives each text exactly its unpadded output. Last, heads trained in
the lab: does counting by column change what they predict, or only their scores?

Lecture 001, then past it: how padded batches are fed to models today.
Run: python walkthroughs/19_padded_batches.py [--step]
"""

from lesson import Lesson

from minipe import (
    Embedding,
    SingleHeadAttention,
    TinyModel,
    Tokenizer,
    format_matrix,
    position_ids,
    run_batch,
    task_batch,
    train,
)

VOCAB, T = 8, 8  # the lab's heads: 8 token kinds, trained on 8 tokens

# %% Three texts, one rectangle
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Three texts of 6, 5 and 2 tokens, padded to 6")

    texts = ["The cat sat on the mat", "A dog bites a man", "the cat"]
    tokenizer = Tokenizer.from_corpus(" ".join(texts))
    pad_id = tokenizer.tokens.index("<|endoftext|>")  # 10: the last ID
    print(f"padding ID: {pad_id}, <|endoftext|>'s. GPT-2's tokenizer has no padding token;")
    print("the usual choice with Hugging Face, pad_token = eos_token, pads with")
    print("<|endoftext|> too")
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
    lesson.check("the padding keys get weight exactly 0", max(hidden) == 0.0)
    causal = head(x, causal=True, mask=real_keys).weights  # a padding query sees no key
    print("causal too: the padding query in column 0 may see only column 0, padding:")
    print(f"no key at all. Its weights: {causal[0].tolist()}, and its output")
    print(f"{head(x, causal=True, mask=real_keys).output[0].tolist()[:3]}... - zeros, not "
          f"0/0 = NaN.")
    lesson.check("a query that sees no key gets all-0 weights and an all-0 output",
                 set(causal[0].tolist()) == {0.0}
                 and set(head(x, causal=True, mask=real_keys).output[0].tolist()) == {0.0})

# %% Positions counted over the padding
if __name__ == "__main__":
    lesson.stage("Counted by column: which kinds change a real token's output?")

    print("max |output - output alone| over the real tokens of 'the cat', left padded")
    by_column = {}
    for kind in ("learned", "sinusoidal", "rope", "alibi"):
        trace = run_batch(texts, positions=kind, padding_side="left")
        by_column[kind] = trace.largest_difference(2, trace.by_column)
        shown = "below 1e-14" if kind == "rope" else f"{by_column[kind]:.3g}"  # rounding
        print(f"   {kind:<10} positions 4, 5 (by column): {shown}")
    print("learned and sinusoidal add the rows of positions 4 and 5, not 0 and 1:")
    lesson.check("by column the learned and sinusoidal tables change the outputs (by more "
                 "than 0.1)", min(by_column["learned"], by_column["sinusoidal"]) > 0.1)
    print("the inputs change, and so do the outputs. RoPE's score depends on the")
    print("angle between q_i and k_j, (p_i - p_j) * theta: 5 - 4 = 1 - 0, so only")
    print("rounding is left (below 1e-14). ALiBi adds -m |p_i - p_j|: "
          f"exactly the same ({by_column['alibi']:.3g}).")
    lesson.check("by column RoPE moves the outputs only by rounding (under 1e-14) and ALiBi "
                 "not at all", by_column["rope"] < 1e-14 and by_column["alibi"] == 0.0)

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
    lesson.check("with position_ids from the mask every kind gives each text its output "
                 "alone, exactly", largest == 0.0)
    print("add exp(-inf) = 0 to each sum, and the real tokens stand where they would")
    print("alone. Try it:")
    print('   python -m minipe "The cat sat on the mat" "the cat" --padding-side left')

# %% Trained heads: the scores, and what they predict
if __name__ == "__main__":
    lesson.stage("Trained heads, left padded: does counting by column change a prediction?")

    inputs, targets = task_batch("previous-token", VOCAB, T, 16, seed=7)
    lengths = [T - b % 6 for b in range(16)]  # 8, 7, 6, 5, 4, 3, 8, 7, ...
    padded_ids, pad_mask, wanted = [], [], []
    for sequence, wanted_row, n in zip(inputs, targets, lengths):  # n tokens, padded left
        padded_ids.append([0] * (T - n) + sequence[:n])  # ID 0: the mask says it is padding
        pad_mask.append([0] * (T - n) + [1] * n)
        wanted.append([-100] * (T - n) + wanted_row[:n])  # the target at t: the token at t - 1
    asked = sum(target != -100 for row in wanted for target in row)
    print(f"16 sequences of previous-token, cut to {min(lengths)}..{T} tokens and left "
          f"padded to {T}:")
    print(f"{asked} targets. A head of each kind trained 40 steps x 4 sequences (lr 0.1):")
    print(f"   {'':11}{'logits moved':>13}{'predictions':>13}{'right, from':>13}"
          f"{'right, by':>11}")
    print(f"   {'':11}{'by column':>13}{'changed':>13}{'the mask':>13}{'column':>11}")
    moved, changed, right_by = {}, {}, {}
    unlike_alone = 0.0  # from the mask: the real rows against each sequence alone
    for kind in ("learned", "sinusoidal", "rope", "alibi"):
        steps = 40
        model = train(TinyModel(VOCAB, 8, T, positions=kind), "previous-token", steps=steps,
                      batch_size=4, learning_rate=0.1, on_step=lesson.progress(kind, steps)
                      ).model
        from_mask = model.logits(padded_ids, attention_mask=pad_mask,
                                 position_ids=position_ids(pad_mask))
        column_logits = model.logits(padded_ids, attention_mask=pad_mask)  # 0 .. 7 by column
        moved[kind], changed[kind] = 0.0, 0
        right = {"mask": 0, "column": 0, "lost": 0, "gained": 0}
        for b, n in enumerate(lengths):
            alone = model.logits(inputs[b][:n])  # (n, vocab): no padding, positions 0 .. n-1
            real_rows = from_mask[b][T - n:]  # the last n rows: the real tokens
            unlike_alone = max(unlike_alone, max(abs(x - y) for row_a, row_b in
                                                 zip(alone.rows, real_rows.rows)
                                                 for x, y in zip(row_a, row_b)))
        for b, row in enumerate(wanted):
            for t, target in enumerate(row):
                if not pad_mask[b][t]:
                    continue  # padding: its outputs are thrown away
                good, shifted = list(from_mask[b][t]), list(column_logits[b][t])
                moved[kind] = max(moved[kind], max(abs(x - y) for x, y in zip(good, shifted)))
                if target == -100:
                    continue  # a first token: nothing before it to predict
                picked, picked_shifted = good.index(max(good)), shifted.index(max(shifted))
                changed[kind] += picked != picked_shifted
                right["mask"] += picked == target
                right["column"] += picked_shifted == target
                right["lost"] += picked == target != picked_shifted  # right only from the mask
                right["gained"] += picked_shifted == target != picked  # right only by column
        right_by[kind] = right
        shown = "< 1e-14" if kind == "rope" else f"{moved[kind]:.3g}"  # RoPE's: rounding
        print(f"   {kind:<11}{shown:>13}{changed[kind]:13}{right['mask']:13}"
              f"{right['column']:11}")
    same = sum(right_by[kind]["mask"] == right_by[kind]["column"] for kind in right_by)
    print("Trained, the learned and sinusoidal heads' logits still move by column (up to")
    print(f"{moved['learned']:.3g} and {moved['sinusoidal']:.3g}); RoPE's only by rounding "
          f"(below 1e-14), ALiBi's not at all ({moved['alibi']:g}).")
    lesson.check("trained, the learned and sinusoidal logits move by column (by more than "
                 "0.1), RoPE's only by rounding (under 1e-14), ALiBi's not at all",
                 min(moved["learned"], moved["sinusoidal"]) > 0.1 and moved["rope"] < 1e-14
                 and moved["alibi"] == 0.0)
    print(f"The top prediction changes on {changed['learned']} (learned) and "
          f"{changed['sinusoidal']} (sinusoidal) of {asked} targets,")
    print(f"on {changed['rope'] + changed['alibi']} for RoPE and ALiBi; the number right is "
          f"the same either way")
    lesson.check("no prediction of RoPE's or ALiBi's changes by column",
                 changed["rope"] == changed["alibi"] == 0)
    learned, sinusoidal = right_by["learned"], right_by["sinusoidal"]
    cancel = all(right_by[kind]["lost"] == right_by[kind]["gained"] for kind in right_by)
    print(f"for {same} of the 4 kinds, yet answers changed: by column, learned loses "
          f"{learned['lost']} right")
    print(f"answers and gains {learned['gained']}, sinusoidal loses {sinusoidal['lost']} and "
          f"gains {sinusoidal['gained']}: on these 16 sequences")
    print(f"the losses and gains {'cancel' if cancel else 'do not cancel'}. By column each "
          f"real token's previous")
    print("token is still one position back, at positions the heads were trained on")
    print("(0..7), so most answers survive the shift. Counted from the mask, every kind")
    lesson.check("by column some answers of the learned and sinusoidal heads change, but "
                 "fewer than half", all(0 < changed[kind] < asked / 2
                                        for kind in ("learned", "sinusoidal")))
    print(f"gives each sequence its logits alone (largest difference {unlike_alone}); by "
          f"column,")
    lesson.check("from the mask every trained head gives each sequence its logits alone, "
                 "exactly", unlike_alone == 0.0)
    print("only RoPE's and ALiBi's scores stay put.")
    print("Now try exercise 13: python -m minipe exercises check 13")
