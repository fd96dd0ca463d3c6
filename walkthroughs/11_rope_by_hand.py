"""Lesson 11: RoPE by hand

Question: if the query and the key are turned by their positions instead of
having a position vector added, what is left of the positions in q . k?

Claim checked (lecture 004): turning q and k by their positions keeps their
lengths, and leaves a score that depends on the offset alone.

Lecture 004. Run: python walkthroughs/11_rope_by_hand.py [--step]
"""

import math

from lesson import Lesson

from minipe import Matrix, Vector, allclose, apply_rotary, rotary_pairs, sinusoidal_position

# %% The angles: d = 4, base 10000
if __name__ == "__main__":
    lesson = Lesson(__doc__)
    lesson.stage("The angles: pair i turns by pos * theta_i, theta_i = 10000**(-2i/d)")

    d = 4
    pos = 2
    pairs = rotary_pairs(d)  # [(0, 1), (2, 3)]: x[2i] and x[2i+1] turn together
    thetas = [10000 ** (-2 * i / d) for i in range(d // 2)]  # [1.0, 0.01]
    print("   pair i  dimensions  theta_i    angle at pos 2")
    for i, (first, second) in enumerate(pairs):
        angle = pos * thetas[i]  # 2.0 rad, then 0.02 rad
        print(f"   {i:6}  ({first}, {second}){'':6}{thetas[i]:<10.4f} {angle:.4f} rad")
    print("Pair 0 turns fast (2 rad: about 115 degrees); pair 1 barely moves.")

# %% Rotate q = [1, 2, 3, 4] at position 2
if __name__ == "__main__":
    lesson.stage("Rotate q = [1, 2, 3, 4] at position 2, one pair at a time")

    q = [1.0, 2.0, 3.0, 4.0]
    by_hand = list(q)
    for i, (first, second) in enumerate(pairs):
        a = pos * thetas[i]
        x, y = q[first], q[second]
        by_hand[first] = x * math.cos(a) - y * math.sin(a)  # x cos a - y sin a
        by_hand[second] = x * math.sin(a) + y * math.cos(a)  # x sin a + y cos a
        print(f"   ({x:.0f}, {y:.0f}) turned by {a:.2f} -> "
              f"({by_hand[first]:.4f}, {by_hand[second]:.4f})")
    rotated = apply_rotary(Matrix([q]), start=pos)[0]  # row 0 stands at position start=2
    print(f"by hand:      {Vector(by_hand)}")
    print(f"apply_rotary: {rotated}")
    lesson.check("apply_rotary turns q as the pairs worked by hand do", allclose(rotated, by_hand))
    # [-2.2347, 0.0770, 2.9194, 4.0592]

# %% The length stays; adding changes it
if __name__ == "__main__":
    lesson.stage("A rotation keeps the length; adding a position vector does not")

    q_vector = Vector(q)
    added = q_vector + sinusoidal_position(pos, d)  # the 2017 way: q + PE(2)
    print(f"|q|            = {q_vector.norm():.4f}   (sqrt(1 + 4 + 9 + 16) = sqrt 30)")
    print(f"|R_2 q|        = {rotated.norm():.4f}   the same: only the direction moved")
    print(f"|q + PE(2)|    = {added.norm():.4f}   the sum is longer, and mixes the two")
    # 5.4772, 5.4772, 6.3461

# %% Two codebases, two layouts
if __name__ == "__main__":
    lesson.stage("The half layout (GPT-NeoX, Hugging Face): other pairs, same turns")

    half = apply_rotary(Matrix([q]), start=pos, layout="half")[0]
    print(f"pairs: {rotary_pairs(d, layout='half')}: x[i] turns with x[i + d/2]")
    print(f"half layout:  {half}   norm {half.norm():.4f}")
    # [-3.1440, 1.9196, -0.3391, 4.0392], norm 5.4772
    order = [0, 2, 1, 3]  # put x[0] beside x[2] and x[1] beside x[3]
    permuted = Matrix([[q[j] for j in order]])  # [1, 3, 2, 4]
    turned = apply_rotary(permuted, start=pos)[0]  # the interleaved layout
    back = [0.0] * d
    for new, old in enumerate(order):
        back[old] = turned[new]
    print(f"interleaved on [1, 3, 2, 4], put back: {Vector(back)}")
    print("The same numbers: the layouts differ only by a permutation of dimensions.")
    lesson.check("the half layout is the interleaved one on permuted dimensions",
                 allclose(Vector(back), half))

# %% Only the offset survives in q . k
if __name__ == "__main__":
    lesson.stage("(R_m q) . (R_n k): query at position m, key at position n")

    k = [0.5, -1.0, 2.0, 1.0]
    print(f"q = {q}, k = {k}")
    print("        " + "".join(f"{'n=' + str(n):>9}" for n in range(5)))
    for m in range(5):
        q_m = apply_rotary(Matrix([q]), start=m)[0]
        row = [q_m.dot(apply_rotary(Matrix([k]), start=n)[0]) for n in range(5)]
        print(f"   m={m}  " + "".join(f"{score:9.4f}" for score in row))
    far = apply_rotary(Matrix([q]), start=100)[0].dot(apply_rotary(Matrix([k]), start=101)[0])
    print(f"m=100, n=101: {far:.4f}, as on the diagonal n - m = 1 above")
    # every diagonal is one number: 8.5000 (= q . k) for n = m, 10.9220 for n - m = 1
    print("Each diagonal holds one number: the score depends on n - m only.")
    print("Turning both vectors by m changes no angle between them.")
    print("Now try exercises 9 and 10: python -m minipe exercises check 9")
