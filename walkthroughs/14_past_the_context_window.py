"""Lesson 14: Past the context window

Question: a RoPE model trained on texts of L tokens is handed a longer one.
Which of its pairs meet angles they never saw, and what do position
interpolation, NTK scaling, YaRN and Llama 3.1 change so that they do not?

Claim checked (lecture 003): a base as large as 10000 makes the slowest waves
long enough to cover a wide range of positions; the lecture then asks what
changing the base does.

Lecture 003, and RoPE from lecture 004 (lesson 11).
Run: python walkthroughs/14_past_the_context_window.py [--step] [--svg]
"""

import math

from lesson import Lesson

from minipe import (
    Matrix,
    allclose,
    apply_rotary,
    decay_bound,
    frequency_table,
    rope_frequencies,
    scaled_dot_product_attention,
    softmax,
)
from minipe.plot import LineChart

HEADER = "      i    theta_i   wavelength   turns in L   ratio to default"

# %% The pairs a model trained on 2048 positions has seen
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Trained on L = 2048 positions: d = 128, base 10000")

    d, L = 128, 2048
    rows = frequency_table(d, original_context_length=L)  # 64 pairs, i = 0 .. 63
    print(HEADER)
    for row in (rows[i] for i in (0, 1, 2, 20, 40, 50, 60, 63)):
        print(f"   {row.i:4} {row.theta:10.6f} {row.wavelength:12.1f} {row.turns:12.3f}"
              f" {row.ratio:10.4f}")
    print("(turns in L: how often pair i, with the theta_i shown, turns in L)")
    slowest = rows[-1]
    print(f"Pair 63 turns {slowest.turns:.3f} times inside {L} positions: the largest")
    print(f"angle training showed it is 2047 * theta_63 = {2047 * slowest.theta:.4f} rad.")
    print(f"At position 8191 it reaches {8191 * slowest.theta:.4f} rad: never seen.")
    # 0.038 turns; 0.2364 rad; 0.9458 rad
    print("Lecture 003 calls 10000 large enough for a wide range of positions: pair 63")
    print(f"repeats only after {slowest.wavelength:,.0f} positions. Wide, but a model sees")
    print("only the part of each circle its training texts reached.")

# %% Position interpolation: divide every theta_i by the factor
if __name__ == "__main__":
    lesson.stage("Position interpolation (Chen et al. 2023): 2048 -> 8192, factor 4")

    factor = 8192 / L  # 4.0
    thetas, _ = rope_frequencies(d, method="linear", factor=factor)
    q = Matrix([[math.cos(j) for j in range(d)]])  # any query will do
    same = allclose(apply_rotary(q, start=6000, frequencies=thetas), apply_rotary(q, start=1500))
    print(f"q at position 6000, stretched, equals q at position 1500, plain? {same}")
    print(f"Every theta_i is divided by {factor:g}: positions 0..8191 turn each pair")
    print(f"through the angles 0..2047 did. The price: pair 0 now moves {thetas[0]:.2f} rad")
    print("per step instead of 1, so neighbours differ by a quarter of what training saw.")

# %% NTK-aware scaling: a larger base
if __name__ == "__main__":
    lesson.stage("NTK-aware scaling: base' = base * factor^(d / (d - 2))")

    ntk = frequency_table(d, original_context_length=L, method="ntk", factor=4)
    print(f"base' = 10000 * 4^(128/126) = {10000 * 4 ** (128 / 126):,.2f}")
    print(HEADER)
    for row in (ntk[i] for i in (0, 1, 20, 40, 63)):
        print(f"   {row.i:4} {row.theta:10.6f} {row.wavelength:12.1f} {row.turns:12.3f}"
              f" {row.ratio:10.4f}")
    # ratio 1.0000 at pair 0, 0.2500 at pair 63
    print("The fastest pair keeps its speed (neighbours stay as far apart), the")
    print("slowest is divided by exactly 4, and the pairs between by less.")
    for seq_len in (2048, 4096, 8192):
        dynamic, _ = rope_frequencies(d, method="dynamic", factor=4,
                                      original_context_length=L, seq_len=seq_len)
        print(f"   dynamic NTK, reading {seq_len:5} tokens: pair 63 ratio "
              f"{dynamic[63] / rows[63].theta:.4f}")
    print("Dynamic NTK leaves the model as it was until the text outgrows L.")

# %% YaRN: pair by pair, by how often each pair turns inside L
if __name__ == "__main__":
    lesson.stage("YaRN (Peng et al. 2023): d = 128, L = 4096, factor 16")

    yarn = frequency_table(d, original_context_length=4096, method="yarn", factor=16)
    scale = rope_frequencies(d, method="yarn", factor=16, original_context_length=4096)[1]
    print(HEADER)
    for row in (yarn[i] for i in (0, 20, 21, 33, 45, 46, 63)):
        print(f"   {row.i:4} {row.theta:10.6f} {row.wavelength:12.1f} {row.turns:12.3f}"
              f" {row.ratio:10.4f}")
    unchanged = sum(1 for row in yarn if row.ratio == 1.0)
    print(f"Pairs 0..{unchanged - 1} made 32 turns or more inside 4096 positions with the")
    print("default theta_i (turns / ratio): kept. From pair 46 on (under one turn)")
    print("they are divided by 16, and a straight ramp joins the two.")
    print(f"And q and k are multiplied by {scale:.4f} (0.1 ln 16 + 1), so every score")
    print(f"by {scale ** 2:.4f}: the rule the YaRN paper recommends for LLaMA models.")

# %% Llama 3.1: by wavelength
if __name__ == "__main__":
    lesson.stage("Llama 3.1: d = 128, base 500000, factor 8, L = 8192")

    llama = frequency_table(d, base=500000.0, method="llama3", factor=8,
                            original_context_length=8192)
    kept = [row.i for row in llama if row.ratio == 1.0]
    divided = [row.i for row in llama if row.ratio == 1 / 8]
    smoothed = [row for row in llama if 1 / 8 < row.ratio < 1.0]
    print(f"wavelength under 8192 / 4 = 2048: {len(kept)} pairs kept "
          f"({kept[0]}..{kept[-1]})")
    print(f"wavelength over 8192 / 1 = 8192:  {len(divided)} pairs divided by 8 "
          f"({divided[0]}..{divided[-1]})")
    print(f"between: {len(smoothed)} pairs smoothed")
    print(HEADER)
    for row in smoothed:
        print(f"   {row.i:4} {row.theta:10.6f} {row.wavelength:12.1f} {row.turns:12.3f}"
              f" {row.ratio:10.4f}")
    # 29 kept, 6 smoothed (29..34), 29 divided

# %% RoFormer's long-term decay, and a larger base
if __name__ == "__main__":
    lesson.stage("RoFormer's bound on |q . k| against the distance r (its 3.4.3)")

    distances = [0, 1, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]
    small = decay_bound(distances, d)  # base 10000
    large = decay_bound(distances, d, base=500000.0)  # Llama 3's base
    print("   r        " + "".join(f"{r:>6}" for r in distances))
    print("   10000    " + "".join(f"{bound:6.1f}" for bound in small))
    print("   500000   " + "".join(f"{bound:6.1f}" for bound in large))
    # 32.5 at r = 0 for both: (64 + 1) / 2
    higher = all(b > a for a, b in zip(list(small)[1:], list(large)[1:]))
    print(f"base 500000 above base 10000 at every r > 0 shown? {higher}")
    print("The bound falls with r, not steadily (see 1000 -> 2000 at both bases),")
    print("and a larger base makes it fall more slowly: the slow pairs turn less.")
    print("It is an upper bound on |q . k|, not the score a trained model makes.")
    print("Barbero et al. (2024, 'Round and Round We Go!') argue that this decay is")
    print("not why RoPE works: in a trained model (Gemma 7B) they find the fastest")
    print("pairs building position patterns, and suspect the slowest carry meaning.")
    r_axis = tuple(float(r) for r in range(0, 1001, 2))
    lesson.save_figure("decay_bound.svg", LineChart(
        x=r_axis,
        series=(("base 10000", tuple(decay_bound([int(r) for r in r_axis], d))),
                ("base 500000", tuple(decay_bound([int(r) for r in r_axis], d,
                                                  base=500000.0)))),
        title="RoFormer's relative upper bound on |q . k|, d = 128",
        x_name="distance r", y_name="(1/(d/2)) sum_j |S_j|"))

# %% No positions at all, and one key that takes the weight
if __name__ == "__main__":
    lesson.stage("No positions (NoPE) and the attention sink")

    n = 6
    q = k = Matrix([[0.0, 0.0]] * n)  # no positions, equal scores everywhere
    v = Matrix([[1.0]] + [[0.0]] * (n - 1))  # 1 at the first token only
    out = scaled_dot_product_attention(q, k, v, causal=True).output
    print("causal, equal scores, v = 1 at token 0 only; token i reads:")
    print("   " + " ".join(f"{out[i][0]:.4f}" for i in range(n)))
    print("Token i averages i + 1 values, so it reads 1/(i+1): without any")
    print("position encoding, a causal head can still tell how far along it is.")
    for keys in (8, 1024):
        weight = softmax([5.0] + [0.0] * (keys - 1))[0]
        print(f"   score 5 against 0, among {keys:4} keys: weight {weight:.3f}")
    # e^5 / (e^5 + 7) = 0.955, e^5 / (e^5 + 1023) = 0.127
    print("Among few keys one high score takes almost all the weight; among many")
    print("it must be higher still. Xiao et al. (2023) found trained models giving")
    print("the first tokens such weight wherever the query stands, and named them")
    print("attention sinks.")
