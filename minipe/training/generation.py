"""Chapter 10 - generation with a cache: one new token costs O(n d), not O(n^2 d).

A causal model's token at position p sees only the tokens 0 .. p, so the keys
and values of the earlier tokens never change once they are computed. A
model that writes a text token by token keeps them (the KV cache), and each
new token computes only its own row:

    pos      = len(cache)                       the new token stands after the cached ones
    x        = E[id] + P[pos]                   (1, d)
    q, k, v  = x W_q, x W_k, x W_v              (1, d); RoPE turns q and k by pos * theta_i
    K, V     = cache + [k], cache + [v]         (pos + 1, head_dim) per head, k stored turned
    h        = softmax(q K^T / sqrt(head_dim) + alibi) V     one query: O(n d)
    logits   = h W_out                          the next token is the top score (greedy)

Its logits are the last row of the whole sequence's forward pass, number for
number (tests/test_generation.py). Without the cache the whole sequence runs
again for every token: n rows of n scores each, O(n^2 d).

Where real code goes wrong: giving the new token position 0, not len(cache);
storing RoPE's keys unturned, or turning them again at another position.

A cache that must not grow without end drops its oldest tokens but the first
few (`evict`: StreamingLLM's attention sinks and window). The kept tokens then
stand at new positions, and RoPE's keys, stored turned, must be turned again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from minipe.arrays import Matrix
from minipe.attention import scaled_dot_product_attention
from minipe.checks import check_type, checked_size
from minipe.training.heads import (alibi_at, columns, position_rows, side_by_side, turned,
                                   turned_back)
from minipe.training.passes import Model


class CachedModel(Model, Protocol):
    """What generation reads of a model: what the passes read, and its `logits`
    (TinyModel has all of it; it calls this module)."""

    def logits(self, ids: Sequence[int]) -> Matrix: ...


@dataclass(frozen=True)
class KVCache:
    """The keys (RoPE's already turned) and values of every token so far, per head.

    keys[h], values[h]   (n, head_dim): row j is the token at position j
    """

    keys: tuple[Matrix, ...]
    values: tuple[Matrix, ...]

    def __len__(self) -> int:
        return len(self.keys[0]) if self.keys else 0  # n: the next token's position

    def __repr__(self) -> str:
        return f"KVCache(heads={len(self.keys)}, tokens={len(self)})"


EMPTY = KVCache((), ())  # before the first token


def next_logits(model: CachedModel, cache: KVCache, token_id: int) -> tuple[list[float], KVCache]:
    """Feed one token at position len(cache): its scores for the next token, and the cache
    with its keys and values added. Only its own row is computed."""
    weights = model.parameters()
    pos = len(cache)  # the new token's position: the cache's length
    x = Matrix([weights["token_embedding"].rows[token_id]])  # (1, d): E[id]
    if model.positions in ("learned", "sinusoidal"):
        x = x + position_rows(model.positions, weights.get("position_embedding"), 1,
                              model.d_model, model.base, [pos])  # + P[pos]
    q_row, k_row, v_row = x @ weights["W_q"], x @ weights["W_k"], x @ weights["W_v"]  # (1, d)
    head_dim = model.head_dim
    keys, values, outputs = [], [], []
    for h in range(model.num_heads):
        q = columns(q_row, h * head_dim, (h + 1) * head_dim)  # (1, head_dim)
        k = columns(k_row, h * head_dim, (h + 1) * head_dim)
        v = columns(v_row, h * head_dim, (h + 1) * head_dim)
        if model.frequencies is not None:  # turned once, at pos, and stored turned
            q = turned(q, model.frequencies, model.attention_scale, [pos])
            k = turned(k, model.frequencies, model.attention_scale, [pos])
        K = Matrix(cache.keys[h].rows + k.rows) if pos else k  # (pos + 1, head_dim)
        V = Matrix(cache.values[h].rows + v.rows) if pos else v
        bias = (alibi_at(model.alibi_slopes[h], [pos], range(pos + 1), pos + 1)
                if model.alibi_slopes is not None else None)  # -m_h (pos - j)
        attention = scaled_dot_product_attention(q, K, V, bias=bias)  # keys 0 .. pos: causal
        keys.append(K)
        values.append(V)
        outputs.append(attention.output)
    logits = side_by_side(outputs) @ weights["W_out"]  # (1, vocab_size)
    return list(logits.rows[0]), KVCache(tuple(keys), tuple(values))


def evict(model: CachedModel, cache: KVCache, *, sinks: int, window: int) -> KVCache:
    """Keep the first `sinks` tokens and the last `window`, drop those between: a cache
    that never holds more than sinks + window tokens (StreamingLLM, Xiao et al., 2023).

        evicted   = len(cache) - sinks - window        how many tokens are dropped
        K_window  = R(-evicted theta_i) K[-window:]     RoPE only: turned back by evicted
        K         = K[:sinks] + K_window                rows, per head; V likewise, unturned

    Positions count within the cache, as StreamingLLM counts them: the window's
    tokens move from position p to p - evicted, and the next token stands at
    sinks + window, inside the positions the model was trained on however long
    it writes. A RoPE key was stored turned by p * theta_i; turned back by
    evicted * theta_i it stands at p - evicted, where the query now looks for it.
    Kept as it was, it would sit `evicted` positions too far along: nearer the
    query than the cache counts it (lesson 20). ALiBi's keys hold no position
    (its bias reads the positions in the cache), and learned or sinusoidal keys
    keep P[p] inside them for good: nothing turns those.
    """
    _check_eviction(cache, sinks, window)
    evicted = len(cache) - sinks - window
    if evicted <= 0:
        return cache  # it fits: nothing to drop
    keys, values = [], []
    for K, V in zip(cache.keys, cache.values):  # (len(cache), head_dim) per head
        K_window = Matrix(K.rows[-window:])  # (window, head_dim): the latest tokens
        if model.frequencies is not None:  # R(-evicted theta_i) = R(evicted theta_i)^T
            K_window = turned_back(K_window, model.frequencies, 1.0, [evicted] * window)
        keys.append(Matrix(K.rows[:sinks] + K_window.rows))  # (sinks + window, head_dim)
        values.append(Matrix(V.rows[:sinks] + V.rows[-window:]))
    return KVCache(tuple(keys), tuple(values))


def generate_greedy(model: CachedModel, ids: list[int], max_new_tokens: int, *,
                    use_cache: bool) -> list[int]:
    """The prompt and max_new_tokens new IDs, each the top score after the ones before.

    With the cache, the prompt goes in token by token, then each new token;
    without it, the whole sequence runs again (`model.logits`) for every new token.
    """
    ids = list(ids)
    if not use_cache:
        for _ in range(max_new_tokens):
            last_row = model.logits(ids).rows[-1]  # the whole sequence again: O(n^2 d)
            ids.append(_top(last_row))
        return ids
    cache = EMPTY
    for token_id in ids[:-1]:  # the prompt fills the cache ...
        _, cache = next_logits(model, cache, token_id)
    for step in range(max_new_tokens):
        logits, cache = next_logits(model, cache, ids[-1])  # ... then one token at a time
        ids.append(_top(logits))
    return ids


def _top(scores: Sequence[float]) -> int:
    """The ID of the top score (the first, if two tie): greedy decoding's choice."""
    return list(scores).index(max(scores))


# The door


def _check_eviction(cache: object, sinks: object, window: object) -> None:
    """A KVCache, sinks >= 0 and a window >= 1."""
    check_type(cache, KVCache, "cache must be a KVCache (next_logits returns one)")
    checked_size(sinks, "sinks", minimum=0)
    checked_size(window, "window")
