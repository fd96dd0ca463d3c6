"""Write context_reference.json: RoPE frequencies made by Hugging Face's rope initialisers.

Run by hand, once, in a throwaway environment with PyTorch and transformers;
the test suite never imports them. It reads nothing from minipe: every
number in context_reference.json comes from transformers (which computes
the frequencies in float32), for the inputs stored beside them.

    python -m pip install torch transformers
    python tests/reference/make_context_reference.py   # rewrites context_reference.json

tests/test_context.py compares minipe.rope_frequencies with these numbers.
transformers has no initialiser for plain (static) NTK-aware scaling, so the
"ntk" cases use its "dynamic" one with factor 1 and seq_len = factor * L:
base * (1 * seq_len / L - 0)**(d / (d - 2)) = base * factor**(d / (d - 2)).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
import transformers
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

OUT = Path(__file__).with_name("context_reference.json")


def config(d: int, base: float, max_positions: int, **rope: Any) -> LlamaConfig:
    """A Llama config whose attention heads have width d (one pair per two dims)."""
    return LlamaConfig(hidden_size=2 * d, num_attention_heads=2, head_dim=d,
                       max_position_embeddings=max_positions,
                       rope_parameters={"rope_theta": base, **rope})


def case(arguments: dict[str, Any], inv_freq: torch.Tensor, scale: float) -> dict[str, Any]:
    """minipe's arguments (rope_frequencies(**arguments)) and what transformers made."""
    return {"arguments": arguments, "inv_freq": [float(x) for x in inv_freq.tolist()],
            "attention_scale": float(scale)}


def main() -> None:
    cases: list[dict[str, Any]] = []
    for d, base in ((128, 10000.0), (64, 500000.0)):
        made = LlamaRotaryEmbedding.compute_default_rope_parameters(
            config(d, base, 4096, rope_type="default"))
        cases.append(case({"d": d, "base": base, "method": "default"}, *made))
    for d, factor in ((128, 4.0), (64, 2.5)):
        made = ROPE_INIT_FUNCTIONS["linear"](config(d, 10000.0, 8192, rope_type="linear",
                                                    factor=factor), "cpu")
        cases.append(case({"d": d, "method": "linear", "factor": factor}, *made))
    for d, factor, L in ((128, 4.0, 2048), (64, 8.0, 4096)):
        made = ROPE_INIT_FUNCTIONS["dynamic"](config(d, 10000.0, L, rope_type="dynamic",
                                                     factor=1.0), "cpu",
                                              seq_len=int(factor * L))
        cases.append(case({"d": d, "method": "ntk", "factor": factor}, *made))
    for seq_len in (1024, 2048, 5000, 8192):
        made = ROPE_INIT_FUNCTIONS["dynamic"](config(128, 10000.0, 2048, rope_type="dynamic",
                                                     factor=4.0), "cpu", seq_len=seq_len)
        cases.append(case({"d": 128, "method": "dynamic", "factor": 4.0,
                           "original_context_length": 2048, "seq_len": seq_len}, *made))
    # YaRN and Llama 3.1: minipe's argument names, and Hugging Face's for L
    stretched: list[dict[str, Any]] = [
        {"d": 128, "base": 10000.0, "method": "yarn", "factor": 16.0,
         "original_context_length": 4096, "beta_fast": 32.0, "beta_slow": 1.0},
        {"d": 64, "base": 500000.0, "method": "yarn", "factor": 4.0,
         "original_context_length": 8192, "beta_fast": 32.0, "beta_slow": 1.0},
        {"d": 128, "base": 10000.0, "method": "yarn", "factor": 8.0,
         "original_context_length": 2048, "beta_fast": 16.0, "beta_slow": 2.0},
        {"d": 128, "base": 500000.0, "method": "llama3", "factor": 8.0,
         "original_context_length": 8192, "low_freq_factor": 1.0, "high_freq_factor": 4.0},
        {"d": 64, "base": 10000.0, "method": "llama3", "factor": 4.0,
         "original_context_length": 2048, "low_freq_factor": 2.0, "high_freq_factor": 8.0},
    ]
    for arguments in stretched:
        d, base, method, L = (arguments[key] for key in
                              ("d", "base", "method", "original_context_length"))
        rope = {key: value for key, value in arguments.items()
                if key not in ("d", "base", "method", "original_context_length")}
        rope.update(rope_type=method, original_max_position_embeddings=L)
        made = ROPE_INIT_FUNCTIONS[method](config(d, base, int(rope["factor"] * L), **rope),
                                           "cpu")
        cases.append(case(arguments, *made))
    reference = {
        "made_by": f"tests/reference/make_context_reference.py with torch {torch.__version__} "
                   f"and transformers {transformers.__version__} (rope initialisers, float32)",
        "cases": cases,
    }
    OUT.write_text(json.dumps(reference, indent=1) + "\n")
    print(f"wrote {OUT}: {len(cases)} cases")


if __name__ == "__main__":
    main()
