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
    PairFrequency,
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
SIDE_BY_SIDE = ("         default theta_i, inside L    stretched theta_i, inside sL\n"
                "      i  wavelength   turns in L     wavelength  turns in sL    ratio")


def side_by_side(default: PairFrequency, stretched: PairFrequency, factor: float) -> str:
    """Pair i as trained (its turns inside L) and stretched (its turns inside s L, the
    longer text): a method that divides theta_i by s keeps the turns the same."""
    turns_sL = factor * stretched.turns  # s L / wavelength: turns inside the longer text
    return (f"   {default.i:4} {default.wavelength:11.1f} {default.turns:12.3f}    "
            f"{stretched.wavelength:11.1f} {turns_sL:12.3f} {stretched.ratio:8.4f}")


def spans(indices: list[int]) -> str:
    """Pair indices as runs: [0, 1, 2, 5] -> '0..2, 5' ('none' if empty)."""
    runs: list[str] = []
    for i in indices:
        if runs and int(runs[-1].split("..")[-1]) == i - 1:
            runs[-1] = f"{runs[-1].split('..')[0]}..{i}"
        else:
            runs.append(str(i))
    return ", ".join(runs) or "none"

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
    lesson.check("q at 6000 stretched by 4 is q at 1500", same)
    print(f"Every theta_i is divided by {factor:g}: positions 0..8191 turn each pair")
    print(f"through the angles 0..2047 did. The price: pair 0 now moves {thetas[0]:.2f} rad")
    print("per step instead of 1, so neighbours differ by a quarter of what training saw.")

# %% NTK-aware scaling: a larger base
if __name__ == "__main__":
    lesson.stage("NTK-aware scaling: base' = base * factor**(d / (d - 2))")

    ntk = frequency_table(d, original_context_length=L, method="ntk", factor=4)
    print(f"base' = 10000 * 4**(128/126) = {10000 * 4 ** (128 / 126):,.2f}")
    print(SIDE_BY_SIDE.replace("sL", "4L"))
    for i in (0, 1, 20, 40, 63):
        print(side_by_side(rows[i], ntk[i], 4))
    # ratio 1.0000 at pair 0, 0.2500 at pair 63
    print("Each stretched pair is read against the text it turns in, 4L = 8192: pair 0")
    print("keeps its speed (neighbours stay as far apart), pair 63 is divided by exactly")
    print("4 and turns in 8192 what it turned in 2048; the pairs between, by less.")
    print("Dynamic NTK: base' = base * g**(d/(d-2)), g = factor * n / L - (factor - 1),")
    print("n = max(seq_len, L). Pair 63's theta, base'**(-126/128), is then the default's")
    print("times g**(-(128/126)(126/128)) = 1/g:")
    for seq_len in (2048, 4096, 8192):
        dynamic, _ = rope_frequencies(d, method="dynamic", factor=4,
                                      original_context_length=L, seq_len=seq_len)
        g = 4 * max(seq_len, L) / L - (4 - 1)
        print(f"   seq_len {seq_len}: g = 4*{max(seq_len, L)}/{L} - 3 = {g:2g}, "
              f"1/g = {1 / g:.4f}; pair 63 ratio {dynamic[63] / rows[63].theta:.4f}")
    print("Dynamic NTK leaves the model as it was until the text outgrows L (g = 1).")

# %% YaRN: pair by pair, by how often each pair turns inside L
if __name__ == "__main__":
    lesson.stage("YaRN (Peng et al. 2023): d = 128, L = 4096, factor 16")

    plain = frequency_table(d, original_context_length=4096)  # r: turns inside L = 4096
    rounded = frequency_table(d, original_context_length=4096, method="yarn", factor=16)
    paper = frequency_table(d, original_context_length=4096, method="yarn", factor=16,
                            ramp="paper")
    scale = rope_frequencies(d, method="yarn", factor=16, original_context_length=4096)[1]
    print("The thresholds read the default theta_i's turns r inside L = 4096: kept")
    print("where r >= beta_fast = 32, divided by 16 where r <= beta_slow = 1.")
    print("      i  wavelength   r in 4096   rounded ramp   paper's ramp   (ratio)")
    for i in (0, 20, 21, 25, 33, 40, 45, 46, 63):
        print(f"   {i:4} {plain[i].wavelength:11.1f} {plain[i].turns:11.3f} "
              f"{rounded[i].ratio:14.4f} {paper[i].ratio:14.4f}")
    for name, table in (("rounded ramp", rounded), ("paper's ramp", paper)):
        kept = [row.i for row in table if row.ratio == 1.0]
        divided = [row.i for row in table if math.isclose(row.ratio, 1 / 16)]
        blended = [row.i for row in table if row.i not in kept + divided]
        print(f"   {name}: keeps {spans(kept)}, blends {spans(blended)}, "
              f"divides {spans(divided)}")
    at_fast, at_slow = (d * math.log(4096 / (2 * math.pi * r)) / (2 * math.log(10000))
                        for r in (32, 1))  # the real i where r = 32 and r = 1
    same = all((a.ratio == 1.0) == (b.ratio == 1.0)
               and math.isclose(a.ratio, 1 / 16) == math.isclose(b.ratio, 1 / 16)
               for a, b in zip(rounded, paper))
    print(f"The same pairs kept and divided by both? {same}. Between, the rounded ramp is")
    lesson.check("both ramps keep and divide the same pairs", same)
    print(f"linear in the pair index i, from pair {math.floor(at_fast)} (r = 32 at i = "
          f"{at_fast:.2f}, rounded down)")
    print(f"to {math.ceil(at_slow)} (r = 1 at i = {at_slow:.2f}, rounded up); the paper's "
          f"gamma(r) = (r - 1) / 31")
    print(f"is linear in the turns r, and r falls {10000 ** (2 / 128):.4f} times from one "
          f"pair to the next.")
    print(f"So the two part: pair 33 (r = {plain[33].turns:.3f}) gets ratio {paper[33].ratio:.4f}"
          f" from the")
    print(f"paper's ramp and {rounded[33].ratio:.4f} from the rounded one (Hugging Face's, "
          f"minipe's default).")
    print(SIDE_BY_SIDE.replace("sL", "16L"))
    for i in (20, 33, 46):
        print(side_by_side(plain[i], rounded[i], 16))
    print("(rounded ramp) A kept pair turns 16 times as often in 16L; a divided one as")
    print("often as it did in L.")
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
    default_8192 = frequency_table(d, base=500000.0, original_context_length=8192)
    print("The thresholds read the default wavelengths; stretched, pair by pair:")
    print(SIDE_BY_SIDE.replace("sL", "8L"))
    for row in smoothed:
        print(side_by_side(default_8192[row.i], row, 8))
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
    lesson.check("base 500000's bound is above base 10000's at every r > 0 shown", higher)
    print("The bound falls with r, not steadily (see 1000 -> 2000 at both bases),")
    print("and the larger base, whose pairs turn slower, stays above at each r > 0 shown.")
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
    # e**5 / (e**5 + 7) = 0.955, e**5 / (e**5 + 1023) = 0.127
    print("Among few keys one high score takes almost all the weight; among many")
    print("it must be higher still. Xiao et al. (2023) found trained models giving")
    print("the first tokens such weight wherever the query stands, and named them")
    print("attention sinks.")
