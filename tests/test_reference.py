"""minipe against PyTorch and NumPy.

The expected numbers live in tests/reference/reference.json, written by
tests/reference/make_reference.py with torch 2.13.0 (CPU) and numpy 2.4.6 in
float64; this test suite needs neither. Where the reference computes a formula
another way, the tolerance says how closely the two ways agree.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from minipe import (
    Batch,
    Matrix,
    ShapeError,
    Vector,
    allclose,
    broadcast_shapes,
    scaled_dot_product_attention,
    sinusoidal_encoding,
    softmax,
)

REFERENCE: dict[str, Any] = json.loads(
    (Path(__file__).parent / "reference" / "reference.json").read_text())


def test_the_reference_says_where_it_came_from() -> None:
    assert "torch" in REFERENCE["made_by"] and "numpy" in REFERENCE["made_by"]


def test_sinusoidal_table_matches_the_exp_log_form_of_the_tutorials() -> None:
    # PyTorch's tutorial computes 1 / 10000**(2i/d) as exp(2i * -log(10000) / d) and
    # multiplies; minipe divides pos by 10000**(2i/d). The two differ in the last bits only.
    small = REFERENCE["sinusoidal"]["small"]
    ours = sinusoidal_encoding(small["num_positions"], small["d_model"])
    assert allclose(ours, small["table"], rel_tol=0.0, abs_tol=1e-13)


def test_gpt2_sized_table_matches_the_reference_rows() -> None:
    gpt2 = REFERENCE["sinusoidal"]["gpt2"]
    ours = sinusoidal_encoding(gpt2["num_positions"], gpt2["d_model"])
    for pos, expected in zip(gpt2["rows"], gpt2["values"]):
        # angles up to 1023 radians: the two forms drift apart by ~1e-13 there
        assert allclose(ours[pos], expected, rel_tol=0.0, abs_tol=1e-11), pos


def test_base_100000_matches() -> None:
    base = REFERENCE["sinusoidal"]["base_100000"]
    ours = sinusoidal_encoding(base["num_positions"], base["d_model"], base=100000.0)
    assert allclose(ours, base["table"], rel_tol=0.0, abs_tol=1e-13)


@pytest.mark.parametrize("case", REFERENCE["softmax"])
def test_softmax_matches_torch(case: dict[str, Any]) -> None:
    x = [-math.inf if value == "-inf" else value for value in case["x"]]
    assert allclose(softmax(x), case["softmax"], rel_tol=1e-14, abs_tol=1e-15)


@pytest.mark.parametrize("kind", ["plain", "causal"])
def test_attention_matches_torch_scaled_dot_product_attention(kind: str) -> None:
    reference = REFERENCE["attention"]
    result = scaled_dot_product_attention(Matrix(reference["q"]), Matrix(reference["k"]),
                                          Matrix(reference["v"]), causal=(kind == "causal"))
    assert allclose(result.output, reference[kind]["output"], rel_tol=1e-12, abs_tol=1e-14)
    assert allclose(result.weights, reference[kind]["weights"], rel_tol=1e-12, abs_tol=1e-14)


@pytest.mark.parametrize("case", REFERENCE["broadcast"]["shapes"])
def test_broadcast_shapes_match_numpy(case: dict[str, Any]) -> None:
    left, right = tuple(case["left"]), tuple(case["right"])
    if case["result"] is None:  # NumPy refused: so must minipe
        with pytest.raises(ShapeError):
            broadcast_shapes(left, right)
    else:
        assert broadcast_shapes(left, right) == tuple(case["result"])


def test_broadcast_add_matches_numpy() -> None:
    case = REFERENCE["broadcast"]["add"]
    total = Batch(case["a"]) + Matrix(case["b"])  # (2, 3, 4) + (3, 1): add(a, b)
    assert total.shape == (2, 3, 4)
    assert total.tolist() == case["sum"]  # one addition per number: exactly equal


def test_matmul_matches_numpy() -> None:
    case = REFERENCE["matmul"]
    assert allclose(Matrix(case["a"]) @ Matrix(case["b"]), case["product"], rel_tol=1e-12,
                    abs_tol=1e-14)
    first_column = Vector([row[0] for row in case["b"]])
    assert allclose(Matrix(case["a"]) @ first_column, [row[0] for row in case["product"]],
                    rel_tol=1e-12, abs_tol=1e-14)
