"""Write low_precision_reference.json: lesson 26's numbers, computed with torch's own dtypes.

Run by hand, once, in a throwaway environment with PyTorch (CPU is enough); the test
suite never imports torch. It reads nothing from minipe: each number below comes from
torch tensors of float32, float16 and bfloat16 doing what a model's code does (casts,
products, cos and sin in the tensor's dtype), for the inputs stored beside them.

    python -m pip install torch
    python tests/reference/make_low_precision_reference.py   # rewrites the JSON

tests/test_low_precision.py compares minipe/low_precision.py with these numbers.
theta_i is made in float64 (base ** (-2i / d)) and cast, so each case starts from
the float64 thetas chapter 5 makes; "hf_inv_freq" repeats one case with the float32
`inv_freq` Hugging Face's and GPT-NeoX's code compute (1.0 / base ** (arange / d)),
which differs from the cast in the last bit of some pairs.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import torch

OUT = Path(__file__).with_name("low_precision_reference.json")
F64, F32, F16, B16 = torch.float64, torch.float32, torch.float16, torch.bfloat16
NAMES = {F64: "float64", F32: "float32", F16: "float16", B16: "bfloat16"}
D, BASE = 128, 10000.0
STRIDED = list(range(32767 % 97, 32768, 97))  # every 97th position down from 32,767
CHOSEN = [4095, 32767]
# where the rounding happens: the dtypes of pos, theta_i, the angle, cos and sin
ROPE_CASES = {
    "all float32": (F32, F32, F32, F32),
    "positions in bfloat16": (B16, F32, F32, F32),
    "inv_freq in bfloat16": (F32, B16, F32, F32),
    "the product in bfloat16": (B16, B16, B16, F32),
    "the fix": (F32, F32, F32, B16),
}


def thetas(d: int, dtype: torch.dtype) -> torch.Tensor:
    """theta_i = base**(-2i/d) in float64, cast to dtype."""
    return torch.tensor([BASE ** (-2 * i / d) for i in range(d // 2)], dtype=F64).to(dtype)


def table(positions: list[int], d: int, steps: tuple[torch.dtype, ...],
          theta: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin, (len(positions), d/2), each step in its dtype: the angle is the product
    of pos and theta_i computed in the angle's dtype; cos and sin are taken in float32 (a
    bfloat16 or float16 angle is a float32 number too; a float64 one in float64), then cast
    to the table's dtype."""
    pos_dtype, theta_dtype, angle_dtype, table_dtype = steps
    pos = torch.tensor(positions, dtype=torch.int64).to(pos_dtype)
    theta = thetas(d, theta_dtype) if theta is None else theta
    angle = torch.outer(pos.to(angle_dtype), theta.to(angle_dtype))
    angle = angle.to(torch.promote_types(angle_dtype, F32))  # float64 stays float64
    return angle.cos().to(table_dtype), angle.sin().to(table_dtype)


def largest_exact_integer(dtype: torch.dtype) -> int:
    """The n before the first integer that `dtype` does not keep, scanned a million at a time."""
    for start in range(0, 2**26, 2**20):
        ints = torch.arange(start, start + 2**20, dtype=torch.int64)
        lost = (ints.to(dtype).to(torch.int64) != ints).nonzero()
        if lost.numel():
            return int(ints[lost[0, 0]]) - 1
    raise AssertionError("every integer up to 2**26 kept")


def formats() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for dtype in (F32, F16, B16):
        n = largest_exact_integer(dtype)
        out[NAMES[dtype]] = {
            "largest_exact_integer": n,
            "distinct_4096": torch.arange(4096).to(dtype).unique().numel(),
            "distinct_32768": torch.arange(32768).to(dtype).unique().numel(),
            "stored_257": torch.tensor(257.0).to(dtype).item(),
            "stored_2049": torch.tensor(2049.0).to(dtype).item(),
            "stored_4095": torch.tensor(4095.0).to(dtype).item(),
        }
    x = torch.tensor(65536.0, dtype=B16)
    above = (x.view(torch.int16) + 1).view(B16)  # the next bfloat16 up: one more in the bits
    out["bfloat16_spacing_at_65536"] = (above.float() - x.float()).item()
    return out


def rope() -> dict[str, Any]:
    exact_all = torch.outer(torch.arange(32768, dtype=F64), thetas(D, F64)).cos()
    out: dict[str, Any] = {}
    for name, steps in ROPE_CASES.items():
        case: dict[str, Any] = {"steps": [NAMES[dtype] for dtype in steps]}
        cos_all, _ = table(list(range(32768)), D, steps)
        error = (cos_all.to(F64) - exact_all).abs()  # (32768, 64)
        case["max_error_all"] = error.max().item()
        case["max_error_strided"] = error[STRIDED].max().item()
        for pos in CHOSEN:
            case[f"cos_{pos}"] = cos_all[pos].to(F64).tolist()
            case[f"off_{pos}"] = int((error[pos] > 0.01).sum().item())
            case[f"max_{pos}"] = error[pos].max().item()
        out[name] = case
    # the same case with the float32 inv_freq the libraries compute
    inv_freq = 1.0 / (BASE ** (torch.arange(0, D, 2).float() / D))
    cos, _ = table([4095], D, ROPE_CASES["inv_freq in bfloat16"], theta=inv_freq.to(B16))
    error = (cos.to(F64)[0] - exact_all[4095]).abs()
    out["hf_inv_freq"] = {"bits_equal_to_the_cast": int((inv_freq == thetas(D, F32)).sum()),
                          "off_4095": int((error > 0.01).sum()), "max_4095": error.max().item()}
    return out


def neox_1003() -> dict[str, Any]:
    """EleutherAI gpt-neox issue 1003's reproducer, on the CPU: 2048 positions, 32 dims."""
    seqlen, dim = 2048, 32
    inv_freq = 1.0 / (BASE ** (torch.arange(0, dim, 2).float() / dim))
    t = torch.arange(seqlen).type_as(inv_freq)
    freqs = torch.einsum("i,j->ij", t, inv_freq)
    cos_float = freqs.cos()
    inv_half = inv_freq.half()
    t_half = torch.arange(seqlen).type_as(inv_half)
    freqs_half = torch.einsum("i,j->ij", t_half, inv_half)
    change = (freqs_half.cos().float() - cos_float).abs()
    at = divmod(int(change.argmax()), dim // 2)
    return {"angle_float32": freqs[1857, 1].item(), "angle_float16": freqs_half[1857, 1].item(),
            "max_cos_change": change.max().item(), "at": list(at),
            "theta_1_float16": inv_half[1].item()}


def turned(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x (d,) turned pair by pair (x[2i], x[2i+1]) in x's dtype: each op rounds to it."""
    first, second = x[0::2], x[1::2]
    out = torch.empty_like(x)
    out[0::2] = first * cos - second * sin
    out[1::2] = first * sin + second * cos
    return out


SCORE_CASES = {
    "float64": (F64, F64, F64, F64, F64),
    "cos and sin in bfloat16": (F32, F32, F32, B16, F64),
    "everything in bfloat16": (B16, B16, B16, B16, B16),
}


def score(q: list[float], k: list[float], m: int, n: int,
          steps: tuple[torch.dtype, ...]) -> float:
    """(R_m q) . (R_n k) with pos, theta, angle, cos/sin and q, k (and the score) in dtypes."""
    x_dtype = steps[4]
    cos, sin = table([m, n], len(q), steps[:4])
    q_t = torch.tensor(q, dtype=F64).to(x_dtype)
    k_t = torch.tensor(k, dtype=F64).to(x_dtype)
    q_turned = turned(q_t, cos[0].to(x_dtype), sin[0].to(x_dtype))
    k_turned = turned(k_t, cos[1].to(x_dtype), sin[1].to(x_dtype))
    return torch.dot(q_turned, k_turned).item()


def relativity() -> dict[str, Any]:
    rng = random.Random(0)
    q = [rng.gauss(0, 1) for _ in range(D)]
    k = [rng.gauss(0, 1) for _ in range(D)]
    return {name: [score(q, k, 10 + s, 3 + s, steps) for s in (0, 8, 100, 1000, 4000)]
            for name, steps in SCORE_CASES.items()}


def shifted() -> dict[str, Any]:
    """A query at 7 over keys at 0..7, and the same shifted by 5 and by 1000."""
    rng = random.Random(0)
    q = [rng.gauss(0, 1) for _ in range(D)]
    rng = random.Random(1)
    keys = [[rng.gauss(0, 1) for _ in range(D)] for _ in range(8)]
    out: dict[str, Any] = {}
    for name, steps in SCORE_CASES.items():
        for shift in (5, 1000):
            scores = [[score(q, key, 7 + s, j + s, steps) / math.sqrt(D)
                       for j, key in enumerate(keys)] for s in (0, shift)]
            weights = [torch.tensor(row, dtype=F64).softmax(0).tolist() for row in scores]
            out[f"{name}, shift {shift}"] = {
                "scores": max(abs(a - b) for a, b in zip(*scores)),
                "weights": max(abs(a - b) for a, b in zip(*weights))}
    return out


def sinusoids() -> dict[str, Any]:
    """Rows 2048 and 2049 of a d_model 64 table made in float16 (positions, denominators,
    angles, values), and made in float32 then cast to float16."""
    out: dict[str, Any] = {}
    denominators = torch.tensor([BASE ** (2 * i / 64) for i in range(32)], dtype=F64)
    for name, work in (("in float16", F16), ("float32, cast", F32)):
        pos = torch.tensor([2048, 2049], dtype=torch.int64).to(work)
        angle = pos[:, None] / denominators.to(work)[None, :]
        rows = torch.stack((angle.sin(), angle.cos()), dim=-1).reshape(2, 64).to(F16)
        out[name] = {"row_2048": rows[0].to(F64).tolist(), "row_2049": rows[1].to(F64).tolist(),
                     "equal": bool(torch.equal(rows[0], rows[1]))}
    return out


def main() -> None:
    reference = {"torch": torch.__version__, "d": D, "base": BASE, "strided": "range(32767 % 97, "
                 "32768, 97)", "formats": formats(), "rope": rope(), "neox_1003": neox_1003(),
                 "relativity": relativity(), "shifted": shifted(), "sinusoids": sinusoids()}
    OUT.write_text(json.dumps(reference, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
