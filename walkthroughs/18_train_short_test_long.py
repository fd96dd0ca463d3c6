"""Lesson 18: train short, test long

Question: train a RoPE head on sequences of T = 8 tokens, then hand it 16 and
32. Does it still do its task there? And do the stretched frequencies of
lesson 14 (position interpolation, NTK scaling, YaRN) help a head that was
never trained with them?

Claim checked (lecture 004): rotations turn a shift of positions into a fixed
difference of angles, which makes attention patterns predictable and
learnable. Does what a head learns about an offset hold at positions past
its training length? This lesson measures it, task by task, as is and with
each stretching method.

Lectures 003 and 004, with chapter 7 (minipe/context.py) and the lab of
chapter 10 (minipe/training/model.py, minipe/training/lab.py).
Run: python walkthroughs/18_train_short_test_long.py [--step] [--svg]
"""

import math

from lesson import Lesson

from minipe import (
    Matrix,
    TinyModel,
    apply_rotary,
    frequency_table,
    rope_frequencies,
    task_batch,
    train,
)
from minipe.plot import LineChart

TASKS = ("previous-token", "copy-back")  # the target at i is the token at i - 1, at i - 2
METHODS = ("default", "linear", "ntk", "yarn")  # as is; PI; NTK-aware; YaRN
NAMES = {"default": "as is", "linear": "PI", "ntk": "NTK", "yarn": "YaRN"}
VOCAB, D, T = 8, 8, 8  # 8 token kinds, d_model = 8 (4 pairs), trained on 8 tokens


def stretched(model: TinyModel, method: str, n: int, ramp: str = "rounded") -> TinyModel:
    """The model reading n tokens: its RoPE stretched by factor n / T (as is: unchanged).
    YaRN reads the training length L = T, and its ramp: Hugging Face's or the paper's."""
    if method == "default" or n == T:
        return model
    if method == "yarn":
        thetas, scale = rope_frequencies(D, method=method, factor=n / T,
                                         original_context_length=T, ramp=ramp)
    else:
        thetas, scale = rope_frequencies(D, method=method, factor=n / T)
    return model.with_frequencies(thetas, attention_scale=scale)


def shares_right(model: TinyModel, task: str, n: int) -> tuple[float, float]:
    """On 32 new sequences of n tokens: the share of all targets the top score gets
    right, and the share among the targets at positions T and later (past training)."""
    inputs, targets = task_batch(task, VOCAB, n, 32, seed=1)
    right = total = right_past = total_past = 0
    for ids, wanted in zip(inputs, targets):
        for pos, (scores, target) in enumerate(zip(model.logits(ids).rows, wanted)):
            if target == -100:
                continue
            hit = scores.index(max(scores)) == target  # the top score's ID
            right, total = right + hit, total + 1
            if pos >= T:
                right_past, total_past = right_past + hit, total_past + 1
    return right / total, (right_past / total_past if total_past else math.nan)


def score_by_distance(model: TinyModel, distances: range) -> list[float]:
    """The part of the score that is the distance r alone: the mean query (over all 8
    tokens) at position r against the mean key at position 0, turned by the model's
    theta_i and scaled as its attention is: (q . k) * scale**2 / sqrt(d)."""
    weights = model.parameters()
    E = weights["token_embedding"]  # (8, d): every token's row
    q_rows, k_rows = (E @ weights["W_q"]).tolist(), (E @ weights["W_k"]).tolist()  # (8, d)
    q_mean = Matrix([[sum(column) / VOCAB for column in zip(*q_rows)]])  # (1, d)
    k_mean = Matrix([[sum(column) / VOCAB for column in zip(*k_rows)]])
    assert model.frequencies is not None  # a RoPE model
    thetas, scale = model.frequencies, model.attention_scale
    key = apply_rotary(k_mean, frequencies=thetas).tolist()[0]  # at position 0
    scores = []
    for r in distances:
        query = apply_rotary(q_mean, start=r, frequencies=thetas).tolist()[0]  # at r
        scores.append(sum(a * b for a, b in zip(query, key)) * scale ** 2 / math.sqrt(D))
    return scores


# %% Two heads, trained on 8 tokens
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Train two RoPE heads at T = 8: d = 8, 8 token kinds, base 10000")

    steps, batch_size = 150, 4
    heads = {}
    for task in TASKS:
        result = train(TinyModel(VOCAB, D, T, positions="rope", seed=0), task,
                       steps=steps, batch_size=batch_size,
                       on_step=lesson.progress(task, steps))
        heads[task] = result.model
        print(f"   {task:15} {steps} steps x {batch_size} sequences: "
              f"loss {result.losses[0]:.3f} -> {result.losses[-1]:.4f}")
    print("previous-token needs the key one back; copy-back (k = 2), the key two back.")
    print("Every training sequence has 8 tokens, so the head has seen offsets 0..7 only.")

# %% What each method does to these four pairs
if __name__ == "__main__":
    lesson.stage("The four pairs, reading 4T = 32 tokens (factor 4, L = T = 8)")

    print("   pair  default theta  turns in 8  ratio to default: PI, NTK, YaRN, YaRN paper")
    tables = {method: frequency_table(D, original_context_length=T, method=method,
                                      factor=1.0 if method == "default" else 4.0)
              for method in METHODS}
    paper = frequency_table(D, original_context_length=T, method="yarn", factor=4.0,
                            ramp="paper")
    for i, row in enumerate(tables["default"]):
        ratios = "".join(f"{tables[method][i].ratio:8.4f}" for method in METHODS[1:])
        print(f"   {i:4} {row.theta:12.4f} {row.turns:11.3f}  {ratios}{paper[i].ratio:8.4f}")
    yarn_scale = rope_frequencies(D, method="yarn", factor=4.0, original_context_length=T)[1]
    turns_0 = tables["default"][0].turns  # 8 / (2 pi): pair 0's turns in 8 positions
    gamma_0 = (turns_0 - 1) / (32 - 1)  # the paper's gamma(r), beta_slow 1, beta_fast 32
    print("PI divides every pair by 4. NTK (base' = 10000 * 4**(8/6)) keeps pair 0 and")
    print("divides pair 3 by 4. YaRN reads the turns r inside L = 8: pairs 1..3 turn")
    print(f"less than once (beta_slow = 1), divided by 4. Pair 0 turns r = {turns_0:.3f} times,")
    print("between beta_slow = 1 and beta_fast = 32: on the paper's ramp, blended with")
    print(f"gamma = (r - 1) / 31 = {gamma_0:.4f}, so nearly divided (ratio "
          f"{paper[0].ratio:.4f}). Hugging")
    print("Face's ramp (minipe's default) is linear in the pair index and starts at")
    kept_0 = tables["yarn"][0].ratio
    print(f"pair 0 at the earliest, so it keeps pair 0 whole (ratio {kept_0:.4f}). Both multiply")
    print(f"q and k by {yarn_scale:.4f}.")

# %% Accuracy at T, 2T and 4T
if __name__ == "__main__":
    lesson.stage("Accuracy at T = 8, 2T = 16 and 4T = 32, as is and stretched")

    print("The share of targets whose top score is right, on 32 new sequences; in")
    print("brackets, only the targets at positions 8 and later, past training.")
    print("(As is, a causal query before position 8 sees what training showed it.)")
    accuracies: dict[tuple[str, str, int], float] = {}  # past T only
    wholes: dict[tuple[str, str], float] = {}  # all targets at 4T
    for task in TASKS:
        at_T = shares_right(heads[task], task, T)[0]
        print(f"   {task}: at T = 8 {at_T:.1%}; reading more, stretched by n / 8:")
        print("      method      at 2T = 16          at 4T = 32")
        for method in METHODS:
            cells = ""
            for n in (2 * T, 4 * T):
                share, past = shares_right(stretched(heads[task], method, n), task, n)
                accuracies[task, method, n] = past
                wholes[task, method] = share
                cells += f"   {share:6.1%} ({past:6.1%})"
            print(f"      {NAMES[method]:6}  {cells}")
    print(f"A guess among 8 token kinds is right 1/8 = {1 / 8:.1%} of the time.")
    share, past = shares_right(stretched(heads["previous-token"], "yarn", 4 * T, "paper"),
                               "previous-token", 4 * T)
    accuracies["previous-token", "yarn paper", 4 * T] = past
    print("previous-token at 4T = 32, YaRN with the paper's ramp (pair 0 nearly divided):")
    print(f"   paper's ramp {share:6.1%} ({past:6.1%});   Hugging Face's "
          f"{wholes['previous-token', 'yarn']:6.1%} "
          f"({accuracies['previous-token', 'yarn', 4 * T]:6.1%})")
    print("The paper's ramp differs from Hugging Face's only in pair 0 (stage 2's ratios):")
    print(f"slowing that pair too brought YaRN down to PI's level, {share:.1%} against "
          f"{wholes['previous-token', 'linear']:.1%}.")
    lesson.check("the paper's ramp brings YaRN to PI's level (within 5 points, on all "
                 "targets and past T), 50 points or more below Hugging Face's ramp past T",
                 abs(share - wholes["previous-token", "linear"]) <= 0.05
                 and abs(past - accuracies["previous-token", "linear", 4 * T]) <= 0.05
                 and accuracies["previous-token", "yarn", 4 * T] - past >= 0.5)

# %% Why: the score of each distance
if __name__ == "__main__":
    lesson.stage("Why: the part of the score that is the distance alone")

    print("s(r): the mean query (over the 8 tokens) at position r against the mean")
    print("key at position 0, (q . k) / sqrt(d): the score of distance r, averaged")
    print("over every pair of tokens (q and k are linear in the token's row).")
    distances = range(4 * T)  # r = 0 .. 31
    by_method = {}
    leads = {}  # task -> s(back) - max s(r != back), as is
    for task in TASKS:
        model = heads[task]
        by_method[task] = {method: score_by_distance(stretched(model, method, 4 * T),
                                                     distances) for method in METHODS}
        plain = by_method[task]["default"]
        top = sorted(distances, key=lambda r: -plain[r])[:5]
        back = 1 if task == "previous-token" else 2  # the distance the task needs
        rival = max(plain[r] for r in distances if r != back)
        print(f"   {task}, as is: the 5 distances r with the highest score s(r)")
        print("      " + "  ".join(f"{r} ({plain[r]:.1f})" for r in top))
        print(f"      s({back}) - max s(r != {back}) = {plain[back] - rival:.1f}")
        lesson.check(f"{task}'s highest score, as is, is at the distance it needs, r = {back}",
                     top[0] == back)
        leads[task] = plain[back] - rival
        if task == "copy-back":
            near_repeats = set(top[1:]) & {round(2 + k * 2 * math.pi) for k in (1, 2, 3, 4)}
    print("Pair 0 turns by 1 rad a position: it comes back to the same angle every")
    print(f"2 pi = {2 * math.pi:.2f} positions. copy-back's peak at r = 2 comes back at")
    repeats = [2 + k * 2 * math.pi for k in (1, 2, 3, 4)]  # 8.28, 14.57, 20.85, 27.13
    print("   r = 2 + 2 pi k = " + ", ".join(f"{r:.2f}" for r in repeats))
    lesson.check("copy-back's next highest scores, as is, stand where pair 0 is back at the "
                 "angle of r = 2 (3 of its 4 or more at a rounded 2 + 2 pi k)",
                 len(near_repeats) >= 3)
    print("All of them past 7: in training the repeats never stood next to the")
    print("right key, so nothing taught the head to score them lower. Where the")
    print("peak stands only a little above them, the tokens' own part of the score")
    lesson.check("copy-back's peak leads its rivals by less than previous-token's does",
                 leads["copy-back"] < leads["previous-token"])
    print("can decide which key wins.")
    pi_peak = max(distances, key=lambda r: by_method["copy-back"]["linear"][r])
    print(f"With PI (factor 4) copy-back's scores peak at r = {pi_peak} instead: the head")
    print("learned angles, and PI makes each distance turn a quarter as far.")
    lesson.check("with PI copy-back's peak moves to about 4 x 2 = 8 (7 to 9)",
                 abs(pi_peak - 8) <= 1)

# %% Train a little at the longer length
if __name__ == "__main__":
    lesson.stage("Train copy-back a little at 32 tokens: as is, and with PI")

    fine_steps = 20
    print("Chen et al. fine-tuned PI models for up to 1000 steps at the new length.")
    print(f"Here: {fine_steps} more steps x 4 sequences of 32 tokens, from the copy-back head.")
    tuned_scores = {}
    tuned_past, tuned_lead = {}, {}  # method -> share past T, s(2) - max s(r != 2), tuned
    for method in ("default", "linear"):
        start = stretched(heads["copy-back"], method, 4 * T)  # PI: theta_i / 4, kept
        tuned = train(start, "copy-back", steps=fine_steps, batch_size=4, seq_len=4 * T,
                      seed=2, on_step=lesson.progress(f"{method}, 32 tokens", fine_steps)).model
        past = shares_right(tuned, "copy-back", 4 * T)[1]
        tuned_scores[method] = scores = score_by_distance(tuned, distances)
        rival = max(scores[r] for r in distances if r != 2)
        before = accuracies["copy-back", method, 4 * T]
        tuned_past[method], tuned_lead[method] = past, scores[2] - rival
        print(f"   {NAMES[method]:6} at positions 8..31: {before:6.1%} -> {past:6.1%};   "
              f"s(2) - max s(r != 2) = {scores[2] - rival:.1f}")
    pi_thetas = rope_frequencies(D, method="linear", factor=4.0)[0]  # theta_i / 4
    print("As is, the repeats now stood next to the right key in every batch, and")
    lesson.check("tuned at 32 tokens, the head as is learns copy-back past T (90% or more) "
                 "and pulls its peak further ahead than before",
                 tuned_past["default"] >= 0.90 and tuned_lead["default"] > leads["copy-back"])
    print("training pushed their scores down. PI starts from a peak in the wrong")
    print(f"place, with pair 0 turning {pi_thetas[0]:.2f} rad a position and the others "
          f"{pi_thetas[1]:.3f}")
    print("or less: these few steps did not move it back.")
    lesson.check("with PI these steps do not move the peak back to r = 2 (35% or less past "
                 "T, s(2) still under another distance)",
                 tuned_past["linear"] <= 0.35 and tuned_lead["linear"] < 0)
    copy_back = by_method["copy-back"]
    ntk_gap = max(abs(a - b) for a, b in zip(copy_back["ntk"], copy_back["default"]))
    print(f"copy-back's NTK scores differ from as is by at most {ntk_gap:.2f} (r = 0..31),")
    lesson.check("copy-back's NTK scores differ from as is by less than 1", ntk_gap < 1.0)
    print("with pair 0 kept and only pairs 1..3 changed. In the figure (--svg) NTK is")
    print("drawn solid under the dashed 'as is', so that both can be seen.")
    order = ("ntk", "default", "linear", "yarn")  # NTK first: solid, under the dashes
    lesson.save_figure("train_short_test_long.svg", LineChart(
        x=tuple(float(r) for r in distances),
        series=tuple((NAMES[method], tuple(copy_back[method])) for method in order)
        + (("as is, tuned", tuple(tuned_scores["default"])),),
        title="copy-back, trained on 8 tokens: the score of each distance at 32 tokens",
        subtitle="mean query against mean key; training saw r = 0..7; "
        f"'as is, tuned': {fine_steps} more steps at 32\n"
        f"NTK (solid) lies under 'as is' (dashed): they differ by {ntk_gap:.2f} at most",
        x_name="distance r = i - j", y_name="score (q . k) / sqrt(d)"))

# %% What this shows
if __name__ == "__main__":
    lesson.stage("What this shows")

    previous = accuracies["previous-token", "default", 4 * T]
    copy = accuracies["copy-back", "default", 4 * T]
    pi = max(accuracies[task, "linear", 4 * T] for task in TASKS)
    print(f"As is, RoPE's offsets carried previous-token past T ({previous:.1%} right at")
    print(f"positions 8..31) but not copy-back ({copy:.1%}): what carries over is the")
    lesson.check("as is, previous-token carries past T (90% or more) and copy-back does not "
                 "(80% or less)", previous >= 0.90 and copy <= 0.80)
    print("score of each offset, and offsets the head never saw can score high.")
    paper_past = accuracies["previous-token", "yarn paper", 4 * T]
    print(f"PI, with no further training, did worst of the four (at most {pi:.1%}): it")
    lesson.check("PI, untrained, did worst of the four methods past T at 4T, for both tasks",
                 all(accuracies[task, "linear", 4 * T]
                     < min(accuracies[task, method, 4 * T] for method in METHODS
                           if method != "linear") for task in TASKS))
    print("slows pair 0 too, so the offsets 1 and 2 the head learned turn pair 0 by a")
    print("quarter of the angle at 4T. NTK and YaRN with Hugging Face's ramp keep pair 0")
    print("as it was, and so its repeats; YaRN with the paper's ramp slows pair 0 almost")
    print(f"as PI does, and previous-token fell with it ({paper_past:.1%}).")
    print("These methods were made for models with d = 128 and thousands of positions,")
    print("where the slow pairs never turned once in training. PI and YaRN were shown")
    print("with a short fine-tune at the longer length; NTK-aware scaling was first")
    print("posted as needing none. A head with 4 pairs and 8 positions shows part of")
    print("that story: the fast pair's repeats, kept by every method that keeps pair 0.")
