"""Lesson 6: relative positions from absolute ones

Question: the sinusoidal encoding gives each position its own vector. Does it
also say how far apart two positions are?

Claim checked (lectures 000 and 004): PE(pos + k) is a fixed linear map of
PE(pos), the same for every pos, and PE(p) . PE(p + k) depends on k alone.

    PE(pos + k) = M_k PE(pos),  M_k made of 2 x 2 rotations, the same for every pos

Lectures 000 and 004. Run: python walkthroughs/06_relative_from_absolute.py [--step]
"""

from lesson import Lesson

from minipe import (
    Matrix,
    allclose,
    format_matrix,
    relative_shift_matrix,
    sinusoidal_encoding,
    sinusoidal_position,
)
from minipe.plot import dot_products

# %% The shift matrix M_k
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("M_k for d_model = 4 and k = 2: one 2 x 2 rotation per column pair")

    d_model = 4
    k = 2
    M_k = relative_shift_matrix(k, d_model)  # (4, 4)
    print(format_matrix(M_k, row_labels=["sin row, i=0", "cos row, i=0",
                                         "sin row, i=1", "cos row, i=1"]))
    # block i = 0, angle k/1 = 2:      [[cos 2, sin 2], [-sin 2, cos 2]]
    #                                   = [[-0.4161, 0.9093], [-0.9093, -0.4161]]
    # block i = 1, angle k/100 = 0.02:  [[0.9998, 0.0200], [-0.0200, 0.9998]]
    print("Each block is [[cos kw, sin kw], [-sin kw, cos kw]] with w = 1/10000^(2i/d),")
    print("from sin(a + kw) = cos(kw) sin(a) + sin(kw) cos(a) and the same for cos.")
    print("Zeros elsewhere: each pair of columns turns on its own, by its own angle.")

# %% M_k PE(pos) = PE(pos + k), at every pos
if __name__ == "__main__":
    lesson.stage("M_2 PE(1) = PE(3), and the same M_2 works at every position")

    shifted = M_k @ sinusoidal_position(1, d_model)  # (4, 4) @ (4,) -> (4,)
    target = sinusoidal_position(3, d_model)
    print(format_matrix(Matrix([shifted.tolist(), target.tolist()]),
                        row_labels=["M_2 @ PE(1)", "PE(3)      "]))
    # both [0.1411, -0.9900, 0.0300, 0.9996]: lecture 003's PE(3)
    for pos in (0, 5, 10, 100, 1000):
        moved = M_k @ sinusoidal_position(pos, d_model)
        same = allclose(moved, sinusoidal_position(pos + k, d_model), abs_tol=1e-9)
        print(f"   M_2 @ PE({pos}) == PE({pos + 2})? {same}")
    print("M_k does not depend on pos: a fixed offset is a fixed rotation. A model")
    print("can learn 'look 2 tokens back' once, and apply it anywhere.")

# %% PE(p) . PE(p + k) depends only on k
if __name__ == "__main__":
    lesson.stage("The dot product PE(p) . PE(p + k) depends only on k")

    d_model = 64
    table = sinusoidal_encoding(64, d_model)  # (64, 64): positions 0..63
    offsets = [0, 1, 2, 3, 4]
    print(" " * 8 + " ".join(f"{'k = ' + str(k):>7}" for k in offsets))
    rows = []
    for p in range(5):
        rows.append([table[p].dot(table[p + k]) for k in offsets])
    print(format_matrix(Matrix(rows), row_labels=[f"p = {p}" for p in range(5)]))
    # each column is constant: 32.0, 30.917, 28.304, 25.587, 23.934 (d_model = 64)
    print("Every column is one number: sum over i of cos(k / 10000^(2i/d_model)).")
    print("At k = 0 it is d_model / 2 = 32: each pair has sin^2 + cos^2 = 1.")

# %% Near positions are similar, far ones less so
if __name__ == "__main__":
    lesson.stage("Near positions look alike; far ones less so")

    for k in (0, 1, 2, 4, 8, 16, 32, 63):
        similarity = table[0].dot(table[k]) / (d_model / 2)  # cosine similarity
        bar = "#" * round(30 * max(similarity, 0.0))
        print(f"   k = {k:2}: PE(0) . PE(k) / 32 = {similarity:6.3f}  {bar}")
    # 1.000, 0.966, 0.884, 0.748, 0.700, 0.605, 0.611, 0.452
    print("The similarity falls as the offset grows - not strictly (fast columns")
    print("wrap around), but broadly. Attention scores built from these vectors")
    print("can therefore prefer nearby tokens.")
    lesson.save_figure("dot_products.svg", dot_products(max_offset=64, d_model=64, at=(0, 10, 100)))
