"""Lesson 16: what the learned table learned

Question: a head with a learned position table is trained to output the
previous token. What is in its table afterwards: which rows resemble which,
and does position i, by its position alone, look one back, at i - 1? And
what does a head with fixed sinusoids do with the same task?

Claim checked (lectures 001 and 003): a learned table gets whatever pattern
the task asks for from training, while the sinusoidal table is fixed and
only the weights around it learn.

Lectures 001 and 003, with the lab of chapter 10 (minipe/training/model.py).
Run: python walkthroughs/16_what_the_learned_table_learned.py [--step] [--svg]
"""

import math

from lesson import Lesson

from minipe import Matrix, TinyModel, accuracy, sinusoidal_encoding, train
from minipe.plot import Heatmap

T, D_MODEL = 8, 8  # positions 0..7, vectors of 8 numbers
SEEDS = (0, 1, 2)  # each head trained three times; the tables shown are seed 0's


def cosine_similarity(table: Matrix) -> Matrix:
    """C[i][j] = P_i . P_j / (|P_i| |P_j|): 1 for the same direction, -1 for opposite."""
    norms = [row.norm() for row in table]
    return Matrix([[table[i].dot(table[j]) / (norms[i] * norms[j]) for j in range(len(table))]
                   for i in range(len(table))])  # (T, T)


def position_scores(table: Matrix, W_q: Matrix, W_k: Matrix) -> Matrix:
    """S[i][j] = (P_i W_q) . (P_j W_k) / sqrt(d): the score of key j for query i,
    from the positions alone (the token embeddings left out)."""
    q = table @ W_q  # (T, d): each position's part of the query
    k = table @ W_k  # (T, d): each position's part of the key
    return q @ k.T / math.sqrt(D_MODEL)  # (T, T)


def show(table: Matrix, digits: int) -> None:
    """Print a (T, T) table, one row per query position i."""
    print("         " + "".join(f"{f'j={j}':>7}" for j in range(len(table))))
    for i, row in enumerate(table):
        print(f"   i={i}  " + "".join(f"{value:7.{digits}f}" for value in row.tolist()))


def diagonals(table: Matrix) -> list[list[float]]:
    """The entries with j - i = k, for k = 0..T-1: one list per diagonal."""
    size = len(table)
    return [[table[i, i + k] for i in range(size - k)] for k in range(size)]


def one_back_peaks(scores: Matrix) -> list[int]:
    """The rows i >= 1 whose highest score among the keys j <= i (what the causal
    mask lets through) is j = i - 1."""
    peaks = []
    for i in range(1, len(scores)):
        allowed = scores[i].tolist()[:i + 1]  # keys 0..i
        if allowed.index(max(allowed)) == i - 1:
            peaks.append(i)
    return peaks


def cosine_figure(cosines: Matrix, title: str) -> Heatmap:
    """The cosine similarities as a heatmap, coloured around 0."""
    return Heatmap(cosines, title=title, subtitle="cosine similarity of rows i and j",
                   x_name="position j", y_name="position i", palette="diverging")


def scores_figure(scores: Matrix, head: str, table: str) -> Heatmap:
    """The position-only scores as a heatmap, query positions down, keys across."""
    size = len(scores)
    causal = tuple(tuple(j > i for j in range(size)) for i in range(size))  # key after query
    return Heatmap(scores, title=f"{head} head: scores from the positions alone",
                   subtitle=f"(W_q {table}_i) . (W_k {table}_j) / sqrt(8); the causal mask "
                   "keeps j <= i: striped cells are masked",
                   x_name="key position j", y_name="query position i", masked=causal)


# %% Train two heads
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Train a learned and a sinusoidal head on previous-token")

    steps, batch_size = 200, 4  # the lab's default is 300 x 8; this is a third of the work
    heads = {}  # (kind, seed) -> (the head before training, after)
    for kind in ("learned", "sinusoidal"):
        for seed in SEEDS:
            start = TinyModel(5, D_MODEL, T, positions=kind, seed=seed)
            heads[kind, seed] = start, train(
                start, "previous-token", steps=steps, batch_size=batch_size, seed=seed,
                on_step=lesson.progress(f"{kind}, seed {seed}", steps)).model
    untrained, learned = heads["learned", 0]
    sinusoidal = heads["sinusoidal", 0][1]
    print(f"{steps} steps x {batch_size} sequences of T = 8 each, 5 token kinds, d = 8, "
          f"from seeds {', '.join(map(str, SEEDS))}")
    print("(the seed draws the tables and the batches); accuracy at T = 8:")
    for kind in ("learned", "sinusoidal"):
        print(f"   {kind:10} " + ", ".join(
            f"{accuracy(heads[kind, seed][1], 'previous-token'):.1%}" for seed in SEEDS))
    print("The tables below are seed 0's; what they show is checked on all three.")
    P = learned.parameters()["position_embedding"]  # (8, 8): row t is position t's vector
    PE = sinusoidal_encoding(T, D_MODEL)  # (8, 8): the formula's rows, never trained
    print(f"learned table {P.shape}; sinusoidal table {PE.shape}")

# %% Which rows resemble which
if __name__ == "__main__":
    lesson.stage("Cosine similarity of the rows: the learned table")

    learned_cos = cosine_similarity(P)
    show(learned_cos, 2)
    lesson.save_figure("learned_cosine.svg", cosine_figure(
        learned_cos, "Learned position table, trained on previous-token"))

# %% The same for the sinusoidal table
if __name__ == "__main__":
    lesson.stage("Cosine similarity of the rows: the sinusoidal table")

    sinusoidal_cos = cosine_similarity(PE)
    show(sinusoidal_cos, 2)
    spreads = {}
    for name, table in (("sinusoidal", sinusoidal_cos), ("learned", learned_cos)):
        spread = max(max(diagonal) - min(diagonal) for diagonal in diagonals(table))
        spreads[name] = spread
        shown = "< 1e-12" if spread < 1e-12 else f"{spread:.1e}"  # below 1e-12: rounding
        print(f"{name:10} rows, each diagonal j - i = k: largest minus smallest {shown}")
    print("The sinusoidal rows' likeness depends on the offset j - i alone (the")
    lesson.check("the sinusoidal rows' likeness depends on j - i alone (a spread under "
                 "1e-12 along each diagonal)", spreads["sinusoidal"] < 1e-12)
    print("shift of lesson 06); the learned rows' does not, on every seed")
    learned_spreads = [max(max(diagonal) - min(diagonal) for diagonal in diagonals(
        cosine_similarity(heads["learned", seed][1].parameters()["position_embedding"])))
        for seed in SEEDS]
    print("(seeds " + ", ".join(map(str, SEEDS)) + ": largest minus smallest "
          + ", ".join(f"{spread:.2f}" for spread in learned_spreads) + "). The mean by offset:")
    lesson.check("on every seed the learned rows' likeness does not (a spread over 0.1)",
                 min(learned_spreads) > 0.1)
    for k in (1, 2, 3):
        learned_mean = sum(learned_cos[i, i + k] for i in range(T - k)) / (T - k)
        fixed_mean = sum(sinusoidal_cos[i, i + k] for i in range(T - k)) / (T - k)
        print(f"   offset {k}: learned {learned_mean:6.2f}   sinusoidal {fixed_mean:6.2f}")
    lesson.save_figure("sinusoidal_cosine.svg", cosine_figure(
        sinusoidal_cos, "Sinusoidal position table (fixed), T = 8, d_model = 8"))

# %% Position-only scores: the learned head
if __name__ == "__main__":
    lesson.stage("Scores from positions alone: (W_q P_i) . (W_k P_j) / sqrt(8)")

    weights = learned.parameters()
    learned_scores = position_scores(P, weights["W_q"], weights["W_k"])
    show(learned_scores, 1)
    before = untrained.parameters()
    random_scores = position_scores(before["position_embedding"], before["W_q"], before["W_k"])
    print("The causal mask lets query i see keys j <= i. Rows i = 1..7 whose")
    print("highest allowed score is one back, at j = i - 1:")
    trained_peaks, random_peaks = one_back_peaks(learned_scores), one_back_peaks(random_scores)
    print(f"   trained:           {trained_peaks}")
    print(f"   before training:   {random_peaks}")
    peaks_by_seed = {}  # seed -> (rows before training, rows after)
    for seed in SEEDS:
        old, new = (model.parameters() for model in heads["learned", seed])
        peaks_by_seed[seed] = tuple(one_back_peaks(position_scores(
            weights["position_embedding"], weights["W_q"], weights["W_k"]))
            for weights in (old, new))
        print(f"   seed {seed}: {len(peaks_by_seed[seed][1])} of 7 rows trained, "
              f"{len(peaks_by_seed[seed][0])} before training")
    lesson.check("on every seed training turns most rows (5 of 7 or more) to look one back, "
                 "more than before training", all(len(after) >= 5 and len(after) > len(old)
                                                  for old, after in peaks_by_seed.values()))
    lesson.save_figure("learned_scores.svg", scores_figure(learned_scores, "Learned", "P"))

# %% Position-only scores: the sinusoidal head
if __name__ == "__main__":
    lesson.stage("The same scores for the sinusoidal head: its W_q, W_k and PE")

    weights = sinusoidal.parameters()
    sinusoidal_scores = position_scores(PE, weights["W_q"], weights["W_k"])
    show(sinusoidal_scores, 1)
    fresh = TinyModel(5, D_MODEL, T, positions="sinusoidal", seed=0).parameters()
    fresh_scores = position_scores(PE, fresh["W_q"], fresh["W_k"])  # before training
    peaks = one_back_peaks(sinusoidal_scores)
    missed = [i for i in range(1, T) if i not in peaks]
    print(f"rows whose highest allowed score is at j = i - 1: {peaks}")
    print(f"rows where it is elsewhere: {missed}")
    print(f"the same rows before training: {one_back_peaks(fresh_scores)}")
    counts = [len(one_back_peaks(position_scores(
        PE, *(heads["sinusoidal", seed][1].parameters()[name] for name in ("W_q", "W_k")))))
        for seed in SEEDS]
    print(f"rows at j = i - 1 on seeds {', '.join(map(str, SEEDS))}: "
          f"{', '.join(map(str, counts))} of 7, fewer on every seed than the")
    print("learned head's 7, though both kinds answer at 90% or more on every seed")
    print("(stage 1): how much the positions alone look one back varies by seed.")
    lesson.check("on every seed the sinusoidal head has fewer one-back rows than 7 and "
                 "answers 90% or more", max(counts) < 7 and all(
                     accuracy(heads["sinusoidal", seed][1], "previous-token") >= 0.9
                     for seed in SEEDS))
    moved = [name for name in ("W_q", "W_k") if weights[name].tolist() != fresh[name].tolist()]
    print(f"changed by training: {', '.join(moved)}")  # W_q, W_k
    lesson.check("training changed both W_q and W_k", moved == ["W_q", "W_k"])
    print("The table is the formula's and never changes (lesson 17: no gradient")
    print("reaches it), and both score tables use the same PE: what moved the")
    print("peaks is W_q and W_k.")
    if missed:
        print("The token embeddings add to every score too, so a row that peaks")
        print("elsewhere here can still be answered right: the accuracy above")
        print("counts the whole score.")
    lesson.save_figure("sinusoidal_scores.svg",
                       scores_figure(sinusoidal_scores, "Sinusoidal", "PE"))
