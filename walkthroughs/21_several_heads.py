"""Lesson 21: several heads

Question: with several heads, where do the positions go? Which of q, k, v does
RoPE turn, how much of each head, and what slope does each ALiBi head get?

Claim checked (lecture 004): RoPE turns q and k, never v, so that a score
depends only on the offset of two tokens and an output does not carry where
it stands. It may turn only part of each head (GPT-NeoX's partial rotary). It
must turn pairs that stay inside one head: turning all of d_model in the half
layout and then cutting it into heads leaves no single head's scores relative,
only their sum. ALiBi gives each head its own slope, steep to gentle. Back in
the lab, one ALiBi head against four on copy-back, each trained from three
seeds, and why no ALiBi head can single out the token two back.

Lecture 004, with chapters 5, 6 and 10 (minipe/rotary.py, minipe/relative.py,
minipe/training/heads.py).
Run: python walkthroughs/21_several_heads.py [--step] [--svg]
"""

import itertools
import math

from lesson import Lesson

from minipe import (
    Embedding,
    Matrix,
    TinyModel,
    accuracy,
    alibi_bias,
    alibi_slopes,
    allclose,
    apply_rotary,
    scaled_dot_product_attention,
    train,
)

VOCAB, D, T = 8, 8, 8  # 8 token kinds, d_model = 8, trained on 8 tokens


def score(q: Matrix, k: Matrix, m: int, n: int, layout: str = "interleaved") -> float:
    """Row 0 of q turned at position m, dotted with row 0 of k turned at n."""
    q_m = apply_rotary(q, start=m, layout=layout).rows[0]
    k_n = apply_rotary(k, start=n, layout=layout).rows[0]
    return sum(a * b for a, b in zip(q_m, k_n))


def largest_difference(a: Matrix, b: Matrix) -> float:
    return max(abs(x - y) for row_a, row_b in zip(a.rows, b.rows) for x, y in zip(row_a, row_b))


def columns(x: Matrix, start: int, stop: int) -> Matrix:
    """Columns start .. stop - 1 of every row of x: one head's slice."""
    return Matrix([list(row[start:stop]) for row in x.rows])


def weights_back_from_query_2(model: TinyModel) -> tuple[list[list[float]], bool]:
    """Each ALiBi head's mean weight on the keys d = 0, 1, 2 back from query 2.

    Averaged over every start of 3 tokens (vocab_size**3 of them, each as
    likely as the task draws it), recomputed per head as chapter 4 does
    (Q = X W_q cut into heads of head_dim columns, ALiBi's bias -m (i - j)).
    The second value says whether the heads, side by side, give the model's
    own logits.
    """
    W = model.parameters()
    head_dim, slopes = model.head_dim, model.alibi_slopes or ()
    totals = [[0.0, 0.0, 0.0] for _ in slopes]  # (num_heads, d = 0, 1, 2)
    same = True
    starts = list(itertools.product(range(model.vocab_size), repeat=3))
    for ids in starts:
        X = Matrix([W["token_embedding"].rows[token_id] for token_id in ids])  # (3, d_model)
        Q, K, V = X @ W["W_q"], X @ W["W_k"], X @ W["W_v"]
        outputs = []
        for h, m in enumerate(slopes):
            a, b = h * head_dim, (h + 1) * head_dim  # head h's columns
            head = scaled_dot_product_attention(columns(Q, a, b), columns(K, a, b),
                                                columns(V, a, b), causal=True,
                                                bias=alibi_bias(3, m))
            outputs.append(head.output)  # (3, head_dim)
            for d in range(3):
                totals[h][d] += head.weights[2][2 - d]
        joined = Matrix([[x for output in outputs for x in output.rows[i]]
                         for i in range(3)])  # (3, d_model): the heads side by side
        same = same and allclose(joined @ W["W_out"], model.logits(list(ids)))
    return [[total / len(starts) for total in row] for row in totals], same


# %% Turn q and k, not v
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("RoPE turns q and k; v stays as it is")

    q, k, v = (Embedding(4, 4, seed=s).weight for s in (1, 2, 3))  # 4 tokens, d = 4
    print(f"   q_0 at 2 . k_0 at 5 = {score(q[:1], k[:1], 2, 5):.6f}")
    print(f"   q_0 at 7 . k_0 at 10 = {score(q[:1], k[:1], 7, 10):.6f}   (the same offset, 3)")
    shifts = {}
    for turn_v in (False, True):
        outputs = []
        for start in (0, 5):  # the same 4 tokens at 0..3, then at 5..8
            q_t, k_t = apply_rotary(q, start=start), apply_rotary(k, start=start)
            v_t = apply_rotary(v, start=start) if turn_v else v
            outputs.append(scaled_dot_product_attention(q_t, k_t, v_t, causal=True).output)
        shifts[turn_v] = largest_difference(outputs[0], outputs[1])
    print("Move the four tokens from positions 0..3 to 5..8; the outputs change by at most")
    print(f"   below 1e-12 with v as it is, and {shifts[True]:.4f} with v turned too.")
    print("The weights depend on offsets only; a turned v carries each token's own")
    lesson.check("with v as it is, moving the tokens changes the outputs only by rounding "
                 "(under 1e-12); a turned v changes them", shifts[False] < 1e-12
                 and shifts[True] > 1e-6)
    print("position into the output.")

# %% Part of each head
if __name__ == "__main__":
    lesson.stage("Partial rotary: d_model = 16, two heads of 8, rotary_fraction 1/2")

    partial = TinyModel(VOCAB, 16, T, positions="rope", num_heads=2, rotary_fraction=0.5)
    thetas = [round(theta, 6) for theta in partial.frequencies or []]
    print(f"   frequencies {thetas}: theta_i = 10000**(-2i / 4), for the 4 turned dims")
    ids = [1, 6, 3, 5, 2]
    moved = partial.logits(ids, position_ids=[3, 4, 5, 6, 7])
    partial_shift = largest_difference(partial.logits(ids), moved)
    print(f"   logits at positions 0..4 vs 3..7: largest difference {partial_shift:.2g}")
    print("Each head turns its first 4 numbers and leaves 4, whose part of a score does")
    print("not change with the offset; the scores stay relative, as with all turned.")
    lesson.check("with partial rotary the logits stay relative (a difference under 1e-12)",
                 partial_shift < 1e-12)

# %% The half layout, cut after turning
if __name__ == "__main__":
    lesson.stage("Turn all of d_model = 8, then cut into two heads of 4")

    print("Each head's part of q_0 . k_0 at positions (1, 3) vs (4, 6), offset 2 both:")

    q8, k8 = Embedding(1, 8, seed=4).weight, Embedding(1, 8, seed=5).weight
    per_layout = {}  # layout -> each head's part at (1, 3), and at (4, 6)
    for layout in ("interleaved", "half"):
        parts = []
        for at_q, at_k in ((1, 3), (4, 6)):  # the same offset, 2
            q_m = apply_rotary(q8, start=at_q, layout=layout).rows[0]
            k_n = apply_rotary(k8, start=at_k, layout=layout).rows[0]
            per_head = [sum(a * b for a, b in zip(q_m[h * 4:(h + 1) * 4], k_n[h * 4:(h + 1) * 4]))
                        for h in (0, 1)]
            parts.append(per_head)
        (a0, a1), (b0, b1) = parts
        per_layout[layout] = parts
        print(f"   {layout:11} head 0 {a0:+.5f} vs {b0:+.5f}, head 1 {a1:+.5f} vs {b1:+.5f}")
        print(f"   {'':11} the sum  {a0 + a1:+.5f} vs {b0 + b1:+.5f}")
    print("Interleaved pairs (2i, 2i + 1) stay in one head: each head's score is the")
    print("same at offset 2 wherever it stands. Half pairs (i, i + 4) straddle the cut:")
    (a0, a1), (b0, b1) = per_layout["interleaved"]
    lesson.check("interleaved, each head's part is the same at offset 2 wherever it stands",
                 math.isclose(a0, b0, abs_tol=1e-12) and math.isclose(a1, b1, abs_tol=1e-12))
    print("only the sum of the heads is relative. Cut into heads first, then turn.")
    (a0, a1), (b0, b1) = per_layout["half"]
    lesson.check("half pairs: each head's part moves with the positions, only the sum is "
                 "relative", not math.isclose(a0, b0, abs_tol=1e-6)
                 and math.isclose(a0 + a1, b0 + b1, abs_tol=1e-12))

# %% One slope per head
if __name__ == "__main__":
    lesson.stage("ALiBi: one slope per head")

    slopes = alibi_slopes(4)
    print("   head  m          penalty at distance 1, 4, 7")
    for h, m in enumerate(slopes):
        print(f"   {h:4}  {m:<10g} {-m * 1:8.4f} {-m * 4:8.4f} {-m * 7:8.4f}")
    print(f"At distance 7 head 0 charges {-slopes[0] * 7:.4f}, head 3 only {-slopes[3] * 7:.4f}: "
          f"{slopes[0] / slopes[3]:g} times less.")
    print("A steep head's weights fall fast with distance; a gentle one's barely do.")

# %% Back in the lab
if __name__ == "__main__":
    lesson.stage("One ALiBi head or four on copy-back: can a head pick out the token "
                 "two back?")

    steps, batch_size, seeds = 40, 4, (0, 1, 2)
    print("Copy-back asks query i for the token at i - 2.")
    print(f"Each trained {steps} steps x {batch_size} sequences (lr 0.1), from three seeds "
          f"(the seed draws")
    print("the tables and the batches); right on 64 new sequences (seed 99) of 8 tokens:")
    shares: dict[int, list[float]] = {}
    trained: dict[int, list[TinyModel]] = {}
    for heads in (1, 4):
        shares[heads], trained[heads] = [], []
        for seed in seeds:
            model = TinyModel(VOCAB, D, T, positions="alibi", num_heads=heads, seed=seed)
            result = train(model, "copy-back", steps=steps, batch_size=batch_size,
                           learning_rate=0.1, seed=seed,
                           on_step=lesson.progress(f"{heads} heads, seed {seed}", steps))
            trained[heads].append(result.model)
            shares[heads].append(accuracy(result.model, "copy-back", seed=99))
        slope_text = ", ".join(f"{m:g}" for m in model.alibi_slopes or ())
        mean = sum(shares[heads]) / len(shares[heads])
        print(f"   {heads} head(s), head_dim {D} / {heads} = {model.head_dim}, m = {slope_text}")
        print(f"      seeds 0, 1, 2: {', '.join(f'{share:.1%}' for share in shares[heads])};"
              f" mean {mean:.1%}, spread {max(shares[heads]) - min(shares[heads]):.1%}")
    lesson.check(f"every run learned something: above a guess among 8 ({1 / VOCAB:.1%}), "
                 f"on each of the {len(seeds)} seeds", all(1 / VOCAB < share < 1
                                                           for share in shares[1] + shares[4]))
    wins = sum(four > one for one, four in zip(shares[1], shares[4]))
    means = {heads: sum(shares[heads]) / len(seeds) for heads in (1, 4)}
    gap = means[4] - means[1]
    widest = max(max(shares[heads]) - min(shares[heads]) for heads in (1, 4))
    ceiling = math.floor(max(shares[1] + shares[4]) * 10 + 1) * 10
    print(f"Four heads beat one on {wins} of the {len(seeds)} seeds; the means differ by "
          f"{gap * 100:.1f} points,")
    print(f"{'less' if abs(gap) < widest else 'more'} than the widest spread between seeds "
          f"({widest * 100:.1f} points).")
    print(f"No run passes {ceiling}%; a guess among 8 is right on {1 / VOCAB:.1%}.")
    print("Why no run comes close: an ALiBi head knows where a key stands only by its bias")
    print("-m (i - j), which falls with distance. Keys i - 1 and i - 2 hold tokens")
    print("drawn alike, so content cannot tell them apart; with equal content scores")
    print("key i - 2 gets e**-m times the weight of key i - 1, and e**-2m times that of")
    print("the query's own token (lesson 15, stage 5, argues the same for previous-token:")
    print("walkthroughs/15_does_attention_need_positions.py). Swap the tokens at i - 1")
    print("and i - 2 of any start: key i - 1 then holds what key i - 2 held, and gets")
    print("more weight than key i - 2 got. Summed over every start, each head gives key")
    print("i - 2 less weight than key i - 1, whatever its tables hold: no length of")
    print("training changes that. Mean weight at query 2 over all "
          f"{VOCAB}**3 = {VOCAB ** 3} starts,")
    print("key i - 1 against key i - 2, head by head:")
    below, logits_agree = True, True
    for heads in (1, 4):
        for seed, model in zip(seeds, trained[heads]):
            by_d, same = weights_back_from_query_2(model)
            logits_agree = logits_agree and same
            below = below and all(back > two_back for _, back, two_back in by_d)
            pairs = "  ".join(f"{back:.3f} {'>' if back > two_back else '<='} {two_back:.3f}"
                              for _, back, two_back in by_d)
            print(f"   {heads} head{'s,' if heads > 1 else ', '} seed {seed}   {pairs}")
    print(f"(these weights give each model's own logits? {logits_agree})")  # True
    lesson.check("the weights recomputed head by head give each model's own logits",
                 logits_agree)
    lesson.check(f"on each of the {len(seeds)} seeds, every head of one and of four gives "
                 f"key i - 2 less weight than key i - 1", below)
    print("Four heads change the slopes, not the direction: on every seed every head")
    print(f"ranks key i - 2 below key i - 1, and each of the four is {D // 4} columns wide.")
    print("To single out i - 2, a head needs content that says where a key stands,")
    print("which ALiBi never adds.")
    print("Now try exercises 20 and 21: python -m minipe exercises check 20")
