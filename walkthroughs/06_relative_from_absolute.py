"""Lesson 6: relative positions from absolute ones

Question: the sinusoidal encoding gives each position its own vector. Does it
also say how far apart two positions are, and which one comes first?

Claim checked (lectures 000 and 004): PE(pos + k) is a fixed linear map of
PE(pos), the same for every pos, and PE(p) . PE(p + k) depends on k alone.

    PE(pos + k) = M_k PE(pos),  M_k made of 2 x 2 rotations, the same for every pos

Then the claim that a head can "look 2 tokens back" is built, not asserted:
W_q W_k^T = M_2 makes query i score highest on key i - 2, at every i.

Lectures 000 and 004. Run: python walkthroughs/06_relative_from_absolute.py [--step]
"""

from lesson import Lesson

import math

from minipe import (
    Matrix,
    Vector,
    allclose,
    format_matrix,
    relative_shift_matrix,
    scaled_dot_product_attention,
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
    print("Each block is [[cos kw, sin kw], [-sin kw, cos kw]] with w = 1/10000**(2i/d),")
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
        lesson.check("M_2 @ PE(pos) is PE(pos + 2)", same)
    print("M_k does not depend on pos: a fixed offset is a fixed rotation, the same")
    print("matrix at every position. Stage 6 builds an attention head from it.")

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
    print("Every column is one number: sum over i of cos(k / 10000**(2i/d_model)).")
    print("At k = 0 it is d_model / 2 = 32: each pair has sin**2 + cos**2 = 1.")

# %% Near positions are similar, far ones less so
if __name__ == "__main__":
    lesson.stage("Near positions look alike; far ones less so")

    for k in (0, 1, 2, 4, 8, 16, 32, 63):
        similarity = table[0].dot(table[k]) / (d_model / 2)  # cosine similarity
        bar = "#" * round(30 * max(similarity, 0.0))
        print(f"   k = {k:2}: PE(0) . PE(k) / 32 = {similarity:6.3f}  {bar}")
    # 1.000, 0.966, 0.884, 0.748, 0.700, 0.605, 0.611, 0.452
    print("The similarity falls as the offset grows - not strictly (fast columns")
    print("wrap around), but broadly. A score PE(i) . PE(j) alone (W_q W_k^T = I)")
    print("is therefore highest near j = i.")
    lesson.save_figure("dot_products.svg", dot_products(max_offset=64, d_model=64, at=(0, 10, 100)))

# %% Before or after? The plain dot product cannot tell
if __name__ == "__main__":
    lesson.stage("PE(p) . PE(p + k) = PE(p) . PE(p - k): before and after look alike")

    p = 10
    for k in (1, 2, 3, 4):
        after = table[p].dot(table[p + k])  # the token k after p
        before = table[p].dot(table[p - k])  # the token k before p
        print(f"   k = {k}: PE(10) . PE({p + k:2}) = {after:7.4f}   "
              f"PE(10) . PE({p - k}) = {before:7.4f}")
    # 30.9168, 28.3039, 25.5870, 23.9344 on both sides: stage 3's k = 1..4
    print("Each pair gives cos(k w), and cos(-k w) = cos(k w): a score PE(i) . PE(j)")
    print("is symmetric around j = i, so it cannot prefer the token before i over")
    print("the token after. Something must move the peak off i: that is M_k.")

# %% Construct "look 2 tokens back" from M_2
if __name__ == "__main__":
    lesson.stage("Built, not learned: W_q W_k^T = M_2 makes query i pick key i - 2")

    d_model, k, n = 16, 2, 12  # 12 positions, PE(0) .. PE(11)
    positions = sinusoidal_encoding(n, d_model)  # (12, 16): row i is PE(i)
    W_q = Matrix([[float(r == c) for c in range(d_model)] for r in range(d_model)])  # I
    W_k = relative_shift_matrix(k, d_model).T  # M_2^T, so W_q W_k^T = M_2
    queries = positions @ W_q  # q_i = PE(i)
    keys = positions @ W_k  # k_j = PE(j) M_2^T = PE(j + 2): each key moved 2 on
    scores = queries @ keys.T  # score(i, j) = PE(i) . PE(j + 2) = sum cos((j + 2 - i) w)
    print(f"row i = 6 of PE(i) M_2 PE(j)^T, keys j = 0..11 (d_model = {d_model}):")
    print("   " + " ".join(f"{score:5.2f}" for score in scores[6]))
    # 5.56 5.54 6.37 7.49 8.00 7.49 6.37 ...: the top, d_model / 2 = 8, at j = 4
    peaks = [max(range(n), key=lambda j: scores[i][j]) for i in range(n)]
    print(f"peak key j for queries i = 2..11: {peaks[k:]}")  # [0, 1, ..., 9]: i - 2
    frequencies = [1 / 10000 ** (2 * i / d_model) for i in range(d_model // 2)]  # w_i
    margin = d_model / 2 - sum(math.cos(w) for w in frequencies)  # 8 - 7.4852
    print(f"it beats its neighbours (offset +-1) by d/2 - sum_i cos(w_i) = {margin:.4f}")
    print(f"Queries 0 and 1 have no key 2 back; their peaks {peaks[:k]} mean nothing.")
    for scale in (1.0, 16.0):  # W_q = scale * I: the same peak, a sharper softmax
        weights = scaled_dot_product_attention(queries * scale, keys, positions,
                                               causal=True).weights
        on_target = [weights[i][i - k] for i in range(k, n)]
        print(f"   W_q = {scale:4.0f} I, causal: weight on key i - 2 is "
              f"{min(on_target):.3f} to {max(on_target):.3f}")
    print("The score depends on j - i alone, so the peak sits at i - 2 for every")
    print("query. The head is built by hand from M_2: such weights exist. Whether")
    print("training finds them is a different question, not answered here.")

# %% A sine-only code has no shift matrix
if __name__ == "__main__":
    lesson.stage("Without the cosines there is no M_k: the sine-only code fails")

    sine_only = [Vector(row.tolist()[0::2]) for row in positions]  # sin(pos w_i) only
    for pos in (0, 2):  # code(0): sin 0 = 0 in every column
        print(f"   sine-only code({pos}) = [" +
              " ".join(f"{value:.4f}" for value in sine_only[pos]) + "]")
    print("Any matrix M sends the zero vector to zero: M code(0) = 0 != code(2).")
    print("So no M gives code(p + 2) = M code(p) at every p. Per pair,")
    print("sin(a + k w) = cos(k w) sin(a) + sin(k w) cos(a) needs cos(a), which only")
    print("the cosine columns hold: the full PE(0) = [0, 1, 0, 1, ...] is not zero.")
    print("Now try exercise 8: python -m minipe exercises check 8")
