"""Lesson 13: inside the attention box

Question: lesson 09 showed attention's shapes and its final weights. What
happens in between: Q, K, the raw scores, the -inf of the mask, the softmax,
the weighted sum? How do content and position meet in a score, and why the
divisions and multiplications by square roots?

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k) + mask) V

Claim checked (lectures 000 and 003): the score of two tokens is a dot product
of their query and key, scaled by 1/sqrt(d_k) so that its spread stays near 1
as d_k grows, and when positions are added it is a sum of four terms: content
with content, content with position, position with content, position with
position.

Lecture 000's sentence, d_model = 4. Run: python walkthroughs/13_inside_attention.py
"""

import math
import random

from lesson import Lesson

from minipe import (
    Embedding,
    Matrix,
    SingleHeadAttention,
    Tokenizer,
    Vector,
    allclose,
    format_matrix,
    run,
    scaled_dot_product_attention,
    sinusoidal_encoding,
    softmax,
)

# %% Q and K of "A man bites a dog"
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("X = tokens + positions, then Q = X W_q and K = X W_k")

    text = "A man bites a dog"
    d_model = 4  # = d_k: the head keeps the width
    tokenizer = Tokenizer.from_corpus(text)
    tokens = tokenizer.tokenize(text)  # ['a', 'man', 'bites', 'a', 'dog']
    labels = [f"{pos} {token}" for pos, token in enumerate(tokens)]
    n = len(tokens)  # 5
    x = Embedding(tokenizer.vocab_size, d_model, seed=0)(tokenizer.encode(text))  # (5, 4)
    p = sinusoidal_encoding(n, d_model)  # (5, 4): row pos is PE(pos)
    X = x + p  # (5, 4): the input embeddings
    head = SingleHeadAttention(d_model, d_model, seed=2)  # the pipeline's head, seed 0 + 2
    Q = X @ head.W_q  # (5, 4) @ (4, 4) -> (5, 4): one query per token
    K = X @ head.W_k  # (5, 4): one key per token
    V = X @ head.W_v  # (5, 4): one value per token
    print("Q, one query per token (what it looks for):")
    print(format_matrix(Q, row_labels=labels))
    print("K, one key per token (what it offers to be found by):")
    print(format_matrix(K, row_labels=labels))

# %% Raw scores and the causal mask
if __name__ == "__main__":
    lesson.stage("Scores Q K^T / sqrt(d_k), then the causal mask's -inf")

    d_k = Q.shape[1]
    raw = (Q @ K.T) / math.sqrt(d_k)  # (5, 4) @ (4, 5) -> (5, 5), divided by sqrt(4) = 2
    print(f"Q K^T / sqrt({d_k}): score(i, j) = q_i . k_j / 2, row i = query i")
    print(format_matrix(raw, row_labels=labels))
    masked = Matrix([[raw[i][j] if j <= i else -math.inf for j in range(n)]
                     for i in range(n)])  # key j > i is in query i's future
    print("causal mask: score(i, j) = -inf for j > i (a token sees no later token)")
    print(format_matrix(masked, row_labels=labels))
    result = scaled_dot_product_attention(Q, K, V, causal=True)
    same_scores = result.scores.tolist() == masked.tolist()
    print(f"scaled_dot_product_attention's scores are these? {same_scores}")  # True
    lesson.check("scaled_dot_product_attention's scores are the masked Q K^T / sqrt(d_k)",
                 same_scores)

# %% One softmax row by hand
if __name__ == "__main__":
    lesson.stage("One softmax row by hand: query 2, 'bites'")

    i = 2
    row = masked[i].tolist()  # [s_0, s_1, s_2, -inf, -inf]
    exps = [math.exp(score) for score in row]  # exp(-inf) = 0.0
    total = sum(exps)
    for j, (score, e) in enumerate(zip(row, exps)):
        print(f"   j = {j} {tokens[j]:<6} score {score:8.4f}   exp = {e:.4f}   "
              f"/ {total:.4f} = {e / total:.4f}")
    by_hand = [e / total for e in exps]
    softmax_agrees = allclose(softmax(row), by_hand)
    print(f"softmax(row) agrees? {softmax_agrees}")  # True
    lesson.check("softmax(row) agrees with the row worked by hand", softmax_agrees)
    print("exp(-inf) = 0: the two future tokens get weight exactly 0, and the")
    print("three others share 1 in proportion to exp(score).")

# %% One output row: a weighted sum of V's rows
if __name__ == "__main__":
    lesson.stage("Output row 2 = sum_j weight_j * v_j")

    output_row = Vector([0.0] * d_model)
    for j in range(i + 1):  # keys 0..2; the others weigh 0
        print(f"   {by_hand[j]:.4f} * v_{j} ({tokens[j]:<5}) = "
              + " ".join(f"{value:8.4f}" for value in V[j] * by_hand[j]))
        output_row = output_row + V[j] * by_hand[j]
    print("   sum:                    " + " ".join(f"{value:8.4f}" for value in output_row))
    row_agrees = allclose(result.output[i], output_row)
    print(f"the head's output row 2 agrees? {row_agrees}")
    lesson.check("the head's output row 2 is the weighted sum worked by hand", row_agrees)
    trace = run(text, d_model=d_model, causal=True)  # the pipeline: the same seeds
    run_agrees = allclose(trace.attention.output, result.output)
    print(f"and minipe.run(text, d_model=4, causal=True)'s? {run_agrees}")  # True
    lesson.check("minipe.run's attention output is the head's", run_agrees)

# %% Content and position in one score: four terms
if __name__ == "__main__":
    lesson.stage("(x + p) W_q W_k^T (x + p)^T: four terms, row 2 ('bites')")

    A = head.W_q @ head.W_k.T  # (4, 4): score(i, j) = X_i A X_j^T / sqrt(d_k)
    terms = {
        "content-content  x_i A x_j": x @ A @ x.T,
        "content-position x_i A p_j": x @ A @ p.T,
        "position-content p_i A x_j": p @ A @ x.T,
        "position-position p_i A p_j": p @ A @ p.T,
    }  # each (5, 5)
    total_row = [0.0] * n
    for name, term in terms.items():
        values = [value / math.sqrt(d_k) for value in term[i]]
        total_row = [a + b for a, b in zip(total_row, values)]
        print(f"   {name:<28}" + "".join(f"{value:8.4f}" for value in values))
    print(f"   {'sum of the four':<28}" + "".join(f"{value:8.4f}" for value in total_row))
    print(f"   {'the raw score row':<28}" + "".join(f"{value:8.4f}" for value in raw[i]))
    terms_agree = allclose(Vector(total_row), raw[i])
    print(f"they agree? {terms_agree}")  # True
    lesson.check("the four terms add up to the raw score row", terms_agree)
    content = terms["content-content  x_i A x_j"][i]
    print(f"Both 'a's (keys 0 and 3) get the same content-content term? "
          f"{content[0] == content[3]}")  # True: one ID, one row
    lesson.check("both 'a's get the same content-content term", content[0] == content[3])
    differ = [name.split()[0] for name, term in terms.items() if term[i][0] != term[i][3]]
    print(f"The terms that differ between keys 0 and 3: {', '.join(differ)}")
    lesson.check("exactly the terms with p_j differ between keys 0 and 3 (position-content "
                 "is equal)", differ == ["content-position", "position-position"])
    print("A term can differ only if it holds what differs between the keys:")
    print("x_j is one row for both 'a's, p_j is not. So only the terms with p_j")
    print("tell them apart. position-content, p_i A x_j, holds p_i, the query's")
    print("own position (2 for both keys), and the same x_j: it is equal. The")
    print("last term, position with position, is the one lesson 06 built with")
    print("W_q W_k^T = M_k.")

# %% Why divide by sqrt(d_k)
if __name__ == "__main__":
    lesson.stage("Why / sqrt(d_k): the spread of q . k grows with d_k")

    rng = random.Random(0)
    samples = 1000
    print(f"   q, k with d_k entries drawn from N(0, 1), {samples} pairs each:")
    print("    d_k   variance of q . k   of q . k / sqrt(d_k)   a sample's spread")
    off = {}  # d_k -> how many spreads the scaled variance lands from 1
    for d in (4, 16, 64, 256):
        dots = []
        for _ in range(samples):
            q = Vector([rng.gauss(0.0, 1.0) for _ in range(d)])
            k = Vector([rng.gauss(0.0, 1.0) for _ in range(d)])
            dots.append(q.dot(k))
        mean = sum(dots) / samples
        variance = sum((dot - mean) ** 2 for dot in dots) / samples
        spread = math.sqrt((2 + 6 / d) / samples)  # worked out below
        off[d] = (variance / d - 1) / spread
        print(f"   {d:4}   {variance:17.2f}   {variance / d:20.3f}   {spread:17.3f}")
    print("Each q_i k_i has mean 0 and variance 1, and the d_k of them add:")
    print("Var(q . k) = d_k, and dividing by sqrt(d_k) brings it back to 1, on average.")
    print(f"Each row measures it on a sample of {samples} pairs, and a variance measured")
    print("on n draws of x is off by about sqrt((E[x**4] - 1) / n), its standard")
    print("deviation: a sample's spread. Each q_i k_i has E[(q_i k_i)**4] = 3 x 3 = 9,")
    print("the sum of d_k of them E[(q . k)**4] = 9 d_k + 3 d_k (d_k - 1), so")
    print("x = q . k / sqrt(d_k) has E[x**4] = 3 + 6 / d_k, and the spread is")
    spreads = [math.sqrt((2 + 6 / d) / samples) for d in off]
    print(f"sqrt((2 + 6 / d_k) / {samples}): {min(spreads):.3f} to {max(spreads):.3f} "
          f"here. A sample of {samples} pairs")
    print(f"lands within two spreads ({2 * min(spreads):.2f} to {2 * max(spreads):.2f}) "
          f"of 1 about 19 times in 20.")
    worst = max(off, key=lambda d: abs(off[d]))
    print(f"The farthest row, d_k = {worst}, is {abs(off[worst]):.1f} spreads "
          f"{'below' if off[worst] < 0 else 'above'} 1; every row is within 2.")
    lesson.check("every scaled variance lies within 2 of a sample's spreads of 1",
                 all(abs(x) <= 2 for x in off.values()))
    print("The 2017 paper (Vaswani et al., section 3.2.1) gives this argument, and")
    print("suspects that large scores push the softmax where its gradients are tiny.")
    scores = [rng.gauss(0.0, 16.0) for _ in range(5)]  # spread sqrt(256) = 16, unscaled
    unscaled = max(softmax(scores))
    scaled = max(softmax([s / 16 for s in scores]))
    print(f"   5 scores of spread 16: largest weight {unscaled:.4f};"
          f" divided by 16: {scaled:.4f}")
    print("Unscaled, one key takes nearly all the weight: a near one-hot softmax.")
    lesson.check("unscaled, one key takes nearly all the weight (95% or more); divided by "
                 "16, no key does (60% or less)", unscaled >= 0.95 and scaled <= 0.6)

# %% Why some models multiply token embeddings by sqrt(d_model)
if __name__ == "__main__":
    lesson.stage("Why some models multiply token embeddings by sqrt(d_model)")

    wide = 512  # the 2017 paper's d_model
    table = Embedding(200, wide, seed=0).weight  # (200, 512), minipe's N(0, 1) rows
    small = table * (1 / math.sqrt(wide))  # the same rows drawn with std 1/sqrt(512)
    pe = sinusoidal_encoding(1, wide)[0]  # PE(0); every row has the same norm
    mean_norm = sum(row.norm() for row in table) / len(table)
    small_norm = sum(row.norm() for row in small) / len(small)
    print(f"   |PE(pos)| = sqrt(d_model / 2) = {pe.norm():.4f} at every pos")
    print(f"   minipe's N(0, 1) rows:          mean |x| = {mean_norm:.4f}")
    print(f"   rows with std 1/sqrt(512):      mean |x| = {small_norm:.4f}")
    print(f"   those times sqrt(512) = {math.sqrt(wide):.2f}:  mean |x| = "
          f"{small_norm * math.sqrt(wide):.4f}")
    cosines = []
    for name, rows in (("std 1/sqrt(512)", small), ("times sqrt(512)", small * math.sqrt(wide))):
        x0 = rows[0]
        alike = x0.dot(x0 + pe) / (x0.norm() * (x0 + pe).norm())  # cos(x, x + PE)
        cosines.append(alike)
        print(f"   {name}: cosine of x and x + PE(0) = {alike:.4f}")
    print("The 2017 paper (Vaswani et al., section 3.4) multiplies its embedding")
    print("weights by sqrt(d_model), weights it shares with the output layer; it")
    print("gives no reason. The numbers show what the factor does: rows drawn with")
    print("std 1/sqrt(d_model) have norm about 1, and PE (norm 16) drowns them;")
    lesson.check("PE drowns rows of norm about 1 (cosine of x and x + PE under 0.1)",
                 cosines[0] < 0.1)
    lesson.check("scaled rows outweigh PE (cosine of x and x + PE above 1/2)", cosines[1] > 0.5)
    print("scaled, they outweigh it. minipe's Embedding draws N(0, 1), so its rows")
    print("already have norm about sqrt(d_model), and minipe adds them unscaled.")
