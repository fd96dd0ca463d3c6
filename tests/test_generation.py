"""Chapter 10, generation with a cache (issue 19): TinyModel.generate and its KV cache.

Expected values: the full forward pass (model.logits of the whole sequence, itself
checked against a naive forward in tests/test_heads.py) for the cached step's logits;
greedy decoding written here (the top score, appended, again) for the tokens; chapter 5's
apply_rotary at the token's own position for the keys the cache stores; for eviction, each
kept key worked here pair by pair with math.cos and math.sin at its position in the cache.
"""

from __future__ import annotations

import pytest

import dataclasses
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from minipe import KVCache, Matrix, TinyModel, Vector, allclose, apply_rotary, evict
from minipe.training.generation import EMPTY, next_logits

KINDS = ("none", "learned", "sinusoidal", "rope", "alibi")


def _greedy_by_hand(model: TinyModel, ids: list[int], count: int) -> list[int]:
    ids = list(ids)
    for _ in range(count):
        last = list(model.logits(ids).rows[-1])
        ids.append(last.index(max(last)))
    return ids


@pytest.mark.parametrize("positions", KINDS)
def test_with_and_without_the_cache_the_same_tokens_as_greedy_by_hand(positions: str) -> None:
    model = TinyModel(7, 8, 16, positions=positions, seed=5, num_heads=2)
    prompt = [3, 1, 4]
    expected = _greedy_by_hand(model, prompt, 6)
    assert model.generate(prompt, 6) == expected
    assert model.generate(prompt, 6, use_cache=False) == expected
    assert model.generate(prompt, 0) == prompt


@pytest.mark.parametrize("positions", KINDS)
def test_the_cached_steps_logits_are_the_full_forwards_last_row(positions: str) -> None:
    model = TinyModel(7, 8, 16, positions=positions, seed=6, num_heads=2,
                      rotary_fraction=0.5 if positions == "rope" else 1.0)
    ids = [2, 6, 0, 5, 5, 1]
    cache = EMPTY
    for t, token_id in enumerate(ids):
        logits, cache = next_logits(model, cache, token_id)
        assert len(cache) == t + 1  # the next token's position
        full = model.logits(ids[:t + 1])
        # one query against the cached keys: the same numbers as row t of the full pass
        # (the full pass's hidden later keys add exp(-inf) = 0 and 0 * v = 0)
        assert logits == list(full.rows[t]), (positions, t)


@pytest.mark.parametrize("heads, scale", [(1, 1.0), (2, 1.0), (2, 1.3), (4, 0.8)])
def test_whole_head_rope_with_a_scale_gives_the_full_forwards_last_row(heads: int,
                                                                       scale: float) -> None:
    # RoPE on every column of each head (q and k turned together), YaRN's scale or none
    model = TinyModel(7, 8, 16, positions="rope", seed=3, num_heads=heads)
    assert model.frequencies is not None
    model = model.with_frequencies(model.frequencies, attention_scale=scale)
    ids = [4, 0, 6, 6, 2, 1, 3]
    cache = EMPTY
    for t, token_id in enumerate(ids):
        logits, cache = next_logits(model, cache, token_id)
        assert logits == list(model.logits(ids[:t + 1]).rows[t]), (heads, scale, t)


def test_a_models_token_columns_are_its_tables_columns_built_once() -> None:
    # the columns of [W_q | W_k | W_v] and W_out, read here from the tables' lists;
    # the same tuples the second time (kept), and a new model's are its own
    model = TinyModel(5, 4, 8, positions="rope", seed=1)
    tables = {name: W.tolist() for name, W in model.parameters().items()}
    layers, out = model.token_columns
    (qkv, W_1, W_2), = layers  # one layer, no MLP: no columns of W_1 and W_2
    assert W_1 == W_2 == ()
    assert [list(c) for c in qkv] == [[row[c] for row in tables[name]]
                                      for name in ("W_q", "W_k", "W_v") for c in range(4)]
    assert [list(c) for c in out] == [[row[c] for row in tables["W_out"]] for c in range(5)]
    assert model.token_columns is model.token_columns
    assert isinstance(qkv, tuple) and all(isinstance(c, tuple) for c in qkv)
    other = model.with_parameters({**model.parameters(), "W_out": model.parameters()["W_out"] * 2})
    assert other.token_columns[1] != out and other.token_columns[0][0][0] == qkv


def test_the_cache_stores_keys_already_turned_at_their_own_positions() -> None:
    model = TinyModel(7, 4, 16, positions="rope", seed=2)  # one head: its keys are x W_k
    ids = [1, 2, 3, 4]
    cache = EMPTY
    for token_id in ids:
        _, cache = next_logits(model, cache, token_id)
    E, W_k = model.parameters()["token_embedding"], model.parameters()["W_k"]
    keys = Matrix([E.rows[token_id] for token_id in ids]) @ W_k  # (4, 4), not turned
    assert cache.keys[0] == apply_rotary(keys, frequencies=model.frequencies)  # row j at j


def test_generation_refuses_what_it_cannot_do_with_a_sentence() -> None:
    learned = TinyModel(7, 4, 8, positions="learned")
    assert len(learned.generate([1, 2, 3], 6)) == 9  # positions 0 .. 7 are fed in
    with pytest.raises(ValueError, match="positions up to 8, but a learned position table "
                                         "has only context_length=8 rows"):
        learned.generate([1, 2, 3], 7)
    with pytest.raises(ValueError, match="generate needs a causal model"):
        TinyModel(7, 4, 8, causal=False).generate([1], 2)
    with pytest.raises(TypeError, match="one non-empty sequence of IDs"):
        learned.generate([[1, 2]], 2)  # type: ignore[list-item]
    with pytest.raises(IndexError, match=r"ids\[1\] = 9 is out of range"):
        learned.generate([1, 9], 2)


def test_generate_refuses_too_many_tokens_naming_max_new_tokens_before_building_any() -> None:
    rope, learned = TinyModel(7, 4, 8, positions="rope"), TinyModel(7, 4, 8)
    # 10**12 tokens: refused at once (it used to build a list of 10**12 zeros first)
    with pytest.raises(ValueError, match=r"max_new_tokens=1000000000000 make n = "
                                         r"1,000,000,000,001 tokens; with the cache"):
        rope.generate([1], 10**12)
    # sqrt(125,000,000) = 11,180.3: n x n weights of n = 11,180 tokens fit, 20,001 do not
    with pytest.raises(ValueError, match=r"max_new_tokens=20000 .* ask for at most 11,179 new"):
        rope.generate([1], 20000)
    with pytest.raises(ValueError, match=r"without the cache, the last pass holds n x n = "
                                         r"400,040,001 attention weights"):
        rope.generate([1], 20000, use_cache=False)
    # a prompt of 10 tokens on an 8-row learned table: no count of new tokens fits
    for count in (0, 2):
        with pytest.raises(ValueError, match=r"the prompt ids has 10 tokens, but a learned "
                                             r"position table has only context_length=8 rows "
                                             r"\(0 .. 7\): the prompt alone does not fit"):
            learned.generate([1] * 10, count)
    assert len(learned.generate([1] * 8, 1)) == 9  # the 8th row is the last one fed


def _turned_by_hand(row: list[float], pos: int, thetas: list[float]) -> list[float]:
    """Pair i of the row turned by pos * theta_i: (a cos - b sin, a sin + b cos)."""
    turned = []
    for i, theta in enumerate(thetas):
        a, b = row[2 * i], row[2 * i + 1]
        angle = pos * theta
        turned += [a * math.cos(angle) - b * math.sin(angle),
                   a * math.sin(angle) + b * math.cos(angle)]
    return turned


def test_evict_keeps_the_sinks_and_the_window_with_keys_at_their_cache_positions() -> None:
    """Six tokens, sinks 1, window 3: tokens 0, 3, 4, 5 are kept, at cache positions 0 .. 3.
    Token 3 was stored turned by 3 theta_i; evicted 2, it must be turned as if at 1."""
    model = TinyModel(7, 4, 16, positions="rope", seed=2)  # one head; theta = 1, 1/100
    ids = [1, 2, 3, 4, 5, 6]
    cache = EMPTY
    for token_id in ids:
        _, cache = next_logits(model, cache, token_id)
    kept = evict(model, cache, sinks=1, window=3)
    assert len(kept) == 4
    E, W_k, W_v = (model.parameters()[name] for name in ("token_embedding", "W_k", "W_v"))
    for pos, token_id in enumerate([1, 4, 5, 6]):  # the kept tokens, at 0 .. 3 in the cache
        x = E.rows[token_id]
        k = [sum(x[r] * W_k.rows[r][c] for r in range(4)) for c in range(4)]  # x W_k
        v = [sum(x[r] * W_v.rows[r][c] for r in range(4)) for c in range(4)]  # x W_v
        expected = _turned_by_hand(k, pos, [1.0, 0.01])
        assert all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-14)
                   for a, b in zip(kept.keys[0].rows[pos], expected)), (pos, expected)
        assert all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-14)
                   for a, b in zip(kept.values[0].rows[pos], v))  # values: never turned
    assert evict(model, kept, sinks=1, window=3) is kept  # 4 fit in 1 + 3: nothing to drop


def test_evict_without_rope_only_drops_rows() -> None:
    """ALiBi's keys hold no position: the kept rows are the stored rows, as they were."""
    model = TinyModel(7, 4, 16, positions="alibi", seed=2, num_heads=2)
    cache = EMPTY
    for token_id in [1, 2, 3, 4, 5]:
        _, cache = next_logits(model, cache, token_id)
    kept = evict(model, cache, sinks=0, window=2)
    for h in range(2):
        assert kept.keys[h].rows == cache.keys[h].rows[3:]  # tokens 3 and 4
        assert kept.values[h].rows == cache.values[h].rows[3:]


def test_evict_refuses_what_it_cannot_do_with_a_sentence() -> None:
    model = TinyModel(7, 4, 16, positions="rope")
    with pytest.raises(TypeError, match="cache must be a KVCache"):
        evict(model, [], sinks=1, window=2)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sinks must be >= 0, got -1"):
        evict(model, KVCache((), ()), sinks=-1, window=2)
    with pytest.raises(ValueError, match="window must be >= 1, got 0"):
        evict(model, KVCache((), ()), sinks=1, window=0)
    _, cache = next_logits(model, EMPTY, 1)
    with pytest.raises(TypeError, match="model must be the TinyModel that fills the cache, "
                                        "got None"):
        evict(None, cache, sinks=1, window=2)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="model must be the TinyModel that fills the cache"):
        next_logits(None, cache, 1)  # type: ignore[arg-type]
    # another model's cache: 1 head of keys 4 wide, where this model has 2 heads of 2
    with pytest.raises(ValueError, match="this cache holds 1 heads of keys 4 wide; the model "
                                         "has 2 of head_dim=2: a cache serves the model that"):
        evict(TinyModel(7, 4, 16, positions="rope", num_heads=2), cache, sinks=0, window=1)


@pytest.mark.parametrize("scale", [1.0, 1.25])
def test_evict_with_partial_rotary_and_heads_equals_the_kept_tokens_fed_afresh(
        scale: float) -> None:
    """Two heads, half of each turned, q and k scaled (YaRN's attention_scale): the evicted
    cache equals the cache of the kept tokens fed one by one from empty, at 0 .. 4 (the
    unturned half and the scale as stored; only the turned half is turned back)."""
    model = TinyModel(7, 8, 16, positions="rope", seed=3, num_heads=2, rotary_fraction=0.5)
    model = model.with_frequencies(model.frequencies or Vector([1.0]), attention_scale=scale)
    ids = [1, 2, 3, 4, 5, 6, 0, 2]
    cache = afresh = EMPTY
    for token_id in ids:
        _, cache = next_logits(model, cache, token_id)
    for token_id in ids[:2] + ids[-3:]:  # sinks 2, window 3: tokens 0, 1, 5, 6, 7
        _, afresh = next_logits(model, afresh, token_id)
    kept = evict(model, cache, sinks=2, window=3)
    for h in range(2):
        for got, expected in zip(kept.keys[h].rows, afresh.keys[h].rows):
            assert all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-14)
                       for a, b in zip(got, expected)), (h, got, expected)
        assert kept.values[h].rows == afresh.values[h].rows


def test_a_new_token_adds_its_row_and_reads_none_of_the_cached_ones_again() -> None:
    """The cache holds what it has checked: the next cache shares every row of the one
    before (the same tuple objects, not copies read again) and adds one key row and one
    number to each column of V^T."""
    model = TinyModel(7, 8, 16, positions="rope", seed=3, num_heads=2)
    cache = EMPTY
    for token_id in [1, 2, 3]:
        _, cache = next_logits(model, cache, token_id)
    _, grown = next_logits(model, cache, 4)
    for h in range(2):
        assert all(new is old for new, old in zip(grown.keys[h].rows, cache.keys[h].rows))
        assert grown.keys[h].shape == (4, 4) and grown.values_T[h].shape == (4, 4)
        assert grown.values[h].rows[:3] == cache.values[h].rows  # V^T's first 3 columns kept


def test_a_cache_built_by_hand_is_checked_once_with_a_sentence() -> None:
    model = TinyModel(7, 4, 16, positions="rope", seed=2)
    one = Matrix([[1.0, 0.0, 0.0, 1.0]])
    by_hand = KVCache((one,), (one * 2,))
    logits, grown = next_logits(model, by_hand, 3)  # the token after it, at position 1
    assert len(grown) == 2 and grown.values[0].rows[0] == (2.0, 0.0, 0.0, 2.0)
    with pytest.raises(TypeError, match="keys must be a tuple of Matrix"):
        KVCache([[1.0]], (one,))  # type: ignore[list-item]
    with pytest.raises(ValueError, match="all of one shape"):
        KVCache((one,), (Matrix([[1.0, 2.0]]),))
    with pytest.raises(ValueError, match="keys and values must be at most 1e\\+100"):
        KVCache((one * 1e200,), (one,))
    with pytest.raises(ValueError, match="a cache serves the model that filled it"):
        next_logits(TinyModel(7, 8, 16, positions="rope", num_heads=2), by_hand, 3)
    with pytest.raises(IndexError, match="token_id = 7 is not an ID of this model's "
                                         "vocabulary: valid IDs are 0..6"):
        next_logits(model, by_hand, 7)
    with pytest.raises(TypeError, match="cache must be a KVCache"):
        next_logits(model, [], 3)  # type: ignore[arg-type]


def test_a_learned_table_has_no_row_past_context_length_for_the_next_token() -> None:
    model = TinyModel(7, 4, 3, positions="learned")  # rows for positions 0, 1, 2
    cache = EMPTY
    for token_id in [1, 2, 3]:
        _, cache = next_logits(model, cache, token_id)
    with pytest.raises(ValueError, match="the new token stands at position 3, but a learned "
                                         "position table has only context_length=3 rows"):
        next_logits(model, cache, 4)
    kept = evict(model, cache, sinks=1, window=1)  # positions 0 and 1: the next one is 2
    assert len(next_logits(model, kept, 4)[1]) == 3


BLOCKS = [("none", None, True), ("learned", "layer", True), ("sinusoidal", "rms", False),
          ("rope", "layer", True), ("alibi", None, False), ("alibi", "rms", True)]


@pytest.mark.parametrize(("positions", "norm", "mlp"), BLOCKS)
def test_a_block_models_cache_gives_the_whole_sequences_last_row(
        positions: str, norm: str | None, mlp: bool) -> None:
    """Two layers of two heads: the cache keeps every layer's keys and values, and each
    token's logits are the whole sequence's row for it; cached == uncached generation."""
    model = TinyModel(7, 8, 16, positions=positions, num_heads=2, num_layers=2, mlp=mlp,
                      norm=norm, seed=4)
    ids = [3, 0, 6, 6, 2, 5]
    cache = EMPTY
    for t, token_id in enumerate(ids):
        logits, cache = next_logits(model, cache, token_id)
        assert allclose(logits, model.logits(ids[:t + 1]).rows[t], rel_tol=1e-12,
                        abs_tol=1e-14), t
    assert len(cache.keys) == 4 and cache.keys[0].shape == (6, 4)  # 2 layers x 2 heads
    assert model.generate([1, 2], 8) == model.generate([1, 2], 8, use_cache=False)


def test_partial_rotary_in_every_layer_with_the_cache() -> None:
    model = TinyModel(7, 16, 16, positions="rope", num_heads=2, rotary_fraction=0.5,
                      num_layers=3, mlp=True, norm="rms", seed=1)
    assert model.generate([4, 1, 1], 10) == model.generate([4, 1, 1], 10, use_cache=False)


def test_a_cache_refuses_another_models_hands() -> None:
    """A cache carries the mark of the model that filled it: another model of the same
    shapes (other tables) is refused by next_logits and evict; an equal model is not."""
    model = TinyModel(7, 4, 16, positions="rope", num_heads=2, num_layers=2)
    _, cache = next_logits(model, EMPTY, 1)
    other = dataclasses.replace(model, seed=5, weights=None)  # same shapes, other tables
    for refused in (lambda: next_logits(other, cache, 2),
                    lambda: evict(other, cache, sinks=0, window=1)):
        with pytest.raises(ValueError, match="this cache was filled by another model"):
            refused()
    twin = TinyModel(7, 4, 16, positions="rope", num_heads=2, num_layers=2)
    assert twin is not model and next_logits(twin, cache, 2)[0] == next_logits(model, cache, 2)[0]
    by_hand = KVCache(cache.keys, cache.values)  # keys and values given: no mark
    assert by_hand.filled_by is None and next_logits(other, by_hand, 2)[1].filled_by == (
        other.cache_mark)
    one_layer = TinyModel(7, 4, 16, positions="rope", num_heads=2)
    with pytest.raises(ValueError, match=r"this cache holds 4 heads of keys 2 wide; the model "
                                         r"has 2 of head_dim=2"):
        next_logits(one_layer, cache, 2)
    with pytest.raises(ValueError, match=r"the model has 4 \(2 layers of 2\) of head_dim=2"):
        next_logits(model, next_logits(one_layer, EMPTY, 1)[1], 2)


SAVE = """
import pickle, sys
from minipe import TinyModel
from minipe.training.generation import EMPTY, next_logits
model = TinyModel(7, 4, 16, positions="rope", num_heads=2, num_layers=2, norm="layer")
saved = pickle.dumps(model)  # the model first, before any token asked its mark
cache = EMPTY
for token_id in (4, 1, 1):
    logits, cache = next_logits(model, cache, token_id)
with open(sys.argv[1], "wb") as file:
    pickle.dump((saved, cache, next_logits(model, cache, 2)[0]), file)
"""

LOAD = """
import pickle, sys
from minipe import TinyModel
from minipe.training.generation import next_logits
with open(sys.argv[1], "rb") as file:
    saved, cache, expected = pickle.load(file)
model = pickle.loads(saved)
again = TinyModel(7, 4, 16, positions="rope", num_heads=2, num_layers=2, norm="layer")
assert next_logits(model, cache, 2)[0] == expected, "the loaded model"
assert next_logits(again, cache, 2)[0] == expected, "the same model made again"
print("served")
"""


def test_a_model_and_its_cache_match_in_another_process(tmp_path: Any) -> None:
    """The mark is made from the settings and the numbers, not hash() (whose strings are
    salted per process): a cache filled in one process serves the model loaded, or made
    again, in another, each with its own PYTHONHASHSEED."""
    root = Path(__file__).resolve().parent.parent
    saved = tmp_path / "model_and_cache.pickle"
    for code, seed in ((SAVE, "1"), (LOAD, "2")):
        environment = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}
        done = subprocess.run([sys.executable, "-c", code, str(saved)], cwd=root, env=environment,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    assert done.stdout == "served\n"
