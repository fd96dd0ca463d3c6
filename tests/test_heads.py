"""Chapter 10 with several heads and positions as data (issue 19): TinyModel's num_heads,
rotary_fraction, per-head ALiBi slopes, attention_mask and position_ids.

Expected numbers come from a second, naive forward pass written here from the formulas
(plain lists, one loop per index: head h takes columns h*head_dim .. (h+1)*head_dim - 1,
RoPE turns interleaved pairs of the first rotary_dims columns by pos * base**(-2i /
rotary_dims), ALiBi adds -m_h |pos_i - pos_j|, a hidden key gets weight 0), and for the
gradients from central differences (L(w + h) - L(w - h)) / 2h of the model's own loss.
"""

from __future__ import annotations

import math
import random

import pytest

from minipe import Batch, Matrix, TinyModel, Vector, allclose
from minipe.attention import scaled_dot_product_attention
from minipe.attention import softmax
from minipe.rotary import apply_rotary
from minipe.training.heads import (alibi_each, attention_rows, cut, every_head, softmax_row,
                                   turned, turned_at)

KINDS = ("none", "learned", "sinusoidal", "rope", "alibi")
Table = list[list[float]]


def _naive_logits(model: TinyModel, ids: list[int], positions: list[int],
                  visible: list[list[bool]]) -> Table:
    """The forward pass on plain lists: visible[i][j] says whether query i sees key j
    (the causal rule is applied here too, when the model is causal)."""
    p = {name: weight.tolist() for name, weight in model.parameters().items()}
    d, heads, n = model.d_model, model.num_heads, len(ids)
    hd = d // heads
    rotary = int(model.rotary_fraction * hd) if model.positions == "rope" else 0
    thetas = [model.base ** (-2 * i / rotary) for i in range(rotary // 2)]
    slopes = model.alibi_slopes or (0.0,) * heads

    def matmul(a: Table, b: Table) -> Table:
        return [[sum(a[r][m] * b[m][c] for m in range(len(b))) for c in range(len(b[0]))]
                for r in range(len(a))]

    def turned(rows: Table, first: int) -> Table:  # head columns first .. first + hd - 1
        out = [list(row) for row in rows]
        for r, pos in enumerate(positions):
            for i, theta in enumerate(thetas):
                a, b = first + 2 * i, first + 2 * i + 1
                angle = pos * theta
                out[r][a] = rows[r][a] * math.cos(angle) - rows[r][b] * math.sin(angle)
                out[r][b] = rows[r][a] * math.sin(angle) + rows[r][b] * math.cos(angle)
        return out

    x = [list(p["token_embedding"][t]) for t in ids]
    for r, pos in enumerate(positions):
        for c in range(d):
            if model.positions == "learned":
                x[r][c] += p["position_embedding"][pos][c]
            if model.positions == "sinusoidal":
                angle = pos / model.base ** (2 * (c // 2) / d)
                x[r][c] += math.sin(angle) if c % 2 == 0 else math.cos(angle)
    q, k, v = matmul(x, p["W_q"]), matmul(x, p["W_k"]), matmul(x, p["W_v"])
    for h in range(heads):
        q, k = turned(q, h * hd), turned(k, h * hd)
    out = [[0.0] * d for _ in range(n)]
    for h in range(heads):
        cols = range(h * hd, (h + 1) * hd)
        for i in range(n):
            seen = [j for j in range(n) if visible[i][j] and (j <= i or not model.causal)]
            scores = [sum(q[i][c] * k[j][c] for c in cols) / math.sqrt(hd)
                      - slopes[h] * abs(positions[i] - positions[j]) for j in seen]
            exps = [math.exp(s - max(scores)) for s in scores]
            for c in cols:  # a query that sees no key: zeros
                out[i][c] = sum(e * v[j][c] for e, j in zip(exps, seen)) / (sum(exps) or 1.0)
    return matmul(out, p["W_out"])


def _everywhere(n: int) -> list[list[bool]]:
    return [[True] * n for _ in range(n)]


SETTINGS = [  # (positions, num_heads, rotary_fraction)
    ("none", 2, 1.0), ("learned", 2, 1.0), ("sinusoidal", 4, 1.0), ("rope", 2, 1.0),
    ("rope", 2, 0.5), ("rope", 1, 0.25), ("alibi", 2, 1.0), ("alibi", 4, 1.0)]


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("positions, heads, fraction", SETTINGS)
def test_heads_positions_and_masks_match_a_naive_forward(positions: str, heads: int,
                                                         fraction: float, causal: bool) -> None:
    model = TinyModel(6, 8, 12, positions=positions, causal=causal, base=100.0, seed=4,
                      num_heads=heads, rotary_fraction=fraction)
    ids, n = [1, 4, 2, 2, 5], 5
    assert allclose(model.logits(ids), _naive_logits(model, ids, list(range(n)),
                                                     _everywhere(n)), rel_tol=1e-11)
    pos = [3, 7, 8, 0, 11]  # any positions, e.g. two packed documents
    assert allclose(model.logits(ids, position_ids=pos),
                    _naive_logits(model, ids, pos, _everywhere(n)), rel_tol=1e-11)
    mask = [1, 1, 0, 1, 1]  # token 2 is padding: no query sees it
    seen = [[mask[j] == 1 for j in range(n)] for _ in range(n)]
    assert allclose(model.logits(ids, attention_mask=mask, position_ids=pos),
                    _naive_logits(model, ids, pos, seen), rel_tol=1e-11)
    table = [[(i + j) % 3 != 1 for j in range(n)] for i in range(n)]  # any pattern
    for i in range(n):
        table[i][0] = True  # every query sees a key (the causal one sees key 0)
    assert allclose(model.logits(ids, attention_mask=table),
                    _naive_logits(model, ids, list(range(n)), table), rel_tol=1e-11)


def _nudged(model: TinyModel, name: str, i: int, j: int, h: float) -> TinyModel:
    rows = model.parameters()[name].tolist()
    rows[i][j] += h
    return model.with_parameters({**model.parameters(), name: Matrix(rows)})


@pytest.mark.parametrize("positions, heads, fraction", [  # d_model = 4: small and quick
    ("learned", 2, 1.0), ("rope", 2, 1.0), ("rope", 1, 0.5), ("alibi", 2, 1.0)])
# (none and sinusoidal add nothing a head cuts or turns: tests/test_model_reference.py has
# the sinusoidal model's gradients with two heads from PyTorch)
def test_gradients_with_heads_masks_and_positions_match_finite_differences(
        positions: str, heads: int, fraction: float) -> None:
    model = TinyModel(5, 4, 8, positions=positions, seed=2, num_heads=heads,
                      rotary_fraction=fraction, base=100.0)
    inputs = [[1, 3, 0, 2], [4, 4, 1, 0]]
    targets = [[2, -100, 1, 3], [0, 1, -100, -100]]  # padding is never a target
    mask = [[1, 1, 1, 1], [1, 1, 0, 0]]  # the second sequence is right-padded
    pos = [[0, 1, 0, 1], [2, 3, 5, 5]]  # packed, and counted from 2

    def loss(m: TinyModel) -> float:
        """The mean over every target that is not -100 of log(sum(exp(row))) - row[t], from
        the logits alone (no backward pass: a third of loss_and_gradients' work)."""
        batch = m.logits(inputs, attention_mask=mask, position_ids=pos).tolist()
        total, count = 0.0, 0
        for rows, wanted in zip(batch, targets):
            for row, t in zip(rows, wanted):
                if t != -100:
                    top = max(row)  # exp(s - top) <= 1: no overflow
                    total += top + math.log(sum(math.exp(score - top) for score in row)) - row[t]
                    count += 1
        return total / count

    value, gradients = model.loss_and_gradients(inputs, targets, attention_mask=mask,
                                                position_ids=pos)
    assert math.isclose(value, loss(model), rel_tol=1e-12)  # the loss the slopes are of
    step = 1e-5
    for name, weight in model.parameters().items():
        for i in range(weight.shape[0]):
            for j in range(weight.shape[1]):
                slope = (loss(_nudged(model, name, i, j, step))
                         - loss(_nudged(model, name, i, j, -step))) / (2 * step)
                assert math.isclose(gradients[name][i, j], slope, abs_tol=1e-8), (name, i, j)


@pytest.mark.parametrize("positions", KINDS)
def test_a_right_padded_batch_gives_each_text_its_unpadded_rows(positions: str) -> None:
    model = TinyModel(6, 4, 8, positions=positions, seed=1, num_heads=2)
    texts = [[1, 2, 3, 4, 5], [3, 1], [2, 2, 4]]
    pad = 0  # any ID: the mask, not the ID, says what is padding
    ids = [text + [pad] * (5 - len(text)) for text in texts]
    mask = [[1] * len(text) + [0] * (5 - len(text)) for text in texts]
    logits = model.logits(ids, attention_mask=mask)
    assert isinstance(logits, Batch) and logits.shape == (3, 5, 6)
    for b, text in enumerate(texts):
        alone = model.logits(text)
        # the same arithmetic on the real rows: a hidden key adds exp(-inf) = 0
        assert allclose(logits[b][:len(text)], alone, rel_tol=1e-15, abs_tol=0.0)


@pytest.mark.parametrize("positions", KINDS)
def test_left_padding_with_positions_from_the_mask_gives_the_unpadded_rows(
        positions: str) -> None:
    model = TinyModel(6, 4, 8, positions=positions, seed=2, num_heads=2)
    texts = [[1, 2, 3, 4, 5], [3, 1], [2, 2, 4]]
    ids = [[0] * (5 - len(text)) + text for text in texts]  # padded on the left
    mask = [[0] * (5 - len(text)) + [1] * len(text) for text in texts]
    # position_ids as Hugging Face counts them: cumsum(mask) - 1, and 1 at the padding
    pos = [[1] * (5 - len(text)) + list(range(len(text))) for text in texts]
    logits = model.logits(ids, attention_mask=mask, position_ids=pos)
    for b, text in enumerate(texts):
        # a padding query of a causal model sees only padding keys, so no key at all: its
        # attention output is zeros (chapter 4's rule), so its logits are 0 W_out = 0, no NaN
        padding_rows = logits[b].rows[:5 - len(text)]
        assert all(value == 0.0 for row in padding_rows for value in row)
        real = logits[b][5 - len(text):]
        assert allclose(real, model.logits(text), rel_tol=1e-15, abs_tol=0.0), b


def test_a_one_sequence_is_a_matrix_and_a_batch_must_be_padded() -> None:
    model = TinyModel(6, 4, 8, num_heads=2)
    assert isinstance(model.logits([1, 2, 3]), Matrix)
    with pytest.raises(ValueError, match="padded to one length"):
        model.logits([[1, 2, 3], [1]])
    loss, _ = model.loss_and_gradients([1, 2, 3], [-100, 2, 3])  # one sequence works too
    assert loss == model.loss_and_gradients([[1, 2, 3]], [[-100, 2, 3]])[0]


def test_one_head_with_rotary_fraction_one_is_chapter_nines_arithmetic() -> None:
    # the same tables (they do not depend on num_heads), and the same numbers to the bit
    # as the default model: num_heads=1, rotary_fraction=1.0 are the defaults
    plain = TinyModel(6, 8, 8, positions="rope", seed=3)
    said = TinyModel(6, 8, 8, positions="rope", seed=3, num_heads=1, rotary_fraction=1.0)
    four = TinyModel(6, 8, 8, positions="rope", seed=3, num_heads=4)
    assert plain == said and plain.parameters() == four.parameters()
    assert plain.logits([1, 2, 3]) == said.logits([1, 2, 3])
    assert four.logits([1, 2, 3]) != plain.logits([1, 2, 3])  # the heads do change it


def test_alibi_slopes_one_per_head_default_to_the_papers() -> None:
    # Press et al.: 2**(-8 (h + 1) / num_heads); one head keeps the pipeline's 1/2 (chapter 9)
    assert TinyModel(6, 8, 8, positions="alibi").alibi_slopes == (0.5,)
    assert TinyModel(6, 8, 8, positions="alibi", num_heads=2).alibi_slopes == (2 ** -4, 2 ** -8)
    assert TinyModel(6, 8, 8, positions="alibi", num_heads=4).alibi_slopes == (
        2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8)
    with pytest.raises(ValueError, match="a tuple of 2 numbers, one m per head"):
        TinyModel(6, 8, 8, positions="alibi", num_heads=2, alibi_slopes=(0.5,))


def test_partial_rotary_frequencies_count_over_the_rotary_dims() -> None:
    # head_dim = 8, a quarter of it turned: 2 dims, one pair, theta_0 = base**0 = 1
    quarter = TinyModel(6, 16, 8, positions="rope", num_heads=2, rotary_fraction=0.25)
    assert list(quarter.frequencies or []) == [1.0]
    half = TinyModel(6, 16, 8, positions="rope", num_heads=2, rotary_fraction=0.5)
    assert list(half.frequencies or []) == [1.0, 10000.0 ** (-2 / 4)]  # base**(-2i/4)


def test_bad_heads_masks_and_positions_fail_with_a_sentence() -> None:
    with pytest.raises(ValueError, match="num_heads=3 must divide d_model=8"):
        TinyModel(6, 8, 8, num_heads=3)
    with pytest.raises(ValueError, match="gives 3 dimensions to turn"):
        TinyModel(6, 8, 8, positions="rope", num_heads=2, rotary_fraction=0.75)
    with pytest.raises(ValueError, match="only a RoPE model turns a fraction"):
        TinyModel(6, 8, 8, positions="alibi", rotary_fraction=0.5)
    model = TinyModel(6, 4, 8, num_heads=2)
    with pytest.raises(ValueError, match=r"attention_mask must hold a 0 or 1 per token \(3"):
        model.logits([1, 2, 3], attention_mask=[1, 1])
    with pytest.raises(ValueError, match=r"position_ids\[1\] must be >= 0, got -1"):
        model.logits([1, 2, 3], position_ids=[0, -1, 2])
    with pytest.raises(ValueError, match="position_ids go up to 8, but a learned position"):
        model.logits([1, 2, 3], position_ids=[0, 1, 8])
    assert model.logits(list(range(6)) * 2, position_ids=[0, 1, 2] * 4).shape == (12, 6)


def test_random_masks_and_positions_against_the_naive_forward() -> None:
    rng = random.Random(19)
    for trial in range(6):
        kind = KINDS[trial % len(KINDS)]
        model = TinyModel(5, 8, 16, positions=kind, num_heads=2, seed=trial, base=50.0)
        n = rng.randrange(2, 7)
        ids = [rng.randrange(5) for _ in range(n)]
        pos = [rng.randrange(16) for _ in range(n)]
        table = [[j == 0 or rng.random() < 0.6 for j in range(n)] for _ in range(n)]
        assert allclose(model.logits(ids, attention_mask=table, position_ids=pos),
                        _naive_logits(model, ids, pos, table), rel_tol=1e-11), trial


def test_alibi_each_builds_one_bias_per_length_and_reads_given_positions() -> None:
    spans = [(0, 3), (3, 6), (6, 8)]  # two sequences of 3 tokens, one of 2
    biases = alibi_each(0.5, [None, None, None], spans, causal=True)
    assert biases[0] is biases[1]  # one length, one bias: built once
    # -m |i - j| with m = 1/2 for j <= i, -inf after the query (causal), written by hand
    assert biases[0].tolist() == [[0.0, -math.inf, -math.inf], [-0.5, 0.0, -math.inf],
                                  [-1.0, -0.5, 0.0]]
    assert biases[2].tolist() == [[0.0, -math.inf], [-0.5, 0.0]]
    given = alibi_each(0.25, [[0, 4], None], [(0, 2), (2, 4)], causal=True)
    # positions given: -m |pos_i - pos_j| over them, never -inf (attention adds the mask)
    assert given[0].tolist() == [[0.0, -1.0], [-1.0, 0.0]]
    assert given[1].tolist() == [[0.0, -math.inf], [-0.25, 0.0]]


def test_every_head_repeats_theta_only_when_rope_turns_whole_heads() -> None:
    thetas = Vector([1.0, 0.01])  # one head of 4 columns: pairs (0, 1) and (2, 3)
    # two heads of 4: head h's pair i is pair 2h + i of d_model, turned by theta_i
    assert every_head(thetas, 4, 2) == Vector([1.0, 0.01, 1.0, 0.01])
    assert every_head(thetas, 8, 2) is None  # partial: 4 of 8 columns, head by head
    assert every_head(None, 4, 2) is None  # no RoPE


def test_cut_gives_each_head_its_block_of_columns() -> None:
    x = Matrix([[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]])  # (2, 6): 3 heads of 2 columns
    blocks = cut(x, 2)
    assert [block.tolist() for block in blocks] == [  # columns 0-1, 2-3, 4-5, by hand
        [[1.0, 2.0], [7.0, 8.0]], [[3.0, 4.0], [9.0, 10.0]], [[5.0, 6.0], [11.0, 12.0]]]
    assert cut(x, 3)[1].tolist() == [[4.0, 5.0, 6.0], [10.0, 11.0, 12.0]]  # 2 heads of 3
    assert cut(x, 6) == [x]  # one head: the whole table


def _table(rng: random.Random, rows: int, columns: int) -> Matrix:
    return Matrix([[rng.uniform(-3.0, 3.0) for _ in range(columns)] for _ in range(rows)])


def test_attention_rows_are_chapter_4s_attention_on_the_masked_full_table() -> None:
    # the lab's rows (query i against keys 0 .. i only, when causal) against chapter 4's
    # scaled_dot_product_attention, which scores every key and masks the later ones -inf:
    # the same weights and outputs, bit for bit, with and without a bias and a boolean
    # mask (one query below sees no key at all: zeros in both)
    rng = random.Random(4)
    for trial in range(40):
        n, d = rng.randint(1, 7), rng.choice([1, 2, 4])
        q, k, v = _table(rng, n, d), _table(rng, n, d), _table(rng, n, 3)
        bias = _table(rng, n, n) if trial % 2 else None
        mask = ([[j == 0 or rng.random() < 0.6 for j in range(n)] for _ in range(n)]
                if trial % 3 else None)
        if mask is not None and n > 1:
            mask[-1] = [False] * n  # the last query may see nothing
        for causal in (True, False):
            weights, output = attention_rows(q, k, v, causal=causal, bias=bias, mask=mask)
            full = scaled_dot_product_attention(q, k, v, causal=causal, bias=bias, mask=mask)
            assert weights.tolist() == full.weights.tolist(), (trial, causal)
            assert output.tolist() == full.output.tolist(), (trial, causal)
            if causal:  # nothing after the query: its weights are exactly 0.0
                assert all(w == 0.0 for i, row in enumerate(weights.tolist()) for w in row[i + 1:])


def test_attention_rows_of_a_small_causal_head_worked_by_hand() -> None:
    # q = k = [[0], [2]] with d = 1 (sqrt(d) = 1): query 0 sees key 0 only (weight 1);
    # query 1 scores 0 * 2 = 0 and 2 * 2 = 4 -> weights 1 / (1 + e**4), e**4 / (1 + e**4)
    q = k = Matrix([[0.0], [2.0]])
    v = Matrix([[1.0], [3.0]])
    weights, output = attention_rows(q, k, v, causal=True, bias=None, mask=None)
    late = math.exp(4.0) / (1.0 + math.exp(4.0))
    assert allclose(weights, [[1.0, 0.0], [1.0 - late, late]], rel_tol=1e-15)
    assert allclose(output, [[1.0], [(1.0 - late) * 1.0 + late * 3.0]], rel_tol=1e-15)


def test_turned_at_is_chapter_5s_apply_rotary_for_rows_at_one_position() -> None:
    # a new token's q and k, turned by turned_at, against `turned` (chapter 5's apply_rotary
    # with the rows at pos, then times the scale): bit for bit, whole and partial RoPE
    # (pairs only in the first 2 len(thetas) columns), with and without YaRN's scale
    rng = random.Random(9)
    for trial in range(40):
        pairs, rest = rng.randint(1, 4), rng.choice([0, 0, 2, 3])
        thetas = Vector([rng.uniform(0.0, 1.5) for _ in range(pairs)])
        x = _table(rng, rng.randint(1, 3), 2 * pairs + rest)
        pos, scale = rng.randint(0, 3000), rng.choice([1.0, 1.0, 1.17])
        expected = turned(x, thetas, scale, [pos] * len(x.rows))
        assert turned_at(x.rows, thetas.values, scale, pos) == expected.tolist(), trial
        if rest == 0 and scale == 1.0:  # apply_rotary itself, its door and all
            plain = apply_rotary(x, positions=[pos] * len(x.rows), frequencies=thetas)
            assert turned_at(x.rows, thetas.values, 1.0, pos) == plain.tolist()


def test_turned_at_of_small_rows_worked_by_hand() -> None:
    # [1, 0] at pos 2 with theta 0.5 turns by a = 1 radian: [cos 1, sin 1]; the column
    # after the pair stays 7; times 2 (the scale) only the turned pair doubles; pos 0: as is
    assert turned_at([[1.0, 0.0, 7.0]], [0.5], 1.0, 2) == [[math.cos(1.0), math.sin(1.0), 7.0]]
    assert turned_at([[1.0, 0.0, 7.0]], [0.5], 2.0, 2) == [
        [2 * math.cos(1.0), 2 * math.sin(1.0), 7.0]]
    assert turned_at([[3.0, -4.0], [0.5, 2.0]], [0.25], 1.0, 0) == [[3.0, -4.0], [0.5, 2.0]]


def test_softmax_row_is_chapter_4s_softmax_bit_for_bit() -> None:
    # [0, log 3] -> 1/4, 3/4 by hand; random rows, some holding -inf (hidden keys),
    # against chapter 4's softmax
    assert softmax_row([0.0, math.log(3.0)]) == pytest.approx([0.25, 0.75], rel=1e-15)
    rng = random.Random(2)
    for trial in range(30):
        scores = [rng.uniform(-50.0, 50.0) for _ in range(rng.randint(1, 9))]
        if trial % 3 == 0:
            scores += [-math.inf]
        assert softmax_row(scores) == list(softmax(scores).values), trial
