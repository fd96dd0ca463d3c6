"""The catalogue of named mistakes: what each is, and the chapter line that has it right.

A mistake is recognised by computing it: the exercise holds the known wrong
solution (minipe/exercises/wrong.py), and when a learner's output equals the
wrong solution's, the checker names the mistake and says the sentence below.

The pointer is a line of a chapter, found when the checker runs by searching
the file for a piece of that line (`needle`): when the chapter moves a line,
the pointer follows it. tests/test_exercises.py checks that every needle is found.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent  # the clone: minipe/exercises/../..


@dataclass(frozen=True)
class Mistake:
    """A known wrong way, its one-sentence explanation, and where the chapters do it right."""

    key: str  # what tests and the grid call it, e.g. "sin-cos-swapped"
    why: str  # one sentence: what went wrong
    places: tuple[tuple[str, str], ...]  # (file, a piece of the right line): the first found

    def where(self) -> str:
        """'minipe/positional.py:98', the line of the first place found (the file alone if not)."""
        for file, needle in self.places:
            path = ROOT / file
            if not path.exists():
                continue
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if needle in line:
                    return f"{file}:{number}"
        return self.places[-1][0]

    def sentence(self) -> str:
        return f"{self.why} ({self.where()} has it right)"


def _mistake(key: str, why: str, *places: tuple[str, str]) -> Mistake:
    return Mistake(key, why, places)


POSITIONAL = "minipe/positional.py"
ATTENTION = "minipe/attention.py"
ROTARY = "minipe/rotary.py"
GRADIENTS = "minipe/training/gradients.py"

# The thirteen mistakes that issue 21 names, in its order; then a few more.
MISTAKES = {m.key: m for m in [
    _mistake("sin-cos-swapped",
             "sine and cosine are swapped: column 2i is sin(pos / base**(2i/d_model)) and "
             "column 2i+1 its cosine",
             (POSITIONAL, "row.append(sin(angle))  # PE(pos, 2i)")),
    _mistake("halves-for-interleaved",
             "this is the half layout [sin | cos] (all sines, then all cosines), but the "
             "exercise asks for the paper's interleaved sin, cos, sin, cos",
             (POSITIONAL, "row.append(sin(angle))  # PE(pos, 2i)")),
    _mistake("rope-half-for-interleaved",
             "the pairs are (x[i], x[i + d/2]), the half layout, where the interleaved layout "
             "(x[2i], x[2i+1]) was asked",
             (ROTARY, "return [(2 * i, 2 * i + 1) for i in range(d // 2)]")),
    _mistake("rope-interleaved-for-half",
             "the pairs are (x[2i], x[2i+1]), the interleaved layout, where the half layout "
             "(x[i], x[i + d/2]) was asked",
             (ROTARY, "return [(i, i + d // 2) for i in range(d // 2)]")),
    _mistake("base-100000",
             "the base is 100000, not 10000", (POSITIONAL, "return [base ** (2 * i / d_model)")),
    _mistake("base-1000",
             "the base is 1000, not 10000", (POSITIONAL, "return [base ** (2 * i / d_model)")),
    _mistake("rope-base",
             "theta_i uses a base of 100000 or 1000, not 10000",
             (ROTARY, "return [base ** (-2 * i / d) for i in range(d // 2)]")),
    _mistake("positions-from-1",
             "positions are counted from 1: the first token is at position 0",
             (POSITIONAL, "return _sinusoids(range(num_positions), d_model, base)")),
    _mistake("rope-positions-from-1",
             "the rows are turned as if positions counted from 1: the first token is at "
             "position 0 and is not turned at all",
             (ROTARY, "angle = pos * theta  # a = pos * theta_i")),
    _mistake("exponent",
             "the exponent is not 2i/d_model with i the pair: columns 2i and 2i+1 share the "
             "one angle pos / base**(2i/d_model) (here d_model or the column number took "
             "the place of 2i)",
             (POSITIONAL, "return [base ** (2 * i / d_model)")),
    _mistake("arange-for-cumsum",
             "this is arange(n) on every row, but a left-padded row's first real token is at "
             "position 0: position_ids = cumsum(mask) - 1 at the real tokens",
             ("minipe/batches.py", "positions = [total - 1 if real else 0")),
    _mistake("keys-turned-twice",
             "the cached keys were turned again: they were turned once, by their own "
             "positions, when they entered the cache; only the new query and key turn now, "
             "by the new position",
             (ROTARY, "row 0: a token generated later, at position 100")),
    _mistake("missing-sqrt",
             "the scores are q . k without the division by sqrt(d_k)",
             (ATTENTION, "scores = q @ k.T / math.sqrt(d_k)")),
    _mistake("mask-zero",
             "the masked scores were set to 0, which still gets weight exp(0): a hidden key "
             "needs -inf, whose weight is exactly 0",
             (ATTENTION, "0.0 if j <= i else -math.inf")),
    _mistake("wrong-axis",
             "the table was added along the wrong axis: row t of the table goes to token t of "
             "every sequence b, not to sequence b",
             (POSITIONAL, "Row pos of the table is added to token pos of every one")),
    _mistake("backward-wrong-axis",
             "the sum went along the wrong axis: dP[t] sums token t's row over the sequences "
             "b of the batch, the axis the table was broadcast along",
             (GRADIENTS, "for t, d_x_t in enumerate(d_x.rows)")),
    _mistake("softmax-no-max",
             "the largest score is not subtracted before exp, so exp overflows at large "
             "scores (and gives 0 / 0 at very negative ones)",
             (ATTENTION, "exps = [math.exp(x_j - m) for x_j in x]")),
    _mistake("lookup-overwrites",
             "the rows overwrite each other: a token that came twice must send both of its "
             "gradients back into its one row, summed",
             (GRADIENTS, "d_E[token_id] = [total + part for total, part in")),
    _mistake("alibi-sign",
             "ALiBi's sign is flipped: the bias is -m (i - j), a penalty that grows with the "
             "distance, never a reward",
             ("minipe/relative.py", "penalty = [0.0 - slope * distance")),
    # more than the issue asked: mistakes as easy to make, and as easy to name
    _mistake("mask-missing",
             "no causal mask: query i sees the keys after it",
             (ATTENTION, "scores = scores + causal_mask(len(q))")),
    _mistake("turned-the-wrong-way",
             "the pair turns the wrong way (by -a): x' = x cos a - y sin a, y' = x sin a + "
             "y cos a",
             (ROTARY, "rotated[first] = values[first] * cos_a - values[second] * sin_a")),
    _mistake("shift-the-wrong-way",
             "this is M_(-k), a shift back: row 2i holds cos(kw), +sin(kw)",
             (POSITIONAL, "rows[sine_row][cosine_row] = sin_kw")),
    _mistake("t5-sides-swapped",
             "the two halves are swapped: keys after the query (relative_position > 0) take "
             "the upper half of the buckets",
             ("minipe/relative.py", "offset = buckets if relative_position > 0 else 0")),
    _mistake("query-not-turned",
             "the new query was not turned: it turns by its own position, like the keys",
             (ROTARY, "row 0: a token generated later, at position 100")),
    _mistake("mean-for-sum",
             "this is the mean over the batch, but every sequence's gradient adds in full: "
             "the table was added to each of them",
             (GRADIENTS, "for t, d_x_t in enumerate(d_x.rows)")),
]}

# issue 21's list, in its words, and the keys that name each (a test checks them all)
ISSUE_21 = {
    "sine and cosine swapped": ("sin-cos-swapped",),
    "halves layout where interleaved was asked (and back)": (
        "halves-for-interleaved", "rope-half-for-interleaved", "rope-interleaved-for-half"),
    "base 100000 or 1000": ("base-100000", "base-1000", "rope-base"),
    "positions counted from 1": ("positions-from-1", "rope-positions-from-1"),
    "d_model where 2i/d_model was meant": ("exponent",),
    "arange where cumsum(mask) - 1 was meant": ("arange-for-cumsum",),
    "keys turned twice": ("keys-turned-twice",),
    "the missing 1/sqrt(d_k)": ("missing-sqrt",),
    "a mask filled with 0 instead of -inf": ("mask-zero",),
    "broadcasting along the wrong axis": ("wrong-axis", "backward-wrong-axis"),
    "softmax without the max subtracted": ("softmax-no-max",),
    "a lookup backward that overwrites instead of summing": ("lookup-overwrites",),
    "ALiBi's sign flipped": ("alibi-sign",),
}
