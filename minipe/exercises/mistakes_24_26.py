"""The named mistakes of exercises 24-26: a number stored by hand, the layer norm's
backward, RoPE's table in low precision.

Each is (key, what you did; what is right, (file, a piece of the right line)), as
mistakes.py's _mistake takes them; mistakes.py adds them to MISTAKES.
"""

from __future__ import annotations

NUMERICS = "minipe/numerics.py"
BLOCK = "minipe/training/block.py"
LOW = "minipe/low_precision.py"

NEAREST = (NUMERICS, "rounded = round(abs(x) / spacing_at_x) * spacing_at_x")
SPREAD = (BLOCK, "r = 1.0 / math.sqrt(dot(centred, centred) / d + eps)")
DX = (BLOCK, "d_rows.append([r * (dy_j * w_j - mean_g - x_j * mean_gx)")
FIX = (LOW, "compute the angle in float32, cast only cos and sin")

MORE: list[tuple[str, str, tuple[str, str]]] = [
    ("round-half-up",
     "you sent a tie up (floor(steps + 0.5)), so 257 became 258 in bfloat16; a tie goes to "
     "the even neighbour, 256, which Python's round() does", NEAREST),
    ("round-truncated",
     "you chopped the bits past p (int() or floor of x / spacing), which moves every number "
     "toward zero; the stored value is the nearest one: round(x / spacing) * spacing", NEAREST),
    ("no-subnormal-floor",
     "below 2**emin your spacing kept shrinking (2**(e - p + 1)); the format has no smaller "
     "exponent there, so the spacing stays 2**(emin - p + 1) down to 0 (the subnormals)",
     (NUMERICS, "return max(e, form.emin) - form.precision + 1")),
    ("overflow-kept-finite",
     "past the largest finite value you kept a number (the rounded one, or the largest); a "
     "rounded value above (2 - 2**(1 - p)) * 2**emax is stored as infinity",
     (NUMERICS, "if rounded > form.largest:")),
    ("sign-lost",
     "you rounded |x| and returned it without its sign; put the sign back: "
     "math.copysign(rounded, x)", (NUMERICS, "return math.copysign(rounded, x)")),
    ("bfloat16-with-float16-bits",
     "you used float16's p = 11, emin = -14 (and emax = 15) for bfloat16 too; bfloat16 keeps "
     "p = 8 with float32's exponents, emin = -126 and emax = 127",
     (NUMERICS, '"bfloat16": Format(precision=8, emin=-126')),
    ("ln-statistics-constant",
     "you returned r g, as if the row's mean and variance did not move with x_j; both do: "
     "dx = r (g - mean(g) - x_hat mean(g x_hat))", DX),
    ("ln-mean-g-missing",
     "you left out -mean(g): moving x_j moves the row's mean, which every number had "
     "subtracted; dx = r (g - mean(g) - x_hat mean(g x_hat))",
     (BLOCK, "mean_g = dot(dy, w) / d  # mean(g)")),
    ("ln-x-hat-term-missing",
     "you left out -x_hat mean(g x_hat): moving x_j moves the row's spread, which every "
     "number was divided by; dx = r (g - mean(g) - x_hat mean(g x_hat))",
     (BLOCK, "mean_gx = dot(dy_x_hat, w) / d  # mean(g x_hat)")),
    ("ln-unbiased-variance",
     "you divided the squares by d - 1 (the unbiased variance); the layer norm's variance is "
     "their mean, divided by d", SPREAD),
    ("ln-eps-forgotten",
     "you left eps out of r (a constant row then divides by zero); r = 1 / sqrt(var + eps), "
     "as on the way forward", SPREAD),
    ("ln-eps-outside-sqrt",
     "you added eps outside the square root, 1 / (sqrt(var) + eps); it goes inside: "
     "r = 1 / sqrt(var + eps)", SPREAD),
    ("ln-weight-forgotten",
     "you used dy where g = dy w belongs: the weight multiplied x_hat on the way forward, so "
     "it multiplies the gradient on the way back", DX),
    ("rope-all-in-low-precision",
     "you stored every step in dtype (the position, theta_i, the angle); compute theta_i and "
     "the angle in float32 and store only cos a and sin a in dtype", FIX),
    ("rope-theta-in-low-precision",
     "you stored theta_i (inv_freq) in dtype, off by up to 2**-8 of itself in bfloat16, so "
     "the angle is off by pos times that; keep theta_i in float32", FIX),
    ("rope-angle-in-low-precision",
     "you stored the angle in dtype before cos and sin, so near 4095 it is a multiple of 16 "
     "radians in bfloat16; keep the angle in float32, store only cos a and sin a", FIX),
    ("rope-pos-in-low-precision",
     "you stored the position in dtype (257 is 256 in bfloat16), which turns every pair as "
     "if at another place; the position and the angle stay in float32", FIX),
    ("rope-table-not-stored",
     "you returned cos a and sin a without storing them in dtype; they are what the model "
     "multiplies q and k by, so they are dtype's numbers: round_to(math.cos(a), dtype)",
     (LOW, "cosines.append(_stored(math.cos(angle), at.table))")),
    ("rope-angle-in-float64",
     "you kept theta_i and the angle in Python's float64; the exercise, like a GPU, stores "
     "each in float32 (round_to(..., 'float32')) before cos and sin", FIX),
]
