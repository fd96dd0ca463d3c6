"""Chapter 10 - several heads, and positions that are data, inside TinyModel.

With h heads, q, k and v (n, d_model) are cut into h blocks of columns, and
head h attends with its own block, scaled by 1/sqrt(head_dim):

    head_dim = d_model / num_heads
    q_h      = q[:, h*head_dim : (h+1)*head_dim]       (n, head_dim), likewise k_h, v_h
    out      = [out_0 | out_1 | ... ]                   the heads side by side: (n, d_model)

Positions come in as data, one per token (`position_ids`), not as the row
numbers 0 .. n-1: a learned or sinusoidal table gives the rows P[pos],
RoPE turns row r by pos_r * theta_i, ALiBi charges -m_h |pos_i - pos_j|.
RoPE may turn only the first rotary_dims numbers of each head (GPT-NeoX's
partial rotary, theta_i = base**(-2i / rotary_dims)) and leave the rest.

A mask (padding, documents) hides keys as chapter 4's `mask=` does: weight 0,
and a query that may see no key outputs zeros.

`attend` runs the heads of a batch forward, `attend_backward` takes them back
(minipe/training/passes.py chains them): RoPE turns q and k of every sequence and every
head at once (head by head when it is partial), every head's q, k and v are
cut from the rows of every sequence at once (`cut`: one transpose for all the
heads), then attention runs sequence by sequence, one ALiBi bias per head and
length: `attention_rows`, chapter 4's formula row by row, where a causal query i
scores only the keys 0 .. i (the masked half is never computed). The smaller
pieces serve generation with a cache too (minipe/training/generation.py), and two
serve one new token: `turned_at`, RoPE on rows that stand at one position, and
`softmax_row`, chapter 4's softmax of one row. All trust their arguments:
TinyModel's door has checked them.

>>> columns(Matrix([[1, 2, 3, 4]]), 2, 4)
Matrix([[3.0, 4.0]], shape=(1, 2))
>>> cut(Matrix([[1, 2, 3, 4]]), 2)
[Matrix([[1.0, 2.0]], shape=(1, 2)), Matrix([[3.0, 4.0]], shape=(1, 2))]
>>> side_by_side([Matrix([[1, 2]]), Matrix([[3, 4]])])
Matrix([[1.0, 2.0, 3.0, 4.0]], shape=(1, 4))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, Sequence

from minipe.arrays import Matrix, Vector
from minipe.arrays.vector import dots
from minipe.training.gradients import matmul_backward, rotary_backward, softmax_backward
from minipe.positional import sinusoidal_encoding, sinusoidal_rows
from minipe.relative import alibi_bias, alibi_bias_at
from minipe.rotary import apply_rotary


def columns(x: Matrix, start: int, stop: int) -> Matrix:
    """Columns start .. stop - 1 of x: one head's block (x itself when that is all of it)."""
    if start == 0 and stop == len(x.rows[0]):
        return x  # one head: its block is the whole of q
    return x.T[start:stop].T  # (n, stop - start): rows start .. stop - 1 of x^T, turned back


def cut(x: Matrix, head_dim: int) -> list[Matrix]:
    """x's columns in blocks of head_dim, [x_0, x_1, ...]: block h is columns h*head_dim ..
    (h+1)*head_dim - 1 (every head's, from one transpose of x; one head: x itself)."""
    if head_dim == len(x.rows[0]):
        return [x]
    by_column = x.T  # (d, n): row c is column c of x
    return [by_column[start:start + head_dim].T  # (n, head_dim)
            for start in range(0, len(by_column), head_dim)]


def side_by_side(blocks: Sequence[Matrix]) -> Matrix:
    """The blocks' columns, one block after another: [b_0 | b_1 | ...] (the heads joined)."""
    if len(blocks) == 1:
        return blocks[0]
    return Matrix.concatenate(blocks, axis=1)  # (n, d_0 + d_1 + ...)


def stack(matrices: Sequence[Matrix]) -> Matrix:
    """The rows of every matrix, one after another: (n_1 + n_2 + ..., d) (sequences joined)."""
    if len(matrices) == 1:
        return matrices[0]
    return Matrix.concatenate(matrices)  # (n_1 + n_2 + ..., d)


def position_rows(kind: str, table: Matrix | None, n: int, d_model: int, base: float,
                  positions: Sequence[int] | None) -> Matrix:
    """P[position_ids]: the learned `table`'s rows or the sinusoids, one per token (n, d)."""
    if kind == "learned":
        assert table is not None  # a learned model has its table
        if positions is None:
            return table[:n]  # P[0 .. n-1]
        return table.take(positions)  # P[pos], a lookup
    if positions is None:
        return sinusoidal_encoding(n, d_model, base=base)
    return sinusoidal_rows(positions, d_model, base=base)  # only the rows asked for


def turned(x: Matrix, frequencies: Vector, scale: float,
           positions: Sequence[int] | None) -> Matrix:
    """RoPE on one head's q or k: the first rotary_dims = 2 len(theta) columns turned by
    pos * theta_i and times `scale`, the other columns as they are (partial rotary)."""
    rotary_dims = 2 * len(frequencies)
    part = columns(x, 0, rotary_dims)
    part = apply_rotary(part, positions=positions, frequencies=frequencies)
    if scale != 1.0:  # YaRN's: the scores by its square
        part = part * scale
    if rotary_dims == len(x.rows[0]):
        return part
    return side_by_side([part, columns(x, rotary_dims, len(x.rows[0]))])  # [turned | rest]


def turned_at(rows: Sequence[Sequence[float]], thetas: Sequence[float], scale: float,
              pos: int) -> list[list[float]]:
    """`turned` for rows that all stand at one position pos (a new token's q and k): pair i,
    columns (2i, 2i + 1), turned by a = pos * theta_i and times `scale`, the columns after
    2 len(thetas) as they are. cos a and sin a are computed once for all the rows. The
    numbers are turned's, bit for bit (tests/test_heads.py), without apply_rotary's door
    and its table: the rows come from a model whose door has checked it."""
    turns = [(math.cos(pos * theta), math.sin(pos * theta)) for theta in thetas]  # a_i
    out = []
    for row in rows:
        row_out = list(row)
        for i, (cos_a, sin_a) in enumerate(turns):
            first, second = row[2 * i], row[2 * i + 1]
            row_out[2 * i] = first * cos_a - second * sin_a  # x[2i] cos a - x[2i+1] sin a
            row_out[2 * i + 1] = first * sin_a + second * cos_a  # x[2i] sin a + x[2i+1] cos a
        if scale != 1.0:  # YaRN's: the turned columns times it, as turned's part * scale
            row_out[:2 * len(turns)] = [value * scale for value in row_out[:2 * len(turns)]]
        out.append(row_out)
    return out


def turned_back(d_x: Matrix, frequencies: Vector, scale: float,
                positions: Sequence[int] | None) -> Matrix:
    """The gradient through `turned`: the turned columns turned back, the rest as they are."""
    rotary_dims = 2 * len(frequencies)
    d_part = columns(d_x, 0, rotary_dims)
    d_part = rotary_backward(d_part, list(frequencies), scale, positions=positions)
    if rotary_dims == len(d_x.rows[0]):
        return d_part
    return side_by_side([d_part, columns(d_x, rotary_dims, len(d_x.rows[0]))])


def every_head(frequencies: Vector | None, head_dim: int, num_heads: int) -> Vector | None:
    """RoPE's theta_i once for each head, [theta | theta | ...], when RoPE turns all of a
    head's columns: then q and k (N, d_model) turn at once, every head's pair i by
    pos * theta_i, before they are cut. None: no RoPE, or a partial one (head by head)."""
    if frequencies is None or 2 * len(frequencies) != head_dim:
        return None
    return Vector(list(frequencies) * num_heads)  # (d_model / 2,): pair i of head h: theta_i


def alibi_at(slope: float, query_positions: Sequence[int] | None,
             key_positions: Sequence[int] | None, n: int) -> Matrix:
    """ALiBi's bias for one head: -m |pos_i - pos_j| for query i and key j (chapter 6's
    alibi_bias_at; n x n when the positions are None, 0 .. n-1: chapter 6's alibi_bias)."""
    if query_positions is None or key_positions is None:
        return alibi_bias(n, slope, causal=False)
    return alibi_bias_at(query_positions, key_positions, slope)  # -m |p_i - p_j|


def alibi_each(slope: float, positions: Sequence[Sequence[int] | None],
               spans: Sequence[tuple[int, int]], *, causal: bool = False) -> list[Matrix]:
    """One head's ALiBi bias for every sequence of a batch (alibi_at): the sequences at
    positions 0 .. n-1 share one bias per length n, built once. causal=True: for those,
    chapter 6's causal bias, -inf after the query (the causal mask inside it)."""
    shared: dict[int, Matrix] = {}  # n -> alibi_bias(n, slope): the same for all of them
    biases = []
    for (start, stop), pos in zip(spans, positions):
        n = stop - start
        if pos is not None:  # position_ids: this sequence's own
            biases.append(alibi_at(slope, pos, pos, n))
            continue
        if n not in shared:
            shared[n] = alibi_bias(n, slope, causal=causal)  # -m |i - j|, or -inf for j > i
        biases.append(shared[n])
    return biases


def attention_rows(q: Matrix, k: Matrix, v: Matrix, *, causal: bool, bias: Matrix | None,
                   mask: Sequence[Sequence[bool]] | None) -> tuple[Matrix, Matrix]:
    """Chapter 4's softmax(q k^T / sqrt(head_dim) + bias) V for one head of one sequence,
    row by row: -> its weights (n, n) and output (n, head_dim). A causal query i scores the
    keys 0 .. i and no others: the masked half is never computed, and its weights are the
    0.0 that chapter 4's -inf gives. A key the mask hides scores -inf; a query that may see
    no key gets weights 0. The numbers are scaled_dot_product_attention's, bit for bit
    (tests/test_heads.py), without its door and its n x n tables of scores."""
    n, sqrt_d = len(k.rows), math.sqrt(len(q.rows[0]))
    rows = []
    for i, q_i in enumerate(q.rows):
        seen = i + 1 if causal else n  # query i sees the keys 0 .. seen - 1
        # score(i, j) = q_i . k_j / sqrt(head_dim) + B[i, j], for the keys j = 0 .. i
        scores = [score / sqrt_d for score in dots(q_i, k.rows[:seen])]
        if bias is not None:
            scores = [score + b_ij for score, b_ij in zip(scores, bias.rows[i])]
        if mask is not None:  # hidden: -inf, weight 0
            scores = [score if may else -math.inf for score, may in zip(scores, mask[i])]
            if not any(mask[i][:seen]):
                rows.append([0.0] * n)  # no key to see: zero weights, a zero output
                continue
        rows.append(softmax_row(scores) + [0.0] * (n - seen))  # keys after i: 0
    weights = Matrix(rows)  # (n, n): every row sums to 1 (or is 0: no key)
    return weights, weights @ v  # output (n, head_dim): row i is sum_j weights[i, j] v_j


def softmax_row(scores: Sequence[float]) -> list[float]:
    """Chapter 4's softmax of one row of scores, as its rows are computed: exp(score - top)
    / sum, with top = max(scores) (every exp <= 1). The scores hold a finite top: a key the
    row may see, from a model whose door has checked it."""
    top = max(scores)
    exps = [math.exp(score - top) for score in scores]  # exp(-inf) == 0.0: hidden keys
    total = sum(exps)
    return [e / total for e in exps]


class HeadSettings(Protocol):
    """What `attend` reads of a model (TinyModel has all of it)."""

    @property
    def num_heads(self) -> int: ...
    @property
    def head_dim(self) -> int: ...
    @property
    def causal(self) -> bool: ...
    @property
    def frequencies(self) -> Vector | None: ...  # RoPE's theta_i, or None
    @property
    def attention_scale(self) -> float: ...
    @property
    def alibi_slopes(self) -> tuple[float, ...] | None: ...  # m per head, or None


@dataclass(frozen=True)
class HeadsPass:
    """The heads of a batch, forward: what the backward pass reads, per head h and
    sequence b (rows spans[b][0] .. spans[b][1] - 1 of the batch)."""

    spans: list[tuple[int, int]]  # where each sequence's rows sit, start .. stop - 1
    q: list[list[Matrix]]  # q[h][b]: (n, head_dim), turned by RoPE if the model uses it
    k: list[list[Matrix]]
    v: list[list[Matrix]]
    weights: list[list[Matrix]]  # weights[h][b]: (n, n), head h of sequence b
    output: Matrix  # (N, d_model): the heads' outputs side by side


def attend(model: HeadSettings, Q: Matrix, K: Matrix, V: Matrix, spans: list[tuple[int, int]],
           masks: Sequence[list[list[bool]] | None], positions: Sequence[Sequence[int] | None],
           rows_at: Sequence[int]) -> HeadsPass:
    """Every head of every sequence: q, k, v (N, d_model), the sequences' rows one after
    another, -> the heads joined (N, d_model). Row r of the batch stands at rows_at[r]
    (RoPE turns it by that); positions[b] are sequence b's (None: 0 .. n-1)."""
    head_dim = model.head_dim
    whole = every_head(model.frequencies, head_dim, model.num_heads)
    if whole is not None:  # RoPE: turn pair i of every head by pos * theta_i, all at once
        Q = turned(Q, whole, model.attention_scale, rows_at)
        K = turned(K, whole, model.attention_scale, rows_at)
    qs, ks, vs, weights, outputs = [], [], [], [], []
    blocks = zip(range(model.num_heads), cut(Q, head_dim), cut(K, head_dim), cut(V, head_dim))
    for h, q, k, v in blocks:  # head h: columns h*head_dim .. (h+1)*head_dim - 1, (N, head_dim)
        if model.frequencies is not None and whole is None:  # partial RoPE: head by head
            q = turned(q, model.frequencies, model.attention_scale, rows_at)
            k = turned(k, model.frequencies, model.attention_scale, rows_at)
        biases = (alibi_each(model.alibi_slopes[h], positions, spans)
                  if model.alibi_slopes is not None else [None] * len(spans))
        head_q, head_k, head_v, head_weights, head_outputs = [], [], [], [], []
        for (start, stop), mask, bias in zip(spans, masks, biases):
            q_b, k_b, v_b = q[start:stop], k[start:stop], v[start:stop]  # sequence b's rows
            weights_b, output_b = attention_rows(q_b, k_b, v_b, causal=model.causal,
                                                 bias=bias, mask=mask)  # hidden key: weight 0
            head_q.append(q_b)
            head_k.append(k_b)
            head_v.append(v_b)
            head_weights.append(weights_b)
            head_outputs.append(output_b)
        qs.append(head_q)
        ks.append(head_k)
        vs.append(head_v)
        weights.append(head_weights)
        outputs.append(stack(head_outputs))  # (N, head_dim)
    return HeadsPass(spans, qs, ks, vs, weights, side_by_side(outputs))


def attend_backward(model: HeadSettings, passed: HeadsPass, d_output: Matrix,
                    rows_at: Sequence[int]) -> tuple[Matrix, Matrix, Matrix]:
    """`attend` backwards: dloss/d(output) (N, d_model) -> dQ, dK, dV (N, d_model) each."""
    head_dim = model.head_dim
    whole = every_head(model.frequencies, head_dim, model.num_heads)
    d_qs, d_ks, d_vs = [], [], []
    for h, d_out in enumerate(cut(d_output, head_dim)):  # head h's columns, (N, head_dim)
        d_q_rows, d_k_rows, d_v_rows = [], [], []
        for b, (start, stop) in enumerate(passed.spans):  # sequence by sequence
            q, k, v, w = passed.q[h][b], passed.k[h][b], passed.v[h][b], passed.weights[h][b]
            d_w, d_v = matmul_backward(w, v, d_out[start:stop])  # out = weights v
            d_scores = softmax_backward(w, d_w)  # masks and ALiBi are constants: no gradient
            d_scaled = d_scores / math.sqrt(head_dim)  # scores = (q k^T) / sqrt(head_dim)
            d_q = d_scaled @ k  # (q k^T): dq = d(q k^T) k,  dk = d(q k^T)^T q
            d_k = d_scaled.T @ q
            d_q_rows.append(d_q)
            d_k_rows.append(d_k)
            d_v_rows.append(d_v)
        d_q, d_k = stack(d_q_rows), stack(d_k_rows)  # (N, head_dim)
        if model.frequencies is not None and whole is None:  # partial RoPE: turn back
            d_q = turned_back(d_q, model.frequencies, model.attention_scale, rows_at)
            d_k = turned_back(d_k, model.frequencies, model.attention_scale, rows_at)
        d_qs.append(d_q)
        d_ks.append(d_k)
        d_vs.append(stack(d_v_rows))
    d_Q, d_K = side_by_side(d_qs), side_by_side(d_ks)  # the heads were cut: (N, d_model)
    if whole is not None:  # q and k were turned at once: turn dq, dk back at once
        d_Q = turned_back(d_Q, whole, model.attention_scale, rows_at)
        d_K = turned_back(d_K, whole, model.attention_scale, rows_at)
    return d_Q, d_K, side_by_side(d_vs)
