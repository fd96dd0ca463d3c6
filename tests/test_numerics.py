"""Appendix C: round_to and the formats' bits, against hand-worked values, Python's struct
(formats 'f' and 'e' round to float32 and float16 in C) and torch's own casts (a fixture
from tests/reference/make_numerics_reference.py, run by hand)."""

from __future__ import annotations

import base64
import functools
import hashlib
import importlib.util
import json
import math
import random
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from minipe import round_to
from minipe.numerics import bits, distinct_positions, largest_exact_integer, spacing

DTYPES = ("float32", "float16", "bfloat16")


def _same(got: float, want: float) -> bool:
    """Equal as stored values: NaN is NaN, and -0.0 is not 0.0."""
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


def _by_struct(x: float, code: str) -> float:
    """x rounded by C's cast to float32 ('f') or float16 ('e'); +-inf where it overflows."""
    try:
        return float(struct.unpack(code, struct.pack(code, x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


# --- worked by hand ------------------------------------------------------------------------


def test_the_integers_each_format_keeps() -> None:
    # bfloat16 keeps 8 significant bits: 256 = 2**8 exactly, 257 is a tie -> 256 (even),
    # 258 kept, 259 a tie between 258 and 260 -> 260 (its last kept bit even)
    assert [round_to(n, "bfloat16") for n in (255.0, 256.0, 257.0, 258.0, 259.0)] == [
        255.0, 256.0, 256.0, 258.0, 260.0]
    assert round_to(2049.0, "float16") == 2048.0 and round_to(2051.0, "float16") == 2052.0
    assert round_to(16777217.0, "float32") == 16777216.0
    assert [largest_exact_integer(d) for d in DTYPES] == [16777216, 2048, 256]


def test_the_range_ends_in_infinity() -> None:
    assert round_to(65504.0, "float16") == 65504.0  # (2 - 2**-10) * 2**15
    assert round_to(65519.99, "float16") == 65504.0  # below the tie at 65520
    assert round_to(65520.0, "float16") == math.inf  # the tie goes to 2**16: past the range
    assert round_to(-65520.0, "float16") == -math.inf
    bf16_largest = (2 - 2 ** -7) * 2.0 ** 127
    assert round_to(bf16_largest, "bfloat16") == bf16_largest
    assert round_to((2 - 2 ** -8) * 2.0 ** 127, "bfloat16") == math.inf  # the tie above it
    assert round_to(1e300, "float32") == math.inf
    for dtype in DTYPES:  # float64's largest: the rounded value is 2**1024, past float64 too
        assert round_to(-1.7976931348623157e308, dtype) == -math.inf


def test_the_special_values_stay() -> None:
    for dtype in DTYPES:
        assert math.isnan(round_to(math.nan, dtype))
        assert _same(round_to(-0.0, dtype), -0.0) and _same(round_to(0.0, dtype), 0.0)
        assert round_to(math.inf, dtype) == math.inf and round_to(-math.inf, dtype) == -math.inf
        assert _same(round_to(-1e-300, dtype), -0.0)  # a tiny negative keeps its sign


def test_the_subnormals() -> None:
    smallest = 2.0 ** -24  # float16: 2**(emin - p + 1) = 2**(-14 - 11 + 1)
    assert round_to(smallest, "float16") == smallest
    assert round_to(smallest / 2, "float16") == 0.0  # a tie between 0 and it: 0 is even
    assert round_to(smallest * 0.51, "float16") == smallest
    assert round_to(smallest * 1.5, "float16") == 2 * smallest  # a tie: 2 is even
    assert round_to(2.0 ** -133, "bfloat16") == 2.0 ** -133  # bfloat16's smallest
    assert round_to(2.0 ** -150, "float32") == 0.0 and round_to(2.0 ** -149, "float32") > 0


def test_spacing_and_bits() -> None:
    assert spacing(65536.0, "bfloat16") == 512.0  # 2**(16 - 8 + 1)
    assert spacing(1.0, "float32") == 2.0 ** -23 and spacing(-1.0, "float16") == 2.0 ** -10
    assert spacing(1e-10, "bfloat16") == 2.0 ** -41  # 2**-34 <= 1e-10 < 2**-33: normal
    assert spacing(0.0, "float16") == 2.0 ** -24 and spacing(1e-40, "bfloat16") == 2.0 ** -133
    # 256 = 1.0 * 2**8: the exponent field stores 8 + 127 = 135 = 10000111
    assert bits(256.0, "bfloat16") == "0 10000111 0000000"
    assert bits(-1.5, "float16") == "1 01111 1000000000"  # 15 + 0 = 01111; .5 = .1 in binary
    assert bits(65520.0, "float16") == "0 11111 0000000000"  # inf
    assert bits(2.0 ** -24, "float16") == "0 00000 0000000001"  # the smallest subnormal
    assert bits(0.1, "float32") == "0 01111011 10011001100110011001101"  # 0x3dcccccd


def test_bits_are_what_struct_packs() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        x = math.ldexp(rng.uniform(-2, 2), rng.randint(-30, 20))
        for code, dtype, width in (("<f", "float32", 32), ("<e", "float16", 16)):
            packed = int.from_bytes(struct.pack(code, round_to(x, dtype)), "little")
            assert bits(x, dtype).replace(" ", "") == f"{packed:0{width}b}", (x, dtype)
        top = int.from_bytes(struct.pack("<f", round_to(x, "bfloat16")), "little")
        assert bits(x, "bfloat16").replace(" ", "") == f"{top:032b}"[:16]  # float32's top half
        assert top & 0xFFFF == 0  # a bfloat16 is a float32 whose low 16 bits are 0


def test_distinct_positions_by_counting() -> None:
    # bfloat16 among 0..4095: 0..256 (257), then steps of 2 to 512 (128 more), of 4 to 1024
    # (128), of 8 to 2048 (128), of 16 to 4096 (128): 769
    assert distinct_positions(4096, "bfloat16") == 257 + 4 * 128
    assert distinct_positions(4096, "float16") == 2049 + 1024
    assert distinct_positions(4096, "float32") == 4096 and distinct_positions(0, "float16") == 0
    # float16 past 65504: 0..2048 (2049), 1024 per octave to 32768 (4096), 1023 more to
    # 65504 in steps of 32, then inf: 7169 for every n past 65520
    assert distinct_positions(10**9, "float16") == 2049 + 4 * 1024 + 1023 + 1
    # bfloat16 at 10**9: 999,999,999 lands on 238 * 2**22; 0..256, 21 octaves of 128 to
    # 2**29, then (238 - 128) steps of 2**22: counted, not looped (the loop took minutes)
    assert distinct_positions(10**9, "bfloat16") == 257 + 21 * 128 + 110


def test_distinct_positions_agrees_with_the_set_it_counts() -> None:
    """The count against the definition, the set of rounded positions, for every n."""
    for dtype, last in (("bfloat16", 70_000), ("float16", 70_000), ("float32", 2**24 + 300)):
        start = 0 if dtype != "float32" else 2**24 - 300  # float32: all exact below 2**24
        seen: set[float] = set()
        for n in range(start + 1, last):
            seen.add(round_to(float(n - 1), dtype))
            assert distinct_positions(n, dtype) == start + len(seen), (dtype, n)


# --- against C's casts, through struct -----------------------------------------------------


def test_round_to_matches_structs_float32_and_float16() -> None:
    rng = random.Random(2026)
    for _ in range(20000):
        if rng.random() < 0.5:  # any float64 bit pattern: every exponent, NaNs, infinities
            x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        else:  # around the formats' ranges, subnormals included
            x = math.ldexp(rng.uniform(-2, 2), rng.randint(-160, 140))
        assert _same(round_to(x, "float32"), _by_struct(x, "f")), x
        assert _same(round_to(x, "float16"), _by_struct(x, "e")), x


def test_bfloat16_is_float32s_top_half_rounded_to_even() -> None:
    # the other way to say it, for values a float32 holds: add 0x7FFF plus the lowest kept
    # bit, then cut the low 16 bits (what torch does to a float32)
    rng = random.Random(16)
    for _ in range(20000):
        word = rng.getrandbits(32)
        x = struct.unpack("<f", word.to_bytes(4, "little"))[0]
        if math.isnan(x):
            continue
        cut = ((word + 0x7FFF + ((word >> 16) & 1)) >> 16) << 16
        want = struct.unpack("<f", (cut & 0xFFFFFFFF).to_bytes(4, "little"))[0]
        if cut > 0xFFFFFFFF or math.isnan(want):  # the carry ran past the exponent: inf
            want = math.copysign(math.inf, x)
        assert _same(round_to(x, "bfloat16"), want), (x, hex(word))


# --- against torch's casts (tests/reference/numerics_reference.json) -------------------------

REFERENCE = Path(__file__).parent / "reference"


@functools.cache
def _torch() -> dict[str, Any]:
    """The reference's outputs, decoded, beside the inputs drawn again by numerics_inputs.py."""
    spec = importlib.util.spec_from_file_location("numerics_inputs",
                                                  REFERENCE / "numerics_inputs.py")
    assert spec is not None and spec.loader is not None
    inputs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(inputs)
    stored = json.loads((REFERENCE / "numerics_reference.json").read_text())
    words: list[int] = inputs.float32_inputs()
    values: list[float] = inputs.float64_inputs()
    # the inputs drawn here are the ones torch cast (the same Python, the same seed)
    assert stored["float32_inputs"]["sha256"] == hashlib.sha256(
        b"".join(w.to_bytes(4, "big") for w in words)).hexdigest()
    assert stored["float64_inputs"]["sha256"] == hashlib.sha256(
        b"".join(struct.pack(">d", v) for v in values)).hexdigest()

    def unpacked(name: str, code: str) -> list[float]:
        raw = zlib.decompress(base64.b64decode(stored[name]))
        return list(struct.unpack(f">{len(raw) // struct.calcsize(code)}{code}", raw))

    bf16 = struct.unpack(f">{len(words)}H", zlib.decompress(base64.b64decode(stored["bfloat16"])))
    return {
        "made_by": stored["made_by"],
        "float32": [struct.unpack("<f", w.to_bytes(4, "little"))[0] for w in words],
        "float16": unpacked("float16", "e"),
        "bfloat16": [struct.unpack(">f", (b << 16).to_bytes(4, "big"))[0] for b in bf16],
        "float64": values,
        "float64_to_float32": unpacked("float32", "f"),
    }


def _mismatches(inputs: list[float], outputs: list[float], dtype: str, every: int) -> list[str]:
    return [f"{x!r} -> {round_to(x, dtype)!r}, torch {want!r}"
            for x, want in zip(inputs[::every], outputs[::every])
            if not _same(round_to(x, dtype), want)]


def test_the_torch_reference_covers_the_ranges() -> None:
    torch = _torch()
    assert "torch" in torch["made_by"] and len(torch["float32"]) >= 100_000
    assert len(torch["float16"]) == len(torch["bfloat16"]) == len(torch["float32"])
    kept = set(torch["float32"])
    for value in (0.0, 65504.0, 65520.0, 2.0 ** -24, 2.0 ** -133, 2.0 ** -149, math.inf):
        assert value in kept and -value in kept
    assert any(math.isnan(x) for x in kept) and len(torch["float64"]) == 20_000


@pytest.mark.parametrize("every", [pytest.param(1, marks=pytest.mark.slow), 32])
def test_round_to_is_torchs_cast_of_a_float32(every: int) -> None:
    # every=32: one value in 32, 5,000 of the 160,026 (quick); every=1: each of them
    torch = _torch()
    for dtype in ("float16", "bfloat16"):
        wrong = _mismatches(torch["float32"], torch[dtype], dtype, every)
        assert not wrong, f"{dtype}: {len(wrong)} differ from torch, e.g. {wrong[:3]}"


def test_round_to_is_torchs_cast_of_a_float64_to_float32() -> None:
    torch = _torch()
    wrong = _mismatches(torch["float64"], torch["float64_to_float32"], "float32", 1)
    assert not wrong, f"{len(wrong)} differ from torch, e.g. {wrong[:3]}"


def test_positions_keep_as_many_values_as_torch_keeps() -> None:
    torch = _torch()
    start = 50_000 + 20_000  # numerics_inputs.py: uniform, near integers, then positions
    assert torch["float32"][start:start + 32_768] == [float(p) for p in range(32_768)]
    # by hand: bfloat16 keeps 0..256 (257), then 128 per octave (7 octaves to 32768);
    # float16 keeps 0..2048 (2049), then 1024 per octave (4 to 32768)
    for dtype, n, count in (("bfloat16", 4096, 769), ("float16", 4096, 3073),
                            ("bfloat16", 32_768, 257 + 7 * 128),
                            ("float16", 32_768, 2049 + 4 * 1024)):
        assert len(set(torch[dtype][start:start + n])) == count == distinct_positions(n, dtype)


# --- refusals ------------------------------------------------------------------------------


def test_refusals_name_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="'float32', 'float16' or 'bfloat16'.*'fp16'"):
        round_to(1.0, "fp16")
    with pytest.raises(ValueError, match="one of"):
        round_to(1.0, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="x must be a number.*str '1.0'"):
        round_to("1.0", "float16")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="x must be a number"):
        round_to(True, "float16")
    with pytest.raises(ValueError, match="past float16's range.*65504"):
        spacing(70000.0, "float16")
    with pytest.raises(ValueError, match="n must be a count"):
        distinct_positions(-1, "bfloat16")
    with pytest.raises(ValueError, match="past 2[*][*]53"):
        distinct_positions(2**53 + 2, "float32")
    assert distinct_positions(2**53 + 1, "float32") == 2**24 + 29 * 2**23 + 1  # 0..2**53
    assert round_to(3, "float16") == 3.0  # an int is a number
