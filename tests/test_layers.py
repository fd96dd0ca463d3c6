"""Chapter 10's block models (minipe/training/layers.py): layers, norms and MLPs.

The backward pass against central finite differences (L(w + h) - L(w - h)) / 2h on every
parameter of small block models, every kind of positions, every norm, with and without
MLPs; the logits, loss and gradients against PyTorch autograd on the same weights
(tests/reference/layers_reference.json, written by tests/reference/make_layers_reference.py
from the formulas, float64); the residual stream and attention weights a lesson reads; the
door's sentences.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from minipe import Matrix, TinyModel, allclose, train
from minipe.training.lab import step_numbers
from test_model_reference import assert_matches_pytorch

KINDS = ("none", "learned", "sinusoidal", "rope", "alibi")
REFERENCE: dict[str, Any] = json.loads(
    (Path(__file__).parent / "reference" / "layers_reference.json").read_text())
CASES = REFERENCE["cases"]


def _block(positions: str, norm: str | None, mlp: bool, layers: int = 2,
           d: int = 4, **settings: Any) -> TinyModel:
    """A small block model whose norm weights are not all ones (so their gradients show)."""
    model = TinyModel(5, d, 6, positions=positions, num_heads=2, num_layers=layers, mlp=mlp,
                      norm=norm, seed=3, **settings)
    rng = random.Random(7)
    tables = {name: Matrix([[value + rng.uniform(-0.3, 0.3) for value in row]
                            for row in table.tolist()]) if "norm" in name else table
              for name, table in model.parameters().items()}
    return model.with_parameters(tables)


INPUTS = [[1, 3, 0, 4, 2], [2, 2, 4, 0, 0]]
TARGETS = [[3, 0, 4, 2, -100], [2, 4, -100, 1, -100]]
MASK = [[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]]  # the second sequence padded after 3 tokens


def _forward_loss(model: TinyModel, **given: Any) -> float:
    """The loss from the model's logits alone (no backward pass: a third of the work): the
    mean over every target t that is not -100 of log(sum(exp(row))) - row[t]."""
    total, count = 0.0, 0
    logits = model.logits(INPUTS, **given)
    for b, wanted in enumerate(TARGETS):
        for row, t in zip(logits[b].tolist(), wanted):
            if t != -100:
                top = max(row)  # exp(s - top) <= 1: no overflow
                total += top + math.log(sum(math.exp(score - top) for score in row)) - row[t]
                count += 1
    return total / count


def _finite_differences(model: TinyModel, every: int | None, **given: Any) -> None:
    """dL/dw against (L(w + h) - L(w - h)) / 2h on each `every`-th number of every table,
    or (every=None) on one number of each table, drawn."""
    loss, gradients = model.loss_and_gradients(INPUTS, TARGETS, **given)
    assert set(gradients) == set(model.parameters())
    assert math.isclose(loss, _forward_loss(model, **given), rel_tol=1e-12)
    h, rng = 1e-6, random.Random(0)
    for name, table in model.parameters().items():
        rows = table.tolist()
        cells = [(i, j) for i in range(len(rows)) for j in range(len(rows[0]))]
        for i, j in cells[::every] if every else [rng.choice(cells)]:
            nudged = []
            for step in (h, -h):
                changed = [list(row) for row in rows]
                changed[i][j] += step
                other = model.with_parameters({**model.parameters(), name: Matrix(changed)})
                nudged.append(_forward_loss(other, **given))
            slope = (nudged[0] - nudged[1]) / (2 * h)
            assert math.isclose(gradients[name][i, j], slope, rel_tol=1e-5, abs_tol=1e-8), (
                name, i, j, gradients[name][i, j], slope)


NORMS = (None, "layer", "rms")
GRID = [pytest.param(positions, norm, marks=() if k % 3 == n else pytest.mark.slow)
        for k, positions in enumerate(KINDS) for n, norm in enumerate(NORMS)]  # a third quick


@pytest.mark.parametrize(("positions", "norm"), GRID)
def test_a_two_layer_blocks_gradients_match_finite_differences(positions: str,
                                                               norm: str | None) -> None:
    """Every table of a 2-layer block with MLPs, 2 heads, a padded batch: a number of each."""
    _finite_differences(_block(positions, norm, mlp=True), every=None, attention_mask=MASK)


@pytest.mark.parametrize("positions", KINDS)
def test_three_layers_without_mlps_match_finite_differences(positions: str) -> None:
    """Attention layers alone on the residual stream, position_ids given."""
    model = _block(positions, "layer", mlp=False, layers=3, causal=positions != "alibi")
    _finite_differences(model, every=None, position_ids=[[0, 1, 2, 3, 4], [2, 3, 4, 5, 5]])


def test_partial_rotary_and_own_slopes_in_every_layer_match_finite_differences() -> None:
    rope = _block("rope", "rms", mlp=True, d=8, rotary_fraction=0.5)
    _finite_differences(rope, every=None, attention_mask=MASK)
    alibi = _block("alibi", None, mlp=False, alibi_slopes=(0.75, 0.125))
    _finite_differences(alibi, every=None)


@pytest.mark.slow
@pytest.mark.parametrize(("positions", "norm", "mlp"), [
    ("none", None, True), ("learned", "layer", True), ("sinusoidal", "rms", True),
    ("rope", "layer", False), ("alibi", "rms", True), ("rope", "layer", True)])
def test_every_number_of_every_table_matches_finite_differences(positions: str,
                                                                norm: str | None,
                                                                mlp: bool) -> None:
    _finite_differences(_block(positions, norm, mlp), every=1, attention_mask=MASK)


def _reference_model(case: dict[str, Any]) -> TinyModel:
    slopes = case["alibi_slopes"]
    return TinyModel(case["vocab_size"], case["d_model"], case["context_length"],
                     positions=case["positions"], causal=case["causal"], base=case["base"],
                     num_heads=case["num_heads"], rotary_fraction=case["rotary_fraction"],
                     alibi_slopes=tuple(slopes) if slopes else None,
                     num_layers=case["num_layers"], mlp=case["mlp"], norm=case["norm"],
                     weights={name: Matrix(rows) for name, rows in case["weights"].items()})


def test_the_reference_says_where_it_came_from() -> None:
    assert "torch 2.13.0" in REFERENCE["made_by"] and len(CASES) == 6


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_logits_loss_and_gradients_match_pytorch(case: dict[str, Any]) -> None:
    assert_matches_pytorch(_reference_model(case), case, logits_tol=1e-10,
                           gradients_abs_tol=1e-12)


def test_a_block_models_tables_are_named_by_layer() -> None:
    model = TinyModel(5, 4, 6, positions="learned", num_layers=2, mlp=True, norm="layer")
    shapes = {name: table.shape for name, table in model.parameters().items()}
    assert list(shapes)[:2] == ["token_embedding", "position_embedding"]
    assert shapes["layer1.W_1"] == (4, 16) and shapes["layer1.W_2"] == (16, 4)
    assert shapes["layer0.norm_2.bias"] == (1, 4) and list(shapes)[-1] == "W_out"
    assert model.parameters()["norm_final.weight"].tolist() == [[1.0] * 4]  # ones
    assert model.parameters()["norm_final.bias"].tolist() == [[0.0] * 4]  # zeros
    largest = max(abs(w) for row in model.parameters()["layer0.W_2"].tolist() for w in row)
    assert 0.2 < largest <= 1 / math.sqrt(16)  # U(-1/sqrt(fan_in), ...), fan_in 4 d
    rms = TinyModel(5, 4, 6, positions="rope", num_layers=3, norm="rms")
    assert sorted(name for name in rms.parameters() if "layer2" in name) == [
        "layer2.W_k", "layer2.W_q", "layer2.W_v", "layer2.norm_1.weight"]
    plain = TinyModel(5, 4, 6, positions="rope")  # one layer: today's names and numbers
    assert rms.parameters()["token_embedding"] == plain.parameters()["token_embedding"]
    assert sorted(plain.parameters()) == ["W_k", "W_out", "W_q", "W_v", "token_embedding"]


def test_the_residual_stream_adds_each_layers_heads() -> None:
    """Without norms and MLPs, layer l adds what a one-layer model with its W_q, W_k, W_v
    outputs on the stream coming in: residuals[1] - residuals[0] is that model's h."""
    model = TinyModel(5, 4, 6, positions="rope", num_heads=2, num_layers=2)
    ids = [1, 4, 2, 0]
    stream = model.residuals(ids)
    assert [table.shape for table in stream] == [(4, 4)] * 3
    tables = model.parameters()
    one = TinyModel(5, 4, 6, positions="rope", num_heads=2, weights={
        "token_embedding": tables["token_embedding"], "W_out": tables["W_out"],
        **{name: tables[f"layer0.{name}"] for name in ("W_q", "W_k", "W_v")}})
    x, h = one.residuals(ids)
    assert x == stream[0]
    assert allclose(stream[1] - stream[0], h, rel_tol=1e-12, abs_tol=1e-15)
    assert allclose(one.logits(ids), h @ tables["W_out"], rel_tol=1e-12)
    weights = model.attention_weights(ids)
    assert len(weights) == 2 and all(len(layer) == 2 for layer in weights)
    assert weights[0] == one.attention_weights(ids)[0]
    assert weights[1][0][0].tolist() == [1.0, 0.0, 0.0, 0.0]  # causal: token 0 sees itself
    assert allclose(model.logits(ids), stream[-1] @ tables["W_out"], rel_tol=1e-12)


def test_the_door_names_the_argument() -> None:
    with pytest.raises(ValueError, match="num_layers must be >= 1, got 0"):
        TinyModel(5, 4, 6, num_layers=0)
    with pytest.raises(TypeError, match="num_layers must be an int"):
        TinyModel(5, 4, 6, num_layers=2.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="mlp must be True or False, got 'yes'"):
        TinyModel(5, 4, 6, mlp="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="norm must be None .* 'layer' .* 'rms'.*got 'batch'"):
        TinyModel(5, 4, 6, norm="batch")
    model = TinyModel(5, 4, 6)
    with pytest.raises(ValueError, match="num_layers, mlp and norm; to change one, pass "
                                         "weights=None"):
        dataclasses.replace(model, num_layers=2)
    deeper = dataclasses.replace(model, num_layers=2, weights=None)
    assert "layer1.W_q" in deeper.parameters() and deeper.num_layers == 2
    with pytest.raises(TypeError, match="one sequence of IDs .* got a batch of 2"):
        deeper.residuals([[1, 2], [2, 3]])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="context_length=6 rows"):
        deeper.attention_weights([1] * 7)
    assert repr(deeper) == ("TinyModel(vocab_size=5, d_model=4, context_length=6, "
                            "positions='learned', num_layers=2)")
    assert repr(TinyModel(5, 4, 6, mlp=True, norm="rms")) == (
        "TinyModel(vocab_size=5, d_model=4, context_length=6, positions='learned', "
        "num_layers=1, mlp=True, norm='rms')")


def test_train_moves_every_table_of_a_block_model() -> None:
    """Adam works over parameters() by name: every table of a 2-layer block with MLPs and
    layer norms moves in its first step."""
    model = TinyModel(5, 8, 6, positions="rope", num_heads=2, num_layers=2, mlp=True,
                      norm="layer")
    result = train(model, "previous-token", steps=1, batch_size=2)
    before, after = model.parameters(), result.model.parameters()
    assert list(after) == list(before)
    assert all(after[name] != before[name] for name in before), [
        name for name in before if after[name] == before[name]]
    assert step_numbers(result.model, 6) == 6 * (2 * 2 * 20 * 8 + 2 * 5) + 3 * 2 * 2 * 36


@pytest.mark.slow
def test_a_block_model_learns_previous_token() -> None:
    model = TinyModel(5, 8, 6, positions="rope", num_heads=2, num_layers=2, mlp=True,
                      norm="layer")
    losses = train(model, "previous-token", steps=60, batch_size=4, learning_rate=0.02).losses
    assert sum(losses[-10:]) / 10 < 0.5 * sum(losses[:10]) / 10, losses


def test_with_frequencies_turns_every_layer() -> None:
    """RoPE reads pos * theta_i in every layer: theta_i doubled at positions 0, 1, 2, 3 is the
    model at positions 0, 2, 4, 6 (2 theta is exact, so are the products); and the cache
    follows the new frequencies too."""
    model = TinyModel(5, 8, 8, positions="rope", num_heads=2, num_layers=2, mlp=True,
                      norm="layer", seed=2)
    assert model.frequencies is not None
    doubled = model.with_frequencies(model.frequencies * 2)
    ids = [1, 4, 2, 3]
    assert doubled.logits(ids) == model.logits(ids, position_ids=[0, 2, 4, 6])
    assert doubled.logits(ids) != model.logits(ids)
    assert doubled.generate([1, 4], 6) == doubled.generate([1, 4], 6, use_cache=False)
