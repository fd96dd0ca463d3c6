"""Chapter 10: the gradients, checked against finite differences; the loss, against a
second, naive forward pass written here from the formulas; the batch sum; training.

Every expected number is worked here: a central difference (L(w + h) - L(w - h)) / 2h of
the loss of the model's own logits for the gradients, and plain-list arithmetic for the loss.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random

import pytest
from commands import ROOT

from minipe import (Matrix, TinyModel, TrainingResult, Vector, accuracy, allclose, task_batch,
                    train)

KINDS = ("none", "learned", "sinusoidal", "rope", "alibi")


def _batch(seed: int, lengths: tuple[int, ...] = (5, 5, 5), vocab: int = 5
           ) -> tuple[list[list[int]], list[list[int]]]:
    rng = random.Random(seed)
    inputs = [[rng.randrange(vocab) for _ in range(n)] for n in lengths]
    targets = [[rng.randrange(vocab) if rng.random() < 0.7 else -100 for _ in range(n)]
               for n in lengths]
    targets[0][0] = 1  # at least one target that counts
    return inputs, targets


def _loss(model: TinyModel, inputs: list[list[int]], targets: list[list[int]]) -> float:
    return model.loss_and_gradients(inputs, targets)[0]


def _forward_loss(model: TinyModel, inputs: list[list[int]], targets: list[list[int]]
                  ) -> float:
    """The loss of the module docstring from the model's logits alone (no backward pass:
    a third of loss_and_gradients' work), for the finite differences: the mean over every
    target t that is not -100 of -log softmax(row)[t] = log(sum(exp(row))) - row[t]."""
    total, count = 0.0, 0
    for ids, wanted in zip(inputs, targets):
        for row, t in zip(model.logits(ids).tolist(), wanted):
            if t != -100:
                top = max(row)  # exp(s - top) <= 1: no overflow
                total += top + math.log(sum(math.exp(score - top) for score in row)) - row[t]
                count += 1
    return total / count


def _nudged(model: TinyModel, name: str, i: int, j: int, h: float) -> TinyModel:
    rows = model.parameters()[name].tolist()
    rows[i][j] += h
    return model.with_parameters({**model.parameters(), name: Matrix(rows)})


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("positions", KINDS)
def test_every_gradient_matches_finite_differences(positions: str, causal: bool) -> None:
    model = TinyModel(5, 4, 6, positions=positions, causal=causal, seed=3)
    # ragged, and the longer fills T = 6: every row of a learned table is used (two
    # sequences, not three: the slopes cost two forward passes per weight and sequence)
    inputs, targets = _batch(seed=KINDS.index(positions), lengths=(6, 3))
    _, gradients = model.loss_and_gradients(inputs, targets)
    assert set(gradients) == set(model.parameters())
    h = 1e-5
    for name, weight in model.parameters().items():
        assert gradients[name].shape == weight.shape
        for i in range(weight.shape[0]):
            for j in range(weight.shape[1]):
                slope = (_forward_loss(_nudged(model, name, i, j, h), inputs, targets)
                         - _forward_loss(_nudged(model, name, i, j, -h), inputs, targets)
                         ) / (2 * h)
                assert math.isclose(gradients[name][i, j], slope, abs_tol=1e-8), (name, i, j)


def _naive_loss(model: TinyModel, inputs: list[list[int]], targets: list[list[int]], *,
                thetas: list[float] | None = None, scale: float = 1.0,
                slope: float = 0.5) -> float:
    """The module docstring's forward pass, line by line, on plain lists. RoPE turns pair i
    by pos * thetas[i] (base**(-2i/d) unless given), then multiplies q and k by scale."""
    p = {name: weight.tolist() for name, weight in model.parameters().items()}
    d = model.d_model
    if thetas is None:
        thetas = [model.base ** (-2 * i / d) for i in range(d // 2)]

    def matmul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
        return [[sum(a[r][m] * b[m][c] for m in range(len(b))) for c in range(len(b[0]))]
                for r in range(len(a))]

    def turned(rows: list[list[float]]) -> list[list[float]]:  # RoPE, interleaved pairs
        out = []
        for pos, row in enumerate(rows):
            new = list(row)
            for i in range(d // 2):
                a = pos * thetas[i]
                new[2 * i] = scale * (row[2 * i] * math.cos(a) - row[2 * i + 1] * math.sin(a))
                new[2 * i + 1] = scale * (row[2 * i] * math.sin(a) + row[2 * i + 1] * math.cos(a))
            out.append(new)
        return out

    total, count = 0.0, 0
    for ids, wanted in zip(inputs, targets):
        n = len(ids)
        x = [list(p["token_embedding"][t]) for t in ids]
        for pos in range(n):
            for c in range(d):
                if model.positions == "learned":
                    x[pos][c] += p["position_embedding"][pos][c]
                if model.positions == "sinusoidal":  # PE(pos, 2i) = sin, PE(pos, 2i+1) = cos
                    angle = pos / model.base ** (2 * (c // 2) / d)
                    x[pos][c] += math.sin(angle) if c % 2 == 0 else math.cos(angle)
        q, k, v = matmul(x, p["W_q"]), matmul(x, p["W_k"]), matmul(x, p["W_v"])
        if model.positions == "rope":
            q, k = turned(q), turned(k)
        for i in range(n):
            scores = [sum(q[i][c] * k[j][c] for c in range(d)) / math.sqrt(d)
                      - (slope * abs(i - j) if model.positions == "alibi" else 0.0)
                      for j in range(n)]
            seen = range(i + 1) if model.causal else range(n)
            exps = [math.exp(scores[j]) for j in seen]
            weights = [e / sum(exps) for e in exps]
            h = [sum(w * v[j][c] for w, j in zip(weights, seen)) for c in range(d)]
            logits = [sum(h[c] * p["W_out"][c][o] for c in range(d))
                      for o in range(model.vocab_size)]
            if wanted[i] != -100:
                total += -math.log(math.exp(logits[wanted[i]]) / sum(map(math.exp, logits)))
                count += 1
    return total / count


@pytest.mark.parametrize("positions", KINDS)
def test_the_loss_matches_a_naive_forward_pass(positions: str) -> None:
    for causal in (True, False):
        model = TinyModel(5, 4, 6, positions=positions, causal=causal, base=100.0, seed=7)
        inputs, targets = _batch(seed=11, lengths=(6, 4))
        assert math.isclose(_loss(model, inputs, targets), _naive_loss(model, inputs, targets),
                            rel_tol=1e-12)


# Stretched RoPE (chapter 7): any theta_i, and q and k multiplied by a scale (YaRN's)
STRETCHED = Vector([0.3, 0.02])  # d_model = 4: two pairs, any positive angles will do
SCALE = 1.3


@pytest.mark.parametrize("causal", [True, False])
def test_stretched_rope_loss_and_gradients_match_the_formulas(causal: bool) -> None:
    plain = TinyModel(5, 4, 6, positions="rope", causal=causal, seed=5)
    model = plain.with_frequencies(STRETCHED, attention_scale=SCALE)
    inputs, targets = _batch(seed=13, lengths=(6, 4))
    assert math.isclose(_loss(model, inputs, targets),
                        _naive_loss(model, inputs, targets, thetas=[0.3, 0.02], scale=SCALE),
                        rel_tol=1e-12)
    assert not math.isclose(_loss(model, inputs, targets), _loss(plain, inputs, targets))
    _, gradients = model.loss_and_gradients(inputs, targets)
    h = 1e-5
    for name, weight in model.parameters().items():
        for i in range(weight.shape[0]):
            for j in range(weight.shape[1]):
                slope = (_forward_loss(_nudged(model, name, i, j, h), inputs, targets)
                         - _forward_loss(_nudged(model, name, i, j, -h), inputs, targets)
                         ) / (2 * h)
                assert math.isclose(gradients[name][i, j], slope, abs_tol=1e-8), (name, i, j)


def test_with_frequencies_makes_a_new_model_and_training_keeps_them() -> None:
    plain = TinyModel(5, 4, 6, positions="rope", base=100.0)
    assert plain.frequencies == Vector([1.0, 0.1])  # 100**(-2i/4), i = 0, 1
    assert plain.attention_scale == 1.0
    model = plain.with_frequencies(STRETCHED, attention_scale=SCALE)
    assert (model.frequencies, model.attention_scale) == (STRETCHED, SCALE)
    assert plain.frequencies == Vector([1.0, 0.1])  # the model it came from is unchanged
    assert model.parameters() == plain.parameters()
    assert "attention_scale=1.3" in repr(model) and "frequencies" not in repr(plain)
    trained = train(model, "previous-token", steps=2).model
    assert (trained.frequencies, trained.attention_scale) == (STRETCHED, SCALE)
    assert TinyModel(5, 4, 6, positions="alibi").frequencies is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        model.frequencies = Vector([1.0, 1.0])  # type: ignore[misc]  # a new model instead


@pytest.mark.parametrize("causal", [True, False])
def test_other_alibi_slopes_give_the_naive_loss_and_training_keeps_them(causal: bool) -> None:
    inputs, targets = task_batch("previous-token", 5, 6, 3, seed=4)
    plain = TinyModel(5, 4, 6, positions="alibi", causal=causal, seed=2)
    model = plain.with_alibi_slopes((2.0,))
    assert plain.alibi_slopes == (0.5,) and model.alibi_slopes == (2.0,)
    assert math.isclose(_loss(model, inputs, targets),
                        _naive_loss(model, inputs, targets, slope=2.0), rel_tol=1e-12)
    assert not math.isclose(_loss(model, inputs, targets), _loss(plain, inputs, targets))
    assert train(model, "previous-token", steps=2).model.alibi_slopes == (2.0,)
    assert "alibi_slopes=(2.0,)" in repr(model) and "alibi_slopes" not in repr(plain)
    assert TinyModel(5, 4, 6, positions="rope").alibi_slopes is None
    with pytest.raises(ValueError, match="only an ALiBi model has slopes"):
        TinyModel(5, 4, 6, positions="rope").with_alibi_slopes((1.0,))
    with pytest.raises(ValueError, match="one m per head"):
        plain.with_alibi_slopes((1.0, 2.0))
    with pytest.raises(ValueError, match="finite number > 0"):
        plain.with_alibi_slopes((0.0,))


def test_with_frequencies_refuses_what_rope_cannot_use() -> None:
    model = TinyModel(5, 4, 6, positions="rope")
    with pytest.raises(ValueError, match="only a RoPE model .* positions='learned'"):
        TinyModel(5, 4, 6).with_frequencies(STRETCHED)
    with pytest.raises(ValueError, match="Vector of d_model/2 = 2 finite angles"):
        model.with_frequencies(Vector([0.3, 0.02, 0.001]))
    with pytest.raises(ValueError, match="theta_i > 0"):
        model.with_frequencies(Vector([0.3, 0.0]))
    with pytest.raises(ValueError, match="theta_i > 0"):
        model.with_frequencies([0.3, 0.02])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="attention_scale multiplies q and k"):
        model.with_frequencies(STRETCHED, attention_scale=0.0)
    with pytest.raises(TypeError, match="attention_scale must be a number"):
        model.with_frequencies(STRETCHED, attention_scale="1")  # type: ignore[arg-type]


def test_the_learned_tables_gradient_is_the_sum_over_the_batch() -> None:
    # x_b = E[ids_b] + P: P is broadcast over the batch, so dP[t] = sum_b dx_b[t]
    model = TinyModel(5, 4, 6, positions="learned", seed=1)
    inputs, targets = _batch(seed=2, lengths=(6, 6, 4))
    result = model.backprop(inputs, targets)
    summed = [[sum(d_x[t, c] for d_x in result.d_inputs if t < len(d_x)) for c in range(4)]
              for t in range(6)]
    assert allclose(result.gradients["position_embedding"], Matrix(summed), abs_tol=1e-15)
    # ... and, from linearity alone: the batch's mean loss weighs each sequence by its count
    counts = [sum(t != -100 for t in wanted) for wanted in targets]
    alone = [model.loss_and_gradients([ids], [wanted])[1]["position_embedding"]
             for ids, wanted in zip(inputs, targets)]
    weighted = [[sum(c * g[t, j] for c, g in zip(counts, alone)) / sum(counts)
                 for j in range(4)] for t in range(6)]
    assert allclose(result.gradients["position_embedding"], Matrix(weighted), rel_tol=1e-9,
                    abs_tol=1e-15)


def test_fixed_sinusoids_have_no_parameter_though_the_gradient_reaches_x() -> None:
    model = TinyModel(5, 4, 6, positions="sinusoidal")
    inputs, targets = _batch(seed=3)
    result = model.backprop(inputs, targets)
    assert "position_embedding" not in model.parameters()
    assert "position_embedding" not in result.gradients
    assert any(abs(g) > 1e-6 for d_x in result.d_inputs for row in d_x.rows for g in row)


def test_without_positions_mirrored_sentences_get_the_same_answer() -> None:
    # "a man bites a dog who?" and "a dog bites a man who?": the same bag of tokens
    model = train(TinyModel(9, 8, 6, positions="none"), "who-bites-whom", steps=30).model
    a, man, bites, dog, who = 0, 1, 5, 2, 8
    first = model.logits([a, man, bites, a, dog, who])[5]
    second = model.logits([a, dog, bites, a, man, who])[5]
    assert allclose(first, second, rel_tol=1e-12, abs_tol=1e-12)


def test_one_step_of_adam_moves_every_number_by_the_learning_rate() -> None:
    # t = 1: m_hat = g and v_hat = g^2, so W' = W - lr * g / (|g| + 1e-8): lr against g's sign
    model = TinyModel(5, 4, 4, positions="learned", seed=2)
    inputs, targets = task_batch("previous-token", 5, 4, 8, seed=9)
    _, gradients = model.loss_and_gradients(inputs, targets)
    stepped = train(model, "previous-token", steps=1, seed=9, learning_rate=0.01).model
    for name, weight in model.parameters().items():
        for before, after, g in zip(weight.rows, stepped.parameters()[name].rows,
                                    gradients[name].rows):
            for w0, w1, g_j in zip(before, after, g):
                assert math.isclose(w1, w0 - 0.01 * g_j / (abs(g_j) + 1e-8), abs_tol=1e-15)


def test_training_is_seeded_and_leaves_the_model_it_was_given_alone() -> None:
    model = TinyModel(5, 8, 8, positions="rope")
    before = model.parameters()
    first = train(model, "copy-back", steps=5, k=2)  # a few steps show it as well as many
    assert train(model, "copy-back", steps=5, k=2).losses == first.losses
    assert train(model, "copy-back", steps=5, k=2, seed=1).losses != first.losses
    assert model.parameters() == before and first.model.parameters() != before
    held = model.parameters()
    held.clear()  # a caller's dict is a copy
    assert model.parameters() == before


@functools.cache
def default_training(positions: str) -> tuple[float, float, float, float, float]:
    """TinyModel(5, 8, 8, positions) trained at train()'s defaults on previous-token, once a
    session (1.5 s each): its accuracy on 128 samples, its first loss and its last, and its
    accuracy at T = 8 and at 2T = 16 on accuracy()'s default 64 samples, as `python -m minipe
    train` measures them (NaN at 2T for a learned table, which has no row past 7)."""
    result = train(TinyModel(5, 8, 8, positions=positions), "previous-token")
    score = accuracy(result.model, "previous-token", samples=128)
    at_T = accuracy(result.model, "previous-token")
    at_2T = (accuracy(result.model, "previous-token", seq_len=16)
             if positions != "learned" else math.nan)
    return score, result.losses[0], result.losses[-1], at_T, at_2T


# Each default run is one model, 300 steps x 8 sequences of T = 8. "none" cannot tell
# which token came before, so the best it can do is guess among the tokens it sees. Three
# of the five kinds: none; sinusoidal, the slowest to learn (lesson 15 sends the learner
# to its default run to see it go on); rope, the README's run. Learned and ALiBi learn
# previous-token in lesson 15's shorter runs.
@pytest.mark.slow
@pytest.mark.parametrize("positions", ["none", "sinusoidal", "rope"])
def test_the_defaults_learn_previous_token_and_none_cannot(positions: str) -> None:
    score, first_loss, last_loss, _, _ = default_training(positions)
    if positions == "none":
        assert score < 0.65
    else:
        assert score > 0.85  # a margin of 0.2 over the best "none" may reach
    assert last_loss < first_loss


@pytest.mark.slow
def test_the_defaults_learn_what_the_readme_shows() -> None:
    """The README's run of `python -m minipe train --positions rope --task previous-token`
    is train()'s defaults: its losses and accuracies are the default rope training's, as the
    command formats them (only its seconds depend on the machine)."""
    _, first_loss, last_loss, at_T, at_2T = default_training("rope")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = readme.split("    python -m minipe train --positions rope --task previous-token\n",
                         1)[1].split("\n\n", 2)[1]  # the indented output after the paragraph
    assert "TinyModel(vocab_size=5, d_model=8, context_length=8, positions='rope')" in shown
    assert "task previous-token: 300 steps x 8 sequences of T = 8, Adam at 0.05" in shown
    assert f"step   1/300  loss  {first_loss:.4f}" in shown
    assert f"step 300/300  loss  {last_loss:.4f}" in shown
    assert f"loss {first_loss:.4f} -> {last_loss:.4f} in " in shown
    lines = [line.strip() for line in shown.splitlines()]
    assert f"accuracy at T = 8: {at_T:.1%}" in lines and f"at 2T = 16: {at_2T:.1%}" in lines


def test_a_learned_table_cannot_read_past_its_rows() -> None:
    model = TinyModel(5, 4, 8, positions="learned")
    with pytest.raises(ValueError, match="context_length=8 rows: there is no row for "
                                         "position 8"):
        model.logits(list(range(5)) * 2)
    with pytest.raises(ValueError, match="context_length=8"):
        accuracy(model, "previous-token", seq_len=16)
    assert model.logits([0] * 8).shape == (8, 5)
    assert TinyModel(5, 4, 8, positions="rope").logits([0] * 32).shape == (32, 5)


def test_an_induction_batch_repeats_a_stretch_and_asks_the_token_after_its_copy() -> None:
    """Seed 0's sequence, worked by hand: 0 2 3 at 1..3 comes again at 4..6; at 4 (a 0) the
    next token is the one after the earlier 0, a 2; at 5 (a 2), a 3; at 6 the repeat's last
    token, whose next is not part of it, and everywhere else, nothing is asked (-100)."""
    inputs, targets = task_batch("induction", 6, 8, 1, seed=0)
    assert inputs == [[3, 0, 2, 3, 0, 2, 3, 1]]
    assert targets == [[-100, -100, -100, -100, 2, 3, -100, -100]]
    inputs, targets = task_batch("induction", 16, 12, 50, seed=3)
    assert len(inputs) == len(targets) == 50
    for ids, wanted in zip(inputs, targets):  # the rule, read off each sequence
        assert len(ids) == len(wanted) == 12 and all(0 <= t < 16 for t in ids)
        asked = [i for i, t in enumerate(wanted) if t != -100]
        length = len(asked) + 1  # the repeat's L: L - 1 of its tokens are asked
        start = asked[0] - length  # where the first copy begins
        assert 2 <= length <= 6 and start >= 0 and asked == list(range(asked[0], asked[-1] + 1))
        assert ids[start:start + length] == ids[start + length:start + 2 * length]
        assert len(set(ids[start:start + length])) == length  # L different tokens
        assert all(wanted[i] == ids[i + 1] == ids[i + 1 - length] for i in asked)
    with pytest.raises(ValueError, match="seq_len must be at least 4, got 3"):
        task_batch("induction", 6, 3, 1)


def test_training_result_keeps_its_losses_whatever_list_it_was_given() -> None:
    """A TrainingResult made from a list holds a tuple of its own: changing the list later
    changes neither its losses nor what its repr prints."""
    given = [2.0, 1.0]
    result = TrainingResult(TinyModel(5, 4, 4), given,  # type: ignore[arg-type]
                            "previous-token", 4)
    given[1] = 99.0
    assert result.losses == (2.0, 1.0) and repr(result).endswith("loss 2 -> 1)")


def test_a_batch_too_big_for_memory_is_refused_before_the_first_step() -> None:
    """A step holds about (20 d + 2 vocab) numbers a token and 3 T x T a head: at d 8, vocab
    5, T 8, one head, 8 * 170 + 192 = 1,552 a sequence; 100,000 sequences, 155,200,000
    numbers at 32 bytes, about 5 GB, past the 4 GB minipe builds."""
    with pytest.raises(ValueError, match=r"a training step of batch_size=100,000 sequences of "
                                         r"T = 8 tokens at d_model=8 would hold 155,200,000 "
                                         r"numbers, about 5 GB"):
        train(TinyModel(5, 8, 8), "previous-token", batch_size=100_000)
    assert len(train(TinyModel(5, 8, 8), "previous-token", steps=1, batch_size=500).losses) == 1


def test_bad_arguments_fail_with_a_sentence() -> None:
    with pytest.raises(ValueError, match="copy-back needs vocab_size >= 2 token kinds, got 1"):
        train(TinyModel(1, 4, 4), "copy-back")  # one kind: every answer right by default
    with pytest.raises(ValueError, match="positions must be one of sinusoidal, learned, none"):
        TinyModel(5, 4, 4, positions="absolute")
    with pytest.raises(ValueError, match="positions='rope' needs an even d_model, got d_model="):
        TinyModel(5, 3, 4, positions="rope")
    model = TinyModel(5, 4, 4)
    with pytest.raises(IndexError, match="vocab_size=5"):
        model.logits([0, 5])
    with pytest.raises(ValueError, match="one target per token"):
        model.loss_and_gradients([[0, 1]], [[1]])
    with pytest.raises(ValueError, match="the loss .* is undefined"):
        model.loss_and_gradients([[0, 1]], [[-100, -100]])
    with pytest.raises(ValueError, match=r"targets\[0\]\[1\] = 7"):
        model.loss_and_gradients([[0, 1]], [[1, 7]])
    with pytest.raises(ValueError, match=r"parameters\['W_q'\] has shape \(1, 1\) and "
                       r"the W_q these settings need has shape \(4, 4\): axis 0 has 1 vs 4"):
        model.with_parameters({**model.parameters(), "W_q": Matrix([[1.0]])})
    with pytest.raises(ValueError, match="task must be one of"):
        train(model, "reverse")
    with pytest.raises(ValueError, match="vocab_size >= 9"):
        train(model, "who-bites-whom")
    with pytest.raises(ValueError, match="learning_rate must be a positive"):
        train(model, "previous-token", learning_rate=-1.0)


# Bad input (issue 18): refused at the door with a sentence, never a wrong result


def test_a_model_too_big_for_a_laptop_is_refused_with_an_estimate() -> None:
    # TinyModel(10**10, 8, 8): (2 * 10**10 + 8 + 3 * 8) * 8 numbers, 32 bytes each
    numbers = (2 * 10**10 + 8 + 3 * 8) * 8
    assert numbers == 160_000_000_256
    with pytest.raises(ValueError, match="would hold 160,000,000,256 numbers, about 5,120 GB "
                                         "at ~32 bytes per number .* 4 GB"):
        TinyModel(10**10, 8, 8)
    with pytest.raises(ValueError, match="context_length"):  # a learned table of 10**9 rows
        TinyModel(5, 8, 10**9)
    TinyModel(5, 8, 10**9, positions="rope")  # no table has context_length rows: fine
    with pytest.raises(ValueError, match="attention weights for ids, n x n, would hold"):
        TinyModel(5, 4, 8, positions="rope").logits([0] * 20_000)  # 4e8 weights: 12.8 GB


def test_replace_keeps_what_training_learned_and_what_stretching_set() -> None:
    model = TinyModel(5, 4, 6, positions="rope", seed=1)
    trained = train(model, "previous-token", steps=3).model
    assert trained.parameters() != model.parameters()
    unmasked = dataclasses.replace(trained, causal=False)
    assert unmasked.parameters() == trained.parameters() and not unmasked.causal
    stretched = trained.with_frequencies(STRETCHED, attention_scale=SCALE)
    kept = dataclasses.replace(stretched, causal=False)
    assert (kept.frequencies, kept.attention_scale) == (STRETCHED, SCALE)
    reseeded = dataclasses.replace(stretched, seed=3, weights=None)  # a fresh draw, asked for
    assert reseeded.parameters() == TinyModel(5, 4, 6, positions="rope", seed=3).parameters()
    assert (reseeded.frequencies, reseeded.attention_scale) == (STRETCHED, SCALE)
    rebased = dataclasses.replace(stretched, base=100.0, frequencies=None)  # asked for too
    assert rebased.frequencies == Vector([1.0, 0.1])  # 100**(-2i/4), i = 0, 1
    assert rebased.parameters() == trained.parameters()
    slopes = TinyModel(5, 4, 6, positions="alibi").with_alibi_slopes((2.0,))
    assert dataclasses.replace(slopes, causal=False).alibi_slopes == (2.0,)
    # a change the tables or theta_i cannot follow is refused, not redrawn silently
    with pytest.raises(ValueError, match=r"parameters\['token_embedding'\] has shape "
                       r"\(5, 4\) and the token_embedding these settings need has shape "
                       r"\(5, 8\): axis 1 has 4 vs 8"):
        dataclasses.replace(trained, d_model=8)
    with pytest.raises(ValueError, match="only a RoPE model turns q and k"):
        dataclasses.replace(stretched, positions="alibi")
    with pytest.raises(ValueError, match="no parameters named \\['position_embedding'\\]"):
        dataclasses.replace(TinyModel(5, 4, 6), positions="none")
    with pytest.raises(ValueError, match="only an ALiBi model has slopes"):
        dataclasses.replace(slopes, positions="none")


def test_replace_makes_theta_i_and_slopes_again_or_names_weights_none() -> None:
    import pickle
    rope = TinyModel(5, 8, 6, positions="rope")
    assert dataclasses.replace(rope, base=100.0).frequencies == Vector(
        [1.0, 100 ** -0.25, 0.1, 100 ** -0.75])  # 100**(-2i/8): the new base's, not 10000's
    assert dataclasses.replace(rope, num_heads=2).frequencies == Vector([1.0, 0.01])  # d 4
    assert dataclasses.replace(rope, positions="alibi").alibi_slopes == (0.5,)
    thawed = pickle.loads(pickle.dumps(rope))  # still made from its base after a pickle
    assert dataclasses.replace(thawed, base=100.0).frequencies[1] == 100 ** -0.25
    alibi = TinyModel(5, 8, 6, positions="alibi")
    assert dataclasses.replace(alibi, num_heads=2).alibi_slopes == (2 ** -4, 2 ** -8)
    assert dataclasses.replace(alibi, positions="rope").frequencies == Vector(
        [1.0, 0.1, 0.01, 0.001])
    # given slopes and trained tables are kept: a change they cannot follow names the way out
    with pytest.raises(ValueError, match=r"got \(2.0,\) \(the slopes given are kept by "
                                         r"dataclasses.replace: for num_heads=2, pass "
                                         r"alibi_slopes=None\)"):
        dataclasses.replace(alibi.with_alibi_slopes((2.0,)), num_heads=2)
    for change in ({"d_model": 16}, {"positions": "learned"}, {"vocab_size": 9}):
        with pytest.raises((ValueError, TypeError), match="fix vocab_size, d_model, context_"
                                             "length, positions, num_layers, mlp and "
                                             "norm; to change one, pass weights=None"):
            dataclasses.replace(rope, **change)
    assert dataclasses.replace(rope, d_model=16, weights=None).parameters()["W_q"].shape == (
        16, 16)


def test_the_models_tables_cannot_be_changed_through_it_and_it_pickles() -> None:
    import copy
    import pickle

    model = TinyModel(5, 4, 6, positions="alibi").with_alibi_slopes((2.0,))
    with pytest.raises(TypeError, match="does not support item assignment"):
        model.weights["W_q"] = Matrix([[0.0] * 4] * 4)  # type: ignore[index]
    for twin in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model), copy.copy(model)):
        assert twin == model and twin.alibi_slopes == (2.0,)
        assert twin.parameters() == model.parameters()


def test_a_model_is_hashable_and_equal_models_hash_alike() -> None:
    model = TinyModel(5, 4, 6, positions="rope")
    same = TinyModel(5, 4, 6, positions="rope")
    assert model == same and hash(model) == hash(same)
    assert len({model, same, TinyModel(5, 4, 6, positions="rope", seed=1)}) == 2


def test_numbers_that_would_overflow_inside_are_refused_at_the_door() -> None:
    model = TinyModel(5, 4, 6, positions="rope")
    endless = Matrix([[math.inf] * 4] * 4)
    with pytest.raises(ValueError, match=r"parameters\['W_q'\] holds a number of size inf"):
        model.with_parameters({**model.parameters(), "W_q": endless})
    huge = Matrix([[1e300] * 4] * 4)  # finite, but q . k would be about 1e1200
    with pytest.raises(ValueError, match="at most 1e\\+30"):
        model.with_parameters({**model.parameters(), "W_k": huge})
    # at the limit, every weight 1e30 in size, the loss and every gradient stay finite:
    # the longest product, dW_q = x^T dq, multiplies 6 weights (about 1e180)
    rng = random.Random(0)
    edge = model.with_parameters({name: Matrix([[rng.choice((-1e30, 1e30)) for _ in row]
                                                for row in W.rows])
                                  for name, W in model.parameters().items()})
    loss, gradients = edge.with_frequencies(STRETCHED, attention_scale=1e6).loss_and_gradients(
        *task_batch("previous-token", 5, 6, 2))
    assert math.isfinite(loss)
    assert all(math.isfinite(g) for G in gradients.values() for row in G.rows for g in row)
    with pytest.raises(ValueError, match="at most 1e\\+06 .* got 1e\\+200"):
        model.with_frequencies(STRETCHED, attention_scale=1e200)
    with pytest.raises(ValueError, match="only a RoPE model"):
        dataclasses.replace(TinyModel(5, 4, 6), attention_scale=2.0)
    spinning = model.with_frequencies(Vector([1e308, 1.0]))  # finite, but 2 x 1e308 is not
    assert spinning.logits([0, 1]).shape == (2, 5)  # angle 1 x 1e308: finite, cos works
    with pytest.raises(ValueError, match=r"the angle pos \* theta_i = 2 \* 1e\+308 is past"):
        spinning.logits([0, 1, 2])  # not math.cos's "math domain error" from inside
    # a finite ALiBi slope past 1e290: -m |i - j| would be -inf at distance 2**53
    alibi = TinyModel(5, 4, 6, positions="alibi")
    with pytest.raises(ValueError, match=r"each ALiBi slope m must be a finite number > 0 and "
                                         r"at most 1e\+290 .* got \(1e\+300,\)"):
        alibi.with_alibi_slopes((1e300,))
    far = alibi.with_alibi_slopes((1e290,)).logits([0, 1], position_ids=[0, 2**53])
    assert all(math.isfinite(score) for row in far.rows for score in row)


def test_an_empty_list_of_ids_is_refused_as_empty() -> None:
    model = TinyModel(5, 4, 6)
    empties: tuple[list[int], tuple[int, ...]] = ([], ())
    for empty in empties:
        with pytest.raises(ValueError, match="ids is empty: a model reads at least one token"):
            model.logits(empty)


def test_who_bites_whom_refuses_a_length_it_ignores_and_accuracy_names_samples() -> None:
    with pytest.raises(ValueError, match="seq_len must be 6 .* got 8"):
        task_batch("who-bites-whom", 9, 8, 2)
    inputs, _ = task_batch("who-bites-whom", 9, 6, 2)
    assert [len(ids) for ids in inputs] == [6, 6]  # a man bites a dog who?
    model = TinyModel(9, 4, 6)
    with pytest.raises(ValueError, match="samples must be >= 1, got 0"):
        accuracy(model, "previous-token", samples=0)
    with pytest.raises(ValueError, match="seq_len must be 6"):
        accuracy(model, "who-bites-whom", seq_len=8)


def test_a_diverging_run_says_where_and_what_to_try() -> None:
    # Adam's first step moves every weight by learning_rate (see the test above): with 1e6,
    # every weight is about 1e6 at step 2, the logits about 1e6**4, and the loss far past
    # the limit 100 ln(5) = 160.9; with 1e40, the weights pass 1e30 at step 1 already
    model = TinyModel(5, 8, 8)
    with pytest.raises(ValueError, match="diverged at step 2: the loss reached .*, past 160.9 = "
                                         "100 ln\\(vocab_size\\), .* learning_rate=1e\\+06 is too large .* try "
                                         "learning_rate=0.05. The model you passed in"):
        train(model, "previous-token", learning_rate=1e6)
    with pytest.raises(ValueError, match="diverged at step 1: its weights grew without bound"
                                         ".* try learning_rate=0.05"):
        train(model, "previous-token", learning_rate=1e40)
    assert model == TinyModel(5, 8, 8)  # untouched
    # weights 1e20 times the drawn ones make logits that differ by about 1e20**2 at once:
    # step 1 diverges whatever the rate, and the rate to try is ten times smaller
    blown = model.with_parameters({name: W * 1e20 for name, W in model.parameters().items()})
    with pytest.raises(ValueError, match="diverged at step 1: .* try learning_rate=0.001. "):
        train(blown, "previous-token", learning_rate=0.01)
