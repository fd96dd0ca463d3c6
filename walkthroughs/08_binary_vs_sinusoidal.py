"""Lesson 8: binary vs sinusoidal codes

Question: why not mark each position with its number in binary? It is unique
and fast columns flip more often than slow ones, just like the sinusoids.

Claim checked (lecture 004): binary codes jump between neighbours, and
sinusoidal codes move by one and the same step at every position.

Lecture 004. Run: python walkthroughs/08_binary_vs_sinusoidal.py [--step]
"""

from lesson import Lesson

from minipe import binary_encoding, sinusoidal_encoding
from minipe.plot import LineChart

# %% Positions in binary
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("Positions 0..15 in 4 bits (least significant bit first)")

    num_positions = 16
    bits = 4
    binary = binary_encoding(num_positions, bits)  # (16, 4): row pos is pos in binary
    for pos in (0, 1, 2, 3, 6, 7, 8, 9):
        code = "".join(str(int(bit)) for bit in binary[pos])
        print(f"   pos {pos:2}: {code}")
    # 7 = 1110 and 8 = 0001 (least significant bit first)
    print("Column 0 flips at every step, column 1 every 2 steps, column j every 2**j")
    print("steps: fast columns and slow columns, like the sinusoids' pairs.")

# %% Binary codes jump
if __name__ == "__main__":
    lesson.stage("The distance from each position to the next, in binary")

    binary_steps = [(binary[pos + 1] - binary[pos]).norm() for pos in range(num_positions - 1)]
    for pos, step in enumerate(binary_steps):
        print(f"   |B({pos + 1:2}) - B({pos:2})| = {step:.4f}  {'#' * round(10 * step)}")
    # 7 -> 8: 2.0000 (four bits flip at once); 8 -> 9: 1.0000 (one bit)
    print(f"from 7 to 8: {binary_steps[7]:.4f}, from 8 to 9: {binary_steps[8]:.4f}")
    print("Neighbours are anywhere from 1 to 2 apart: carrying a bit makes")
    print("the code jump, so nearness in position is not nearness in the code.")

# %% Sinusoids move smoothly
if __name__ == "__main__":
    lesson.stage("The same distances for the sinusoidal code (d_model = 8)")

    d_model = 2 * bits  # 8: four column pairs, as many slow/fast scales as bits
    table = sinusoidal_encoding(num_positions, d_model)  # (16, 8)
    smooth_steps = [(table[pos + 1] - table[pos]).norm() for pos in range(num_positions - 1)]
    for pos in (0, 1, 6, 7, 8, 14):
        print(f"   |PE({pos + 1:2}) - PE({pos:2})| = {smooth_steps[pos]:.4f}")
    # 0.9641 at every pos
    spread = max(smooth_steps) - min(smooth_steps)
    print("largest minus smallest of all 15 steps: below 1e-15 (the last bits of a float)")
    lesson.check("the 15 steps differ by less than 1e-15", spread < 1e-15)
    print("Every step has the same length: the step from pos to pos + 1 is the")
    print("rotation M_1 of lesson 6, which moves every vector by the same amount.")
    print("Sines and cosines are the smooth, continuous cousins of binary digits.")
    print("Lecture 004's 'BPE' is this binary code, not byte-pair encoding (errata E10).")
    lesson.save_figure("neighbour_distances.svg", LineChart(
        x=tuple(float(pos) for pos in range(num_positions - 1)),
        series=(("binary, 4 bits", tuple(binary_steps)),
                ("sinusoidal, d_model = 8", tuple(smooth_steps))),
        title="Distance from position pos to pos + 1", x_name="position pos",
        y_name="distance to the next position"))
