"""Lesson 26: numbers a GPU stores

Question: minipe computes in Python floats (float64). The models you train
and read keep their numbers in float16 or bfloat16. What happens to a position,
to RoPE's angle pos * theta_i, and to "only the offset counts" there?

Claim checked (lecture 004): RoPE turns q and k by pos * theta_i, so a score
depends only on the offset between two positions. That holds in exact
arithmetic. In a format of 8 or 11 significant bits, positions merge, an angle
of thousands of radians is off by whole radians, and a shift of every position
changes the scores: by how much depends on which step is rounded. The fix
production code uses is one line: the angle in float32, only cos and sin cast.

Lecture 004, then past it: EleutherAI's gpt-neox issue 1003 and Hugging Face's
transformers issue 22069, with appendix C (minipe/numerics.py) and chapter 7's
part 3 (minipe/low_precision.py).
Run: python walkthroughs/26_numbers_a_gpu_stores.py [--step]
"""

import math
import random

from lesson import Lesson

from minipe import (
    LearnedPositionalEmbedding,
    Precision,
    Vector,
    distinct_positions,
    largest_exact_integer,
    rope_frequencies,
    round_to,
    rounded_angle,
    rounded_score,
    rounded_sinusoids,
    rounded_turns,
    softmax,
    spacing,
)

F32, F16, B16 = "float32", "float16", "bfloat16"
D, BASE = 128, 10000.0  # a Llama-sized head
STRIDED = range(32767 % 97, 32768, 97)  # every 97th position down from 32,767: 338 of them
# where the rounding happens: the formats of pos, theta_i (inv_freq), the angle, cos/sin
CASES = {
    "all float32": Precision(pos=F32, theta=F32, angle=F32, table=F32),
    "positions in bfloat16": Precision(pos=B16, theta=F32, angle=F32, table=F32),
    "inv_freq in bfloat16": Precision(pos=F32, theta=B16, angle=F32, table=F32),
    "the product in bfloat16": Precision(pos=B16, theta=B16, angle=B16, table=F32),
    "the fix": Precision(pos=F32, theta=F32, angle=F32, table=B16),
}
# The largest |cos error| over all 32,768 positions and 64 pairs, measured with torch's
# own dtypes by tests/reference/make_low_precision_reference.py (2 M values each, too
# many for this lesson); tests/test_low_precision.py checks these against its file.
TORCH_ALL_POSITIONS = {"all float32": 0.0019, "positions in bfloat16": 2.0000,
                       "inv_freq in bfloat16": 2.0000, "the product in bfloat16": 2.0000,
                       "the fix": 0.0034}
SCORES = {  # q and k in float64, or in bfloat16 with every step of their turn
    "float64": Precision(),
    "cos and sin in bfloat16": Precision(pos=F32, theta=F32, angle=F32, table=B16),
    "everything in bfloat16": Precision.everywhere(B16),
}
SHIFTS = (8, 100, 1000, 4000)


def cos_errors(positions: range | list[int], d: int, at: Precision) -> list[list[float]]:
    """|cos a - cos(pos * theta_i)| for each position and pair: `at`'s against float64's."""
    thetas = list(rope_frequencies(d, base=BASE)[0])  # theta_i = base**(-2i/d)
    cosines, _ = rounded_turns(positions, d, base=BASE, at=at)
    return [[abs(stored - math.cos(pos * theta)) for stored, theta in zip(row, thetas)]
            for pos, row in zip(positions, cosines.tolist())]


def random_vector(rng: random.Random) -> Vector:
    return Vector([rng.gauss(0, 1) for _ in range(D)])


# %% What a format keeps of a position
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("What each format keeps of a position")

    print("   format    bits  every integer   257 ->   2049 ->   positions kept of")
    print("                   up to                              0..4,095  0..32,767")
    for dtype, p in ((F32, 24), (F16, 11), (B16, 8)):
        print(f"   {dtype:<9} {p:>4}  {largest_exact_integer(dtype):>13,}   "
              f"{round_to(257, dtype):>6g}   {round_to(2049, dtype):>7g}   "
              f"{distinct_positions(4096, dtype):>8,}  {distinct_positions(32768, dtype):>9,}")
    lesson.check("bfloat16 keeps every integer up to 256 and float16 up to 2048",
                 largest_exact_integer(B16) == 256 and largest_exact_integer(F16) == 2048)
    lesson.check("bfloat16 keeps 769 of the positions 0..4095",
                 distinct_positions(4096, B16) == 769)
    print("bfloat16 keeps 8 significant bits: every integer up to 256, then every second")
    print("(257 is a tie and goes to the even 256), then every fourth. Of the positions")
    print("0..4,095 it keeps 769 values; 4,095 is stored as 4,096.")
    lesson.check("the spacing at 65,536 in bfloat16 is 512", spacing(65536.0, B16) == 512.0)
    print(f"At 65,536 two neighbouring bfloat16 numbers are {spacing(65536.0, B16):g} apart: "
          f"in a 64k context,")
    print("512 positions share one stored value. A float32 tensor keeps every position up")
    print("to 16,777,216: that is why the code that gets this right makes positions in")
    print("float32, or as ints.")

# %% RoPE's angle: where the rounding happens
if __name__ == "__main__":
    lesson.stage("RoPE's angle pos * theta_i, rounded at one step or another")

    print(f"d = {D}, base {BASE:g}: 64 pairs. |cos a - cos a exact| at two positions (how")
    print("many pairs are off by > .01, and the largest), then the largest over every 97th")
    print("position down from 32,767 (338 positions), and what torch measured over all")
    print("32,768 (tests/reference/):")
    print(f"   {'':<24} {'at 4,095':^13}  {'at 32,767':^13}  {'largest':^14}".rstrip())
    print(f"   {'rounded':<24} {'> .01':>5}  {'max':>6}  {'> .01':>5}  {'max':>6}  "
          f"{'338':>6}  {'torch':>6}")
    largest = {}
    at_4095 = {}
    for name, at in CASES.items():
        chosen = cos_errors([4095, 32767], D, at)
        largest[name] = max(map(max, cos_errors(STRIDED, D, at)))
        at_4095[name] = (sum(error > 0.01 for error in chosen[0]), max(chosen[0]))
        print(f"   {name:<24} {at_4095[name][0]:>5}  {at_4095[name][1]:6.4f}  "
              f"{sum(error > 0.01 for error in chosen[1]):>5}  {max(chosen[1]):6.4f}  "
              f"{largest[name]:6.4f}  {TORCH_ALL_POSITIONS[name]:6.4f}")
    lesson.check("inv_freq in bfloat16 at position 4095: 39 of 64 pairs off by more than "
                 "0.01, the worst by 1.679",
                 at_4095["inv_freq in bfloat16"][0] == 39
                 and round(at_4095["inv_freq in bfloat16"][1], 3) == 1.679)
    print("With inv_freq in bfloat16, 39 of the 64 cosines at position 4,095 are more")
    print("than 0.01 off, the worst by 1.679 (a cosine spans 2); torch's own bfloat16 gives")
    theta_1 = rope_frequencies(D, base=BASE)[0][1]
    gap = (round_to(theta_1, B16) - theta_1) * 4095  # how far the angle at 4,095 moves
    lesson.check("the stored theta_1 moves the angle at 4095 by 5 radians", round(gap) == 5)
    lesson.check("4095 is stored as 4096, and bfloat16 near 4095 keeps multiples of 16",
                 round_to(4095, B16) == 4096 and spacing(4095.0, B16) == 16)
    print(f"the same. theta_1 = {theta_1:.5f} is stored as {round_to(theta_1, B16):.5f}, "
          f"and 4,095 times the gap is {gap:.1f}")
    print("radians. A position stored as 4,096 moves every pair one step. The product in")
    print("bfloat16 (its two factors and itself) near 4,095 is a multiple of 16 radians.")
    lesson.check("the fix keeps every cosine within 0.004, as all float32 does within 0.002",
                 largest["the fix"] < 0.004 and largest["all float32"] < 0.002)
    lesson.check("each other rounding is off by more than 1.9 somewhere",
                 all(largest[name] > 1.9 for name in list(CASES)[1:4]))
    lesson.check("bfloat16 stores a cosine near 1 within 2**-9",
                 spacing(0.9, B16) / 2 == 2 ** -9)
    print("The fix, the angle in float32 and only cos and sin cast to bfloat16, stays")
    print("within 0.004 at every position: a cosine near 1 is stored within 2**-9 = 0.002,")
    print("and float32's own angle adds the rest. The other three reach errors near 2,")
    print("a cosine of the wrong sign.")

# %% EleutherAI gpt-neox issue 1003
if __name__ == "__main__":
    lesson.stage("EleutherAI's gpt-neox issue 1003, reproduced")

    float32, float16 = Precision.everywhere(F32), Precision.everywhere(F16)
    exact_angle = rounded_angle(1857, 1, 32, base=BASE, at=float32)
    half_angle = rounded_angle(1857, 1, 32, base=BASE, at=float16)
    print("The issue's code: 32 rotary dimensions (16 pairs), positions 0..2,047, inv_freq")
    print("cast to float16 and the angles computed in float16, against float32:")
    print(f"   position 1,857, pair 1: float32 {exact_angle:.4f}, float16 {half_angle:g}")
    lesson.check("the angle at position 1857, pair 1, is 1045.0 in float16 and 1044.27 "
                 "in float32", half_angle == 1045.0 and round(exact_angle, 2) == 1044.27)
    cos32, _ = rounded_turns(range(2048), 32, base=BASE, at=float32)
    cos16, _ = rounded_turns(range(2048), 32, base=BASE, at=float16)
    moved = [abs(a - b) for row32, row16 in zip(cos32.tolist(), cos16.tolist())
             for a, b in zip(row32, row16)]
    worst = max(moved)
    print(f"   the largest change of a cosine, over all 2,048 x 16: {worst:.4f}")
    print(f"   (at position {moved.index(worst) // 16:,}, pair {moved.index(worst) % 16})")
    lesson.check("cosines move by up to 0.7819", round(worst, 4) == 0.7819)
    theta_1 = rope_frequencies(32, base=BASE)[0][1]
    product = 1857 * round_to(theta_1, F16)
    lesson.check("float16 keeps only integers between 1024 and 2048",
                 spacing(1024.0, F16) == spacing(2047.0, F16) == 1)
    print(f"theta_1 = {theta_1:.5f} is stored as {round_to(theta_1, F16):g}, 1,857 x "
          f"{round_to(theta_1, F16):g} = {product:,.2f}, and float16")
    print("between 1,024 and 2,048 keeps only integers: 1,045. The issue measured the same")
    print("two numbers on a GPU: 1045.0 and 0.7819.")

# %% Only the offset counts, until rounding
if __name__ == "__main__":
    lesson.stage("Only the offset counts: score(10 + s, 3 + s) against score(10, 3)")

    rng = random.Random(0)
    q, k = random_vector(rng), random_vector(rng)  # a random query and key, d = 128
    print(f"q and k random (seed 0), d = {D}. score(m, n) = (R_m q) . (R_n k); each row")
    print("shows score(10, 3) and how far score(10 + s, 3 + s) is from it:")
    print("                               score(10, 3)   s = 8     100    1,000    4,000")
    moved_by = {}
    for name, at in SCORES.items():
        first = rounded_score(q, k, 10, 3, base=BASE, at=at)
        moved_by[name] = [rounded_score(q, k, 10 + s, 3 + s, base=BASE, at=at) - first
                          for s in SHIFTS]
        print(f"   {name:<26} {first:10.4f}  " + "".join(f"{change:8.4f}"
                                                      for change in moved_by[name]))
    lesson.check("in float64 every shift changes the score by less than 1e-12",
                 all(abs(change) < 1e-12 for change in moved_by["float64"]))
    table_only = [abs(change) for change in moved_by["cos and sin in bfloat16"]]
    lesson.check("cos and sin in bfloat16 move it by about 0.005 (under 0.01, 0.005 on "
                 "average to within 0.002)",
                 max(table_only) < 0.01 and abs(sum(table_only) / len(SHIFTS) - 0.005) < 0.002)
    lesson.check("everything in bfloat16 moves it by more than 1 at s = 1000",
                 abs(moved_by["everything in bfloat16"][2]) > 1)
    print("In float64 the four shifts change nothing (under 1e-12: chapter 5's promise).")
    print("With cos and sin in bfloat16 the score moves by about 0.005, the table's own")
    print("rounding. With everything in bfloat16 it moves by more than 1 at s = 1,000:")
    print("the same two tokens, the same offset, another score.")

# %% A sinusoidal table in float16; a learned table
if __name__ == "__main__":
    lesson.stage("A sinusoidal table in float16, and a learned table")

    in_float16 = rounded_sinusoids([2048, 2049], 64, base=BASE, at=Precision.everywhere(F16))
    cast = rounded_sinusoids([2048, 2049], 64, base=BASE,
                        at=Precision(pos=F32, theta=F32, angle=F32, table=F16))
    lesson.check("made in float16, rows 2048 and 2049 are equal", in_float16[0] == in_float16[1])
    lesson.check("made in float32 and cast, they differ", cast[0] != cast[1])
    lesson.check("float16 keeps 3,073 of the positions 0..4095",
                 distinct_positions(4096, F16) == 3073)
    print("d_model = 64. Made in float16 (positions, denominators, angles, values), rows")
    print("2,048 and 2,049 are equal: position 2,049 is stored as 2,048. Made in float32")
    print("and cast to float16, they differ. The first is what a table computed in the")
    print("model's format gets; float16 keeps 3,073 distinct positions of 0..4,095.")
    learned = LearnedPositionalEmbedding(context_length=4096, dim=64, seed=0)
    rows = learned.weight
    lesson.check("a learned table's rows 2048 and 2049 differ", rows[2048] != rows[2049])
    print("A learned table is looked up by position: torch.arange(n) is a tensor of ints,")
    print("an index, and no format rounds it. Its rows 2,048 and 2,049 differ whatever")
    print("format holds their numbers. Lesson 07 showed its weakness, no row past its")
    print("last; here it has none: each row it has is its own.")

# %% Where it matters: lessons 19 and 20
if __name__ == "__main__":
    lesson.stage("Where it matters: a shift of position_ids (lessons 19 and 20)")

    rng = random.Random(1)
    keys = [random_vector(rng) for _ in range(8)]  # 8 tokens, the query is the last
    print("The query at position 7 (q of stage 4) over keys at 0..7, and the same 8 tokens")
    print("with every position shifted: by 5 (five pads counted by column, lesson 19) and")
    print("by 1,000 (the same text later in a long generation, lesson 20).")
    print(f"{'largest change of:':>42}{'a score':>11}{'a weight':>10}")
    changes = {}
    for name, at in SCORES.items():
        for shift in (5, 1000):
            scores = [[rounded_score(q, key, 7 + s, j + s, base=BASE, at=at) / math.sqrt(D)
                       for j, key in enumerate(keys)] for s in (0, shift)]
            weights = [list(softmax(row)) for row in scores]
            changes[name, shift] = (max(abs(a - b) for a, b in zip(*scores)),
                                    max(abs(a - b) for a, b in zip(*weights)))
            print(f"   {name:<26} shift {shift:>5,}  " + "".join(
                f"{change:>10.2g}" if change >= 1e-12 else "   < 1e-12"
                for change in changes[name, shift]))
    lesson.check("in float64 no score moves by 1e-12",
                 all(changes["float64", shift][0] < 1e-12 for shift in (5, 1000)))
    lesson.check("in bfloat16 a shift of 1000 moves a weight by 0.04",
                 round(changes["everything in bfloat16", 1000][1], 2) == 0.04)
    print("In float64 a shift of position_ids changes RoPE's scores only by float64's own")
    print("rounding (lesson 19: 'the same to within rounding'). In bfloat16 that rounding")
    print("is the story: the weights move by up to 0.04 at a shift of 1,000. Hugging Face's")
    print("transformers issue 22069 reported it from a model: position_ids shifted by 8")
    print("changed a bfloat16 model's logits. position_ids counted from each text's first")
    print("real token (lesson 19) give every text the positions it has alone, so the same")
    print("numbers in any format; a cache keeps the positions a token had when it came in.")
    print("Now try exercises 24 and 26: python -m minipe exercises check 24")
