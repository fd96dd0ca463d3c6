"""Chapter 9: the gradients, checked against finite differences; the loss, against a
second, naive forward pass written here from the formulas; the batch sum; training.

Every expected number is worked here: a central difference (L(w + h) - L(w - h)) / 2h of
the model's own loss for the gradients, and plain-list arithmetic for the loss.
"""

from __future__ import annotations

import dataclasses
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import default_training, run

import minipe
from minipe import Matrix, TinyModel, Vector, accuracy, allclose, task_batch, train
from minipe.__main__ import main as minipe_main

ROOT = Path(__file__).resolve().parent.parent
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


def _nudged(model: TinyModel, name: str, i: int, j: int, h: float) -> TinyModel:
    rows = model.parameters()[name].tolist()
    rows[i][j] += h
    return model.with_parameters({**model.parameters(), name: Matrix(rows)})


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("positions", KINDS)
def test_every_gradient_matches_finite_differences(positions: str, causal: bool) -> None:
    model = TinyModel(5, 4, 6, positions=positions, causal=causal, seed=3)
    inputs, targets = _batch(seed=KINDS.index(positions), lengths=(5, 3, 6))  # ragged too
    _, gradients = model.loss_and_gradients(inputs, targets)
    assert set(gradients) == set(model.parameters())
    h = 1e-5
    for name, weight in model.parameters().items():
        assert gradients[name].shape == weight.shape
        for i in range(weight.shape[0]):
            for j in range(weight.shape[1]):
                slope = (_loss(_nudged(model, name, i, j, h), inputs, targets)
                         - _loss(_nudged(model, name, i, j, -h), inputs, targets)) / (2 * h)
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
                slope = (_loss(_nudged(model, name, i, j, h), inputs, targets)
                         - _loss(_nudged(model, name, i, j, -h), inputs, targets)) / (2 * h)
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
    first = train(model, "copy-back", steps=20, k=2)
    assert train(model, "copy-back", steps=20, k=2).losses == first.losses
    assert train(model, "copy-back", steps=20, k=2, seed=1).losses != first.losses
    assert model.parameters() == before and first.model.parameters() != before
    held = model.parameters()
    held.clear()  # a caller's dict is a copy
    assert model.parameters() == before


# Each default run is one model, 300 steps x 8 sequences of T = 8. "none" cannot tell
# which token came before, so the best it can do is guess among the tokens it sees.
# Each trains once, in a process of its own that conftest.py starts beside the other tests:
# train(TinyModel(5, 8, 8, positions=positions), "previous-token"), then its accuracy on 128
# samples and its first and last losses, printed exactly.
@pytest.mark.parametrize("positions", KINDS)
def test_the_defaults_learn_previous_token_and_none_cannot(positions: str) -> None:
    done = run(default_training(positions))
    assert done.returncode == 0, done.stderr
    score, first_loss, last_loss = (float(word) for word in done.stdout.split())
    if positions == "none":
        assert score < 0.65
    else:
        assert score > 0.85  # a margin of 0.2 over the best "none" may reach
    assert last_loss < first_loss


def test_a_learned_table_cannot_read_past_its_rows() -> None:
    model = TinyModel(5, 4, 8, positions="learned")
    with pytest.raises(ValueError, match="context_length=8 rows: there is no row for "
                                         "position 8"):
        model.logits(list(range(5)) * 2)
    with pytest.raises(ValueError, match="context_length=8"):
        accuracy(model, "previous-token", seq_len=16)
    assert model.logits([0] * 8).shape == (8, 5)
    assert TinyModel(5, 4, 8, positions="rope").logits([0] * 32).shape == (32, 5)


def test_bad_arguments_fail_with_a_sentence() -> None:
    with pytest.raises(ValueError, match="positions must be one of none, learned"):
        TinyModel(5, 4, 4, positions="absolute")
    with pytest.raises(ValueError, match="d_model must be even"):
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
    with pytest.raises(ValueError, match=r"parameters\['W_q'\] must be a Matrix of shape"):
        model.with_parameters({**model.parameters(), "W_q": Matrix([[1.0]])})
    with pytest.raises(ValueError, match="task must be one of"):
        train(model, "reverse")
    with pytest.raises(ValueError, match="vocab_size >= 9"):
        train(model, "who-bites-whom")
    with pytest.raises(ValueError, match="learning_rate must be a positive"):
        train(model, "previous-token", learning_rate=-1.0)


def _command(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "minipe.train", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_the_command_trains_and_reports_t_and_2t() -> None:
    done = _command("--positions", "rope", "--steps", "40")
    assert done.returncode == 0 and done.stderr == ""  # no runpy warning: minipe never
    # imports its command module minipe.train, so -m runs it once, as __main__
    lines = done.stdout.splitlines()
    assert lines[-3].startswith("loss ") and lines[-2].startswith("accuracy at T = 8: ")
    assert lines[-1].startswith("at 2T = 16: ")
    assert sum(line.startswith("step ") for line in lines) == 11  # piped: plain lines
    learned = _command("--positions", "learned", "--steps", "5").stdout.splitlines()[-1]
    assert learned.startswith("at 2T = 16: cannot run - the learned table has 8 rows")


def test_the_command_explains_every_option_and_refuses_bad_ones() -> None:
    helped = _command("--help").stdout
    for option in ("--positions", "--task", "--steps", "--batch-size", "--learning-rate",
                   "--seq-len", "--d-model", "--vocab-size", "--k", "--base", "--seed"):
        assert option in helped
    bad = _command("--steps", "0")
    assert bad.returncode == 2 and "steps must be >= 1, got 0" in bad.stderr
    assert "invalid choice: 'absolute'" in _command("--positions", "absolute").stderr


def test_minipe_train_is_the_same_command(capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # importing the command module minipe.train makes it the package's attribute `train`,
    # in place of the function: monkeypatch puts the function back when the test ends
    monkeypatch.setattr(minipe, "train", minipe.train)
    assert minipe_main(["train", "--steps", "3", "--positions", "none"]) == 0
    assert "accuracy at T = 8: " in capsys.readouterr().out


def test_on_a_terminal_the_progress_redraws_one_line() -> None:
    import io
    import runpy

    # run the command's file as a script, so that minipe.train stays the function
    Progress = runpy.run_path(str(ROOT / "minipe" / "train.py"))["Progress"]

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    progress = Progress(steps=4, stream=screen)
    for step in range(1, 5):
        progress(step, 1.0 / step)
    drawn = screen.getvalue()
    assert drawn.count("\r") == 4 and drawn.endswith("\n") and drawn.count("\n") == 1
    assert "step 4/4  loss  0.2500  [" + "#" * 30 + "]" in drawn  # the bar is full at the end
