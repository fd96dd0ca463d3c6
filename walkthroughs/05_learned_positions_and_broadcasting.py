"""Lesson 5: GPT-style learned positions, and broadcasting

Question: a batch of 8 sequences of 4 tokens becomes token embeddings of shape
(8, 4, 256), yet the position table is only (4, 256). How can they be added?

Claim checked (lectures 001 and 002): a learned (4, 256) position table is
added to every sequence of an (8, 4, 256) batch, row t to token t.

Lectures 001 and 002. Run: python walkthroughs/05_learned_positions_and_broadcasting.py
"""

import struct
import sys
import textwrap
import time

from lesson import Lesson

from minipe import (
    Batch,
    Embedding,
    LearnedPositionalEmbedding,
    Matrix,
    ShapeError,
    Tokenizer,
    allclose,
    broadcast_shapes,
    format_matrix,
    sinusoidal_denominators,
    sinusoidal_encoding,
)
from minipe.plot import pe_table

TEXT = """The cat sat on the mat and looked at the dog. The dog sat by the door
and looked at the cat. Neither of them moved, because each of them knew that
whoever moved first would have to share the warm spot by the fire with the other."""

# %% A batch of token IDs: 8 sequences of 4
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("A batch of token IDs: 8 sequences x 4 tokens")

    batch_size = 8  # sequences per batch
    context_length = 4  # tokens per sequence
    d_model = 256  # numbers per token
    tokenizer = Tokenizer.from_corpus(TEXT)
    ids = tokenizer.encode(TEXT)
    # Cut the text into 8 windows of 4 tokens, one after the other (stride 4).
    batch_ids = [ids[b * context_length:(b + 1) * context_length] for b in range(batch_size)]
    print(f"{len(ids)} tokens in the text, vocab_size = {tokenizer.vocab_size}")
    for b in (0, 1, batch_size - 1):
        words = tokenizer.decode(batch_ids[b])
        print(f"   sequence {b}: {batch_ids[b]}  {words!r}")
    print(f"token IDs: shape ({len(batch_ids)}, {len(batch_ids[0])})")  # (8, 4)

# %% Token embeddings: (8, 4) -> (8, 4, 256)
if __name__ == "__main__":
    lesson.stage("Token embeddings: each ID becomes a row of the token table")

    token_table = Embedding(tokenizer.vocab_size, d_model, seed=0)  # (vocab_size, 256)
    token_embeddings = token_table(batch_ids)  # (8, 4) -> (8, 4, 256)
    print(f"token table:      shape {token_table.weight.shape}  (vocab_size rows)")
    print(f"token embeddings: shape {token_embeddings.shape}")  # (8, 4, 256)

# %% The position table: arange(4) -> (4, 256)
if __name__ == "__main__":
    lesson.stage("Learned positions: look up rows 0..3 of a second table")

    position_table = LearnedPositionalEmbedding(context_length, d_model, seed=1)
    positions = list(range(context_length))  # torch.arange(4): [0, 1, 2, 3]
    position_embeddings = position_table(context_length)  # rows 0..3: (4, 256)
    print(f"positions {positions} (they count from 0)")
    print(f"position table:      shape {position_table.weight.shape}  (context_length rows)")
    print(f"position embeddings: shape {position_embeddings.shape}")  # (4, 256)
    print("GPT learns this table in training, like the token table; here it is")
    print("random (seeded). Its rows do not depend on the tokens at all.")

# %% Broadcasting: (8, 4, 256) + (4, 256) -> (8, 4, 256)
if __name__ == "__main__":
    lesson.stage("Input embeddings = token embeddings + position embeddings")

    shape = broadcast_shapes(token_embeddings.shape, position_embeddings.shape)
    print(f"broadcast_shapes((8, 4, 256), (4, 256)) = {shape}")  # (8, 4, 256)
    print("Align the shapes from the right: 256 with 256, 4 with 4; the missing")
    print("batch axis is filled by repeating the (4, 256) table for every sequence.")
    input_embeddings = token_embeddings + position_embeddings  # (8, 4, 256)
    print(f"input embeddings: shape {input_embeddings.shape}")
    every_pair = all(
        allclose(input_embeddings[b][t], token_embeddings[b][t] + position_embeddings[t])
        for b in range(batch_size) for t in range(context_length))
    print(f"input[b][t] == tokens[b][t] + positions[t] for all 8 x 4 (b, t)? {every_pair}")
    lesson.check("input[b][t] = tokens[b][t] + positions[t] for every (b, t)", every_pair)
    b, t = 5, 2
    token_value = token_embeddings[b][t][0]
    position_value = position_embeddings[t][0]
    print(f"e.g. b={b}, t={t}, column 0: {token_value:.4f} + {position_value:.4f} "
          f"= {input_embeddings[b][t][0]:.4f}")
    print("Row t of the position table is added to token t of EVERY sequence b.")

# %% The error a mismatched width gives
if __name__ == "__main__":
    lesson.stage("A mistake: a position table of the wrong width")

    wrong_width = LearnedPositionalEmbedding(context_length, 255, seed=1)(context_length)
    try:
        token_embeddings + wrong_width  # (8, 4, 256) + (4, 255)
    except ShapeError as error:
        print("(8, 4, 256) + (4, 255) -> ShapeError:")
        print(textwrap.indent(textwrap.fill(str(error), width=76), "   "))
    too_long = LearnedPositionalEmbedding(6, d_model, seed=1)(6)  # 6 positions, not 4
    try:
        token_embeddings + too_long  # (8, 4, 256) + (6, 256)
    except ShapeError as error:
        print("(8, 4, 256) + (6, 256) -> ShapeError:")
        print(textwrap.indent(textwrap.fill(str(error), width=76), "   "))
    swapped = sinusoidal_encoding(d_model, context_length)  # the tutorials' order: (256, 4)
    try:
        token_embeddings + swapped  # (8, 4, 256) + (256, 4)
    except ShapeError as error:
        print("(8, 4, 256) + sinusoidal_encoding(256, 4) -> ShapeError:")
        print(textwrap.indent(textwrap.fill(str(error), width=76), "   "))
    print("Added, not concatenated: the sum keeps d_model = 256, so nothing after")
    print("it changes size, and every dimension carries both what and where.")

# %% A broadcast that needs a new axis
if __name__ == "__main__":
    lesson.stage("One vector per sequence: (8, 256) needs a new axis, (8, 1, 256)")

    per_sequence = Embedding(batch_size, d_model, seed=3).weight  # (8, 256): row b for seq b
    try:
        token_embeddings + per_sequence  # (8, 4, 256) + (8, 256): 8 meets 4
    except ShapeError as error:
        print("(8, 4, 256) + (8, 256) -> ShapeError:")
        print(textwrap.indent(textwrap.fill(str(error), width=76), "   "))
    print("Aligned from the right, the 8 sequences meet the 4 tokens. Give the")
    print("vectors an axis of size 1 where the tokens are: (8, 1, 256).")
    with_axis = Batch([Matrix([row.tolist()]) for row in per_sequence])  # (8, 1, 256)
    summed = token_embeddings + with_axis  # the 1 is stretched over the 4 tokens
    print(f"{token_embeddings.shape} + {with_axis.shape} -> {summed.shape}")
    every_token = all(
        allclose(summed[b][t], token_embeddings[b][t] + per_sequence[b])
        for b in range(batch_size) for t in range(context_length))
    print(f"summed[b][t] == tokens[b][t] + vector[b] for all (b, t)? {every_token}")
    lesson.check("summed[b][t] = tokens[b][t] + vector[b] for every (b, t)", every_token)
    print("NumPy writes v[:, None, :], PyTorch v.unsqueeze(1). Neither copies v to")
    print("stretch it: NumPy's documentation says broadcasting makes no needless")
    print("copies (np.broadcast_to returns a read-only view), and PyTorch's expand()")
    print("gives the stretched axis a stride of 0. minipe's add walks the axes in")
    print("Python; its result, like NumPy's, holds all 8 x 4 x 256 sums.")

# %% GPT-2's sizes
if __name__ == "__main__":
    lesson.stage("GPT-2's sizes: vocab 50257, context 1024, d_model 768")

    gpt2_vocab, gpt2_context, gpt2_d_model = 50257, 1024, 768
    print(f"token table:    {gpt2_vocab} x {gpt2_d_model} = "
          f"{gpt2_vocab * gpt2_d_model:,} numbers")  # 38,597,376
    print(f"position table: {gpt2_context} x {gpt2_d_model} = "
          f"{gpt2_context * gpt2_d_model:,} numbers")  # 786,432
    float_object, pointer = sys.getsizeof(1.0), struct.calcsize("P")  # 24 and 8 bytes
    per_number = float_object + pointer  # a row holds pointers to float objects
    token_gigabytes = gpt2_vocab * gpt2_d_model * per_number / 1e9
    print(f"In pure Python a number is a {float_object}-byte float object and the "
          f"{pointer}-byte pointer")
    print(f"to it in its row: {per_number} bytes, so the token table holds "
          f"{token_gigabytes:.2f} GB, where NumPy's")
    print(f"float64 array holds the bare 8 bytes: {gpt2_vocab * gpt2_d_model * 8 / 1e9:.2f} GB. "
          f"Its {gpt2_vocab * gpt2_d_model / 1e6:.1f} million numbers are")
    print("also drawn one Python call at a time: tens of seconds (benchmarks/bench_table.py")
    print("measures the build and the lookup at this size).")
    start = time.perf_counter()
    table = sinusoidal_encoding(gpt2_context, gpt2_d_model)  # (1024, 768)
    seconds = time.perf_counter() - start
    print(f"sinusoidal_encoding(1024, 768): shape {table.shape}, "
          f"built in {seconds:.2f} s here")
    print(format_matrix(table))  # its corners: rows 0-2 and 1021-1023, 3 columns each side
    # PE(1) starts [0.8415, 0.5403, 0.8284, ...]; PE(1023) starts [-0.9165, 0.4001, ...]
    print("A sinusoidal table is computed, not learned: GPT-2 learns its 1024 rows.")
    num_pairs = len(sinusoidal_denominators(gpt2_d_model))  # one denominator per pair i
    print(f"pos runs 0..{table.shape[0] - 1}, column j 0..{table.shape[1] - 1}, "
          f"pair i 0..{num_pairs - 1} (errata E9)")  # 0..1023, 0..767, 0..383
    lesson.save_figure("pe_table_1024x768.svg", pe_table(gpt2_context, gpt2_d_model))
    print("Now try exercise 5: python -m minipe exercises check 5")
