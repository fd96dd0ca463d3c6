"""Lesson 12: absolute vs relative positions

Question: sinusoids added to the input, RoPE and ALiBi all tell attention
where the tokens stand. What does each do to the token embeddings, to the
attention pattern, and to a text longer than any seen in training?

Claim checked (lectures 001 and 004): added sinusoids change the token
embeddings and depend on absolute positions; RoPE and ALiBi leave the
embeddings alone and depend only on the distances.

Lectures 001-004. Run: python walkthroughs/12_absolute_vs_relative.py [--step]
"""

import textwrap

from lesson import Lesson

from minipe import (
    LearnedPositionalEmbedding,
    Matrix,
    SingleHeadAttention,
    alibi_bias,
    apply_rotary,
    run,
    scaled_dot_product_attention,
    sinusoidal_encoding,
)
from minipe.plot import attention_weights

# %% One sentence, four ways
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("One sentence, four ways: what reaches attention?")

    text = "The cat sat on the mat"  # 'the' at positions 0 and 4
    kinds = ["none", "sinusoidal", "rope", "alibi"]
    traces = {kind: run(text, positions=kind, seed=0) for kind in kinds}  # d_model = 8
    tokens = traces["none"].token_embeddings  # the same for all four: seed 0
    print("   positions   input == token embeddings?  'the' at 0 and 4: same input?")
    for kind, trace in traces.items():
        untouched = trace.input_embeddings == tokens
        same_the = trace.input_embeddings[0] == trace.input_embeddings[4]
        print(f"   {kind:<11} {str(untouched):<27} {same_the}")
        lesson.check(f"{kind} leaves the input as the token embeddings and both 'the's alike"
                     if kind != "sinusoidal" else "sinusoids change the input and tell the "
                     "two 'the's apart", untouched == same_the == (kind != "sinusoidal"))
    length_before = tokens[4].norm()  # |x| of 'the': 2.5538
    length_after = traces["sinusoidal"].input_embeddings[4].norm()  # |x + PE(4)|: 1.8675
    print(f"Only the sinusoids change the input: |x_the| = {length_before:.4f} becomes")
    print(f"|x_the + PE(4)| = {length_after:.4f}. RoPE and ALiBi leave the tokens as they")
    print("are and act inside attention: RoPE on q and k, ALiBi on the scores.")

# %% The attention pattern
if __name__ == "__main__":
    lesson.stage("The attention pattern of the last token, 'mat' (row 5)")

    print("   positions     the     cat     sat      on     the     mat")
    for kind, trace in traces.items():
        row = trace.attention.weights[5]
        print(f"   {kind:<11}" + "".join(f"{w:8.4f}" for w in row))
    # none: 0.1820 on both 'the's; alibi: 0.0364 on the far 'the', 0.2687 on the near
    last_rows = {kind: trace.attention.weights[5].tolist() for kind, trace in traces.items()}
    print("Without positions both 'the's get the same weight (0.1820): attention")
    lesson.check("without positions both 'the's get the same weight",
                 last_rows["none"][0] == last_rows["none"][4])
    print("cannot tell them apart. With any of the three they differ, and ALiBi")
    lesson.check("with any of the three kinds of positions the two 'the's differ",
                 all(last_rows[kind][0] != last_rows[kind][4] for kind in kinds[1:]))
    print("pulls the weight towards the near 'the' (0.2687) and away from the far one.")
    lesson.check("ALiBi's weights grow towards the near end, so the near 'the' gets more",
                 last_rows["alibi"] == sorted(last_rows["alibi"]))
    # the four figures share one colour scale, 0 .. the largest weight of any (alibi's 0.4180)
    top = max(weight for trace in traces.values()
              for row in trace.attention.weights for weight in row)
    for kind, trace in traces.items():
        lesson.save_figure(f"weights_{kind}.svg", attention_weights(trace, color_range=(0.0, top)))

# %% Slide the whole sentence 100 positions on
if __name__ == "__main__":
    lesson.stage("The same sentence at positions 100..105: what changes?")

    head = SingleHeadAttention(8, 8, seed=2)  # the pipeline's head: seed + 2
    q, k, v = head.qkv(tokens)  # (6, 8) each, before any position

    def weights_at(start: int, kind: str) -> Matrix:
        """The attention weights of the sentence when its first token stands at `start`."""
        if kind == "sinusoidal":  # the table's rows start .. start + 5, added to the input
            table = Matrix(sinusoidal_encoding(start + 6, 8).tolist()[start:])
            return head(tokens + table).weights
        if kind == "rope":  # q and k turned by positions start .. start + 5
            q_rot = apply_rotary(q, start=start)
            k_rot = apply_rotary(k, start=start)
            return scaled_dot_product_attention(q_rot, k_rot, v).weights
        # alibi: -m |pos_i - pos_j| with m = 0.5, for positions start .. start + 5
        positions = range(start, start + 6)
        bias = Matrix([[-0.5 * abs(pos_i - pos_j) for pos_j in positions]
                       for pos_i in positions])
        assert bias == alibi_bias(6, 0.5, causal=False)  # which has no `start` at all
        return scaled_dot_product_attention(q, k, v, bias=bias).weights

    for kind in ["sinusoidal", "rope", "alibi"]:
        before, after = weights_at(0, kind), weights_at(100, kind)
        change = max(abs(a - b) for row_a, row_b in zip(before, after)
                     for a, b in zip(row_a, row_b))
        print(f"   {kind:<11} largest change in a weight: {change:.4f}")
        lesson.check("sliding the sentence on changes the sinusoidal pattern (by more than "
                     "0.01)" if kind == "sinusoidal" else f"sliding the sentence on leaves "
                     f"{kind}'s weights as they were, to rounding (under 1e-12)",
                     change > 0.01 if kind == "sinusoidal" else change < 1e-12)
    # sinusoidal: 0.1446; rope: 0.0000 (about 1e-16: rounding); alibi: exactly 0
    print("Added sinusoids are absolute: new positions, new inputs, new pattern.")
    print("RoPE and ALiBi see only the distances i - j, which did not change.")

# %% Past the training length
if __name__ == "__main__":
    lesson.stage("Past the training length: say training saw 4 tokens, we give 6")

    learned = LearnedPositionalEmbedding(context_length=4, dim=8)
    try:
        learned(6)
    except ValueError as error:
        print(textwrap.fill(str(error), width=78, initial_indent="   learned:    ",
                            subsequent_indent=" " * 15))
    print("   sinusoidal: PE(4), PE(5) exist, but the model never saw them added")
    print("   rope:       distances 1..3 give the scores they gave in training;")
    print("               only distances 4 and 5 are new angles")
    far_bias = alibi_bias(6, 0.5)[5, 0]  # -0.5 * (5 - 0) = -2.5
    print(f"   alibi:      a new distance is just a larger penalty: {far_bias} at 5")
    print("That each kind can be computed at 6 says nothing about how a trained")
    print("model does there. That is measured: the ALiBi paper (Press et al., 2022)")
    print("trained on short texts and tested on longer ones; sinusoidal and rotary")
    print("models got worse past the training length, ALiBi's kept its perplexity.")
    print("Position interpolation (Chen et al., 2023) exists because RoPE models")
    print("falter past their training length: it squeezes new positions into it.")
    print("Now try exercises 11, 12 and 21: python -m minipe exercises check 11")
