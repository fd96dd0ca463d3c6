"""Chapter 10, generation with a cache (issue 19): TinyModel.generate and its KV cache.

Expected values: the full forward pass (model.logits of the whole sequence, itself
checked against a naive forward in tests/test_heads.py) for the cached step's logits;
greedy decoding written here (the top score, appended, again) for the tokens; chapter 5's
apply_rotary at the token's own position for the keys the cache stores.
"""

from __future__ import annotations

import pytest

from minipe import Matrix, TinyModel, apply_rotary
from minipe.generation import EMPTY, next_logits

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
