"""Lesson 15: does attention need positions?

Question: train one attention head to output the token before each token,
five times: with no positions, a learned table, sinusoids, RoPE and ALiBi.
Which ones learn it, and what happens at twice the training length? And can
a head without positions ever answer "a man bites a dog: who bites?"

Claim checked (lecture 000): without positions, attention cannot tell "a man
bites a dog" from "a dog bites a man", so it answers both alike; with
positions it can learn the difference.

Lecture 000, with the lab of chapter 9 (minipe/training.py, minipe/lab.py).
Run: python walkthroughs/15_does_attention_need_positions.py [--step] [--svg]
"""

import math
import textwrap

from lesson import Lesson

from minipe import TinyModel, accuracy, train
from minipe.plot import LineChart

KINDS = ("none", "learned", "sinusoidal", "rope", "alibi")
# who-bites-whom's words, in the lab's order: a word's ID is its place here
WORDS = ("a", "man", "dog", "cat", "fox", "bites", "sees", "chases", "who?")
NOUNS = ("man", "dog", "cat", "fox")
VERBS = ("bites", "sees", "chases")


def sentence_ids(subject: str, verb: str, object_: str) -> list[int]:
    """'a man bites a dog who?' as the lab's IDs: [0, 1, 5, 0, 2, 8]."""
    return [WORDS.index(word) for word in ("a", subject, verb, "a", object_, "who?")]


def answer(model: TinyModel, ids: list[int]) -> str:
    """The word with the top score at the last token, 'who?'."""
    scores = model.logits(ids)[len(ids) - 1].tolist()  # (vocab_size,)
    return WORDS[scores.index(max(scores))]


# %% Five heads, one task
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Train five heads on previous-token: T = 8, 5 token kinds, d = 8")

    vocab_size, d_model, T = 5, 8, 8
    steps, batch_size = 120, 4  # the lab's default is 300 x 8: a fifth of the work here
    print(f"each head: {steps} steps of Adam, {batch_size} new random sequences a step;")
    print("the same seeds for all five: only the kind of position differs.")
    results = {}
    for kind in KINDS:
        model = TinyModel(vocab_size, d_model, T, positions=kind, seed=0)
        results[kind] = train(model, "previous-token", steps=steps, batch_size=batch_size)
    chance = math.log(vocab_size)  # the loss of a uniform guess, -log(1/5)
    print(f"the loss of a uniform guess over 5 kinds: ln 5 = {chance:.4f}")

# %% The loss curves, in numbers
if __name__ == "__main__":
    lesson.stage("The loss curves: the mean loss over 10 steps at a time")

    ends = (10, 40, 80, 120)  # the means over steps 1-10, 31-40, 71-80, 111-120
    print("   kind       " + "".join(f"{f'{end - 9}-{end}':>10}" for end in ends))
    last_mean = {}
    for kind, result in results.items():
        means = [sum(result.losses[end - 10:end]) / 10 for end in ends]
        last_mean[kind] = means[-1]
        print(f"   {kind:10} " + "".join(f"{mean:10.4f}" for mean in means))
    print("Where each curve ends, against ln 5:")
    for kind in KINDS:
        share = last_mean[kind] / chance
        verdict = "near 0" if share < 0.1 else "still far from 0"
        print(f"   {kind:10} {share:6.1%} of ln 5: {verdict}")
    print(f"These are {steps} steps. To see how a slow curve goes on, train one for")
    print("longer: python -m minipe train --positions sinusoidal (300 steps x 8).")
    lesson.save_figure("loss_curves.svg", LineChart(
        x=tuple(float(step) for step in range(1, steps + 1)),
        series=tuple((kind, results[kind].losses) for kind in KINDS),
        title="previous-token: the loss of each step's batch",
        subtitle=f"one head, d = 8, T = 8; {steps} steps x {batch_size} sequences; "
        f"ln 5 = {chance:.2f} is a guess",
        x_name="step", y_name="cross-entropy loss"))

# %% Accuracy at T and at 2T
if __name__ == "__main__":
    lesson.stage("Accuracy at the training length T = 8, and at 2T = 16")

    print("On 64 new sequences (seed 1), the share of targets whose top score is")
    print("the previous token:")
    reason = ""  # the learned head's sentence, below
    for kind in KINDS:
        model = results[kind].model
        at_T = accuracy(model, "previous-token")
        try:
            at_2T = f"{accuracy(model, 'previous-token', seq_len=2 * T):.1%}"
        except ValueError as error:  # a learned table has no row for position 8
            at_2T = "cannot run:"
            reason = str(error)
        print(f"   {kind:10} at T = 8: {at_T:6.1%}   at 2T = 16: {at_2T}")
    print(textwrap.indent(textwrap.fill(reason, width=74), "      "))
    print("The learned table stops at its 8 rows. Sinusoids, RoPE and ALiBi give")
    print("a number for any position; how well the head does there is measured")
    print("above, not promised.")

# %% Who bites whom, without positions
if __name__ == "__main__":
    lesson.stage("'a man bites a dog who?' and 'a dog bites a man who?', no positions")

    man_dog = sentence_ids("man", "bites", "dog")  # [0, 1, 5, 0, 2, 8]
    dog_man = sentence_ids("dog", "bites", "man")  # [0, 2, 5, 0, 1, 8]
    print(f"IDs: {man_dog} and {dog_man}: the same bag, in another order")
    blind = TinyModel(len(WORDS), d_model, 6, positions="none", seed=0)
    trained_blind = train(blind, "who-bites-whom", steps=60).model  # 60 steps x 8 sentences
    for name, model in (("untrained", blind), ("trained", trained_blind)):
        first = model.logits(man_dog)[5]  # the scores at 'who?', (vocab_size,)
        second = model.logits(dog_man)[5]
        gap = max(abs(a - b) for a, b in zip(first.tolist(), second.tolist()))
        print(f"{name} head, scores at 'who?' for man/dog and dog/man:")
        print("   " + " ".join(f"{word:>6}" for word in WORDS))
        print(f"   {' '.join(f'{score:6.3f}' for score in first.tolist())}")
        print(f"   {' '.join(f'{score:6.3f}' for score in second.tolist())}")
        print(f"   largest difference: {gap:.1e}; answers: {answer(model, man_dog)!r} "
              f"and {answer(model, dog_man)!r}")
    print("'who?' is last, so the causal mask lets it see every token: it sees the")
    print("same bag in both sentences and scores it alike, trained or not (the")
    print("differences are rounding: the sums run in another order). Both get one")
    print("answer, so at most one of them is right, whatever the head learns.")

# %% Every sentence, with and without positions
if __name__ == "__main__":
    lesson.stage("All 36 sentences: 12 ordered pairs of nouns x 3 verbs")

    sighted = train(TinyModel(len(WORDS), d_model, 6, positions="sinusoidal", seed=0),
                    "who-bites-whom", steps=60).model
    sentences = [(subject, verb, object_) for subject in NOUNS for object_ in NOUNS
                 for verb in VERBS if subject != object_]
    for kind, model in (("none", trained_blind), ("sinusoidal", sighted)):
        right = sum(answer(model, sentence_ids(*words)) == words[0] for words in sentences)
        alike = sum(answer(model, sentence_ids(subject, verb, object_))
                    == answer(model, sentence_ids(object_, verb, subject))  # its mirror
                    for subject, verb, object_ in sentences
                    if NOUNS.index(subject) < NOUNS.index(object_))  # each pair once
        print(f"   {kind:10} right on {right} of {len(sentences)} sentences; "
              f"mirrored pairs alike: {alike} of {len(sentences) // 2}")
    print("Mirror a sentence (swap its nouns) and the bag stays the same: without")
    print("positions the 36 sentences are 18 mirrored pairs, each answered alike,")
    print("so at most 18 of 36 can be right. With sinusoids added, trained the same")
    print("60 steps x 8 sentences, the head can tell the two nouns' places apart.")
