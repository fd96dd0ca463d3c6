"""More named mistakes of exercises 1-12: the ones a set of wrong answers written from
outside the checker found unnamed (tests/exercise_answers_outside/).

Each is (key, what you did; what is right, (file, a piece of the right line), ...), as
mistakes.py's _mistake takes them; mistakes.py adds them to MISTAKES.
"""

from __future__ import annotations

TOKENIZER = "minipe/tokenizer.py"
POSITIONAL = "minipe/positional.py"
ATTENTION = "minipe/attention.py"
ROTARY = "minipe/rotary.py"
RELATIVE = "minipe/relative.py"

LOWER_LINE = (TOKENIZER, "return TOKEN_PATTERN.findall(composed.lower())")
GET_LINE = (TOKENIZER, "self._token_to_id.get(token, unknown_id)")
ANGLE_LINE = (POSITIONAL, "angle = pos / denominator  # pos / base**(2i / d_model)")
BROADCAST_LINE = (POSITIONAL, "Row pos of the table is added to token pos of every one")
ROPE_ANGLE = (ROTARY, "angle = pos * theta  # a = pos * theta_i")
T5_LOG = (RELATIVE, "log_fraction = math.log(distance / max_exact) / math.log(max_distance")

MORE: list[tuple[str, str, tuple[str, str]]] = [
    ("encode-not-lowered",
     "you looked the tokens up as written, so 'The' is not 'the' and becomes <|unk|>; "
     "lower-case the text first: re.findall(..., text.lower())",
     LOWER_LINE),
    ("encode-split-on-spaces",
     "you cut the text with str.split(), so punctuation stays glued to its word ('mat.' is "
     "one unknown token); the pattern cuts words and marks apart: "
     "re.findall(r\"<\\|\\w+\\|>|\\w+|[^\\w\\s]\", text.lower())",
     (TOKENIZER, "TOKEN_PATTERN = re.compile(")),
    ("encode-unknown-dropped",
     "you left the unknown tokens out, so the IDs are fewer than the tokens; every token "
     "gets an ID, an unknown one the index of '<|unk|>'",
     GET_LINE),
    ("encode-unknown-id",
     "you gave unknown tokens another ID (-1, or the vocabulary's last index); an unknown "
     "token takes the index of '<|unk|>', vocabulary.index('<|unk|>')",
     (TOKENIZER, "unknown_id = self._token_to_id[UNKNOWN]")),
    ("lookup-by-position",
     "you took row t, the token's place in the list; the answer's row t is the table's row "
     "ids[t], the token's ID",
     ("minipe/arrays/matrix.py", "table = self.rows  # (rows, cols): row i is")),
    ("rows-shared",
     "you returned the table's own row lists (table[i]), so changing the answer would change "
     "the table; copy each row, list(table[i]) (minipe's rows are tuples, which nothing can "
     "change, so it may share them)",
     ("minipe/embedding.py", "return self.weight.picked(rows)")),
    ("frequency-inverted",
     "you multiplied by 10000**(2i/d_model) where it divides (w = 10000**(2i/d_model) turned "
     "upside down); the angle is pos / 10000**(2i/d_model): w = 1 / 10000**(2i/d_model)",
     ANGLE_LINE),
    ("integer-division",
     "you wrote 2 * i // d_model, integer division, which is 0 for every pair, so every "
     "pair turns at frequency 1; write 2 * i / d_model",
     (POSITIONAL, "return [base ** (2 * i / d_model)")),
    ("table-row-missing",
     "your table stops one position early (range(num_positions - 1)); it has a row for "
     "every pos = 0 .. num_positions - 1: range(num_positions)",
     (POSITIONAL, "return _sinusoids(range(num_positions), d_model, base)")),
    ("table-transposed",
     "you returned the table transposed, one row per column; row pos is PE(pos): shape "
     "(num_positions, d_model)",
     (POSITIONAL, "The table of PE(pos) for pos = 0 .. num_positions - 1: shape")),
    ("added-to-first-only",
     "you added the table to the first sequence only; row t goes to token t of every "
     "sequence b of the batch",
     BROADCAST_LINE),
    ("row-0-everywhere",
     "you added row 0 of the table to every token; token t gets row t, its own position's",
     BROADCAST_LINE),
    ("softmax-not-normalised",
     "you returned exp(x - m) without dividing by their sum, so the weights do not sum to "
     "1; divide each by sum_k exp(x_k - m)",
     (ATTENTION, "return [e / total for e in exps]  # a row of weights")),
    ("divided-by-d-k",
     "you divided the scores by d_k; they are divided by its square root, "
     "q . k / sqrt(d_k)",
     (ATTENTION, "scores = q @ k.T / math.sqrt(d_k)")),
    ("mask-reversed",
     "you hid the keys before the query and let it see the ones after (j >= i); a causal "
     "query i sees keys j <= i, and -inf goes above the diagonal, j > i",
     (ATTENTION, "0.0 if j <= i else -math.inf")),
    ("shift-half-layout",
     "you put pair i's block at rows and columns (i, i + d_model/2), the half layout; the "
     "interleaved PE's pair i is columns (2i, 2i + 1)",
     (POSITIONAL, "sine_row, cosine_row = 2 * i, 2 * i + 1")),
    ("shift-k-forgotten",
     "you turned by w, not k * w, so every M_k is M_1; the block's angle is k * w",
     (POSITIONAL, "angle = k / denominator  # k * w")),
    ("rope-angle-divided",
     "you took a = pos / theta, as the sinusoids divide; theta is already the inverse "
     "frequency 10000**(-2i/d), so a = pos * theta",
     ROPE_ANGLE),
    ("rope-pos-forgotten",
     "you turned by theta alone, as if every token were at position 1; the angle is "
     "a = pos * theta",
     ROPE_ANGLE),
    ("rope-sin-cos-swapped",
     "you swapped sin and cos; x' = x cos a - y sin a, y' = x sin a + y cos a (at a = 0 "
     "the pair stays as it is)",
     (ROTARY, "rotated[first] = values[first] * cos_a - values[second] * sin_a")),
    ("x-overwritten",
     "you wrote x' over x and then computed y' from the new x; both come from the old "
     "pair: keep x and y until x' and y' are both computed",
     (ROTARY, "rotated[second] = values[first] * sin_a + values[second] * cos_a")),
    ("rope-theta-of-column",
     "you took theta from the pair's first column c (10000**(-2c/d)), which is 2i in the "
     "interleaved layout; pair i turns by theta_i = 10000**(-2i/d), i the pair's number",
     (ROTARY, "return [base ** (-2 * i / d) for i in range(d // 2)]")),
    ("t5-rounded",
     "you rounded the log bucket with round(); T5 truncates it, int(...), so a far offset "
     "lands one bucket lower than round gives",
     (RELATIVE, "log_bucket = max_exact + int(log_fraction * (buckets - max_exact))")),
    ("t5-log-of-max-distance",
     "you divided by log(128); the log range runs from E to max_distance, so it is "
     "log(n / E) / log(128 / E)",
     T5_LOG),
]
