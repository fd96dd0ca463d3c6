"""Lesson 7: fixed vs learned positions

Question: a model is trained on sequences of at most 4 tokens. What happens
when it meets a fifth token, at position 4 (positions count from 0): with
sinusoidal positions, and with a learned (GPT-style) table? The lesson
trains both and tries.

Claim checked (lectures 001 and 003): the formula gives a vector for every
position, while a learned table stops at its context_length; a vector that
exists is not yet a position the model has learned to use.

Lectures 001 and 003, with the lab of chapter 10 (minipe/training/model.py).
Run: python walkthroughs/07_fixed_vs_learned.py [--step]
"""

import textwrap

from lesson import Lesson

from minipe import (
    LearnedPositionalEmbedding,
    Matrix,
    TinyModel,
    accuracy,
    allclose,
    format_matrix,
    sinusoidal_encoding,
    sinusoidal_position,
    task_batch,
    train,
)

SEEDS = (0, 1, 2)  # each kind of head, trained three times

# %% A sinusoidal table has no last row
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Sinusoidal: any position is a formula away")

    context_length = 4  # the longest sequence seen in training
    d_model = 8
    trained = sinusoidal_encoding(context_length, d_model)  # (4, 8)
    longer = sinusoidal_encoding(10, d_model)  # (10, 8)
    same_rows = all(allclose(trained[pos], longer[pos]) for pos in range(context_length))
    print(f"table for 4 positions: {trained.shape}; for 10 positions: {longer.shape}")
    print(f"rows 0-3 unchanged when the table grows? {same_rows}")  # True
    lesson.check("rows 0-3 are unchanged when the table grows", same_rows)
    far = sinusoidal_position(5000, d_model)
    beyond = Matrix([longer[4].tolist(), longer[5].tolist(), far.tolist()])  # never trained on
    print(format_matrix(beyond, row_labels=["pos 4", "pos 5", "pos 5000"]))
    # PE(4) = [-0.7568, -0.6536, 0.3894, 0.9211, 0.0400, 0.9992, 0.0040, 1.0000]
    print("The encoding extends past any length. Whether a trained model makes")
    print("good use of positions it never saw is another matter: stage 3 trains")
    print("heads on 4 tokens, from three seeds, and stage 4 measures them.")

# %% A learned table stops at context_length
if __name__ == "__main__":
    lesson.stage("Learned: a table of context_length rows, and nothing beyond")

    position_table = LearnedPositionalEmbedding(context_length, d_model, seed=1)
    print(f"{position_table!r}: weight shape {position_table.weight.shape}")  # (4, 8)
    print(f"a sequence of 4 tokens -> positions 0..3 -> {position_table(4).shape}")  # (4, 8)
    try:
        position_table(5)  # a fifth token needs position 4: there is no row 4
    except ValueError as error:
        print("a sequence of 5 tokens -> ValueError:")
        print(textwrap.indent(textwrap.fill(str(error), width=76), "   "))
    print("Position 4 was never given a row, so there is nothing to look up:")
    print("GPT-2, with 1024 rows (positions 0..1023), has no row for position")
    print("1024. That is why its context length is a hard limit.")

# %% Train both on 4 tokens
if __name__ == "__main__":
    lesson.stage("Train a head of each kind on sequences of 4 tokens")

    steps, batch_size = 200, 8  # the lab's default is 300 x 8; 200 steps learn this task
    print(f"Each kind trained from seeds {', '.join(map(str, SEEDS))} (a seed draws the "
          f"tables and batches):")
    models = {}  # (kind, seed) -> the trained model
    at_4_tokens = {}  # (kind, seed) -> accuracy at the trained length, on 64 x 3 = 192 targets
    for kind in ("sinusoidal", "learned"):
        for seed in SEEDS:
            model = TinyModel(5, d_model, context_length, positions=kind, seed=seed)
            models[kind, seed] = train(model, "previous-token", steps=steps,
                                       batch_size=batch_size, seed=seed,
                                       on_step=lesson.progress(f"{kind}, seed {seed}", steps)
                                       ).model
            at_4 = at_4_tokens[kind, seed] = accuracy(models[kind, seed], "previous-token")
            print(f"   {kind:10} seed {seed}, previous-token, {steps} steps x {batch_size}: "
                  f"accuracy at 4 tokens {at_4:.1%}")
    print("Every head learns it: output the token before each token (5 token kinds).")
    lesson.check(f"all {2 * len(SEEDS)} heads learn previous-token at 4 tokens (90% or more)",
                 min(at_4_tokens.values()) >= 0.90)

# %% Then give them 8
if __name__ == "__main__":
    lesson.stage("Give both 8 tokens: positions 4..7 were never seen")

    try:
        accuracy(models["learned", SEEDS[0]], "previous-token", seq_len=8)
    except ValueError as error:  # the trained table has 4 rows
        print("learned -> ValueError:")
        print(textwrap.indent(textwrap.fill(str(error), width=76), "   "))
    inputs, targets = task_batch("previous-token", 5, 8, 64, seed=1)  # 64 sequences of 8
    right = {seed: [0] * 8 for seed in SEEDS}  # right answers at each position, per seed
    same_as_cut = True  # positions 0..3 answer as if the sequence stopped at 4 tokens
    for seed in SEEDS:
        for ids, wanted in zip(inputs, targets):
            scores = models["sinusoidal", seed].logits(ids)  # (8, 5)
            cut = models["sinusoidal", seed].logits(ids[:context_length])  # (4, 5): 0..3 only
            same_as_cut = same_as_cut and allclose(Matrix(scores.rows[:context_length]), cut)
            for pos in range(1, 8):  # position 0 has no previous token
                row = scores[pos].tolist()
                right[seed][pos] += row.index(max(row)) == wanted[pos]
    print("sinusoidal, right answers at each position over 64 sequences of 8:")
    print(f"   {'':12}" + "".join(f"{f'seed {seed}':>10}" for seed in SEEDS))
    for pos in range(1, 8):
        seen = "trained on" if pos < context_length else "never seen"
        print(f"   position {pos}" + "".join(f"{right[seed][pos]:4} of 64" for seed in SEEDS)
              + f"   {seen}")
    print(f"a guess among 5 kinds: {1 / 5:.1%}")
    print("The causal mask lets position t see only tokens 0..t. Positions 0-3 of")
    print("these sequences, scored with the 4 later tokens cut off, get the same")
    print(f"scores on every seed? {same_as_cut}")  # True
    lesson.check("causal: positions 0-3 score the same with the 4 later tokens cut off",
                 same_as_cut)
    stage_3_inputs, _ = task_batch("previous-token", 5, context_length, 64, seed=1)
    same_tokens = [ids[:context_length] for ids in inputs] == stage_3_inputs
    print(f"Are their first 4 tokens stage 3's 64 sequences? {same_tokens}")  # False
    lesson.check("these sequences are not stage 3's: they are drawn 8 tokens at a time",
                 not same_tokens)
    seen_right = [sum(right[seed][1:context_length]) for seed in SEEDS]
    unseen = [sum(right[seed][context_length:]) for seed in SEEDS]
    print(f"So positions 1-3 here, {', '.join(map(str, seen_right))} of 192, need not match "
          f"stage 3's")
    print(", ".join(f"{at_4_tokens['sinusoidal', seed]:.1%}" for seed in SEEDS)
          + ": the tokens differ, not the positions, and one miss in 64")
    print(f"moves a position's share by {1 / 64:.1%}. From position 4 on, the heads")
    print("get PE rows they never trained with: the encoding extends, and what the")
    print(f"heads do with it is measured here: {', '.join(map(str, unseen))} of 256 = "
          + ", ".join(f"{n / 256:.1%}" for n in unseen))
    print("at positions 4-7, by seed: above a guess, far below the trained positions.")
    lesson.check("on every seed, positions 1-3 are right on over 90% and positions 4-7 on "
                 "under 60% (and over a guess's 20%)",
                 all(seen_right[i] > 0.9 * 192 and 0.2 * 256 < unseen[i] < 0.6 * 256
                     for i in range(len(SEEDS))))
    print("The lectures' claim that sinusoids carry a model to longer sequences")
    print("is not what these heads do, on any of the three seeds (errata E11).")

# %% What each kind costs and buys
if __name__ == "__main__":
    lesson.stage("What each kind costs and buys")

    print(f"learned:    {context_length} x {d_model} = {context_length * d_model} numbers "
          "to train; any pattern the data")
    print("            asks for; stops at context_length: the model above cannot run")
    print("sinusoidal: 0 numbers to train; a fixed pattern with the shift property")
    print("            of lesson 6; defined at every position, which is not the same")
    print("            as working there (the accuracies above)")
    print("The original Transformer (2017) used the formula; GPT-2 and GPT-3 learn")
    print("their table. Both are absolute: each position gets its own vector.")
    print("(Lecture 001 adds GPT-4; its architecture is unpublished: errata E4.)")
    print("Lesson 15 tries RoPE and ALiBi past the training length too.")
