"""Write reference.json: the numbers minipe is checked against, made by PyTorch and NumPy.

This script is run by hand, once, where PyTorch and NumPy are installed; the
test suite never imports them. It reads nothing from minipe: every number in
reference.json comes from the reference libraries, in float64, on inputs
drawn here with random.Random(seed) and stored beside the outputs.

    python -m pip install torch numpy
    python tests/reference/make_reference.py     # rewrites tests/reference/reference.json

tests/test_reference.py compares minipe with these numbers.
"""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

OUT = Path(__file__).with_name("reference.json")


def table(rng: random.Random, rows: int, cols: int) -> list[list[float]]:
    return [[rng.gauss(0.0, 1.0) for _ in range(cols)] for _ in range(rows)]


def sinusoidal_torch(max_len: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """The PositionalEncoding of the PyTorch tutorial and the Annotated Transformer,
    in float64: div_term = exp(2i * -(log(base) / d_model)), columns 0::2 sin, 1::2 cos."""
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    position = torch.arange(0, max_len, dtype=torch.float64).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64)
                         * -(math.log(base) / d_model))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


def main() -> None:
    rng = random.Random(2026)
    reference: dict[str, Any] = {
        "made_by": f"tests/reference/make_reference.py with torch {torch.__version__} and "
                   f"numpy {np.__version__}, float64",
    }

    # 1. The sinusoidal table, computed the exp(log) way the tutorials do.
    small = sinusoidal_torch(50, 16)
    gpt2 = sinusoidal_torch(1024, 768)
    rows = [0, 1, 3, 511, 1023]
    reference["sinusoidal"] = {
        "small": {"num_positions": 50, "d_model": 16, "table": small.tolist()},
        "gpt2": {"num_positions": 1024, "d_model": 768, "rows": rows,
                 "values": gpt2[rows].tolist()},
        "base_100000": {"num_positions": 8, "d_model": 4,
                        "table": sinusoidal_torch(8, 4, base=100000.0).tolist()},
    }

    # 2. softmax, including the large scores a naive softmax cannot take, and a mask.
    vectors = [[1.0, 2.0, 3.0], [1000.0, 1001.0, 1002.0], [-1000.0, -1000.0],
               [rng.gauss(0.0, 3.0) for _ in range(7)], [0.5, -math.inf, 0.25]]
    reference["softmax"] = [
        {"x": [v if math.isfinite(v) else "-inf" for v in vector],
         "softmax": torch.softmax(torch.tensor(vector, dtype=torch.float64), dim=0).tolist()}
        for vector in vectors
    ]

    # 3. Scaled dot-product attention, plain and causal.
    q, k, v = table(rng, 5, 8), table(rng, 5, 8), table(rng, 5, 3)
    attention: dict[str, Any] = {"q": q, "k": k, "v": v}
    q_t, k_t, v_t = (torch.tensor(m, dtype=torch.float64) for m in (q, k, v))
    for causal in (False, True):
        output = F.scaled_dot_product_attention(q_t, k_t, v_t, is_causal=causal)
        scores = q_t @ k_t.T / math.sqrt(8)
        if causal:
            mask = torch.ones(5, 5, dtype=torch.bool).tril()
            scores = scores.masked_fill(~mask, float("-inf"))
        key = "causal" if causal else "plain"
        attention[key] = {"output": output.tolist(),
                          "weights": torch.softmax(scores, dim=-1).tolist()}
    reference["attention"] = attention

    # 4. Broadcasting: NumPy's shapes (or its refusal) and one element-wise sum.
    pairs = [((8, 4, 256), (4, 256)), ((256, 256, 3), (3,)), ((8, 1, 6, 1), (7, 1, 5)),
             ((5, 4), (1,)), ((15, 3, 5), (3, 1)), ((4, 1), (3,)), ((1, 1, 1), (7,)),
             ((3,), (4,)), ((2, 1), (8, 4, 3)), ((8, 4, 256), (4, 255)),
             ((8, 4, 256), (8, 256)), ((4, 3), (4,))]
    shapes = []
    for left, right in pairs:
        try:
            result: list[int] | None = list(np.broadcast_shapes(left, right))
        except ValueError:
            result = None
        shapes.append({"left": list(left), "right": list(right), "result": result})
    batch = [table(rng, 3, 4) for _ in range(2)]  # (2, 3, 4)
    column = table(rng, 3, 1)  # (3, 1)
    reference["broadcast"] = {
        "shapes": shapes,
        "add": {"a": batch, "b": column, "sum": (np.array(batch) + np.array(column)).tolist()},
    }

    # 5. Matrix products.
    a, b = table(rng, 4, 6), table(rng, 6, 3)
    reference["matmul"] = {"a": a, "b": b, "product": (np.array(a) @ np.array(b)).tolist()}

    text = json.dumps(reference, indent=1)
    # one line per innermost list (a row of numbers), so the file reads as tables
    text = re.sub(r"\[\s+([^\[\]{}]*?)\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]",
                  text)
    OUT.write_text(text + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
