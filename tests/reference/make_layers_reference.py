"""Write layers_reference.json: a block model's logits and gradients, as PyTorch computes them.

Run by hand, once, where PyTorch is installed; the test suite never imports it. It
reads nothing from minipe: the block is written here in PyTorch (float64, autograd for
the gradients) from its formulas, GPT-2's pre-norm residual stack without biases in the
matrices and without an output projection after the heads, on tables drawn here with
random.Random(seed) and stored beside the outputs:

    x      = E[ids] + P[position_ids]             (learned or sinusoidal P, once)
    for each layer:
        a  = norm_1(x)                            F.layer_norm (eps 1e-5), F.rms_norm (1e-6)
        q, k, v = a W_q, a W_k, a W_v, viewed as (batch, heads, n, head_dim)
        RoPE turns the first rotary_dims of each head, interleaved pairs (2i, 2i + 1), by
        position_ids * base**(-2i / rotary_dims); ALiBi adds -m_h |pos_i - pos_j|
        x  = x + (softmax(q k^T / sqrt(head_dim), -inf where hidden) v, heads joined)
        x  = x + F.gelu(norm_2(x) W_1, approximate="tanh") W_2      (with an MLP)
    logits = norm_final(x) W_out;  loss = F.cross_entropy(ignore_index=-100)

    python -m pip install torch==2.13.0
    python tests/reference/make_layers_reference.py   # rewrites layers_reference.json

tests/test_layers.py compares minipe with these numbers.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from make_model_reference import _sinusoids, _turn  # RoPE's turn and the sinusoids, as there

OUT = Path(__file__).with_name("layers_reference.json")


def _table(rng: random.Random, rows: int, cols: int, mean: float = 0.0) -> list[list[float]]:
    return [[rng.gauss(mean, 0.5) for _ in range(cols)] for _ in range(rows)]


def _names(layers: int, mlp: bool, norm: str | None) -> list[tuple[str, str]]:
    """(name, what) of every table above the embeddings, in the order they are drawn."""
    parts = {"layer": ["weight", "bias"], "rms": ["weight"], None: []}[norm]
    names = []
    for layer in range(layers):
        names += [(f"layer{layer}.norm_1.{part}", part) for part in parts]
        names += [(f"layer{layer}.{w}", w) for w in ("W_q", "W_k", "W_v")]
        if mlp:
            names += [(f"layer{layer}.norm_2.{part}", part) for part in parts]
            names += [(f"layer{layer}.{w}", w) for w in ("W_1", "W_2")]
    names += [(f"norm_final.{part}", part) for part in parts]
    return names + [("W_out", "W_out")]


def case(name: str, *, seed: int, kind: str, heads: int, d: int, vocab: int, context: int,
         layers: int, mlp: bool, norm: str | None, ids: list[list[int]],
         targets: list[list[int]], causal: bool = True,
         attention_mask: list[list[int]] | None = None,
         table: list[list[bool]] | None = None, position_ids: list[list[int]] | None = None,
         rotary_fraction: float = 1.0, slopes: list[float] | None = None,
         base: float = 10000.0) -> dict[str, Any]:
    rng = random.Random(seed)
    shapes = {"W_q": (d, d), "W_k": (d, d), "W_v": (d, d), "W_1": (d, 4 * d),
              "W_2": (4 * d, d), "W_out": (d, vocab), "weight": (1, d), "bias": (1, d)}
    weights = {"token_embedding": _table(rng, vocab, d)}
    if kind == "learned":
        weights["position_embedding"] = _table(rng, context, d)
    for key, what in _names(layers, mlp, norm):
        weights[key] = _table(rng, *shapes[what], mean=1.0 if what == "weight" else 0.0)
    params = {key: torch.tensor(value, dtype=torch.float64, requires_grad=True)
              for key, value in weights.items()}
    batch, n = len(ids), len(ids[0])
    hd = d // heads
    pos = torch.tensor(position_ids) if position_ids else torch.arange(n).repeat(batch, 1)

    def normed(x: torch.Tensor, key: str) -> torch.Tensor:
        if norm == "layer":
            return F.layer_norm(x, (d,), params[key + ".weight"][0], params[key + ".bias"][0],
                                eps=1e-5)
        if norm == "rms":
            return F.rms_norm(x, (d,), params[key + ".weight"][0], eps=1e-6)
        return x

    def split(m: torch.Tensor) -> torch.Tensor:  # (batch, n, d) -> (batch, heads, n, hd)
        return m.view(batch, n, heads, hd).transpose(1, 2)

    allowed = torch.ones(batch, 1, n, n, dtype=torch.bool)
    if causal:
        allowed = allowed & torch.ones(n, n, dtype=torch.bool).tril()
    if attention_mask is not None:
        allowed = allowed & torch.tensor(attention_mask, dtype=torch.bool)[:, None, None, :]
    if table is not None:
        allowed = allowed & torch.tensor(table)[None, None]
    x = params["token_embedding"][torch.tensor(ids)]  # (batch, n, d)
    if kind == "learned":
        x = x + params["position_embedding"][pos]
    if kind == "sinusoidal":
        x = x + _sinusoids(pos, d, base)
    for layer in range(layers):
        at = f"layer{layer}."
        a = normed(x, at + "norm_1")
        q, k, v = (split(a @ params[at + w]) for w in ("W_q", "W_k", "W_v"))
        if kind == "rope":
            rotary_dims = int(rotary_fraction * hd)
            q, k = _turn(q, pos, rotary_dims, base), _turn(k, pos, rotary_dims, base)
        scores = q @ k.transpose(-1, -2) / math.sqrt(hd)  # (batch, heads, n, n)
        if kind == "alibi":
            assert slopes is not None
            distance = (pos[:, None, :, None] - pos[:, None, None, :]).abs().to(torch.float64)
            m = torch.tensor(slopes, dtype=torch.float64)[None, :, None, None]
            scores = scores - m * distance
        attention = torch.softmax(scores.masked_fill(~allowed, -math.inf), dim=-1)
        x = x + (attention @ v).transpose(1, 2).reshape(batch, n, d)
        if mlp:
            hidden = normed(x, at + "norm_2") @ params[at + "W_1"]
            x = x + F.gelu(hidden, approximate="tanh") @ params[at + "W_2"]
    logits = normed(x, "norm_final") @ params["W_out"]
    loss = F.cross_entropy(logits.reshape(-1, vocab), torch.tensor(targets).reshape(-1),
                           ignore_index=-100)
    loss.backward()
    return {
        "name": name, "positions": kind, "num_heads": heads, "d_model": d,
        "vocab_size": vocab, "context_length": context, "causal": causal, "base": base,
        "num_layers": layers, "mlp": mlp, "norm": norm,
        "rotary_fraction": rotary_fraction, "alibi_slopes": slopes, "ids": ids,
        "targets": targets, "attention_mask": attention_mask, "table": table,
        "position_ids": position_ids, "weights": weights,
        "logits": logits.detach().tolist(), "loss": loss.item(),
        "gradients": {key: p.grad.tolist() for key, p in params.items() if p.grad is not None},
    }


def main() -> None:
    packed = [[i // 3 == j // 3 for j in range(6)] for i in range(6)]  # two documents of 3
    cases = [
        case("learned, 2 layers, layer norm, MLP, 2 heads, right padding", seed=1,
             kind="learned", heads=2, d=8, vocab=7, context=12, layers=2, mlp=True,
             norm="layer", ids=[[1, 4, 2, 6, 3], [5, 2, 0, 0, 0]],
             attention_mask=[[1, 1, 1, 1, 1], [1, 1, 0, 0, 0]],
             position_ids=[[0, 1, 2, 3, 4], [0, 1, 1, 1, 1]],
             targets=[[4, 2, 6, 3, -100], [2, -100, -100, -100, -100]]),
        case("rope, 3 layers, rms norm, MLP, rotary_fraction 0.5, two packed documents",
             seed=2, kind="rope", heads=2, d=8, vocab=7, context=12, layers=3, mlp=True,
             norm="rms", rotary_fraction=0.5, base=100.0, ids=[[1, 4, 2, 6, 3, 5]],
             table=packed, position_ids=[[0, 1, 2, 0, 1, 2]], targets=[[4, 2, -100, 3, 5, -100]]),
        case("alibi, 2 layers, no norm, MLP, 2 heads, left padding, not causal", seed=3,
             kind="alibi", heads=2, d=8, vocab=7, context=12, layers=2, mlp=True, norm=None,
             causal=False, slopes=[0.5, 0.25], ids=[[0, 0, 3, 1, 4], [2, 5, 6, 1, 3]],
             attention_mask=[[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]],
             position_ids=[[1, 1, 0, 1, 2], [0, 1, 2, 3, 4]],
             targets=[[-100, -100, 1, 4, 2], [5, 6, 1, 3, 0]]),
        case("sinusoidal, 2 layers, layer norm, no MLP, positions counted from 3", seed=4,
             kind="sinusoidal", heads=2, d=8, vocab=7, context=12, layers=2, mlp=False,
             norm="layer", base=100.0, ids=[[3, 3, 1, 0]], position_ids=[[3, 4, 5, 6]],
             targets=[[3, 1, 0, 2]]),
        case("none, 1 layer, rms norm, MLP", seed=5, kind="none", heads=1, d=4, vocab=5,
             context=8, layers=1, mlp=True, norm="rms", ids=[[1, 2, 3, 1, 4]],
             targets=[[2, 3, 1, 4, 0]]),
        case("rope, 2 layers, no norm, no MLP, 2 heads", seed=6, kind="rope", heads=2, d=8,
             vocab=7, context=12, layers=2, mlp=False, norm=None, ids=[[6, 1, 0, 2, 2]],
             targets=[[1, 0, 2, 2, 5]]),
    ]
    reference = {"made_by": f"tests/reference/make_layers_reference.py with torch "
                            f"{torch.__version__}, float64", "cases": cases}
    OUT.write_text(json.dumps(reference, indent=1) + "\n")
    print(f"wrote {OUT} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
