"""Lesson 7: fixed vs learned positions

Question: a model is trained on sequences of at most 4 tokens. What happens
when it meets a fifth token: with sinusoidal positions, and with a learned
(GPT-style) table?

Claim checked (lectures 001 and 003): the formula gives a vector for every
position, while a learned table stops at its context_length.

Lectures 001 and 003. Run: python walkthroughs/07_fixed_vs_learned.py [--step]
"""

import textwrap

from lesson import Lesson

from minipe import (
    LearnedPositionalEmbedding,
    Matrix,
    allclose,
    format_matrix,
    sinusoidal_encoding,
    sinusoidal_position,
)

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
    far = sinusoidal_position(5000, d_model)
    beyond = Matrix([longer[4].tolist(), longer[5].tolist(), far.tolist()])  # never trained on
    print(format_matrix(beyond, row_labels=["pos 4", "pos 5", "pos 5000"]))
    # PE(4) = [-0.7568, -0.6536, 0.3894, 0.9211, 0.0400, 0.9992, 0.0040, 1.0000]
    print("The encoding extends past any length. (Whether a trained model makes")
    print("good use of positions it never saw is another matter: the vectors")
    print("exist, the experience with them does not.)")

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
    print("GPT-2, with 1024 rows, cannot read a 1025th token. That is why its")
    print("context length is a hard limit.")

# %% What each kind costs and buys
if __name__ == "__main__":
    lesson.stage("What each kind costs and buys")

    print(f"learned:    {context_length} x {d_model} = {context_length * d_model} numbers "
          "to train; any pattern the data")
    print("            asks for; stops at context_length")
    print("sinusoidal: 0 numbers to train; a fixed pattern with the shift property")
    print("            of lesson 6; defined at every position")
    print("The original Transformer (2017) used the formula; GPT-2 and GPT-3 learn")
    print("their table. Both are absolute: each position gets its own vector.")
    print("(Lecture 001 adds GPT-4; its architecture is unpublished: errata E4.)")
