"""TinyModel with heads, masks and position_ids against PyTorch (issue 19).

The expected logits, losses and gradients live in tests/reference/model_reference.json,
written by tests/reference/make_model_reference.py: the model written in PyTorch 2.13.0
(float64, autograd), the way Hugging Face runs a padded or packed batch, on tables drawn
there and stored beside the outputs. This suite needs no PyTorch. The two compute the same
formulas in another order (batched matmuls), so they agree to about 1e-15 relative.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from minipe import Matrix, TinyModel, allclose

REFERENCE: dict[str, Any] = json.loads(
    (Path(__file__).parent / "reference" / "model_reference.json").read_text())
CASES = REFERENCE["cases"]


def test_the_reference_says_where_it_came_from() -> None:
    assert "torch 2.13.0" in REFERENCE["made_by"] and len(CASES) == 4


def _model(case: dict[str, Any]) -> TinyModel:
    slopes = case["alibi_slopes"]
    return TinyModel(case["vocab_size"], case["d_model"], case["context_length"],
                     positions=case["positions"], causal=case["causal"], base=case["base"],
                     num_heads=case["num_heads"], rotary_fraction=case["rotary_fraction"],
                     alibi_slopes=tuple(slopes) if slopes else None,
                     weights={name: Matrix(rows) for name, rows in case["weights"].items()})


def assert_matches_pytorch(model: TinyModel, case: dict[str, Any], *, logits_tol: float,
                           gradients_abs_tol: float) -> None:
    """The model's logits, loss and every gradient against what torch saved for `case`
    (tests/test_layers.py reads its own reference with this too)."""
    mask = case["attention_mask"] if case["table"] is None else [case["table"]]
    logits = model.logits(case["ids"], attention_mask=mask, position_ids=case["position_ids"])
    for b, expected in enumerate(case["logits"]):
        assert allclose(logits[b], expected, rel_tol=logits_tol, abs_tol=1e-12), b
    loss, gradients = model.loss_and_gradients(case["ids"], case["targets"],
                                               attention_mask=mask,
                                               position_ids=case["position_ids"])
    assert math.isclose(loss, case["loss"], rel_tol=1e-12)
    assert set(gradients) == set(case["gradients"])
    for name, expected in case["gradients"].items():
        assert allclose(gradients[name], expected, rel_tol=1e-10,
                        abs_tol=gradients_abs_tol), name


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_logits_loss_and_gradients_match_pytorch(case: dict[str, Any]) -> None:
    assert_matches_pytorch(_model(case), case, logits_tol=1e-12, gradients_abs_tol=1e-13)
