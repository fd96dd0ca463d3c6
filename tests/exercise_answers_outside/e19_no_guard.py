"""Exercise 19, wrong: forgets the case with nothing to evict: sinks and window overlap and keys come twice."""

from __future__ import annotations

import math

DONE = False


def turn(row: list[float], pos: int) -> list[float]:
    d = len(row)
    out = list(row)
    for i in range(d // 2):
        a = pos * 10000 ** (-2 * i / d)
        x, y = row[2 * i], row[2 * i + 1]
        out[2 * i] = x * math.cos(a) - y * math.sin(a)
        out[2 * i + 1] = x * math.sin(a) + y * math.cos(a)
    return out


def evict(keys: list[list[float]], values: list[list[float]], sinks: int,
          window: int) -> list[list[list[float]]]:
    evicted = len(keys) - sinks - window
    K = [list(key) for key in keys[:sinks]] + [turn(key, -evicted) for key in keys[len(keys) - window:]]
    V = [list(val) for val in values[:sinks]] + [list(val) for val in values[len(values) - window:]]
    return [K, V]
