"""Lesson 28: induction heads

Question: in a sequence whose second half repeats the first, the next token
can be read off the first half: find where the current token stood before,
and copy the token that came after it. Olsson et al. (2022) found that
transformers do this with two heads in two layers, an "induction head": a
first-layer head that writes each token's predecessor into its row, and a
second-layer head whose query finds that predecessor. What does a second
layer buy a model trained for seconds, per kind of position? And one without
positions?

Claim checked (lecture 000): without positions, self-attention sees a
sequence as a bag of tokens, so it cannot tell which token came after which.
Here five kinds of position, one layer against two, each trained from seeds
0, 1 and 2 on the repeated half, and the attention of each measured: where
the heads look, and whether the model copies by offset or by content.

Lecture 000, with chapter 10 (minipe/training/model.py, minipe/training/lab.py);
lesson 21 showed that no ALiBi head can single out a token two back.
Run: python walkthroughs/28_induction_heads.py [--step]
"""

import math
import random
from typing import Callable

from lesson import Lesson

from minipe import Matrix, TinyModel

KINDS = ("learned", "sinusoidal", "rope", "alibi", "none")
SEEDS = (0, 1, 2)
IGNORE = -100  # a target that counts for nothing
VOCAB, D, T = 8, 8, 8  # 8 token kinds, d_model 8, sequences of 8 tokens
BETA1, BETA2, EPS = 0.9, 0.999, 1e-8  # Adam's usual constants, as the lab's


def repeated(rng: random.Random, half: int) -> tuple[list[int], list[int]]:
    """half random tokens, then the same again, then random tokens up to T; the target at
    i is the next token, asked only where the repeat makes it known (i = half .. 2 half - 2)."""
    first = [rng.randrange(VOCAB) for _ in range(half)]
    ids = first + first + [rng.randrange(VOCAB) for _ in range(T - 2 * half)]
    targets = [IGNORE] * T
    for i in range(half, 2 * half - 1):
        targets[i] = ids[i + 1]  # = ids[i + 1 - half], the token after the earlier copy
    return ids, targets


def trained(model: TinyModel, seed: int, on_step: Callable[[int, float], None],
            steps: int = 100, batch_size: int = 4, lr: float = 0.05) -> TinyModel:
    """Adam on fresh batches of the repeated task, as the lab's train() does for its tasks
    (minipe/training/lab.py): m and v the running means of g and g**2, corrected by t."""
    rng = random.Random(seed)  # the batches' own generator
    W = {name: [list(row) for row in table.rows] for name, table in model.parameters().items()}
    m = {name: [[0.0] * len(row) for row in table] for name, table in W.items()}
    v = {name: [[0.0] * len(row) for row in table] for name, table in W.items()}
    for t in range(1, steps + 1):
        inputs, targets = zip(*(repeated(rng, T // 2) for _ in range(batch_size)))
        loss, gradients = model.loss_and_gradients(list(inputs), list(targets))
        on_step(t, loss)
        for name, g in gradients.items():
            for w, m_row, v_row, g_row in zip(W[name], m[name], v[name], g.rows):
                for j, g_j in enumerate(g_row):
                    m_row[j] = BETA1 * m_row[j] + (1 - BETA1) * g_j
                    v_row[j] = BETA2 * v_row[j] + (1 - BETA2) * g_j * g_j
                    m_hat, v_hat = m_row[j] / (1 - BETA1 ** t), v_row[j] / (1 - BETA2 ** t)
                    w[j] -= lr * m_hat / (math.sqrt(v_hat) + EPS)
        model = model.with_parameters({name: Matrix(rows) for name, rows in W.items()})
    return model


def measured(model: TinyModel, half: int, samples: int = 64) -> tuple[float, float, float]:
    """(accuracy on the repeated half, the first layer's mean weight on i - 1, the last
    layer's mean weight on i + 1 - half), over `samples` new sequences (seed 99)."""
    rng = random.Random(99)
    right = previous = after_copy = 0.0
    count = 0
    for _ in range(samples):
        ids, targets = repeated(rng, half)
        logits = model.logits(ids).rows
        weights = model.attention_weights(ids)  # per layer, per head: (T, T)
        for i, target in enumerate(targets):
            if target == IGNORE:
                continue
            right += logits[i].index(max(logits[i])) == target
            previous += weights[0][0].rows[i][i - 1]
            after_copy += weights[-1][0].rows[i][i + 1 - half]
            count += 1
    return right / count, previous / count, after_copy / count


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
    lesson = Lesson(__doc__)
    lesson.stage("The task: the second half repeats the first")

    ids, targets = repeated(random.Random(5), T // 2)
    print(f"   ids     {ids}")
    print(f"   targets {['-' if t == IGNORE else t for t in targets]}")
    lesson.check("the targets at positions 4, 5, 6 are the tokens at 1, 2, 3",
                 targets[4:7] == ids[1:4])
    print("At i = 4, 5, 6 the next token is known: it is the token at i - 3, the")
    print("one after the earlier copy of token i. Chance is 1/8 = 0.125.")

# %% One layer against two
if __name__ == "__main__":
    lesson.stage("One layer against two, five kinds, seeds 0, 1, 2")

    print(f"d_model {D}, one head a layer, two layers on a residual stream; 100 steps of")
    print("Adam on 4 new sequences a step. Accuracy on the repeated half:")
    models: dict[tuple[str, int, int], TinyModel] = {}
    for kind in KINDS:
        for layers in (1, 2):
            for seed in SEEDS:
                model = TinyModel(VOCAB, D, T, positions=kind, seed=seed, num_layers=layers)
                models[kind, layers, seed] = trained(model, seed, lesson.progress(
                    f"{kind}, {layers} layer(s), seed {seed}", 100))
    at_half = {key: measured(model, T // 2) for key, model in models.items()}
    print("   " + " " * 11 + "one layer       two layers")
    for kind in KINDS:
        print(f"   {kind:11}" + "  ".join(cells([at_half[kind, layers, s][0] for s in SEEDS])
                                         for layers in (1, 2)))
    best_other = [max(at_half[kind, 1, s][0] for kind in ("sinusoidal", "alibi", "none"))
                  for s in SEEDS]
    lesson.check("one layer with learned positions reads the repeated half at 0.95 or more, "
                 "and learned and RoPE each beat sinusoids, ALiBi and none on every seed",
                 all(at_half["learned", 1, s][0] >= 0.95 for s in SEEDS)
                 and all(at_half[kind, 1, s][0] > best_other[at]
                         for kind in ("learned", "rope") for at, s in enumerate(SEEDS)))
    lesson.check("one-layer RoPE reads 0.95 or more on two seeds of three, and one-layer "
                 "sinusoids at most 0.6 on each",
                 sum(at_half["rope", 1, s][0] >= 0.95 for s in SEEDS) == 2
                 and all(at_half["sinusoidal", 1, s][0] <= 0.6 for s in SEEDS))
    print("One layer with learned positions copies the repeat on every seed, RoPE on")
    print("two of three; sinusoids half as well. ALiBi and none stay near what a bag")
    lesson.check("ALiBi and none read at most 0.35 at either depth, on every seed",
                 all(at_half[kind, layers, s][0] <= 0.35 for kind in ("alibi", "none")
                     for layers in (1, 2) for s in SEEDS))
    print("of tokens allows (the answer is one of the tokens already seen), at one")
    lesson.check("for every kind, on some seed the second layer did not help",
                 all(any(at_half[kind, 2, s][0] <= at_half[kind, 1, s][0] for s in SEEDS)
                     for kind in KINDS))
    print("layer or two. And the second layer bought no kind a gain on every seed.")

# %% Where the heads look
if __name__ == "__main__":
    lesson.stage("Where the heads look: the first layer on i - 1, the last on i - 3")

    print("Mean attention weight at the asked positions (seeds 0, 1, 2):")
    print("   " + " " * 11 + "one layer: i-3  two: layer 1 on i-1  layer 2 on i-3")
    for kind in KINDS:
        print(f"   {kind:11}{cells([at_half[kind, 1, s][2] for s in SEEDS]):16}"
              f"{cells([at_half[kind, 2, s][1] for s in SEEDS]):21}"
              f"{cells([at_half[kind, 2, s][2] for s in SEEDS])}")
    lesson.check("one layer with learned positions puts 0.95 or more of its weight on i - 3, "
                 "on every seed", all(at_half["learned", 1, s][2] >= 0.95 for s in SEEDS))
    print("The one-layer learned head looks 3 back, the offset where this task's copy")
    print("always sits: a copy-back head (lesson 15's task, k = 3), not an induction")
    lesson.check("no two-layer model's first layer puts more than 0.35 on i - 1",
                 all(at_half[kind, 2, s][1] <= 0.35 for kind in KINDS for s in SEEDS))
    lesson.check("ALiBi puts at most 0.35 on i - 3, at one layer or in the second",
                 all(at_half["alibi", layers, s][2] <= 0.35 for layers in (1, 2)
                     for s in SEEDS))
    print("head. No two-layer model grew a previous-token head in its first layer (at")
    print("most 0.35 on i - 1; an even spread over i + 1 keys gives 1/5 to 1/7). ALiBi's")
    print("heads cannot single out i - 3 (lesson 21: its bias falls with distance), and")
    print("without positions a head cannot find i - 1 at all: both spread their weight.")

# %% Move the repeat
if __name__ == "__main__":
    lesson.stage("Move the repeat: 3 tokens repeated, the copy 3 back, not 4")

    moved = {key: measured(model, 3) for key, model in models.items()}
    print("Accuracy where the next token is the token at i - 2 (seeds 0, 1, 2):")
    print("   " + " " * 11 + "one layer       two layers")
    for kind in KINDS:
        print(f"   {kind:11}" + "  ".join(cells([moved[kind, layers, s][0] for s in SEEDS])
                                         for layers in (1, 2)))
    drops = [at_half[kind, 1, s][0] - moved[kind, 1, s][0]
             for kind in ("learned", "rope") for s in SEEDS]
    lesson.check("moved, one layer of learned or RoPE positions loses 0.4 or more on every "
                 "seed, and two layers of them read under 0.3",
                 min(drops) >= 0.4 and all(moved[kind, 2, s][0] < 0.3
                                           for kind in ("learned", "rope") for s in SEEDS))
    print("Learned and RoPE fail once the copy is 2 back: they copy by offset,")
    lesson.check("ALiBi and none read no worse moved, at either depth, on every seed",
                 all(moved[kind, layers, s][0] >= at_half[kind, layers, s][0]
                     for kind in ("alibi", "none") for layers in (1, 2) for s in SEEDS))
    print("not by content. ALiBi and none lose nothing, having never looked 3 back. An")
    print("induction head would not care where the repeat starts.")

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
    hand = {(name, half): measured(model, half) for name, model in
            (("learned", circuit), ("none", blind)) for half in (4, 3)}
    print("   " + " " * 9 + "repeat of 4  repeat of 3  on i - 1  after the copy")
    for name in ("learned", "none"):
        print(f"   {name:9}{hand[name, 4][0]:8.2f}{hand[name, 3][0]:12.2f}"
              f"{hand[name, 4][1]:11.2f}{hand[name, 4][2]:12.2f}")
    lesson.check("the hand-set circuit puts 0.99 or more on i - 1 and reads 0.85 or more "
                 "wherever the repeat sits", hand["learned", 4][1] >= 0.99
                 and hand["learned", 4][0] >= 0.85 and hand["learned", 3][0] >= 0.85)
    rng = random.Random(99)  # measured's sequences: where the first half has no twin
    once = []
    for _ in range(64):
        ids, targets = repeated(rng, 4)
        rows = circuit.logits(ids).rows
        once += [rows[i].index(max(rows[i])) == target for i, target in enumerate(targets)
                 if target != IGNORE and ids[:4].count(ids[i]) == 1]
    lesson.check("the circuit is right on every target whose token came once in the first "
                 "half", all(once))
    print(f"It copies wherever the repeat sits, and is right on all {len(once)} targets")
    print("whose token came once in the first half; a token that came twice has two")
    print("earlier copies, and the head splits between them. Without positions the")
    lesson.check("the same weights without positions read at most 0.15",
                 hand["none", 4][0] <= 0.15 and hand["none", 3][0] <= 0.15)
    print("same weights read at chance: layer 1 cannot find i - 1. Olsson et al.")
    print("(2022) found such pairs of heads in trained transformers, appearing all at")
    print("once after enough training; 100 steps here found the shortcut instead.")
