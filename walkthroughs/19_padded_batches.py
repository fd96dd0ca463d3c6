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

SEEDS = (0, 1, 2)  # each trained head, three times
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
    print(f"{asked} targets. A head of each kind trained 40 steps x 4 sequences (lr 0.1),")
    print(f"from seeds {', '.join(map(str, SEEDS))} (the seed draws the tables and the "
          f"batches):")
    print(f"   {'':11}{'seed':>4}{'logits moved':>14}{'predictions':>13}{'right, from':>13}"
          f"{'right, by':>11}")
    print(f"   {'':15}{'by column':>14}{'changed':>13}{'the mask':>13}{'column':>11}")
    moved, changed, right_by = {}, {}, {}  # (kind, seed) -> each
    unlike_alone = 0.0  # from the mask: the real rows against each sequence alone
    for kind in ("learned", "sinusoidal", "rope", "alibi"):
        for seed in SEEDS:
            steps, run = 40, (kind, seed)
            model = train(TinyModel(VOCAB, 8, T, positions=kind, seed=seed), "previous-token",
                          steps=steps, batch_size=4, learning_rate=0.1, seed=seed,
                          on_step=lesson.progress(f"{kind}, seed {seed}", steps)).model
            from_mask = model.logits(padded_ids, attention_mask=pad_mask,
                                     position_ids=position_ids(pad_mask))
            column_logits = model.logits(padded_ids, attention_mask=pad_mask)  # 0 .. 7
            moved[run], changed[run] = 0.0, 0
            right = {"mask": 0, "column": 0}
            for b, n in enumerate(lengths):
                alone = model.logits(inputs[b][:n])  # (n, vocab): no padding, 0 .. n-1
                real_rows = from_mask[b][T - n:]  # the last n rows: the real tokens
                unlike_alone = max(unlike_alone, max(abs(x - y) for row_a, row_b in
                                                     zip(alone.rows, real_rows.rows)
                                                     for x, y in zip(row_a, row_b)))
            for b, row in enumerate(wanted):
                for t, target in enumerate(row):
                    if not pad_mask[b][t]:
                        continue  # padding: its outputs are thrown away
                    good, shifted = list(from_mask[b][t]), list(column_logits[b][t])
                    moved[run] = max(moved[run], max(abs(x - y) for x, y in zip(good, shifted)))
                    if target == -100:
                        continue  # a first token: nothing before it to predict
                    picked, picked_shifted = good.index(max(good)), shifted.index(max(shifted))
                    changed[run] += picked != picked_shifted
                    right["mask"] += picked == target
                    right["column"] += picked_shifted == target
            right_by[run] = right
            shown = "< 1e-12" if kind == "rope" else f"{moved[run]:.3g}"  # RoPE's: rounding
            print(f"   {kind if seed == SEEDS[0] else '':<11}{seed:4}{shown:>14}"
                  f"{changed[run]:13}{right['mask']:13}{right['column']:11}")
    learned = [moved["learned", seed] for seed in SEEDS]
    sinusoidal = [moved["sinusoidal", seed] for seed in SEEDS]
    print(f"On every seed the learned and sinusoidal heads' logits move by column (at least")
    print(f"{min(learned):.3g} and {min(sinusoidal):.3g}); RoPE's only by rounding (below "
          f"1e-12), ALiBi's not at all.")
    lesson.check(f"on each of the {len(SEEDS)} seeds, the learned and sinusoidal logits move "
                 f"by column (by more than 0.1), RoPE's only by rounding (under 1e-12), "
                 f"ALiBi's not at all", all(
                     min(moved["learned", seed], moved["sinusoidal", seed]) > 0.1
                     and moved["rope", seed] < 1e-12 and moved["alibi", seed] == 0.0
                     for seed in SEEDS))
    changes = {kind: [changed[kind, seed] for seed in SEEDS]
               for kind in ("learned", "sinusoidal")}
    print(f"The top prediction changes on {min(changes['learned'])} to "
          f"{max(changes['learned'])} of {asked} targets (learned) and on "
          f"{min(changes['sinusoidal'])} to {max(changes['sinusoidal'])}")
    print("(sinusoidal), on none for RoPE and ALiBi. By column each real token's")
    print("previous token is still one position back, at positions the heads were")
    print("trained on (0..7), so fewer than half of the answers change, on every seed.")
    lesson.check("on each seed no prediction of RoPE's or ALiBi's changes by column, and "
                 "fewer than half of the learned and sinusoidal heads' do",
                 all(changed["rope", seed] == changed["alibi", seed] == 0 for seed in SEEDS)
                 and max(changes["learned"] + changes["sinusoidal"]) < asked / 2)
    moves = {kind: [right_by[kind, seed]["column"] - right_by[kind, seed]["mask"]
                    for seed in SEEDS] for kind in ("learned", "sinusoidal")}
    both = moves["learned"] + moves["sinusoidal"]
    print("The number right by column minus the number right from the mask:")
    for kind, kind_moves in moves.items():
        print(f"   {kind:<11} seeds {', '.join(map(str, SEEDS))}: "
              f"{', '.join(f'{move:+d}' for move in kind_moves)}")
    print(f"It moves either way, by up to {max(map(abs, both))} of {asked}, and on some "
          f"seeds not at all:")
    print("counting by column does not always cost right answers. What holds on every")
    print("seed is that the learned and sinusoidal logits move.")
    lesson.check("the number right by column is higher than from the mask on some seed and "
                 "lower on another, and the same on a third", max(both) > 0 > min(both)
                 and 0 in both)
    print("Counted from the mask, every kind on every seed gives each sequence its")
    print(f"logits alone (largest difference {unlike_alone}); by column, only RoPE's and")
    print("ALiBi's scores stay put.")
    lesson.check("from the mask every trained head gives each sequence its logits alone, "
                 "exactly", unlike_alone == 0.0)
    print("Now try exercise 13: python -m minipe exercises check 13")
