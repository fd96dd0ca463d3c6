"""More named mistakes of exercises 13-23: the ones a set of wrong answers written from
outside the checker found unnamed (tests/exercise_answers_outside/).

Each is (key, what you did; what is right, (file, a piece of the right line)), as
mistakes.py's _mistake takes them; mistakes.py adds them to MISTAKES.
"""

from __future__ import annotations

BATCHES = "minipe/batches.py"
GRADIENTS = "minipe/training/gradients.py"
GENERATION = "minipe/training/generation.py"
RELATIVE = "minipe/relative.py"
SUBWORD = "minipe/subword.py"

EVERY_OTHER = (RELATIVE, "slopes += _geometric_slopes(2 * power)[0::2][:missing]")

MORE: list[tuple[str, str, tuple[str, str]]] = [
    ("position-ids-padding-count",
     "you subtracted the row's whole padding count from t, which holds for a left-padded "
     "row only (a right-padded row then starts at -1); count the real tokens up to t: "
     "cumsum(mask) - 1",
     (BATCHES, "positions = [total - 1 if real else 0")),
    ("new-token-one-off",
     "you turned the new token one position off (at len(keys) + 1 or len(keys) - 1); the "
     "cache holds positions 0 .. n - 1, so the new token stands at n = len(keys)",
     (GENERATION, "pos = len(cache)  # the new token's position")),
    ("lookup-averaged",
     "you averaged the gradients of an ID that came more than once; each time a token "
     "came it sends its whole gradient into its row, so they add up",
     (GRADIENTS, "d_E[token_id] = [total + part for total, part in")),
    ("backward-first-sequence-only",
     "you took the first sequence's gradient only; the table was added to every sequence, "
     "so dP[t] sums d_X[b][t] over every b",
     (GRADIENTS, "for t, d_x_t in enumerate(d_x.rows)")),
    ("backward-rows-missing",
     "you returned one row per token of a sequence; dP has a row for every row of the "
     "table, context_length, and the rows no token reached stay 0",
     (GRADIENTS, "d_P = [[0.0] * d_inputs[0].shape[1] for _ in range(context_length)]")),
    ("labels-last-ignored",
     "you put -100 at each document's last token; it belongs at the first, which nothing "
     "before it in its own document predicts: labels += [-100] + document[1:]",
     (BATCHES, "labels += [IGNORE_INDEX] + list(document[1:])")),
    ("pack-positions-from-1",
     "your position_ids count from 1; each document's first token is at position 0",
     (BATCHES, "positions += range(len(document))")),
    ("document-mask-by-position",
     "you compared position IDs (position_ids[j] <= position_ids[i]), so a token sees the "
     "first tokens of earlier documents; compare where documents begin, t - position_ids[t]",
     (BATCHES, "starts.append(t - position)")),
    ("evict-sinks-turned",
     "you turned the sinks back too; they keep their positions 0 .. sinks - 1, so only the "
     "window's keys move and turn",
     (GENERATION, "K[:sinks] + K_window                rows, per head; V likewise")),
    ("evict-nothing-to-drop",
     "you cut a cache that fits (evicted <= 0), so the sinks and the window overlap and "
     "keys are turned by -evicted; when evicted <= 0 keep the cache as it is",
     (GENERATION, "if evicted <= 0:")),
    ("partial-rest-dropped",
     "you returned only the turned part; the columns past rotary_dims follow it as they "
     "are: the answer is as long as the row",
     ("minipe/training/heads.py", "return side_by_side([part, columns(x, rotary_dims,")),
    ("slopes-extra-odd",
     "you took the 2nd, 4th, ... slopes of twice the power ([1::2]), which are the power's "
     "own slopes again; the extra heads take the 1st, 3rd, ... ([0::2])",
     EVERY_OTHER),
    ("slopes-extra-first",
     "you put the extra heads' slopes first; the power of two's slopes come first, then "
     "the extra ones",
     EVERY_OTHER),
    ("slopes-power-above",
     "you used the power of two above n and cut its slopes to n; the rule takes the power "
     "just below n, then every other slope of twice it",
     (RELATIVE, "power = 2 ** (num_heads.bit_length() - 1)  # the largest power of two")),
    ("merge-no-pair",
     "you called max() on the pair counts when there are none (no piece has two tokens), "
     "a ValueError; with no pair, return the pieces' IDs as they are",
     (SUBWORD, "if not pair_counts:")),
    ("merge-no-skip",
     "after writing new_id you moved on one token, not two, so the pair's second token "
     "stays; skip both tokens of the merged pair (i += 2)",
     (SUBWORD, "i += 2")),
    ("windows-one-too-many",
     "your last window starts one token too late, so its targets run past the text and "
     "come one short; a window fits while its max_length targets do: start < "
     "len(ids) - max_length",
     (SUBWORD, "for start in range(0, len(ids) - max_length, stride):")),
]
