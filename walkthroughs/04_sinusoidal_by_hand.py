"""Lesson 4: the sinusoidal encoding, worked by hand

Question: what exactly are the numbers in PE(pos)? Work them out term by term
for d_model = 4, as lecture 003 does, then check them against minipe.

Claim checked (lectures 003 and 004): the formula gives lecture 003's
worked values of PE(pos), except where the lectures slip (see the errata).

    PE(pos, 2i)     = sin(pos / 10000**(2i / d_model))
    PE(pos, 2i + 1) = cos(pos / 10000**(2i / d_model))

Lectures 003 and 004. Run: python walkthroughs/04_sinusoidal_by_hand.py [--step]
"""

import math

from lesson import Lesson

from minipe import (
    Matrix,
    allclose,
    format_matrix,
    sinusoidal_denominators,
    sinusoidal_encoding,
    sinusoidal_position,
)
from minipe.plot import curves, pe_table

# %% The denominators: one per pair of columns
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("d_model = 4: one denominator 10000**(2i/d_model) per column pair")

    d_model = 4
    base = 10000.0
    denominators = []
    for i in range(d_model // 2):  # i = 0, 1: the pairs (0, 1) and (2, 3)
        denominator = base ** (2 * i / d_model)
        denominators.append(denominator)
        print(f"i = {i}: columns {2 * i} and {2 * i + 1}, "
              f"denominator 10000**({2 * i}/{d_model}) = {denominator:g}")
    # i = 0: 10000**0 = 1;  i = 1: 10000**(2/4) = sqrt(10000) = 100
    print(f"minipe agrees: sinusoidal_denominators(4) = {sinusoidal_denominators(4)!r}")
    print("i counts the d_model / 2 column pairs, not the columns (errata E6).")


# %% Each term of PE(pos), for pos 0, 1 and 3
def work_out(pos: int, d_model: int, denominators: list[float]) -> list[float]:
    """PE(pos) one column at a time, printing each angle, sine and cosine."""
    values = []
    for j in range(d_model):
        i = j // 2  # the column pair j belongs to
        angle = pos / denominators[i]
        if j % 2 == 0:
            value = math.sin(angle)
            name = "sin"
        else:
            value = math.cos(angle)
            name = "cos"
        values.append(value)
        term = f"{name}({pos} / {denominators[i]:g})"
        print(f"   PE({pos}, {j}) = {term:16} = {name}({angle:.4f}) = {value:8.5f}")
    return values


if __name__ == "__main__":
    lesson.stage("PE(0), PE(1) and PE(3), term by term")

    for pos in (0, 1, 3):
        by_hand = work_out(pos, d_model, denominators)
        print(f"PE({pos}) = [{', '.join(f'{value:.5g}' for value in by_hand)}]")
        assert allclose(sinusoidal_position(pos, d_model), by_hand)  # minipe agrees
    # PE(0) = [0, 1, 0, 1]
    # PE(1) = [0.8415, 0.5403, 0.0100, 0.99995]   (sin 1, cos 1, sin 0.01, cos 0.01)
    # PE(3) = [0.1411, -0.9900, 0.0300, 0.99955]
    print("Positions count from 0, and PE(0) is [0, 1, 0, 1]: sin 0 = 0, cos 0 = 1.")
    print(f"cos 3 = {math.cos(3):.6f} rounds to {math.cos(3):.4f}, not to lecture 003's "
          f"-0.9899 (errata E5).")
    print("Column 0 swings through a full turn every 2*pi positions; column 2 moves")
    print("100 times slower, so PE(1, 2) = sin(0.01) is still about 0.01.")

# %% A wider model: d_model = 8 at pos 3
if __name__ == "__main__":
    lesson.stage("d_model = 8 at pos 3: four pairs, denominators 1, 10, 100, 1000")

    wide = 8
    wide_denominators = [base ** (2 * i / wide) for i in range(wide // 2)]  # 1, 10, 100, 1000
    pe_3 = work_out(3, wide, wide_denominators)
    # PE(3) = [0.1411, -0.9900, 0.2955, 0.9553, 0.0300, 0.9996, 0.0030, 1.0000]
    print(f"the table's row 3 agrees: "
          f"{allclose(sinusoidal_encoding(4, wide)[3], pe_3)}")  # True
    lesson.check("the table's row 3 is the row worked by hand",
                 allclose(sinusoidal_encoding(4, wide)[3], pe_3))
    print("The first pair is the same as with d_model = 4 (its denominator is 1")
    print("for every d_model); the other pairs now turn 10, 100, 1000 times slower.")

# %% Wavelengths: from 2 pi to almost 2 pi * 10000
if __name__ == "__main__":
    lesson.stage("Each pair's wavelength: 2*pi * 10000**(2i/d_model) positions")

    for i, denominator in enumerate(wide_denominators):
        print(f"   d_model = 8, i = {i}: wavelength {2 * math.pi * denominator:9.2f}")
    # 6.28, 62.83, 628.32, 6283.19
    big = 512
    last_i = big // 2 - 1
    shortest = 2 * math.pi  # i = 0
    longest = 2 * math.pi * base ** (2 * last_i / big)
    print(f"d_model = {big}: from {shortest:.2f} (i = 0) to {longest:,.0f} (i = {last_i});")
    print(f"the bound 2*pi*10000 = {2 * math.pi * base:,.0f} is approached, never reached.")
    # 6.28 up to 60,611; 2*pi*10000 = 62,832
    print("Fast columns tell neighbours apart; slow ones place a token in a long text.")
    print("Small i is fast: lecture 000 has it backwards (errata E1), and lecture 003")
    print("leaves the 2*pi out of the wavelength (errata E7).")
    # Lecture 003's missing plot: columns 0, 1, 4 and 8 of a d_model = 32 table as waves.
    lesson.save_figure("pe_curves.svg", curves(dims=(0, 1, 4, 8), num_positions=64, d_model=32))
    lesson.save_figure("pe_table.svg", pe_table(64, 32))

# %% The exp/log form of the tutorials, and their argument order
if __name__ == "__main__":
    lesson.stage("The tutorials' form: exp(2i * -(ln 10000 / d_model)), multiplied")

    # PyTorch's tutorial and the Annotated Transformer compute a frequency (they call
    # it div_term) and multiply pos by it: exp(-x ln b) = b**(-x) = 1 / b**x.
    log_form = [math.exp(2 * i * -(math.log(base) / big)) for i in range(big // 2)]
    formula = [1 / base ** (2 * i / big) for i in range(big // 2)]
    gap = max(abs(a - b) for a, b in zip(log_form, formula))
    print(f"d_model = {big}: exp(2i * -(ln 10000 / {big})) vs 1 / 10000**(2i / {big}),")
    print(f"   largest difference over the {big // 2} pairs: {gap:.1e}")  # rounding only
    tutorial_table = Matrix([[f(pos * w) for w in log_form for f in (math.sin, math.cos)]
                             for pos in range(100)])  # (100, 512), interleaved like theirs
    table_gap = max(abs(a - b) for row_a, row_b in zip(tutorial_table,
                                                        sinusoidal_encoding(100, big))
                    for a, b in zip(row_a, row_b))
    print(f"   and over a 100 x {big} table, against minipe's: {table_gap:.1e}")
    print("The same numbers up to the last bits of rounding: one formula, two ways")
    print("to write it. Mind the argument order: the tutorials build")
    print("PositionalEncoding(d_model, dropout, max_len), width first; minipe's")
    print("sinusoidal_encoding(num_positions, d_model) takes positions first, in the")
    print("order of the table's shape (num_positions, d_model).")


# %% What base 100000 (lecture 004) changes
if __name__ == "__main__":
    lesson.stage("Lecture 004 writes base 100000: what changes")

    pe_1_paper = sinusoidal_position(1, d_model)  # base 10000, as in the paper
    pe_1_big = sinusoidal_position(1, d_model, base=100000.0)
    print(f"base  10000: denominators {sinusoidal_denominators(4)!r}")
    print(f"base 100000: denominators "
          f"{sinusoidal_denominators(4, base=100000.0)!r}")  # 1 and 316.23
    print(f"PE(1), base  10000 = {pe_1_paper!r}")
    print(f"PE(1), base 100000 = {pe_1_big!r}")  # [0.8415, 0.5403, 0.0032, 0.999995 (shown as 1.0)]
    print("Column pair 0 is unchanged (its denominator is 1 for any base); the")
    print("others turn slower, so the longest wavelength grows from 2*pi*10**4 to")
    print("2*pi*10**5. The paper, PyTorch tutorials and minipe's default use 10000")
    print("(errata E8).")

# %% The same numbers in another layout: [sin | cos]
if __name__ == "__main__":
    lesson.stage("Many libraries store [all sines | all cosines]: same numbers")

    sines = pe_3[0::2]  # columns 0, 2, 4, 6
    cosines = pe_3[1::2]  # columns 1, 3, 5, 7
    halves = sines + cosines
    both = Matrix([pe_3, halves])  # (2, 8)
    print(format_matrix(both, row_labels=["interleaved", "[sin | cos]"]))
    print("interleaved: the paper's and minipe's layout; [sin | cos]: many libraries'")
    print(f"the same numbers? {sorted(pe_3) == sorted(halves)}; "
          f"the same order? {pe_3 == halves}")  # True; False
    lesson.check("the two layouts hold the same numbers in another order",
                 sorted(pe_3) == sorted(halves) and pe_3 != halves)
    print("A model trained with one layout needs that layout, but neither knows")
    print("more about positions than the other: they differ by a column order.")
    print("Now try exercises 3 and 4: python -m minipe exercises check 3")
