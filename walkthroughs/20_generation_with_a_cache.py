"""Lesson 20: generation with a cache

Question: a model writes a text one token at a time. Must it run the whole
sequence again for every new token, and what position does the new token get?

Claim checked (lecture 004): when queries and keys are turned by their
positions, a score depends only on the offset, so a key turned once, at its
own position, stays right. In a causal model no token sees the ones after it,
so the keys and values of the earlier tokens never change: kept in a cache,
they let each new token compute only its own row, at position len(cache).
The lesson checks that the cache gives the same tokens and the same numbers,
counts what each way computes, and shows what a wrong position does. Last, a
cache that must stay small drops its oldest tokens but the first few, as
StreamingLLM does (Xiao et al., 2023): the kept tokens move to new positions,
and RoPE's keys, stored turned, are wrong until they are turned again.

Lecture 004, with chapter 10 (minipe/training/generation.py, minipe/training/model.py, minipe/training/lab.py).
Run: python walkthroughs/20_generation_with_a_cache.py [--step] [--svg]
"""

from lesson import Lesson

from minipe import (KVCache, Matrix, TinyModel, accuracy, evict, next_logits,
                    scaled_dot_product_attention, softmax, train)

VOCAB, D, T = 8, 8, 8  # 8 token kinds, d_model = 8, trained on 8 tokens
KINDS = ("learned", "sinusoidal", "rope", "alibi")
SEEDS = (0, 1, 2)  # the model trained three times; the tokens shown are seed 0's


def largest_difference(a: list[float], b: list[float]) -> float:
    return max(abs(x - y) for x, y in zip(a, b))


def dropped(cache: KVCache, sinks: int, window: int) -> KVCache:
    """The first `sinks` rows and the last `window` of every head, the others dropped:
    eviction as it first comes to mind, the keys kept as they were stored."""
    n = len(cache)
    keys = tuple(Matrix(K.rows[:sinks] + K.rows[n - window:]) for K in cache.keys)
    values = tuple(Matrix(V.rows[:sinks] + V.rows[n - window:]) for V in cache.values)
    return KVCache(keys, values)


def stream(model: TinyModel, prompt: list[int], new_tokens: int, how: str,
           sinks: int = 2, window: int = 5) -> tuple[list[int], float]:
    """Greedy generation with a cache of at most sinks + window tokens (how = "dropped" or
    "evict"; "grow": no limit). Also the largest |cached logits - the full pass over the
    tokens the cache holds|, at their positions in the cache."""
    ids, cache, held, worst = list(prompt), KVCache((), ()), [], 0.0
    for t in range(len(prompt) + new_tokens - 1):
        logits, cache = next_logits(model, cache, ids[t])  # at position len(cache)
        held.append(ids[t])
        full = list(model.logits(held).rows[-1])  # the held tokens alone, at 0 .. len - 1
        worst = max(worst, largest_difference(logits, full))
        if t >= len(prompt) - 1:
            ids.append(logits.index(max(logits)))  # greedy: the top score
        if how != "grow" and len(cache) > sinks + window:
            cache = (evict(model, cache, sinks=sinks, window=window) if how == "evict"
                     else dropped(cache, sinks, window))
            held = held[:sinks] + held[len(held) - window:]
    return ids, worst


# %% A model from the lab
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Train two RoPE heads on copy-back: the target at i is the token at i - 2")

    steps, batch_size = 80, 4
    print(f"{steps} steps x {batch_size} sequences, from seeds {', '.join(map(str, SEEDS))} "
          f"(the seed draws the")
    print("tables and the batches):")
    models = {}  # seed -> the trained model
    for seed in SEEDS:
        result = train(TinyModel(VOCAB, D, T, positions="rope", num_heads=2, seed=seed),
                       "copy-back", steps=steps, batch_size=batch_size, learning_rate=0.1,
                       seed=seed, on_step=lesson.progress(f"copy-back, seed {seed}", steps))
        models[seed] = result.model
        share = accuracy(result.model, "copy-back")
        print(f"   seed {seed}: loss {result.losses[0]:.3f} -> {result.losses[-1]:.4f}; "
              f"right on {share:.1%} of new targets")
    model = models[SEEDS[0]]  # the one the stages below show
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
    twice = {seed: (models[seed].generate(prompt, 4),
                      models[seed].generate(prompt, 4, use_cache=False)) for seed in SEEDS}
    print("On seeds " + ", ".join(map(str, SEEDS)) + " the cache writes " + "; ".join(
        str(with_cache[len(prompt):]) for with_cache, _ in twice.values()))
    print(f"and without it the same: {all(a == b for a, b in twice.values())}")
    lesson.check("on every seed, with and without the cache greedy decoding writes the same "
                 "tokens, and the last three repeat", all(
                     a == b and all(a[t] == a[t - 3] for t in range(len(prompt), len(a)))
                     for a, b in twice.values()))
    print("Positions 0..6 are fed in, all inside the 8 the model was trained on.")

# %% One step of the cache, number for number
if __name__ == "__main__":
    lesson.stage("The cached step's scores against the full pass's last row")

    worst = 0.0
    for seed in SEEDS:
        cache = KVCache((), ())
        for t, token_id in enumerate(cached[:-1]):
            logits, cache = next_logits(models[seed], cache, token_id)  # at len(cache) = t
            full = list(models[seed].logits(cached[:t + 1]).rows[-1])  # the prefix again
            worst = max(worst, largest_difference(logits, full))
    print(f"   {cache!r}: keys per head of shape {cache.keys[0].shape}")
    print(f"   largest |cached - full| over the 7 steps, on each seed: {worst}")
    print("Exactly equal: the new token's query meets the same keys, turned at the same")
    lesson.check("on every seed the cached step's logits equal the full pass's last row "
                 "exactly",
                 worst == 0.0)
    print("positions; the full pass's last row meets those same t + 1 keys, and its other")
    print("rows, computed again, are not used.")
    print("Scores (q . k) one new token costs, per head, with n tokens before it, counted")
    print("on the tables: the keys its query reads in the cache, and the score table")
    print("chapter 4 builds for one head when the whole sequence runs again:")
    print("    n   with cache (keys read)   without (the scores of every row again)")
    counted, filled = [], KVCache((), ())
    for n, token_id in enumerate([(3 * t) % VOCAB for t in range(513)]):
        _, filled = next_logits(model, filled, token_id)  # n tokens before this one
        if n in (8, 64, 512):
            K, V = filled.keys[0], filled.values[0]  # (n + 1, head_dim): head 0's keys 0 .. n
            rows, cols = scaled_dot_product_attention(K, K, V, causal=True).scores.shape
            counted.append((n, len(filled), rows * cols))
            print(f"   {n:3} {len(filled):20} {rows * cols:30}")
    print("With the cache the cost grows like n; without it, like n**2.")
    lesson.check("with the cache a new token reads n + 1 keys, without it (n + 1)**2 scores",
                 all(keys == n + 1 and scores == (n + 1) ** 2 for n, keys, scores in counted))
    print("benchmarks/bench_generate.py times the same shape: a cached token's time grows")
    print("linearly with n, as a plain loop's does; the full pass's like n**2 once n is in")
    print("the hundreds (at fewer tokens its n rows of x W and h W_out weigh more).")

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
    print("turns the query by 0: it reads every earlier key at the wrong offset. ALiBi here")
    print("charges -m |pos_i - pos_j|, so the query's own position counts too. Written")
    print("causally, -m (i - j) = -m i + m j, and -m i is the same for the whole row: a")
    print("softmax ignores it, so code that adds only m j (BLOOM's) is immune to this bug:")
    m, i = 0.5, 5
    causal_row = softmax([-m * (i - j) for j in range(i + 1)])
    keys_only = softmax([m * j for j in range(i + 1)])  # the query's position is not in it
    immune = largest_difference(list(causal_row), list(keys_only))
    print(f"   softmax(-m (5 - j)) vs softmax(m j), j = 0..5, m = 1/2: largest difference "
          f"{immune:.2g}")
    lesson.check("softmax ignores -m i, the same for the whole row: both rows are equal",
                 immune == 0.0)

# %% A cache that stays small
if __name__ == "__main__":
    lesson.stage("Evicting the oldest tokens: keep 2 sinks and the last 5 (StreamingLLM)")

    print("A cache that grows with the text runs out of memory, and its positions pass")
    print("those the model was trained on. StreamingLLM keeps the first few tokens (the")
    print("attention sinks) and a window of the latest, and counts positions in the cache:")
    print("here at most 2 + 5 = 7 tokens, so a new token stands at position 7 at most.")
    print(f"Prompt {prompt} and 16 new tokens, three ways (seed {SEEDS[0]}'s model):")
    runs = {(how, seed): stream(models[seed], prompt, 16, how)
            for how in ("grow", "dropped", "evict") for seed in SEEDS}
    for how, said in (("grow", "no eviction"), ("dropped", "rows dropped"),
                      ("evict", "turned again")):
        written = runs[how, SEEDS[0]][0]
        print(f"   {said:<13} {written[len(prompt):]}")
    new_positions = range(len(prompt), len(runs["grow", SEEDS[0]][0]))  # 4 .. 19
    first_wrong = {seed: next((t for t in new_positions if runs["grow", seed][0][t] !=
                               runs["grow", seed][0][t - 3]), None) for seed in SEEDS}
    print("Without eviction the cycle 6, 3, 5, by seed:")
    for seed in SEEDS:
        print(f"   seed {seed}: " + (f"breaks at position {first_wrong[seed]}"
                                   if first_wrong[seed] else "holds to the end"))
    print("Past the positions 0..7 the model was trained on, nothing taught it what")
    print("to do: the cycle may break there or not. Inside them it holds on every")
    print("seed, and the cache is not to blame (|cached - full| "
          + ", ".join(str(runs["grow", seed][1]) for seed in SEEDS) + ").")
    lesson.check("on every seed, without eviction the cycle holds inside the trained positions "
                 "0..7 and the cache is exact", all(
                     all(runs["grow", seed][0][t] == runs["grow", seed][0][t - 3]
                         for t in range(len(prompt), T))  # positions 4 .. 7
                     and runs["grow", seed][1] == 0.0 for seed in SEEDS))
    print("The 2 sinks keep their positions, 0 and 1. Dropping the rows keeps each key of")
    print("the window turned at the position it was stored at, p, while the cache now")
    print("counts it at p - evicted: to the query those keys seem nearer than they are.")
    print("Each new token comes in at position 7 and stays turned at 7 as it moves down")
    print("the cache. evict() turns each key of the window back by evicted * theta_i, so")
    print("that it stands where the cache counts it (StreamingLLM's code stores the keys")
    print("unturned and turns them at every step: the same angles).")
    print("Against the full pass over the tokens the cache holds, at 0 .. len - 1, largest")
    print(f"|cached - full| on seeds {', '.join(map(str, SEEDS))}:")
    print("   rows dropped  " + ", ".join(f"{runs['dropped', seed][1]:.4g}" for seed in SEEDS))
    print("   turned again  " + ", ".join(f"{runs['evict', seed][1]:.2g}" for seed in SEEDS)
          + "   (rounding: two turns)")
    lesson.check("on every seed, kept as stored, the keys stand at the wrong angles (a "
                 "difference over 1); turned again they agree to rounding (under 1e-12)",
                 all(runs["dropped", seed][1] > 1.0 and runs["evict", seed][1] < 1e-12
                     for seed in SEEDS))
    repeats = all(runs["evict", seed][0][t] == runs["evict", seed][0][t - 3]
                  for seed in SEEDS for t in new_positions)
    print(f"Turned again, the cycle holds to the end on every seed: {repeats}.")
    lesson.check("on every seed, turned again, the cycle holds to the end", repeats)
    print("Learned and sinusoidal keys hold P[p] inside them for good, and nothing turns")
    print("them: the StreamingLLM paper ran RoPE and ALiBi models.")
    print("Now try exercises 14 and 19: python -m minipe exercises check 14")
