"""Write block_reference.json: layer norm, RMS norm and GELU, as PyTorch computes them.

Run by hand, once, where PyTorch is installed; the test suite never imports it. It
reads nothing from minipe: each case draws its inputs here with random.Random(seed),
runs one of PyTorch's functions on them in float64, and backpropagates a fixed upstream
gradient d_out (drawn here too) with autograd; the inputs are stored beside the outputs:

    layer_norm   F.layer_norm(x, (d,), weight, bias, eps)    -> out, d_x, d_weight, d_bias
    rms_norm     F.rms_norm(x, (d,), weight, eps)            -> out, d_x, d_weight
    gelu         F.gelu(x, approximate="tanh")               -> out, d_x

    python -m pip install torch==2.13.0
    python tests/reference/make_block_reference.py   # rewrites tests/reference/block_reference.json

tests/test_block.py compares minipe.training.block with these numbers.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

OUT = Path(__file__).with_name("block_reference.json")


def _table(rng: random.Random, rows: int, cols: int, scale: float) -> list[list[float]]:
    return [[rng.gauss(0.0, scale) for _ in range(cols)] for _ in range(rows)]


def case(name: str, rule: str, *, seed: int, n: int, d: int, eps: float | None = None,
         scale: float = 1.0, shift: float = 0.0, constant_rows: dict[int, float] | None = None,
         x: list[list[float]] | None = None) -> dict[str, Any]:
    """One rule on one seeded x (n, d): its output and the gradients autograd gives."""
    rng = random.Random(seed)
    if x is None:
        x = [[v + shift for v in row] for row in _table(rng, n, d, scale)]
        for row, value in (constant_rows or {}).items():
            x[row] = [value] * d  # var 0: layer_norm's output is its bias there
    weight = [rng.gauss(1.0, 0.5) for _ in range(d)]
    bias = [rng.gauss(0.0, 0.5) for _ in range(d)]
    d_out = _table(rng, len(x), len(x[0]), 1.0)
    x_t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    w_t = torch.tensor(weight, dtype=torch.float64, requires_grad=True)
    b_t = torch.tensor(bias, dtype=torch.float64, requires_grad=True)
    found: dict[str, Any] = {"name": name, "rule": rule, "seed": seed, "x": x, "d_out": d_out}
    if rule == "layer_norm":
        assert eps is not None
        out = F.layer_norm(x_t, (len(x[0]),), w_t, b_t, eps)
        found.update(weight=weight, bias=bias, eps=eps)
    elif rule == "rms_norm":
        assert eps is not None
        out = F.rms_norm(x_t, (len(x[0]),), w_t, eps)
        found.update(weight=weight, eps=eps)
    else:
        out = F.gelu(x_t, approximate="tanh")
    out.backward(torch.tensor(d_out, dtype=torch.float64))
    found.update(out=out.tolist(), d_x=x_t.grad.tolist())
    if rule != "gelu":
        found["d_weight"] = w_t.grad.tolist()
    if rule == "layer_norm":
        found["d_bias"] = b_t.grad.tolist()
    return found


def main() -> None:
    cases = [
        case("layer_norm (4, 8), torch's eps", "layer_norm", seed=1, n=4, d=8, eps=1e-5),
        case("layer_norm (3, 5), eps 0.01, row 1 constant", "layer_norm", seed=2, n=3, d=5,
             eps=1e-2, constant_rows={1: 2.5}),
        case("layer_norm (2, 16), large values (scale 1000, shift 300)", "layer_norm", seed=3,
             n=2, d=16, eps=1e-5, scale=1000.0, shift=300.0),
        case("layer_norm (6, 32), eps 1e-12, small values (scale 0.001)", "layer_norm",
             seed=4, n=6, d=32, eps=1e-12, scale=1e-3),
        case("layer_norm (3, 1): d = 1, every row constant", "layer_norm", seed=5, n=3, d=1,
             eps=1e-5),
        case("rms_norm (4, 8), Llama's eps", "rms_norm", seed=6, n=4, d=8, eps=1e-6),
        case("rms_norm (3, 5), eps 0.001, row 2 all zeros", "rms_norm", seed=7, n=3, d=5,
             eps=1e-3, constant_rows={2: 0.0}),
        case("rms_norm (2, 16), large values (scale 1000)", "rms_norm", seed=8, n=2, d=16,
             eps=1e-5, scale=1000.0),
        case("gelu (4, 8), scale 2", "gelu", seed=9, n=4, d=8, scale=2.0),
        case("gelu at chosen points, the tails included", "gelu", seed=10, n=2, d=8,
             x=[[-30.0, -10.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0],
                [2.0, 3.0, 10.0, 30.0, 1000.0, -1e-8, 1e-8, 0.044715]]),
    ]
    reference = {"made_by": f"tests/reference/make_block_reference.py with torch "
                            f"{torch.__version__}, float64", "cases": cases}
    OUT.write_text(json.dumps(reference, indent=1) + "\n")
    print(f"wrote {OUT} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
