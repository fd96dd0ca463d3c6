"""Lesson 28: induction heads

Question: in a sequence where a stretch of tokens comes twice in a row, the
next token inside the repeat can be read off the first copy: find where the
current token stood before, and copy the token that came after it. Olsson et
al. (2022) found that transformers do this with two heads in two layers, an
"induction head": a first-layer head that writes each token's predecessor
into its row, and a second-layer head whose query finds that predecessor.
Does a second layer learn it, in a model trained for seconds? And one
without positions?

Claim checked (lecture 000): without positions, self-attention sees a
sequence as a bag of tokens, so it cannot tell which token came after which.
Here the lab's induction task (the repeat at a drawn place, of a drawn
length), five kinds of position, one layer against two, each trained from
seeds 0, 1 and 2; then where the heads look, and the circuit set by hand.
With --long, a last stage trains what does learn it (minutes, not seconds).

Lecture 000, with chapter 10 (minipe/training/model.py, minipe/training/lab.py).
Run: python walkthroughs/28_induction_heads.py [--step] [--long]
"""

import time

from lesson import Lesson

from minipe import Matrix, TinyModel, alibi_slopes, task_batch, train

KINDS = ("learned", "sinusoidal", "rope", "alibi", "none")
SEEDS = (0, 1, 2)
IGNORE = -100  # a target that counts for nothing
VOCAB, D, T = 8, 8, 8  # 8 token kinds, d_model 8, sequences of 8 tokens
STEPS, BATCH = 60, 4  # Adam's steps, and new sequences a step
# --long: what learns induction (two heads a layer, LayerNorm), 16 kinds, d_model 16
LONG_VOCAB, LONG_D, LONG_HEADS, LONG_STEPS, LONG_BATCH, LONG_RATE = 16, 16, 2, 400, 16, 0.02


def measured(model: TinyModel, samples: int = 64) -> tuple[float, float, float]:
    """(accuracy in the repeat, the first layer's mean weight on i - 1, the last layer's
    mean weight on i + 1 - L, the token after i's earlier copy), over `samples` new
    sequences of the lab's induction task (seed 99). With several heads a layer, each
    weight is the best head's: the head that puts the most there on average."""
    heads = model.num_heads
    right, count = 0.0, 0
    previous, after_copy = [0.0] * heads, [0.0] * heads
    for ids, targets in zip(*task_batch("induction", model.vocab_size, T, samples, seed=99)):
        logits = model.logits(ids).rows
        weights = model.attention_weights(ids)  # per layer, per head: (T, T)
        asked = [i for i, target in enumerate(targets) if target != IGNORE]
        length = len(asked) + 1  # L: the repeat's first L - 1 tokens are asked
        for i in asked:
            right += logits[i].index(max(logits[i])) == targets[i]
            for head in range(heads):
                previous[head] += weights[0][head].rows[i][i - 1]
                after_copy[head] += weights[-1][head].rows[i][i + 1 - length]
            count += 1
    return right / count, max(previous) / count, max(after_copy) / count


def bag_guess(vocab: int = VOCAB, samples: int = 64) -> float:
    """The expected accuracy of a guess among the token kinds seen up to i (the target is
    always one of them): the mean of 1 / (kinds in ids[0..i]), on measured's sequences."""
    shares = [1 / len(set(ids[:i + 1]))
              for ids, targets in zip(*task_batch("induction", vocab, T, samples, seed=99))
              for i, target in enumerate(targets) if target != IGNORE]
    return sum(shares) / len(shares)


def induction_circuit(positions: str, beta: float = 50.0, gamma: float = 2.0) -> TinyModel:
    """Two layers set by hand, d_model = VOCAB + T + VOCAB: the token's one-hot, then the
    position's, then a slot for the previous token. Layer 1 asks at position p for p - 1
    (scores beta / sqrt(d) there, 0 elsewhere) and writes the token found into the slot;
    layer 2 asks with the current token for a row whose slot holds it, and adds gamma times
    that row's token; W_out reads the token block. Position 0 has no predecessor: its key
    is pushed below every other. positions "none" keeps the same tables but no P."""
    d = VOCAB + T + VOCAB
    slot = VOCAB + T  # where the previous token's block starts
    tables = {name: [[0.0] * d for _ in range(d)] for name in
              ("layer0.W_q", "layer0.W_k", "layer0.W_v", "layer1.W_q", "layer1.W_k",
               "layer1.W_v")}
    E = [[float(j == t) for j in range(d)] for t in range(VOCAB)]  # (VOCAB, d)
    P = [[float(j == VOCAB + p) for j in range(d)] for p in range(T)]  # (T, d)
    W_out = [[float(j == t) for t in range(VOCAB)] for j in range(d)]  # (d, VOCAB)
    for p in range(T):
        tables["layer0.W_k"][VOCAB + p][VOCAB + p] = 1.0  # a key says its position
        if p > 0:
            tables["layer0.W_q"][VOCAB + p][VOCAB + p - 1] = beta  # asks for p - 1
    for t in range(VOCAB):
        tables["layer0.W_v"][t][slot + t] = 1.0  # the token found, into the slot
        tables["layer1.W_q"][t][slot + t] = beta  # asks for a row whose slot is t
        tables["layer1.W_k"][slot + t][slot + t] = 1.0
        tables["layer1.W_k"][VOCAB][slot + t] = -1.0  # position 0: no predecessor
        tables["layer1.W_v"][t][t] = gamma  # copies that row's token
    weights = {name: Matrix(rows) for name, rows in tables.items()}
    weights.update(token_embedding=Matrix(E), W_out=Matrix(W_out))
    if positions == "learned":
        weights["position_embedding"] = Matrix(P)
    return TinyModel(VOCAB, d, T, positions=positions, num_layers=2, weights=weights)


def cells(numbers: list[float]) -> str:
    return " ".join(f"{number:.2f}" for number in numbers)


# %% The task
if __name__ == "__main__":
    lesson = Lesson(__doc__, long="also train what learns induction: two heads a layer, "
                    "LayerNorm, 400 steps, the five kinds on seeds 0, 1, 2 (about 4.5 "
                    "minutes of CPU)")
    lesson.stage("The task: a stretch comes twice in a row, at a drawn place")

    inputs, targets = task_batch("induction", VOCAB, T, 2, seed=0)
    for ids, wanted in zip(inputs, targets):
        print(f"   ids     {ids}")
        print(f"   targets {['-' if t == IGNORE else t for t in wanted]}")
    lesson.check("in the first, 0 2 4 at 1..3 comes again at 4..6, and the targets at 4 and "
                 "5 are the tokens after the earlier 0 and 2",
                 inputs[0][1:4] == inputs[0][4:7] and targets[0][4:6] == inputs[0][2:4])
    print("In the first, 0 2 4 at positions 1..3 comes again at 4..6: at 4 (a 0) the")
    print("next token is the one after the earlier 0, a 2; at 5, a 4. The lab draws")
    print("the stretch's length (2 to 4 here) and where it starts, so the copy is not")
    print("a fixed number of tokens back. Chance is 1/8 = 0.125.")

# %% One layer against two
if __name__ == "__main__":
    lesson.stage("One layer against two, five kinds, seeds 0, 1, 2")

    print(f"d_model {D}, one head a layer, two layers on a residual stream (no norm);")
    print(f"train() runs {STEPS} steps of Adam on {BATCH} new sequences a step. Accuracy in")
    print("the repeat:")
    models: dict[tuple[str, int, int], TinyModel] = {}
    for kind in KINDS:
        for layers in (1, 2):
            for seed in SEEDS:
                model = TinyModel(VOCAB, D, T, positions=kind, seed=seed, num_layers=layers)
                models[kind, layers, seed] = train(
                    model, "induction", steps=STEPS, batch_size=BATCH, seed=seed,
                    on_step=lesson.progress(f"{kind}, {layers} layer(s), seed {seed}",
                                            STEPS)).model
    scores = {key: measured(model) for key, model in models.items()}
    print("   " + " " * 11 + "one layer       two layers")
    for kind in KINDS:
        print(f"   {kind:11}" + "  ".join(cells([scores[kind, layers, s][0] for s in SEEDS])
                                         for layers in (1, 2)))
    bag = bag_guess()
    print(f"A guess among the kinds seen so far (the answer is always one) scores {bag:.2f}.")
    lesson.check("every model reads at most 0.5 and within 0.2 of that guess, on every seed",
                 all(score[0] <= 0.5 and abs(score[0] - bag) <= 0.2
                     for score in scores.values()))
    print("Every model, at one layer or two, with positions or without, reads at most")
    print("0.5, within 0.2 of it: none learned to copy from the first copy. A second layer")
    lesson.check("for every kind, on some seed the second layer did not help",
                 all(any(scores[kind, 2, s][0] <= scores[kind, 1, s][0] for s in SEEDS)
                     for kind in KINDS))
    print("bought no kind a gain on every seed. Stage 5 says what does learn to copy.")

# %% Where the heads look
if __name__ == "__main__":
    lesson.stage("Where the heads look: layer 1 on i - 1, layer 2 after the copy")

    print("Mean attention weight at the asked positions (seeds 0, 1, 2):")
    print("   " + " " * 11 + "two layers: layer 1 on i-1  layer 2 after the copy")
    for kind in KINDS:
        print(f"   {kind:11}{cells([scores[kind, 2, s][1] for s in SEEDS]):28}"
              f"{cells([scores[kind, 2, s][2] for s in SEEDS])}")
    lesson.check("no two-layer model's first layer puts more than 0.4 on i - 1",
                 all(scores[kind, 2, s][1] <= 0.4 for kind in KINDS for s in SEEDS))
    print("No first layer grew a previous-token head (at most 0.4 on i - 1; an even")
    print("spread over the i + 1 keys gives 1/3 to 1/7 here, and ALiBi's penalty")
    print("alone leans to the nearest keys). No second layer found the token after")
    lesson.check("no two-layer model's second layer puts more than 0.4 after the copy",
                 all(scores[kind, 2, s][2] <= 0.4 for kind in KINDS for s in SEEDS))
    print("the copy (at most 0.4). Without positions a first layer's head cannot")
    print("single out i - 1 (its scores see only tokens); with them, "
          f"{STEPS} steps did")
    print("not find it either.")

# %% The circuit, set by hand
if __name__ == "__main__":
    lesson.stage("The circuit Olsson et al. describe, set by hand")

    circuit = induction_circuit("learned")
    blind = induction_circuit("none")
    print("d_model = 8 + 8 + 8: the token, the position and the previous token, one")
    print("block of one-hot numbers each. Layer 1's head turns position p into a query")
    print("for p - 1 and writes the token it finds into the third block; layer 2's")
    print("query is the current token, its keys that third block, so it finds the row")
    print("whose predecessor is the current token and copies that row's token.")
    hand = {"learned": measured(circuit), "none": measured(blind)}
    print("   " + " " * 9 + "in the repeat  on i - 1  after the copy")
    for name in ("learned", "none"):
        print(f"   {name:9}{hand[name][0]:10.2f}{hand[name][1]:12.2f}{hand[name][2]:12.2f}")
    lesson.check("the hand-set circuit puts 0.99 or more on i - 1 and reads 0.85 or more "
                 "in the repeat, wherever it sits", hand["learned"][1] >= 0.99
                 and hand["learned"][0] >= 0.85)
    once = []
    for ids, wanted in zip(*task_batch("induction", VOCAB, T, 64, seed=99)):  # measured's
        rows = circuit.logits(ids).rows
        once += [rows[i].index(max(rows[i])) == target for i, target in enumerate(wanted)
                 if target != IGNORE and ids[:i].count(ids[i]) == 1]
    lesson.check("the circuit is right on every target whose token came once before",
                 all(once))
    print(f"It copies wherever the repeat sits, and is right on all {len(once)} targets")
    print("whose token came once before; a token that came twice has two earlier")
    print("copies, and the head splits between them. Without positions the same")
    lesson.check("the same weights without positions read at most 0.15",
                 hand["none"][0] <= 0.15)
    print("weights read at most 0.15: layer 1 cannot find i - 1. Olsson et al. (2022)")
    print("found such pairs of heads in trained transformers, appearing all at once")
    print("after far more training than these seconds.")

# %% What learns it (trained only with --long)
if __name__ == "__main__":
    lesson.stage("What learns it: two heads a layer and LayerNorm")
    if not lesson.long:
        print("With 16 kinds, two heads a layer, LayerNorm, d_model 16 and 400 steps of")
        print("16, two layers learn to copy, in about 18 s of CPU a model on CPython 3.11")
        print("(12 s on 3.13), over twice this lesson. To train them for the five kinds")
        print("on seeds 0, 1, 2 (about 4.5 minutes of CPU; 3 on 3.13), run")
        print("   python walkthroughs/28_induction_heads.py --long")
    else:
        print(f"{LONG_VOCAB} kinds, d_model {LONG_D}, {LONG_HEADS} heads a layer, two layers, "
              f"LayerNorm before each")
        print(f"(pre-norm); {LONG_STEPS} steps of Adam at {LONG_RATE} on {LONG_BATCH} new "
              f"sequences a step.")
        start = time.process_time()
        long_scores: dict[tuple[str, int], tuple[float, float, float]] = {}
        for kind in KINDS:
            for seed in SEEDS:
                began = time.process_time()
                model = TinyModel(LONG_VOCAB, LONG_D, T, positions=kind, seed=seed,
                                  num_layers=2, num_heads=LONG_HEADS, norm="layer")
                trained = train(model, "induction", steps=LONG_STEPS, batch_size=LONG_BATCH,
                                learning_rate=LONG_RATE, seed=seed,
                                on_step=lesson.progress(f"{kind}, seed {seed}", LONG_STEPS))
                long_scores[kind, seed] = measured(trained.model)
                print(f"   {kind}, seed {seed}: trained in "
                      f"{time.process_time() - began:.0f} s of CPU")
        print(f"{time.process_time() - start:.0f} s of CPU in all. The best head of each "
              f"layer (seeds 0, 1, 2):")
        print("   " + " " * 11 + "in the repeat     layer 1 on i-1    layer 2 after the copy")
        for kind in KINDS:
            print(f"   {kind:11}" + "    ".join(cells([long_scores[kind, s][n] for s in SEEDS])
                                             for n in range(3)))
        guess = bag_guess(LONG_VOCAB)
        tabled = ("learned", "sinusoidal", "rope")  # the kinds that add or turn by position
        learned = [long_scores["learned", s] for s in SEEDS]
        blind_scores = [long_scores["none", s] for s in SEEDS]
        lesson.check("learned, sinusoidal and RoPE read 0.5 or more in the repeat on every "
                     "seed", all(long_scores[kind, s][0] >= 0.5 for kind in tabled
                                 for s in SEEDS))
        print("Learned, sinusoidal and RoPE learned to copy on every seed: 0.5 or more in")
        print(f"the repeat, where a guess among the kinds seen scores {guess:.2f}. On seeds")
        lesson.check("with learned positions, on seeds 0 and 1 a layer-2 head puts 0.7 or "
                     "more after the copy", all(score[2] >= 0.7 for score in learned[:2]))
        print("0 and 1 of learned a layer-2 head puts 0.7 or more on the token after the")
        print("copy: an induction head. Its partner is weaker: a learned layer-1 head")
        lesson.check("with learned positions, on every seed layer 1's best head puts at "
                     "most 0.45 on i - 1, less than layer 2's best puts after the copy",
                     all(score[1] <= 0.45 and score[1] < score[2] for score in learned))
        print("puts at most 0.45 on i - 1, less than layer 2 after the copy; and seed 2")
        lesson.check("learned seed 2 reads 0.5 or more with at most 0.15 on i - 1 and 0.4 "
                     "after the copy", learned[2][1] <= 0.15 and learned[2][2] <= 0.4)
        print("reads 0.5 or more with no single head clear (at most 0.15 on i - 1, 0.4")
        print("after the copy): one head's weight does not show the whole circuit.")
        rope = long_scores["rope", 1]
        lesson.check("RoPE on seed 1 puts 0.7 or more on i - 1 and after the copy, and no "
                     "other model puts more than 0.45 on i - 1",
                     rope[1] >= 0.7 and rope[2] >= 0.7
                     and all(long_scores[key][1] <= 0.45 for key in long_scores
                             if key != ("rope", 1)))
        print("Only RoPE on seed 1 grew both heads of the circuit Olsson et al. describe:")
        print("0.7 or more on i - 1 and after the copy; no other model puts over 0.45 on")
        print("i - 1.")
        slopes = alibi_slopes(LONG_HEADS)
        lesson.check("ALiBi reads less than learned, sinusoidal and RoPE on every seed",
                     all(long_scores["alibi", s][0] < long_scores[kind, s][0]
                         for kind in tabled for s in SEEDS))
        lesson.check("two heads get ALiBi slopes 1/16 and 1/256", slopes == [1 / 16, 1 / 256])
        print("ALiBi reads less than those three on every seed: with two heads its slopes")
        print("are the paper's 1/16 and 1/256, so 7 tokens back costs a score at most 7/16")
        print("(one head had 1/2): hardly a position at all.")
        lesson.check("without positions every seed reads 0.3 or more, above the guess, and "
                     "less than the learned model of the same seed",
                     all(guess < 0.3 <= blind[0] < score[0]
                         for blind, score in zip(blind_scores, learned)))
        lesson.check("without positions a layer-2 head puts 0.3 or more after the copy on "
                     "every seed", all(blind[2] >= 0.3 for blind in blind_scores))
        print(f"Without positions every seed still reads 0.3 or more, above {guess:.2f},")
        print("though less than learned on the same seed, and a layer-2 head puts 0.3")
        print("or more after the copy. The causal mask tells the model where it is: row")
        print("i's layer-1 heads average over i + 1 keys, a different number of them at")
        print("each position (Haviv et al. 2022 found that language models trained")
        print("without positions learn where each token stands). Over 400 steps small")
        print("differences in rounding grow: under Python 3.11 and 3.13 a seed here reads")
        print("up to about a tenth apart, and the bounds above leave room for that.")
