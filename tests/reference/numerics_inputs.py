"""The inputs of numerics_reference.json, drawn the same way wherever they are needed.

make_numerics_reference.py casts these with torch and stores only torch's outputs;
tests/test_numerics.py draws them again here and compares minipe.round_to with those
outputs. Standard library only. A float32 input is its 32-bit pattern (an int), so a
NaN's bits and -0.0 survive; a float64 input is a Python float.
"""

from __future__ import annotations

import math
import random
import struct

SEED = 34  # issue 34


def word(x: float) -> int:
    """The float32 bit pattern of x (x a value float32 holds or rounds to in its range)."""
    return int(struct.unpack("<I", struct.pack("<f", x))[0])


def float32(w: int) -> float:
    """The float32 value of a 32-bit pattern, as a Python float."""
    return float(struct.unpack("<f", w.to_bytes(4, "little"))[0])


def _both_signs(words: list[int]) -> list[int]:
    return words + [w | 0x80000000 for w in words]


def _around(words: list[int]) -> list[int]:
    """Each pattern and the float32 one ulp either side of it (same sign)."""
    return [w + step for w in words for step in (-1, 0, 1)]


def _specials() -> list[int]:
    """Zeros, infinities, NaN; both formats' subnormals, their ties, largest finite and first
    overflow, each with its float32 neighbours."""
    found = [0x00000000, 0x7F800000, 0x7FC00000, 0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF]
    found += [word(k * 2.0 ** -24) for k in range(1, 1024)]  # float16's subnormals
    found += _around([word((k + 0.5) * 2.0 ** -24) for k in range(1024)])  # and their ties
    found += [word(k * 2.0 ** -133) for k in range(1, 128)]  # bfloat16's subnormals
    found += _around([word((k + 0.5) * 2.0 ** -133) for k in range(128)])
    found += _around([word(65504.0), word(65520.0), word(65536.0)])  # float16's end
    bf16_largest = (2 - 2.0 ** -7) * 2.0 ** 127
    found += _around([word(bf16_largest), word((2 - 2.0 ** -8) * 2.0 ** 127)])
    found += [0x7F7FFFFF - 1]
    return _both_signs(found)


def _ties(rng: random.Random, count: int) -> list[int]:
    """Exact ties between neighbouring float16 values and between bfloat16 ones, with the
    float32 patterns one ulp below and above each."""
    ties = []
    for _ in range(count):
        h = rng.randrange(0x7BFF)  # a finite positive float16 pattern below the largest
        low, high = (float(struct.unpack("<e", (h + step).to_bytes(2, "little"))[0])
                     for step in (0, 1))
        ties.append(word((low + high) / 2))  # exact: float32 has 13 more bits
        b = rng.randrange(0x7F7F)  # a finite positive bfloat16 pattern below the largest
        ties.append((b << 16) | 0x8000)  # halfway to b + 1: the next bit set, the rest 0
    return _both_signs(_around(ties))


def float32_inputs() -> list[int]:
    """About 150,000 float32 patterns: uniform over every bit pattern, values near integers
    up to 70,000, positions 0..32767, the special values and exact ties."""
    rng = random.Random(SEED)
    uniform = [rng.getrandbits(32) for _ in range(50_000)]
    near = []
    for _ in range(20_000):
        n = rng.randrange(70_001)
        offset = rng.choice([0.0, 0.5, -0.5, rng.uniform(-1, 1), rng.uniform(-0.01, 0.01)])
        near.append(word(n + offset) | (0x80000000 if rng.random() < 0.1 else 0))
    positions = [word(float(p)) for p in range(32_768)]
    return uniform + near + positions + _specials() + _ties(rng, 4_000)


def float64_inputs() -> list[float]:
    """20,000 float64 values for the cast to float32: any bit pattern, every exponent near
    float32's range, and float32's exact ties with one float64 ulp either side."""
    rng = random.Random(SEED + 1)
    values = [float(struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0])
              for _ in range(8_000)]
    values += [math.ldexp(rng.uniform(-2, 2), rng.randint(-160, 140)) for _ in range(8_000)]
    for _ in range(1_000):
        w = rng.randrange(0x7F7FFFFF)
        tie = (float32(w) + float32(w + 1)) / 2  # exact: float64 has 29 more bits
        values += [math.nextafter(tie, -math.inf), tie, math.nextafter(tie, math.inf), -tie]
    return values
