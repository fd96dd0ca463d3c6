"""Lesson 17: the gradients of positions

Question: when a model learns, what reaches its positions? A sinusoidal
table is a formula; a learned table is added, one and the same, to every
sequence of a batch. Where does each one's gradient go?

Claim checked (lectures 001 and 003): a fixed sinusoidal encoding has
nothing to train, while a learned table is trained by backpropagation; and
since the one table is broadcast over the batch, its gradient is the sum of
every sequence's gradient.

Lectures 001 and 003, with the lab of chapter 10 (minipe/training/model.py).
Run: python walkthroughs/17_gradients_of_positions.py [--step]
"""

from lesson import Lesson

from minipe import Matrix, TinyModel, allclose, task_batch, train

# %% A batch, as in lecture 001
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("A batch like lecture 001's: 8 sequences of 4 tokens")

    vocab_size, d_model, context_length, batch_size = 5, 8, 4, 8
    inputs, targets = task_batch("previous-token", vocab_size, context_length, batch_size)
    print(f"inputs: {len(inputs)} sequences of {len(inputs[0])} IDs, e.g. {inputs[0]}")
    print(f"targets of the first (-100: position 0 has no previous token): {targets[0]}")
    print(f"d_model = {d_model} here, not lecture 001's 256, to keep the numbers short.")

# %% Sinusoidal: no table, no gradient
if __name__ == "__main__":
    lesson.stage("Sinusoidal positions: dloss/dx arrives, and nothing holds it")

    fixed = TinyModel(vocab_size, d_model, context_length, positions="sinusoidal", seed=0)
    print(f"parameters(): {', '.join(sorted(fixed.parameters()))}")
    fixed_pass = fixed.backprop(inputs, targets)
    print(f"gradients:    {', '.join(sorted(fixed_pass.gradients))}")
    print(f"loss {fixed_pass.loss:.4f}; d_inputs: {len(fixed_pass.d_inputs)} tables of shape "
          f"{fixed_pass.d_inputs[0].shape}")
    # dloss/dx for the first sequence: x = E[ids] + PE, so this reaches the PE rows too
    reach = max(abs(value) for row in fixed_pass.d_inputs[0].rows for value in row)
    print(f"largest |dloss/dx| in the first sequence: {reach:.4f} (not 0)")
    print("x = E[ids] + PE, so dloss/dx is also dloss/dPE: the gradient reaches")
    print("the place where the positions were added. But parameters() lists no")
    print("position table and the gradients have no entry for one: PE is the")
    print("formula's output, not a parameter. Only E and the W's learn. That sine")
    print("and cosine are smooth and differentiable helps nothing here: pos is a")
    print("whole number that picks a row, and no gradient reaches the table")
    print("(errata E12).")

# %% Learned: the gradient is the batch sum
if __name__ == "__main__":
    lesson.stage("A learned table: its gradient is the sum over the batch")

    learned = TinyModel(vocab_size, d_model, context_length, positions="learned", seed=0)
    print(f"parameters(): {', '.join(sorted(learned.parameters()))}")
    learned_pass = learned.backprop(inputs, targets)
    d_P = learned_pass.gradients["position_embedding"]  # (context_length, d_model)
    print(f"gradient of position_embedding: shape {d_P.shape}")
    # Lecture 001 adds one (4, d) table to all 8 sequences: x_b = E[ids_b] + P.
    # Run backwards, every x_b sends its dloss/dx_b[t] back into row t of P.
    by_hand = [[0.0] * d_model for _ in range(context_length)]  # (4, 8) of zeros
    for d_x in learned_pass.d_inputs:  # each of the 8 sequences
        for t in range(context_length):
            row = d_x[t].tolist()  # dloss/dx_b[t], (d_model,)
            by_hand[t] = [total + part for total, part in zip(by_hand[t], row)]
    summed = Matrix(by_hand)
    print(f"the 8 sequences' dloss/dx, summed row by row: shape {summed.shape}")
    print(f"equal to the gradient of the table? {allclose(summed, d_P)}")
    lesson.check("the table's gradient is the batch's dloss/dx summed", allclose(summed, d_P))
    print(f"one sequence's dloss/dx alone equal to it? "
          f"{allclose(learned_pass.d_inputs[0], d_P)}")
    lesson.check("one sequence's dloss/dx alone is not the table's gradient",
                 not allclose(learned_pass.d_inputs[0], d_P))
    print("Broadcasting copies the table into every sequence on the way in, so")
    print("the way back adds up what every copy received: the sum, not the mean.")
    counted = sum(target != -100 for row in targets for target in row)  # 8 x 3 = 24
    print(f"(The mean is already in the loss: it averages over all {counted} targets.)")

# %% A check by nudging one number
if __name__ == "__main__":
    lesson.stage("Check one entry by nudging it: (loss(P + h) - loss(P - h)) / 2h")

    h = 1e-5
    t, j = 2, 0  # row 2 of the table, column 0
    table = learned.parameters()["position_embedding"].tolist()  # (4, 8) as lists
    losses = []
    for sign in (+1, -1):
        nudged = [list(row) for row in table]
        nudged[t][j] += sign * h
        parameters = learned.parameters()  # a new dict: changing it changes no model
        parameters["position_embedding"] = Matrix(nudged)
        losses.append(learned.with_parameters(parameters).backprop(inputs, targets).loss)
    slope = (losses[0] - losses[1]) / (2 * h)
    print(f"nudging P[{t}][{j}] by +-{h:g}: slope {slope:.6f}")
    print(f"the gradient's entry [{t}][{j}]:        {d_P[t, j]:.6f}")
    lesson.check("the slope of the nudged loss is backpropagation's gradient (to 2e-6)",
                 abs(slope - d_P[t, j]) <= 2e-6)
    print(f"the batch sum's entry [{t}][{j}]:       {summed[t, j]:.6f}")

# %% Rows no sequence reaches
if __name__ == "__main__":
    lesson.stage("A table of 8 rows, trained on sequences of 4")

    longer = TinyModel(vocab_size, d_model, 8, positions="learned", seed=0)
    d_P8 = longer.backprop(inputs, targets).gradients["position_embedding"]  # (8, d_model)
    reached = []  # the rows with a gradient other than 0
    for t in range(8):
        size = max(abs(value) for value in d_P8[t].tolist())
        print(f"   row {t}: largest |gradient| {size:.4f}   every entry exactly 0? {size == 0.0}")
        if size != 0.0:
            reached.append(t)
    print("No sequence of 4 tokens adds rows 4-7, so nothing flows back into")
    lesson.check("rows 0-3 get a gradient and rows 4-7 exactly 0", reached == [0, 1, 2, 3])
    print("them. If training only ever shows 4 tokens, they never move from the")
    print("random numbers they were drawn with (Adam moves a number by a running")
    short = train(longer, "previous-token", steps=5, seq_len=4).model  # 4 tokens a sequence
    drawn, moved_to = (model.parameters()["position_embedding"].tolist()
                       for model in (longer, short))
    lesson.check("trained on 4 tokens, rows 4-7 never move from where they were drawn (rows "
                 "0-3 do)", moved_to[4:] == drawn[4:] and moved_to[:4] != drawn[:4])
    print("mean of its gradient, and that stays 0). Lesson 07's learned head, a")
    print("table of 4 rows, cannot even run past position 3.")
    print("Now try exercises 15 and 16: python -m minipe exercises check 15")
