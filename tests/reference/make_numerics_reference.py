"""Write numerics_reference.json: torch's own casts to float16, bfloat16 and float32.

Run by hand, once, where torch is installed; the test suite never imports it, and this
script reads nothing from minipe. The inputs are drawn by numerics_inputs.py (seeded,
standard library only), which tests/test_numerics.py draws again; only torch's outputs
are stored, as bit patterns: big-endian 16-bit (float16, bfloat16) or 32-bit (float32)
words, zlib-compressed and base64-encoded, one string per cast, with a SHA-256 of the
inputs so a test knows it drew the same ones.

    python -m pip install torch==2.13.0
    python tests/reference/make_numerics_reference.py   # rewrites numerics_reference.json

tests/test_numerics.py compares minipe.round_to with every value.
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import zlib
from pathlib import Path

import torch

from numerics_inputs import float32_inputs, float64_inputs

OUT = Path(__file__).with_name("numerics_reference.json")


def packed(words: list[int], width: int) -> str:
    """Big-endian words of `width` bits, compressed and base64-encoded."""
    raw = b"".join(w.to_bytes(width // 8, "big") for w in words)
    return base64.b64encode(zlib.compress(raw, 9)).decode("ascii")


def cast_float32(words: list[int], dtype: torch.dtype) -> list[int]:
    """torch's cast of each float32 pattern to `dtype`, as 16-bit patterns."""
    tensor = torch.tensor([w - (1 << 32) if w >= 1 << 31 else w for w in words],
                          dtype=torch.int32).view(torch.float32)
    return [b & 0xFFFF for b in tensor.to(dtype).view(torch.int16).tolist()]


def main() -> None:
    words = float32_inputs()
    values = float64_inputs()
    to32 = torch.tensor(values, dtype=torch.float64).to(torch.float32)
    float32_out = [b & 0xFFFFFFFF for b in to32.view(torch.int32).tolist()]
    reference = {
        "made_by": f"tests/reference/make_numerics_reference.py with torch {torch.__version__} "
                   f"(Tensor.to: float32 -> float16 and bfloat16, float64 -> float32)",
        "float32_inputs": {"count": len(words), "sha256": hashlib.sha256(
            b"".join(w.to_bytes(4, "big") for w in words)).hexdigest()},
        "float64_inputs": {"count": len(values), "sha256": hashlib.sha256(
            b"".join(struct.pack(">d", v) for v in values)).hexdigest()},
        "float16": packed(cast_float32(words, torch.float16), 16),
        "bfloat16": packed(cast_float32(words, torch.bfloat16), 16),
        "float32": packed(float32_out, 32),
    }
    OUT.write_text(json.dumps(reference, indent=1) + "\n")
    print(f"{OUT.name}: {len(words):,} float32 inputs, {len(values):,} float64 inputs, "
          f"{OUT.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
