"""Write batches_reference.json: PyTorch's and Hugging Face's numbers for masks and batches.

Run by hand, once, where torch and transformers are installed; the test suite
never imports them, and this script reads nothing from minipe. Inputs are
drawn here with random.Random(seed), or written out, and stored beside the
outputs.

    python -m pip install torch==2.13.0 transformers
    python tests/reference/make_batches_reference.py   # rewrites batches_reference.json

tests/test_attention.py and tests/test_batches.py compare minipe with these numbers.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
import transformers
from transformers import DataCollatorWithFlattening
from transformers.generation.utils import GenerationMixin

OUT = Path(__file__).with_name("batches_reference.json")


def table(rng: random.Random, rows: int, cols: int) -> list[list[float]]:
    return [[rng.gauss(0.0, 1.0) for _ in range(cols)] for _ in range(rows)]


def attention_with_mask(rng: random.Random) -> dict[str, Any]:
    """F.scaled_dot_product_attention with a boolean attn_mask, in float64.

    Row 2 of the mask is all False: PyTorch's math path gives that query zeros.
    PyTorch refuses is_causal=True beside an attn_mask, so the causal case is
    the mask and the lower triangle combined here, by hand.
    """
    q, k, v = table(rng, 4, 3), table(rng, 5, 3), table(rng, 5, 2)
    mask = [[True, False, True, True, False],
            [False, True, True, True, True],
            [False, False, False, False, False],
            [True, True, True, True, True]]
    tq, tk, tv = (torch.tensor(x, dtype=torch.float64) for x in (q, k, v))
    out = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=torch.tensor(mask))
    square_q, square_k = table(rng, 5, 3), table(rng, 5, 3)
    square_v = table(rng, 5, 2)
    causal_and_mask = [[mask_ij and j <= i for j, mask_ij in enumerate(row)]
                       for i, row in enumerate(mask + [[True] * 5])]
    sq, sk, sv = (torch.tensor(x, dtype=torch.float64) for x in (square_q, square_k, square_v))
    out_causal = F.scaled_dot_product_attention(sq, sk, sv,
                                                attn_mask=torch.tensor(causal_and_mask))
    return {
        "q": q, "k": k, "v": v, "mask": mask, "output": out.tolist(),
        "causal": {"q": square_q, "k": square_k, "v": square_v, "mask": mask + [[True] * 5],
                   "output": out_causal.tolist()},
    }


def position_ids_for_generation() -> dict[str, Any]:
    """transformers' GenerationMixin._prepare_position_ids_for_generation on padded masks."""
    masks = {
        "right": [[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0]],
        "left": [[1, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1], [0, 0, 0, 0, 1, 1]],
    }
    result = {}
    for side, mask in masks.items():
        ids = torch.zeros(3, 6, dtype=torch.long)
        positions = GenerationMixin._prepare_position_ids_for_generation(
            None, ids, {"attention_mask": torch.tensor(mask)})  # self is not used
        result[side] = {"attention_mask": mask, "position_ids": positions.tolist()}
    return result


def flattening() -> dict[str, Any]:
    """DataCollatorWithFlattening(return_position_ids=True) on three documents."""
    documents = [[5, 1, 4, 3, 5, 2], [7, 8], [2, 9, 9, 4]]
    collator = DataCollatorWithFlattening(return_position_ids=True)
    batch = collator([{"input_ids": document} for document in documents])
    return {"documents": documents,
            **{key: batch[key].tolist() for key in ("input_ids", "position_ids", "labels")}}


def main() -> None:
    rng = random.Random(19)
    reference = {
        "made_by": f"tests/reference/make_batches_reference.py with torch {torch.__version__} "
                   f"and transformers {transformers.__version__}, float64",
        "attention_mask": attention_with_mask(rng),
        "generation_position_ids": position_ids_for_generation(),
        "flattening": flattening(),
    }
    OUT.write_text(json.dumps(reference, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
