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

from minipe.exercises import mistakes_1_12, mistakes_13_23, mistakes_24_26

ROOT = Path(__file__).resolve().parent.parent.parent  # the clone: minipe/exercises/../..


@dataclass(frozen=True)
class Mistake:
    """A known wrong way, its one-sentence explanation, and where the chapters do it right."""

    key: str  # what tests and the grid call it, e.g. "sin-cos-swapped"
    why: str  # one sentence: what you did; what is right
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
RELATIVE = "minipe/relative.py"
BATCHES = "minipe/batches.py"
GRADIENTS = "minipe/training/gradients.py"
GENERATION = "minipe/training/generation.py"
HEADS = "minipe/training/heads.py"
SUBWORD = "minipe/subword.py"

SOFTMAX_LINE = (ATTENTION, "exps = [math.exp(x_j - m) for x_j in x]")
CAUSAL_LINE = (ATTENTION, "0.0 if j <= i else -math.inf")
NEW_POSITION = (GENERATION, "pos = len(cache)  # the new token's position")

# Each sentence says what you did, then what is right. Issue 21's thirteen first, then
# the ones found since (issue 30: the mistakes the lessons themselves warn of).
MISTAKES = {m.key: m for m in [
    _mistake("sin-cos-swapped",
             "you put the cosine in column 2i and the sine in 2i+1; column 2i is "
             "sin(pos / base**(2i/d_model)) and column 2i+1 its cosine",
             (POSITIONAL, "row.append(sin(angle))  # PE(pos, 2i)")),
    _mistake("halves-for-interleaved",
             "you wrote the half layout [sin | cos] (all sines, then all cosines); the "
             "exercise asks for the paper's interleaved sin, cos, sin, cos",
             (POSITIONAL, "row.append(sin(angle))  # PE(pos, 2i)")),
    _mistake("rope-half-for-interleaved",
             "you paired (x[i], x[i + d/2]), the half layout; the interleaved layout asked "
             "for pairs (x[2i], x[2i+1])",
             (ROTARY, "return [(2 * i, 2 * i + 1) for i in range(d // 2)]")),
    _mistake("rope-interleaved-for-half",
             "you paired (x[2i], x[2i+1]), the interleaved layout; the half layout asked "
             "for pairs (x[i], x[i + d/2])",
             (ROTARY, "return [(i, i + d // 2) for i in range(d // 2)]")),
    _mistake("base-100000",
             "you used base 100000; the formula's base is 10000",
             (POSITIONAL, "return [base ** (2 * i / d_model)")),
    _mistake("base-1000",
             "you used base 1000; the formula's base is 10000",
             (POSITIONAL, "return [base ** (2 * i / d_model)")),
    _mistake("rope-base-100000",
             "you used base 100000 for theta_i; RoPE's base is 10000: theta_i = "
             "10000**(-2i/d)",
             (ROTARY, "return [base ** (-2 * i / d) for i in range(d // 2)]")),
    _mistake("rope-base-1000",
             "you used base 1000 for theta_i; RoPE's base is 10000: theta_i = "
             "10000**(-2i/d)",
             (ROTARY, "return [base ** (-2 * i / d) for i in range(d // 2)]")),
    _mistake("positions-from-1",
             "you counted positions from 1; the first token is at position 0, PE(0) = "
             "[0, 1, 0, 1, ...]",
             (POSITIONAL, "return _sinusoids(range(num_positions), d_model, base)")),
    _mistake("rope-positions-from-1",
             "you turned the rows as if positions counted from 1; the first token is at "
             "position 0 and is not turned at all",
             (ROTARY, "angle = pos * theta  # a = pos * theta_i")),
    _mistake("exponent",
             "your exponent is not 2i/d_model with i the pair (you used i/d_model, the "
             "column's number, or d_model in its place); columns 2i and 2i+1 share the one "
             "frequency 1 / base**(2i/d_model)",
             (POSITIONAL, "return [base ** (2 * i / d_model)")),
    _mistake("arange-for-cumsum",
             "you gave every row arange(n); a left-padded row's first real token is at "
             "position 0: position_ids = cumsum(mask) - 1 at the real tokens",
             (BATCHES, "positions = [total - 1 if real else 0")),
    _mistake("keys-turned-twice",
             "you turned the cached keys again; they were turned once, by their own "
             "positions, when they entered the cache: only the new query and key turn now, "
             "by the new position",
             (ROTARY, "row 0: a token generated later, at position 100")),
    _mistake("missing-sqrt",
             "you left out the division by sqrt(d_k); the scores are q . k / sqrt(d_k)",
             (ATTENTION, "scores = q @ k.T / math.sqrt(d_k)")),
    _mistake("mask-zero",
             "you set the hidden scores to 0, which still gets weight exp(0); a hidden key "
             "needs -inf, whose weight is exactly 0",
             CAUSAL_LINE),
    _mistake("wrong-axis",
             "you added row b of the table to sequence b; row t of the table goes to token "
             "t of every sequence b",
             (POSITIONAL, "Row pos of the table is added to token pos of every one")),
    _mistake("backward-wrong-axis",
             "you summed along the sequence; dP[t] sums token t's row over the sequences b "
             "of the batch, the axis the table was broadcast along",
             (GRADIENTS, "for t, d_x_t in enumerate(d_x.rows)")),
    _mistake("softmax-no-max",
             "you took exp of the scores as they are, which overflows at a score of 1000 "
             "(and gives 0 / 0 at -1000); subtract the largest score first, so no exp is "
             "above 1",
             SOFTMAX_LINE),
    _mistake("lookup-overwrites",
             "your rows overwrite each other; a token that came twice sends both of its "
             "gradients into its one row, summed",
             (GRADIENTS, "d_E[token_id] = [total + part for total, part in")),
    _mistake("alibi-sign",
             "you added +m (i - j), a reward that grows with the distance; ALiBi's bias is "
             "-m (i - j), a penalty",
             (RELATIVE, "penalty = [0.0 - slope * distance")),
    _mistake("mask-missing",
             "you left out the causal mask, so query i sees the keys after it; scores for "
             "j > i are -inf",
             (ATTENTION, "scores = scores + causal_mask(len(q))")),
    _mistake("turned-the-wrong-way",
             "you turned the pair by -a; x' = x cos a - y sin a, y' = x sin a + y cos a "
             "turns it by +a",
             (ROTARY, "rotated[first] = values[first] * cos_a - values[second] * sin_a")),
    _mistake("shift-the-wrong-way",
             "you built M_(-k), a shift back; row 2i holds cos(kw), +sin(kw)",
             (POSITIONAL, "rows[sine_row][cosine_row] = sin_kw")),
    _mistake("t5-sides-swapped",
             "you gave keys before the query the upper half; keys after it "
             "(relative_position > 0) take buckets 16 .. 31",
             (RELATIVE, "offset = buckets if relative_position > 0 else 0")),
    _mistake("query-not-turned",
             "you left the new query unturned; it turns by its own position n, like its key",
             (ROTARY, "row 0: a token generated later, at position 100")),
    _mistake("mean-for-sum",
             "you took the mean over the batch; every sequence's gradient adds in full, "
             "because the table was added to each of them",
             (GRADIENTS, "for t, d_x_t in enumerate(d_x.rows)")),
    # issue 30: the mistakes the lessons warn of, and the ones anyone can make
    _mistake("changed-its-arguments",
             "your function changed the caller's lists in place; a function that computes "
             "an answer builds new lists and leaves its arguments as they came, as minipe's "
             "frozen arrays must",
             ("minipe/arrays/matrix.py", "class Matrix")),
    _mistake("softmax-min",
             "you subtracted the smallest score, so exp(1000 - 0) overflows when the scores "
             "spread wide; subtract the largest, so every exp is at most 1",
             SOFTMAX_LINE),
    _mistake("max-in-numerator-only",
             "you subtracted the max in the numerator only, so your weights sum to "
             "exp(-max), not 1; subtract it in every exp of the sum too",
             SOFTMAX_LINE),
    _mistake("softmax-mean",
             "you subtracted the mean score, so exp(1000 - 0) overflows when the scores "
             "spread both ways; subtract the largest, so every exp is at most 1",
             SOFTMAX_LINE),
    _mistake("sqrt-of-n",
             "you divided by the square root of the number of tokens; d_k is the width of a "
             "query, len(q[0]): the scores are q . k / sqrt(d_k)",
             (ATTENTION, "scores = q @ k.T / math.sqrt(d_k)")),
    _mistake("rope-exponent",
             "your theta_i is 10000**(-i/d), the 2 of 2i left out; pair i turns by "
             "theta_i = 10000**(-2i/d)",
             (ROTARY, "return [base ** (-2 * i / d) for i in range(d // 2)]")),
    _mistake("t5-zero-upper",
             "you put offset 0 (the query's own key) in the upper half; only keys after the "
             "query, relative_position > 0, take buckets 16 .. 31, and 0 is bucket 0",
             (RELATIVE, "offset = buckets if relative_position > 0 else 0")),
    _mistake("mask-after-softmax",
             "you masked after the softmax, so the weights left sum below 1; add -inf to "
             "the scores before it, and the seen keys share all the weight",
             (ATTENTION, "scores = scores + causal_mask(len(q))")),
    _mistake("mask-strict",
             "you hid key j = i too (j < i); a query sees itself: j <= i, and the first "
             "token then has one key, not none",
             CAUSAL_LINE),
    _mistake("ids-from-1",
             "you read row id - 1, as if IDs counted from 1; ID 0 is row 0 (and your ID 0 "
             "read the last row)",
             ("minipe/arrays/matrix.py", "table = self.rows  # (rows, cols): row i is")),
    _mistake("lookup-batch-offset",
             "you read every sequence's gradients from row 0 of d_X; sequence b's rows "
             "start at b * seq_len (walk all the IDs in order, beside d_X's rows)",
             (GRADIENTS, "for token_id, d_x in zip(all_ids, d_X.rows)")),
    _mistake("alibi-no-mask",
             "you left the keys after the query visible (no -inf above the diagonal); "
             "ALiBi is causal: -m (i - j) for j <= i, -inf for j > i",
             (RELATIVE, "after = [-math.inf] * (seq_len - 1 - i) if causal")),
    _mistake("t5-no-clamp",
             "you left out the clamp, so a far offset gets a bucket past 15 (the other "
             "side's); every distance from 128 on shares the last bucket, min(..., B - 1)",
             (RELATIVE, "return offset + min(log_bucket, buckets - 1)")),
    _mistake("t5-not-halved",
             "you used all 32 buckets (or 16 exact ones) on each side; bidirectional T5 "
             "halves them: B = 32 // 2 = 16 per side, E = B // 2 = 8 exact",
             (RELATIVE, "buckets = num_buckets // 2  # B: the buckets of one side")),
    _mistake("position-ids-from-1",
             "you gave cumsum(mask) without the - 1, positions from 1; a row's first real "
             "token is at position 0",
             (BATCHES, "positions = [total - 1 if real else 0")),
    _mistake("new-token-at-0",
             "you turned the new token at position 0 (that is, not at all), lesson 20's "
             "common bug; it stands at n = len(keys) and turns by n * theta_i",
             NEW_POSITION),
    _mistake("v-turned",
             "you turned v too; RoPE turns q and k only, so the values carry what a token "
             "is, not where it is (lesson 21)",
             (ROTARY, "the rotation happens to q and k"),
             (GENERATION, "RoPE turns q and k by pos * theta_i")),
    _mistake("positions-not-restarted",
             "your position_ids run on across documents; they restart at 0 where each "
             "document begins",
             (BATCHES, "positions += range(len(document))")),
    _mistake("labels-not-ignored",
             "you kept an ID (or -100 at the first document only) where every document's "
             "first token needs -100: nothing before it in its own document predicts it",
             (BATCHES, "labels += [IGNORE_INDEX] + list(document[1:])")),
    _mistake("labels-shifted",
             "you shifted the labels by one (the next token's ID); the labels are the IDs "
             "themselves, and the loss shifts them",
             (BATCHES, "labels += [IGNORE_INDEX] + list(document[1:])")),
    _mistake("document-mask-not-causal",
             "you let a token see the later tokens of its own document; it sees key j when "
             "j is in its document and j <= i",
             (BATCHES, "row = [starts[j] == start and j <= i")),
    _mistake("document-mask-causal-only",
             "you let a token see the documents packed before its own; it sees only its own "
             "document (a new one starts where position_ids is 0)",
             (BATCHES, "row = [starts[j] == start and j <= i")),
    _mistake("evict-not-turned-back",
             "you kept the window's keys as they were stored, each turned by its old "
             "position p; they now stand at p - evicted, so turn them back by evicted",
             (GENERATION, "K_window  = R(-evicted theta_i) K[-window:]")),
    _mistake("evict-turned-forward",
             "you turned the window's keys on by evicted; they move back to p - evicted, so "
             "turn them back, by -evicted * theta_i",
             (GENERATION, "K_window  = R(-evicted theta_i) K[-window:]")),
    _mistake("evict-values-turned",
             "you turned the values too; RoPE never turned them, so they are kept as they are",
             (GENERATION, "K[:sinks] + K_window                rows, per head; V likewise")),
    _mistake("evict-no-sinks",
             "you kept the last sinks + window tokens and dropped the sinks; the first "
             "`sinks` tokens stay, whatever the length",
             (GENERATION, "K[:sinks] + K_window                rows, per head; V likewise")),
    _mistake("partial-theta-of-d",
             "you took theta_i = 10000**(-2i/d) with d the whole row; partial rotary uses "
             "the turned width: theta_i = 10000**(-2i/rotary_dims)",
             ("minipe/training/model.py", "theta_i = base**(-2i/rotary_dims)")),
    _mistake("partial-wrong-columns",
             "you turned the wrong columns (the last ones, or all of them); GPT-NeoX turns "
             "the first rotary_dims and leaves the rest as they are",
             (HEADS, "part = columns(x, 0, rotary_dims)")),
    _mistake("slopes-geometric-for-any-n",
             "you used 2**(-8(h+1)/n) for a head count that is not a power of two; then the "
             "slopes are those of the power of two below n, and every other slope of twice it",
             (RELATIVE, "slopes += _geometric_slopes(2 * power)[0::2][:missing]")),
    _mistake("slopes-from-h0",
             "you started at 2**0 = 1, one step too steep; head h's slope is 2**(-8(h+1)/n), "
             "so the first is 2**(-8/n)",
             (RELATIVE, "return [2 ** (-8 * (h + 1) / num_heads)")),
    _mistake("slopes-extra-not-every-other",
             "you took the first extra slopes of twice the power; the extra heads take every "
             "other one ([0::2]), which are not already among the power's",
             (RELATIVE, "slopes += _geometric_slopes(2 * power)[0::2][:missing]")),
    _mistake("merge-across-pieces",
             "you counted pairs over the pieces end to end, so a piece's last token and the "
             "next piece's first made a pair; pairs are counted inside each piece only, as "
             "no token may cross the pre-tokenizer's cuts",
             (SUBWORD, "for pair in zip(ids, ids[1:]):")),
    _mistake("ties-to-the-last",
             "you broke a tie between equally frequent pairs by another rule (the pair seen "
             "last, or the largest); the pair seen first wins (max keeps the first of equals)",
             (SUBWORD, "pair = max(pair_counts, key=pair_counts.__getitem__)")),
    _mistake("merge-first-only",
             "you merged only the first occurrence of the pair in a piece; every occurrence "
             "is merged, left to right",
             (SUBWORD, "merged.append(new_id)  # the pair becomes one token")),
    _mistake("stride-skips",
             "you moved each window stride + 1 tokens on, past its extra target token; the "
             "next starts stride tokens on, so that at stride = max_length no token is "
             "skipped as an input",
             (SUBWORD, "for start in range(0, len(ids) - max_length, stride):")),
    _mistake("stride-as-overlap",
             "you read stride as the tokens two windows share (Hugging Face's tokenizers' "
             "meaning); here it is the step from one window's start to the next",
             (SUBWORD, "for start in range(0, len(ids) - max_length, stride):")),
    _mistake("targets-not-shifted",
             "your targets are the inputs themselves; each position's target is the token "
             "after it: the inputs shifted one to the left, ids[start + 1:start + max_length "
             "+ 1]",
             (SUBWORD, "targets = list(ids[start + 1:start + max_length + 1])")),
    _mistake("windows-stop-early",
             "your last window starts one token too soon; a window fits while its targets "
             "do, up to the text's last token: starts run up to len(ids) - max_length - 1",
             (SUBWORD, "for start in range(0, len(ids) - max_length, stride):")),
    # found by the wrong answers written from outside the checker (issue 30, part 2)
    *(_mistake(key, why, *places) for key, why, *places in mistakes_1_12.MORE),
    *(_mistake(key, why, *places) for key, why, *places in mistakes_13_23.MORE),
    # exercises 24-26's own (mistakes_24_26.py)
    *(_mistake(key, why, *places) for key, why, *places in mistakes_24_26.MORE),
]}
# issue 21's list, in its words, and the keys that name each (a test checks them all)
ISSUE_21 = {
    "sine and cosine swapped": ("sin-cos-swapped",),
    "halves layout where interleaved was asked (and back)": (
        "halves-for-interleaved", "rope-half-for-interleaved", "rope-interleaved-for-half"),
    "base 100000 or 1000": ("base-100000", "base-1000", "rope-base-100000",
                            "rope-base-1000"),
    "positions counted from 1": ("positions-from-1", "rope-positions-from-1",
                                 "position-ids-from-1"),
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

# issue 30's list (its section 2), in its words, and the keys that name each
ISSUE_30 = {
    "a softmax that subtracts the minimum": ("softmax-min",),
    "a function that changes the caller's lists in place": ("changed-its-arguments",),
    "the cached token turned at position 0": ("new-token-at-0",),
    "v turned by RoPE": ("v-turned",),
    "the mask applied after the softmax": ("mask-after-softmax",),
    "ALiBi without the causal -inf": ("alibi-no-mask",),
    "1-based IDs in a lookup": ("ids-from-1",),
    "a lookup backward that ignores the batch offset": ("lookup-batch-offset",),
    "the exponent i/d in the shift matrix": ("exponent",),
    "the max subtracted in the numerator only": ("max-in-numerator-only",),
    "T5 buckets without the clamp or not halved": ("t5-no-clamp", "t5-not-halved"),
    "a strict mask (j < i)": ("mask-strict",),
}
