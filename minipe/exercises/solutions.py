"""One way to solve each exercise, in plain Python: what `exercises solution N` prints.

Each function has the signature of the learner's and uses no part of minipe,
so it reads on its own; the checker holds it to minipe's own functions like any
learner's (tests/test_exercises.py runs them all).
"""

from __future__ import annotations

import math
import re


def encode(text: str, vocabulary: list[str]) -> list[int]:
    tokens = re.findall(r"<\|\w+\|>|\w+|[^\w\s]", text.lower())  # words and punctuation
    token_to_id = {token: i for i, token in enumerate(vocabulary)}
    unknown = token_to_id["<|unk|>"]
    return [token_to_id.get(token, unknown) for token in tokens]


def lookup(table: list[list[float]], ids: list[int]) -> list[list[float]]:
    return [list(table[token_id]) for token_id in ids]  # row ids[t] of the table


def pe_position(pos: int, d_model: int) -> list[float]:
    row = []
    for i in range(d_model // 2):
        angle = pos / 10000 ** (2 * i / d_model)  # pos / base**(2i / d_model)
        row.append(math.sin(angle))  # PE(pos, 2i)
        row.append(math.cos(angle))  # PE(pos, 2i + 1)
    return row


def pe_table(num_positions: int, d_model: int) -> list[list[float]]:
    return [pe_position(pos, d_model) for pos in range(num_positions)]  # positions from 0


def add_positions(tokens: list[list[list[float]]],
                  table: list[list[float]]) -> list[list[list[float]]]:
    out = []
    for sequence in tokens:  # every b ...
        rows = []
        for t, token in enumerate(sequence):  # ... gets row t of the table at token t
            rows.append([x + p for x, p in zip(token, table[t])])
        out.append(rows)
    return out  # (batch, seq, d_model)


def softmax(scores: list[float]) -> list[float]:
    m = max(scores)
    exps = [math.exp(x - m) for x in scores]  # each <= 1: no overflow
    total = sum(exps)
    return [e / total for e in exps]


def causal_attention(q: list[list[float]], k: list[list[float]],
                     v: list[list[float]]) -> list[list[float]]:
    d_k = len(q[0])
    out = []
    for i, q_i in enumerate(q):
        scores = [sum(a * b for a, b in zip(q_i, k_j)) / math.sqrt(d_k) for k_j in k]
        masked = [s if j <= i else -math.inf for j, s in enumerate(scores)]  # no peeking ahead
        weights = softmax(masked)
        out.append([sum(w * v_j[c] for w, v_j in zip(weights, v)) for c in range(len(v[0]))])
    return out


def shift_matrix(k: int, d_model: int) -> list[list[float]]:
    rows = [[0.0] * d_model for _ in range(d_model)]
    for i in range(d_model // 2):
        w = 1 / 10000 ** (2 * i / d_model)
        rows[2 * i][2 * i] = math.cos(k * w)
        rows[2 * i][2 * i + 1] = math.sin(k * w)
        rows[2 * i + 1][2 * i] = -math.sin(k * w)
        rows[2 * i + 1][2 * i + 1] = math.cos(k * w)
    return rows


def turn_pair(x: float, y: float, pos: int, theta: float) -> list[float]:
    a = pos * theta
    return [x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)]


def rotate_row(row: list[float], pos: int, layout: str) -> list[float]:
    d = len(row)
    if layout == "interleaved":
        pairs = [(2 * i, 2 * i + 1) for i in range(d // 2)]
    else:
        pairs = [(i, i + d // 2) for i in range(d // 2)]
    out = list(row)
    for i, (first, second) in enumerate(pairs):
        theta = 10000 ** (-2 * i / d)
        out[first], out[second] = turn_pair(row[first], row[second], pos, theta)
    return out


def alibi(seq_len: int, slope: float) -> list[list[float]]:
    return [[-slope * (i - j) if j <= i else -math.inf for j in range(seq_len)]
            for i in range(seq_len)]


def t5_bucket(relative_position: int) -> int:
    buckets, max_exact, max_distance = 16, 8, 128  # per side, exact, the far limit
    offset = buckets if relative_position > 0 else 0  # keys after the query: upper half
    n = abs(relative_position)
    if n < max_exact:
        return offset + n
    log_part = int(math.log(n / max_exact) / math.log(max_distance / max_exact)
                   * (buckets - max_exact))
    return offset + min(max_exact + log_part, buckets - 1)


def position_ids(attention_mask: list[list[int]]) -> list[list[int]]:
    out = []
    for mask in attention_mask:
        count = 0
        row = []
        for real in mask:
            count += real  # cumsum(mask)
            row.append(count - 1 if real else 0)  # padding: any number, never read
        out.append(row)
    return out


def cached_step(q: list[float], k: list[float], v: list[float], keys: list[list[float]],
                values: list[list[float]]) -> list[float]:
    n = len(keys)  # the new token's position
    q = rotate_row(q, n, "interleaved")
    all_keys = keys + [rotate_row(k, n, "interleaved")]  # the cache, turned once, and k
    all_values = values + [v]
    scores = [sum(a * b for a, b in zip(q, key)) / math.sqrt(len(q)) for key in all_keys]
    weights = softmax(scores)
    return [sum(w * value[c] for w, value in zip(weights, all_values)) for c in range(len(v))]


def lookup_backward(ids: list[list[int]], d_X: list[list[float]],
                    vocab_size: int) -> list[list[float]]:
    d_E = [[0.0] * len(d_X[0]) for _ in range(vocab_size)]
    all_ids = [token_id for sequence in ids for token_id in sequence]
    for token_id, d_x in zip(all_ids, d_X):
        d_E[token_id] = [total + part for total, part in zip(d_E[token_id], d_x)]  # summed
    return d_E


def broadcast_backward(d_X: list[list[list[float]]], context_length: int) -> list[list[float]]:
    d_P = [[0.0] * len(d_X[0][0]) for _ in range(context_length)]
    for d_x in d_X:  # every sequence b ...
        for t, d_x_t in enumerate(d_x):  # ... sends row t back into row t of P
            d_P[t] = [total + part for total, part in zip(d_P[t], d_x_t)]
    return d_P


def pack_documents(documents: list[list[int]]) -> list[list[int]]:
    ids: list[int] = []
    position_ids: list[int] = []
    labels: list[int] = []
    for document in documents:
        ids += document
        position_ids += range(len(document))  # restart at 0: a new document
        labels += [-100] + document[1:]  # nothing in its document predicts its first token
    return [ids, position_ids, labels]


def document_mask(position_ids: list[int]) -> list[list[bool]]:
    starts = [t - pos for t, pos in enumerate(position_ids)]  # where token t's document begins
    n = len(position_ids)
    return [[starts[j] == starts[i] and j <= i for j in range(n)] for i in range(n)]


def evict(keys: list[list[float]], values: list[list[float]], sinks: int,
          window: int) -> list[list[list[float]]]:
    evicted = len(keys) - sinks - window
    if evicted <= 0:
        return [[list(row) for row in keys], [list(row) for row in values]]  # it fits
    kept = [rotate_row(key, -evicted, "interleaved") for key in keys[-window:]]  # back
    return [keys[:sinks] + kept, values[:sinks] + values[-window:]]


def partial_rotary(row: list[float], pos: int, rotary_dims: int) -> list[float]:
    out = list(row)
    for i in range(rotary_dims // 2):
        theta = 10000 ** (-2 * i / rotary_dims)  # of the turned width, not of len(row)
        out[2 * i], out[2 * i + 1] = turn_pair(row[2 * i], row[2 * i + 1], pos, theta)
    return out  # columns rotary_dims .. as they were


def alibi_slopes(num_heads: int) -> list[float]:
    power = 1
    while power * 2 <= num_heads:  # the largest power of two <= num_heads
        power *= 2
    slopes = [2 ** (-8 * (h + 1) / power) for h in range(power)]
    extra = [2 ** (-8 * (h + 1) / (2 * power)) for h in range(0, 2 * power, 2)]  # every other
    return slopes + extra[:num_heads - power]


def merge_step(pieces: list[list[int]], new_id: int) -> list[int]:
    counts: dict[tuple[int, int], int] = {}  # a dict keeps the order pairs were first seen
    for piece in pieces:
        for pair in zip(piece, piece[1:]):  # inside the piece: no pair crosses two pieces
            counts[pair] = counts.get(pair, 0) + 1
    tokens: list[int] = []
    if not counts:
        for piece in pieces:
            tokens += piece
        return tokens
    best = max(counts, key=counts.__getitem__)  # max keeps the first of equals
    for piece in pieces:
        i = 0
        while i < len(piece):
            if i + 1 < len(piece) and (piece[i], piece[i + 1]) == best:
                tokens.append(new_id)  # the pair becomes one token
                i += 2
            else:
                tokens.append(piece[i])
                i += 1
    return tokens


def sliding_windows(ids: list[int], max_length: int, stride: int) -> list[list[list[int]]]:
    windows = []
    for start in range(0, len(ids) - max_length, stride):  # while a full target fits
        inputs = ids[start:start + max_length]
        targets = ids[start + 1:start + max_length + 1]  # one token to the right
        windows.append([inputs, targets])
    return windows


def round_to(x: float, dtype: str) -> float:
    p, emin, emax = {"float32": (24, -126, 127), "float16": (11, -14, 15),
                     "bfloat16": (8, -126, 127)}[dtype]  # significant bits, exponent range
    if x == 0 or math.isinf(x) or math.isnan(x):
        return x  # nothing to round
    e = math.frexp(abs(x))[1] - 1  # 2**e <= |x| < 2**(e + 1)
    spacing = 2.0 ** (max(e, emin) - p + 1)  # below 2**emin: the subnormals' spacing
    rounded = round(abs(x) / spacing) * spacing  # the nearest; round() sends a tie to even
    if rounded > (2 - 2.0 ** (1 - p)) * 2.0 ** emax:  # past the largest finite value
        rounded = math.inf
    return math.copysign(rounded, x)  # the sign put back


def layer_norm_backward(x: list[list[float]], weight: list[float], d_out: list[list[float]],
                        eps: float) -> list[list[float]]:
    d_x = []
    for row, dy in zip(x, d_out):
        d = len(row)
        mean = sum(row) / d
        centred = [v - mean for v in row]
        r = 1 / math.sqrt(sum(c * c for c in centred) / d + eps)  # the variance: a mean
        x_hat = [c * r for c in centred]
        g = [dy_j * w_j for dy_j, w_j in zip(dy, weight)]  # dloss/dx_hat
        mean_g = sum(g) / d  # x_j moved the mean
        mean_gx = sum(g_j * h_j for g_j, h_j in zip(g, x_hat)) / d  # and the spread
        d_x.append([r * (g_j - mean_g - h_j * mean_gx) for g_j, h_j in zip(g, x_hat)])
    return d_x


def rope_turns(pos: int, d: int, dtype: str) -> list[list[float]]:
    cosines, sines = [], []
    for i in range(d // 2):
        theta = round_to(10000 ** (-2 * i / d), "float32")  # inv_freq: a float32 tensor
        angle = round_to(pos * theta, "float32")  # the product, computed in float32
        cosines.append(round_to(math.cos(angle), dtype))  # only the table is cast
        sines.append(round_to(math.sin(angle), dtype))
    return [cosines, sines]
