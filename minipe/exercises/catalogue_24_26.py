"""The cases of exercises 24-26 (catalogue.py holds the exercises themselves).

Fixed inputs first, the lessons' own numbers where they have them (257 in bfloat16,
65520 in float16, position 1857 of EleutherAI's gpt-neox issue 1003, 4095), then the
edges of each format's range, then seeded random ones over the whole range.
"""

from __future__ import annotations

import math
import random
from typing import Any

Cases = list[tuple[Any, ...]]


def round_cases() -> Cases:
    rng = random.Random(24)
    spread = [(rng.choice((-1, 1)) * rng.uniform(1, 2) * 2.0 ** rng.randrange(-140, 128),
               "bfloat16") for _ in range(12)]
    spread += [(rng.choice((-1, 1)) * rng.uniform(1, 2) * 2.0 ** rng.randrange(-26, 16),
                "float16") for _ in range(12)]
    return [(1.0, "bfloat16"), (0.0, "float16"), (0.1, "float16"), (0.3, "float16"),
            (257.0, "bfloat16"),  # a tie between 256 and 258: to even, 256
            (259.0, "bfloat16"),  # a tie between 258 and 260: to even, 260
            (4095.0, "bfloat16"), (1857.3, "float16"), (-257.0, "bfloat16"),
            (-0.3, "float16"), (65519.99, "float16"), (65520.0, "float16"),  # the last tie
            (-1e6, "float16"), (3.4e38, "bfloat16"), (3.3e38, "bfloat16"),
            (1e-6, "float16"),  # a subnormal: spacing 2**-24 below 2**-14
            (2.0 ** -25, "float16"),  # half the smallest step: a tie, to 0
            (1e-40, "bfloat16"), (-1e-40, "bfloat16"), (math.inf, "bfloat16"),
            (-math.inf, "float16"), *spread]


def layer_norm_cases() -> Cases:
    rng = random.Random(25)

    def rows(n: int, d: int, scale: float = 1.0, shift: float = 0.0) -> list[list[float]]:
        return [[round(shift + scale * rng.gauss(0, 1), 4) for _ in range(d)] for _ in range(n)]

    def weights(d: int) -> list[float]:
        return [round(rng.uniform(0.5, 1.5), 4) for _ in range(d)]

    return [([[0.0, 1.0, 2.0]], [1.0, 1.0, 1.0], [[1.0, 0.0, 0.0]], 0.0),  # worked in the stub
            ([[1.0, 3.0]], [2.0, 0.5], [[1.0, -1.0]], 0.0),  # two numbers: x_hat is -1, 1
            (rows(3, 4), weights(4), rows(3, 4), 1e-5),
            (rows(4, 8), weights(8), rows(4, 8), 1e-5),
            (rows(2, 6, 1000.0), weights(6), rows(2, 6), 1e-5),  # a wide row
            (rows(2, 6, 0.01, 10000.0), weights(6), rows(2, 6), 1e-5),  # a far mean
            ([[5.0, 5.0, 5.0, 5.0], [0.001, 0.0, 0.0, 0.0]], weights(4), rows(2, 4), 1e-5),
            (rows(3, 16, 3.0), weights(16), rows(3, 16, 10.0), 1e-6)]


def rope_cases() -> Cases:
    rng = random.Random(26)
    return [(0, 4, "bfloat16"), (1, 4, "bfloat16"), (3, 8, "float16"),
            (257, 8, "bfloat16"),  # bfloat16 stores the position 257 as 256
            (1857, 32, "float16"),  # EleutherAI gpt-neox issue 1003's position
            (4095, 128, "bfloat16"), (rng.randrange(2048, 60000), 16, "float16"),
            (rng.randrange(2 ** 14, 2 ** 20), 64, "bfloat16"),
            (rng.randrange(2 ** 20, 2 ** 24), 32, "bfloat16")]
