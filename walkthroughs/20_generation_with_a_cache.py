"""Lesson 20: generation with a cache

Question: a model writes a text one token at a time. Must it run the whole
sequence again for every new token, and what position does the new token get?

Claim checked (lecture 004): when queries and keys are turned by their
positions, a score depends only on the offset, so a key turned once, at its
own position, stays right. In a causal model no token sees the ones after it,
so the keys and values of the earlier tokens never change: kept in a cache,
they let each new token compute only its own row, at position len(cache).
The lesson checks that the cache gives the same tokens and the same numbers,
counts what each way computes, and shows what a wrong position does.

Lecture 004, with chapter 10 (minipe/generation.py, minipe/training.py, minipe/lab.py).
Run: python walkthroughs/20_generation_with_a_cache.py [--step] [--svg]
"""

from lesson import Lesson

from minipe import KVCache, TinyModel, accuracy, next_logits, softmax, train

VOCAB, D, T = 8, 8, 8  # 8 token kinds, d_model = 8, trained on 8 tokens
KINDS = ("learned", "sinusoidal", "rope", "alibi")


def largest_difference(a: list[float], b: list[float]) -> float:
    return max(abs(x - y) for x, y in zip(a, b))


# %% A model from the lab
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Train two RoPE heads on copy-back: the target at i is the token at i - 2")

    steps, batch_size = 80, 4
    result = train(TinyModel(VOCAB, D, T, positions="rope", num_heads=2), "copy-back",
                   steps=steps, batch_size=batch_size, learning_rate=0.1,
                   on_step=lesson.progress("copy-back", steps))
    model = result.model
    share = accuracy(model, "copy-back")
    print(f"   {steps} steps x {batch_size} sequences: loss {result.losses[0]:.3f} -> "
          f"{result.losses[-1]:.4f}; right on {share:.1%} of new targets")
    print("At the last token the model predicts the token two before it, so greedy")
    print("decoding should continue a prompt by repeating its last three tokens.")

# %% The same tokens, with and without the cache
if __name__ == "__main__":
    lesson.stage("generate(prompt, 4), with the cache and without it")

    prompt = [1, 6, 3, 5]
    cached = model.generate(prompt, 4)
    again = model.generate(prompt, 4, use_cache=False)
    print(f"   prompt        {prompt}")
    print(f"   with cache    {cached}")
    print(f"   without       {again}")
    repeats = all(cached[t] == cached[t - 3] for t in range(len(prompt), len(cached)))
    print(f"The same tokens: {cached == again}; the last three repeat: {repeats}.")
    print("Positions 0..6 are fed in, all inside the 8 the model was trained on.")

# %% One step of the cache, number for number
if __name__ == "__main__":
    lesson.stage("The cached step's scores against the full pass's last row")

    cache = KVCache((), ())
    worst = 0.0
    for t, token_id in enumerate(cached[:-1]):
        logits, cache = next_logits(model, cache, token_id)  # token t, at len(cache) = t
        full = list(model.logits(cached[:t + 1]).rows[-1])  # the whole prefix again
        worst = max(worst, largest_difference(logits, full))
    print(f"   {cache!r}: keys per head of shape {cache.keys[0].shape}")
    print(f"   largest |cached - full| over the 7 steps: {worst}")
    print("Exactly equal: the new token's query meets the same keys, turned at the same")
    print("positions; the full pass only adds later keys with weight exactly 0.")
    print("Scores (q . k) one new token costs, per head, with n tokens before it:")
    print("    n   with cache (n + 1 keys)   without ((n + 1)^2, every row again)")
    for n in (8, 64, 512):
        print(f"   {n:3} {n + 1:20} {(n + 1) ** 2:30}")
    print("With the cache the cost grows like n; without it, like n^2.")

# %% The new token at position 0
if __name__ == "__main__":
    lesson.stage("A common bug: the new token gets position 0, not len(cache)")

    ids = [1, 6, 3, 5, 1, 6]
    right = list(range(len(ids)))  # 0 .. 5
    wrong = right[:-1] + [0]  # the last token counted from 0 again
    print("The last token's scores at position 5 and at 0 (keys at their own positions),")
    print("for an untrained two-head model of each kind (seed 0):")
    for kind in KINDS:
        fresh = TinyModel(VOCAB, D, T, positions=kind, num_heads=2)
        at_5 = list(fresh.logits(ids, position_ids=right).rows[-1])
        at_0 = list(fresh.logits(ids, position_ids=wrong).rows[-1])
        print(f"   {kind:10} largest difference {largest_difference(at_5, at_0):.4g}")
    print("Learned and sinusoidal rows are added to the token: P[0] instead of P[5]. RoPE")
    print("turns the query by 0: it reads every key at the wrong offset. ALiBi here")
    print("charges -m |pos_i - pos_j|, so the query's own position counts too. Written")
    print("causally, -m (i - j) = -m i + m j, and -m i is the same for the whole row: a")
    print("softmax ignores it, so code that adds only m j (BLOOM's) is immune to this bug:")
    m, i = 0.5, 5
    causal_row = softmax([-m * (i - j) for j in range(i + 1)])
    keys_only = softmax([m * j for j in range(i + 1)])  # the query's position is not in it
    print(f"   softmax(-m (5 - j)) vs softmax(m j), j = 0..5, m = 1/2: largest difference "
          f"{largest_difference(list(causal_row), list(keys_only)):.2g}")
