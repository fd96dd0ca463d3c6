"""Lesson 27: where positions live

Question: a learned or sinusoidal position is added once, below the first
layer; RoPE and ALiBi act inside every layer's attention scores and add
nothing to the rows. Layer by layer, how much of the position can a straight
line read from a token's row? Does it "dilute" with depth? Does LayerNorm
remove it? What does training change?

Claim checked (lecture 000): the positional encoding is added to the input
embeddings once, before the first encoder layer, and the stack of layers
(attention, add & norm, feed-forward, add & norm) carries it up. Measured here
with a linear probe (chapter 10's probe.py) on models of two pre-LN blocks,
untrained and trained, for five kinds of position, each on seeds 0, 1 and 2.

Lecture 000, with chapter 10 (minipe/training/probe.py, minipe/training/block.py).
Run: python walkthroughs/27_where_positions_live.py [--step]
"""

import math
import random
import sys
from typing import Callable

from lesson import Lesson

from minipe import Matrix, TinyModel, accuracy, fit_probe, layer_norm, train


KINDS = ("learned", "sinusoidal", "rope", "alibi", "none")
SEEDS = (0, 1, 2)
PLACES = ("input", "LayerNorm", "layer 1", "layer 2")  # where the probe reads


def places(model: TinyModel, ids: list[int]) -> list[Matrix]:
    """The rows of one sequence at each place: x_0 = E[ids] + P[pos], norm_1(x_0) (what
    layer 1's heads read: the model's own LayerNorm), and x after each layer."""
    x = model.residuals(ids)  # [x_0, after layer 1, after layer 2]
    W = model.parameters()
    normed = layer_norm(x[0], W["layer0.norm_1.weight"], W["layer0.norm_1.bias"])
    return [x[0], normed] + x[1:]


def probe_each_place(model: TinyModel, T: int, fitted: int, held_out: int) -> list[float]:
    """The probe's accuracy at each place: fitted on `fitted` random sequences of T tokens
    (seed 100), scored on `held_out` others (seed 200). Chance is 1/T."""
    rows: dict[int, list[list[Matrix]]] = {}
    for seed, count in ((100, fitted), (200, held_out)):
        rng = random.Random(seed)  # the same sequences for every model
        rows[seed] = [[] for _ in PLACES]
        for _ in range(count):
            ids = [rng.randrange(model.vocab_size) for _ in range(T)]
            for at, x in enumerate(places(model, ids)):
                rows[seed][at].append(x)
    return [fit_probe(fit).accuracy(held) for fit, held in zip(rows[100], rows[200])]


def gpt2_scale(model: TinyModel) -> TinyModel:
    """The same model with every table at GPT-2's init scale, std 0.02: the embeddings
    (drawn N(0, 1)) times 0.02, each W (drawn U(-a, a), std a / sqrt(3), a = 1/sqrt(fan_in))
    times 0.02 sqrt(3 fan_in); the norms' weights and biases stay 1 and 0."""
    scaled = {}
    for name, W in model.parameters().items():
        factor = 0.02 * math.sqrt(3 * W.shape[0])  # a W's
        if name in ("token_embedding", "position_embedding"):
            factor = 0.02
        if name.endswith((".weight", ".bias")):
            factor = 1.0
        scaled[name] = Matrix([[factor * w for w in row] for row in W.rows])
    return model.with_parameters(scaled)


def counter(label: str, total: int) -> Callable[[int], None]:
    """Show `label: k/total` on stderr, redrawn in place, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return lambda k: None

    def show(k: int) -> None:
        line = f"   {label}: {k}/{total}"
        sys.stderr.write("\r" + line + ("\r" + " " * len(line) + "\r" if k == total else ""))
        sys.stderr.flush()

    return show


def cells(numbers: list[float]) -> str:
    return " ".join(f"{number:.2f}" for number in numbers)


def table(results: dict[tuple[str, int], list[float]], kinds: tuple[str, ...]) -> None:
    """One line per kind; per place, the three seeds' accuracies."""
    print(("   " + " " * 11 + "".join(f"{place:16}" for place in PLACES)).rstrip())
    for kind in kinds:
        line = "".join(f"{cells([results[kind, s][at] for s in SEEDS]):16}"
                       for at in range(len(PLACES)))
        print(f"   {kind:11}{line}".rstrip())


def everywhere(results: dict[tuple[str, int], list[float]], kinds: tuple[str, ...],
               at: tuple[int, ...], holds: Callable[[float], bool]) -> bool:
    return all(holds(results[kind, s][a]) for kind in kinds for s in SEEDS for a in at)


# %% The probe
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("The probe: a straight line from a row to its position")

    rng = random.Random(0)
    T = 16
    one_hot = [Matrix([[float(j == pos) for j in range(T)] + [rng.gauss(0, 1) for _ in range(16)]
                       for pos in range(T)]) for _ in range(16)]
    noise = [Matrix([[rng.gauss(0, 1) for _ in range(32)] for _ in range(T)]) for _ in range(16)]
    read_one_hot = fit_probe(one_hot[:10]).accuracy(one_hot[10:])
    read_noise = fit_probe(noise[:10]).accuracy(noise[10:])
    print("Rows of 32 numbers at positions 0..15; the probe is fitted on 10 sequences")
    print("(160 rows) by least squares and scored on 6 others (96 rows):")
    print(f"   onehot(pos) and 16 numbers of noise: {read_one_hot:.2f} of the rows")
    print(f"   32 numbers of noise only:            {read_noise:.2f}  (chance: 1/16 = 0.0625)")
    lesson.check("the probe reads a one-hot position on every new row, and pure noise "
                 "within 0.06 of chance", read_one_hot == 1.0 and abs(read_noise - 1 / 16) < 0.06)
    print("A row that holds its position, even among noise, is read every time; a")
    print("row that holds nothing is read by chance. Everything between is a measure.")

# %% Untrained
if __name__ == "__main__":
    lesson.stage("As drawn: two pre-LN blocks with MLPs, d_model 32, T 16, 64 kinds")

    V, D, T = 64, 32, 16
    drawn = {}
    show = counter("probing", len(KINDS) * len(SEEDS))
    for kind in KINDS:
        for seed in SEEDS:
            model = TinyModel(V, D, T, positions=kind, seed=seed, num_layers=2, mlp=True,
                              norm="layer")
            drawn[kind, seed] = probe_each_place(model, T, fitted=10, held_out=6)
            show(len(drawn))
    print("The probe's accuracy at each place, seeds 0, 1, 2 (chance 1/16 = 0.0625):")
    table(drawn, KINDS)
    lesson.check("the learned position is read at 0.9 or more at every place, on every seed",
                 everywhere(drawn, ("learned",), (0, 1, 2, 3), lambda a: a >= 0.9))
    print("Learned positions, added once at the bottom, are read at every place: no")
    print("dilution at minipe's scale. Sinusoids less well: neighbouring rows of the")
    lesson.check("sinusoids are read above 0.16 at every place, below the learned table",
                 everywhere(drawn, ("sinusoidal",), (0, 1, 2, 3), lambda a: a > 0.16)
                 and all(drawn["sinusoidal", s][a] < drawn["learned", s][a]
                         for s in SEEDS for a in range(4)))
    print("table are close, and 64 token kinds blur them. RoPE, ALiBi and none add")
    same = all(drawn["rope", s][0] == drawn["alibi", s][0] == drawn["none", s][0]
               for s in SEEDS)
    lesson.check("RoPE, ALiBi and none have the same input rows E[ids], so the same score "
                 "there, and score at most 0.16 at every place", same
                 and everywhere(drawn, ("rope", "alibi", "none"), (0, 1, 2, 3),
                                lambda a: a <= 0.16))
    print("nothing to the rows: their input is E[ids] alone (the same rows, the same")
    print("score), and no place reads more than 0.16. Their positions live in the")
    print("scores, in every layer, and leave the rows none the wiser at this init.")
    change = max(abs(drawn[k, s][1] - drawn[k, s][0]) for k in KINDS for s in SEEDS)
    lesson.check("LayerNorm changes no kind's score by more than 0.1", change <= 0.1)
    print(f"LayerNorm of the input moves no score by more than {change:.2f} (stage 5: why).")

# %% GPT-2's scale
if __name__ == "__main__":
    lesson.stage("The same blocks at GPT-2's scale: every table drawn with std 0.02")

    scaled = {}
    sizes = {}  # (scale, seed) -> (mean |x_0|, mean |x_2 - x_0|) over one sequence's rows
    for seed in SEEDS:
        model = TinyModel(V, D, T, positions="learned", seed=seed, num_layers=2, mlp=True,
                          norm="layer")
        for scale, which in (("minipe", model), ("GPT-2", gpt2_scale(model))):
            x = which.residuals(random.Random(seed).choices(range(V), k=T))
            sizes[scale, seed] = (
                sum(math.dist(row, [0.0] * D) for row in x[0].rows) / T,
                sum(math.dist(a, b) for a, b in zip(x[2].rows, x[0].rows)) / T)
        for kind in ("learned", "sinusoidal"):
            model = TinyModel(V, D, T, positions=kind, seed=seed, num_layers=2, mlp=True,
                              norm="layer")
            scaled[kind, seed] = probe_each_place(gpt2_scale(model), T, fitted=10, held_out=6)
    print("E and P times 0.02 (drawn N(0, 1)); each W, drawn with std 1/sqrt(3 fan_in),")
    print("times 0.02 sqrt(3 fan_in): 0.02 sqrt(96) = 0.196 for fan_in 32. The sinusoids")
    print("are not a table of weights: they keep their size, 1.")
    table(scaled, ("learned", "sinusoidal"))
    lesson.check("at GPT-2's scale the learned position is read at 0.95 or more at the input "
                 "and at 0.75 or less after two blocks, on every seed",
                 everywhere(scaled, ("learned",), (0,), lambda a: a >= 0.95)
                 and everywhere(scaled, ("learned",), (3,), lambda a: a <= 0.75))
    print("Now the learned position dilutes: read at the input, much less after two")
    print("blocks. Why: the size of a row at the input, and of what two blocks add to")
    print("it (seed 0; the claim holds on each seed):")
    for scale in ("minipe", "GPT-2"):
        x_0, added = sizes[scale, 0]
        print(f"   {scale:7} |x_0| = {x_0:6.3f}   |x_2 - x_0| = {added:6.3f}")
    lesson.check("at minipe's scale the blocks add less than the input holds, at GPT-2's "
                 "more", all(sizes["minipe", s][1] < sizes["minipe", s][0]
                             and sizes["GPT-2", s][1] > sizes["GPT-2", s][0] for s in SEEDS))
    print("A block reads a normed row (size about sqrt(32)) and writes W times it; at")
    print("GPT-2's scale that swamps embeddings of std 0.02. Dilution is a ratio of")
    print("sizes, not a law of depth. Sinusoids, of size 1, now swamp the tokens.")
    print("A probe of GPT-2-initialised blocks (d 32, T 16, in the issue that asked")
    print("for this lesson) read 0.88, 0.87 after LayerNorm, 0.75 after two blocks:")
    print("its vocabulary and init differ from ours, so our numbers differ too.")

# %% Trained
if __name__ == "__main__":
    lesson.stage("Trained: previous-token and copy-back, two attention-only pre-LN layers")

    V, D, T = 8, 8, 8  # small enough to train 30 models in seconds
    steps, batch_size = 30, 4  # every claim below holds at 30 and at 40, on every seed
    print(f"d_model {D}, T {T}, {V} kinds; {steps} steps of {batch_size}, seeds 0, 1, 2 "
          f"(chance 1/8 = 0.125).")
    trained: dict[str, dict[tuple[str, int], list[float]]] = {}
    right: dict[tuple[str, str, int], float] = {}
    for task in ("previous-token", "copy-back"):
        trained[task] = {}
        for kind in KINDS:
            for seed in SEEDS:
                model = TinyModel(V, D, T, positions=kind, seed=seed, num_layers=2,
                                  norm="layer")
                if task == "previous-token" and kind == "learned":
                    trained[task]["as drawn", seed] = probe_each_place(model, T, 16, 16)
                model = train(model, task, steps=steps, batch_size=batch_size, seed=seed,
                              on_step=lesson.progress(f"{task}, {kind}, seed {seed}",
                                                      steps)).model
                right[task, kind, seed] = accuracy(model, task)
                trained[task][kind, seed] = probe_each_place(model, T, 16, 16)
        print(f"{task}:")
        table(trained[task], (("as drawn",) if task == "previous-token" else ()) + KINDS)
    print("How well each learned its task (seeds 0, 1, 2; chance 0.125):")
    print("   " + " " * 11 + "previous-token  copy-back")
    for kind in KINDS:
        print(f"   {kind:11}" + "  ".join(cells([right[task, kind, s] for s in SEEDS])
                                         for task in trained))
    fell = [trained[task]["learned", s][0] - trained[task]["learned", s][3]
            for task in trained for s in SEEDS]
    kept = [trained["previous-token"]["as drawn", s][0]
            - trained["previous-token"]["as drawn", s][3] for s in SEEDS]
    lesson.check("trained, the learned position reads at least 0.1 less after layer 2 than "
                 "at the input, on both tasks and every seed; as drawn, within 0.05",
                 min(fell) >= 0.1 and max(abs(k) for k in kept) <= 0.05)
    print(f"After {steps} steps the learned position reads {min(fell):.2f} to "
          f"{max(fell):.2f} less after layer 2")
    print("than at the input, where as drawn it read the same. Training used the")
    print("stream for what the task needs (the token one or two back), and a straight")
    print("line reads the position less well there. Not gone: still far above chance.")
    lesson.check("trained, RoPE, ALiBi and none read at most 0.25 (twice chance) at every "
                 "place on both tasks and every seed",
                 all(everywhere(trained[task], ("rope", "alibi", "none"), (0, 1, 2, 3),
                                lambda a: a <= 0.25) for task in trained))
    print("RoPE, ALiBi and none put no position into the rows a line can read, after")
    print("training as before: at most twice chance anywhere. Haviv et al. (2022) found")
    print("that language models trained without positions do carry one in their rows,")
    print("learned through the causal mask (token i attends to i + 1 tokens, a count it")
    print("can come to read). Thirty steps of these small tasks made none here.")

# %% What LayerNorm can and cannot remove
if __name__ == "__main__":
    lesson.stage("What LayerNorm can remove, and what it cannot")

    V, D, T = 64, 32, 16
    print("LayerNorm rescales each row on its own: (x - mean(x)) / sqrt(var(x) + eps)")
    print("times w, plus b. It removes a row's mean and its size, and nothing else: a")
    print("position written as a direction (P[pos] added to E[id]) survives it, as")
    print("stage 2 measured.")
    print("A position written as a size does not. Without positions, causal attention")
    print("averages i + 1 rows at position i, and an average of more rows is smaller.")
    print("|h_i|, the heads' output of layer 1 (no MLP), mean of 6 sequences, seed 0:")
    shrinks, flat = [], []
    for seed in SEEDS:
        model = TinyModel(V, D, T, positions="none", seed=seed, num_layers=2, norm="layer")
        rng = random.Random(seed)
        size = [0.0] * T
        normed_size = [0.0] * T
        for _ in range(6):
            x = model.residuals(rng.choices(range(V), k=T))
            h = Matrix([[a - b for a, b in zip(after, before)]
                        for after, before in zip(x[1].rows, x[0].rows)])  # x_1 - x_0
            normed = layer_norm(h, [1.0] * D, [0.0] * D)
            for i in range(T):
                size[i] += math.dist(h.rows[i], [0.0] * D) / 6
                normed_size[i] += math.dist(normed.rows[i], [0.0] * D) / 6
        if seed == 0:
            print("   i       " + "".join(f"{i:8}" for i in (0, 1, 3, 7, 15)))
            print("   |h_i|   " + "".join(f"{size[i]:8.3f}" for i in (0, 1, 3, 7, 15)))
            print("   LN(h_i) " + "".join(f"{normed_size[i]:8.3f}" for i in (0, 1, 3, 7, 15)))
        shrinks.append(size[15] < size[0] / 2)
        flat.append(max(normed_size) - min(normed_size) < 0.01)
    lesson.check("on every seed |h_15| is under half |h_0|, and after LayerNorm every row's "
                 "size is the same to 0.01", all(shrinks) and all(flat))
    print(f"After LayerNorm every row has size sqrt(32) = {math.sqrt(32):.3f} (eps takes a")
    print("hair off a small row): the count of tokens behind each position, written in")
    print("the size, is gone. A straight line cannot read a size anyway (stage 2: none")
    print("at chance); a block's MLP could, and LayerNorm hides it from the next layer.")
    print("Now try exercise 25: python -m minipe exercises check 25")
