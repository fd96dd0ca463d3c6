"""Chapter 10 - generation with a cache: one new token costs O(n d), not O(n**2 d).

A causal model's token at position p sees only the tokens 0 .. p, so the keys
and values of the earlier tokens never change once they are computed. A
model that writes a text token by token keeps them (the KV cache), and each
new token computes only its own row:

    pos      = len(cache)                       the new token stands after the cached ones
    x        = E[id] + P[pos]                   (d,)
    q, k, v  = x W_q, x W_k, x W_v              (d,); RoPE turns q and k by pos * theta_i
    K, V     = cache + [k], cache + [v]         (pos + 1, head_dim) per head, k stored turned
    h        = softmax(q K^T / sqrt(head_dim) + alibi) V     one query: O(n d)
    logits   = h W_out                          the next token is the top score (greedy)

Its logits are the last row of the whole sequence's forward pass, number for
number (tests/test_generation.py). Without the cache the whole sequence runs
again for every token: n rows of n scores each, O(n**2 d).

The cache (minipe/training/cache.py) holds what it has checked: a new token adds
its own key row and its value and reads no cached number again, so its cost grows
with n only by the one score and the one weight of each cached key
(benchmarks/bench_generate.py).

A block model (minipe/training/layers.py) runs its row up the stack, and
each layer keeps its own keys and values: layer l's heads' come after layer
l - 1's in the cache, and its q, k and v are computed from the row its norm
made of the stream, x = x + h (+ the MLP's) after each layer.

Where real code goes wrong: giving the new token position 0, not len(cache);
storing RoPE's keys unturned, or turning them again at another position;
feeding one model's cache to another (the cache carries a mark of the model
that filled it, and next_logits and evict refuse any other's).

A cache that must not grow without end drops its oldest tokens but the first
few (`evict`: StreamingLLM's attention sinks and window). The kept tokens then
stand at new positions, and RoPE's keys, stored turned, must be turned again.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Protocol, Sequence

from minipe.arrays import Matrix
from minipe.arrays.vector import dots
from minipe.checks import check_type, checked_size
from minipe.training.block import gelu
from minipe.training.cache import EMPTY as EMPTY, KVCache as KVCache  # re-exported
from minipe.training.cache import filled
from minipe.training.heads import alibi_at, position_rows, softmax_row, turned_at, turned_back
from minipe.training.layers import BlockModel, is_plain, normed


Columns = tuple[tuple[float, ...], ...]  # a table's columns, each a row of its transpose


LayerColumns = tuple[Columns, Columns, Columns]  # a layer's [W_q | W_k | W_v], W_1, W_2


class CachedModel(BlockModel, Protocol):
    """What generation reads of a model: what the passes read, its `logits`, its
    `token_columns` and the mark it leaves on a cache (TinyModel has all of it)."""

    def logits(self, ids: Sequence[int]) -> Matrix: ...
    @property
    def token_columns(self) -> tuple[tuple[LayerColumns, ...], Columns]: ...
    @property
    def cache_mark(self) -> int: ...


def token_columns(weights: Mapping[str, Matrix], num_layers: int, plain: bool
                  ) -> tuple[tuple[LayerColumns, ...], Columns]:
    """The columns a new token's row meets: per layer the 3d of [W_q | W_k | W_v] (its q,
    k and v are x . each), and W_1's and W_2's (none without an MLP); the vocab_size of
    W_out (its logits). TinyModel builds them once, the first time a token asks
    (`TinyModel.token_columns`): a model never changes."""
    layers = []
    for name in [""] if plain else [f"layer{layer}." for layer in range(num_layers)]:
        qkv = tuple(column for W in ("W_q", "W_k", "W_v") for column in weights[name + W].T.rows)
        mlp = [weights[name + W].T.rows if name + W in weights else () for W in ("W_1", "W_2")]
        layers.append((qkv, mlp[0], mlp[1]))  # (3d,), (4d,), (d,) columns
    return tuple(layers), weights["W_out"].T.rows


def next_logits(model: CachedModel, cache: KVCache, token_id: int) -> tuple[list[float], KVCache]:
    """Feed one token at position len(cache): its scores for the next token, and the cache
    with its keys and values added. Only its own row is computed, and only it is new in
    the cache: the n rows before it are the cache's own, checked when they came in."""
    _check_step(model, cache, token_id)
    weights = model.parameters()
    pos = len(cache)  # the new token's position: the cache's length
    x = weights["token_embedding"][token_id]  # (d,): E[id]
    if model.positions in ("learned", "sinusoidal"):
        x = x + position_rows(model.positions, weights.get("position_embedding"), 1,
                              model.d_model, model.base, [pos])[0]  # + P[pos]
    layer_columns, out_columns = model.token_columns  # the tables' columns, built once
    stream = list(x.values)  # (d,): the new token's row, up the stack
    keys: list[Matrix] = []  # every layer's heads', layer by layer
    values_T: list[Matrix] = []
    for layer, (qkv_columns, W_1_columns, W_2_columns) in enumerate(layer_columns):
        name = "" if is_plain(model) else f"layer{layer}."
        a = _normed_row(model, name + "norm_1", stream)  # (d,): the row itself without norms
        heads = model.num_heads * layer, model.num_heads * (layer + 1)  # this layer's
        joined = _attend_row(model, dots(a, qkv_columns), cache, pos, heads, keys, values_T)
        if is_plain(model):  # the one-layer model reads its heads' output: no residual
            stream = joined
            continue
        stream = [x_j + h_j for x_j, h_j in zip(stream, joined)]  # x = x + heads(norm_1(x))
        if W_1_columns:  # x = x + gelu(norm_2(x) W_1) W_2
            u = dots(_normed_row(model, name + "norm_2", stream), W_1_columns)  # (4d,)
            g = gelu(Matrix([u])).rows[0]
            stream = [x_j + y_j for x_j, y_j in zip(stream, dots(g, W_2_columns))]
    top = stream if is_plain(model) else _normed_row(model, "norm_final", stream)
    logits = dots(top, out_columns)  # (vocab_size,): the top row W_out
    return logits, filled(keys, values_T, model.cache_mark)


def _normed_row(model: CachedModel, name: str, row: list[float]) -> list[float]:
    """`normed` (minipe/training/layers.py) on one row: norm(x) with the tables called name."""
    if model.norm is None:
        return row
    return list(normed(model, name, Matrix([row])).rows[0])


def _attend_row(model: CachedModel, qkv: list[float], cache: KVCache, pos: int,
                heads: tuple[int, int], keys: list[Matrix], values_T: list[Matrix]
                ) -> list[float]:
    """One layer's heads for the new token: its q, k, v (3d,) -> [out_0 | out_1 ...] (d,);
    its keys and values go after the cache's heads[0] .. heads[1] - 1 into keys, values_T."""
    d, head_dim = model.d_model, model.head_dim
    q_row, k_row, v_row = qkv[:d], qkv[d:2 * d], qkv[2 * d:]  # (d,) each
    thetas = model.frequencies.values if model.frequencies is not None else ()
    whole = 2 * len(thetas) == head_dim  # RoPE turns all of each head's columns
    if whole:  # every head's q and k turned together, pair i by pos * theta_i; k stored turned
        q_row, k_row = turned_at([q_row, k_row], thetas * model.num_heads,
                                 model.attention_scale, pos)
    sqrt_d = math.sqrt(head_dim)
    joined: list[float] = []
    for h, stored in enumerate(range(*heads)):  # head h, kept in the cache at `stored`
        cut = slice(h * head_dim, (h + 1) * head_dim)  # head h's columns
        q, k = q_row[cut], k_row[cut]  # (head_dim,) each
        if thetas and not whole:  # partial RoPE: head by head
            q, k = turned_at([q, k], thetas, model.attention_scale, pos)
        K = _with_row(cache.keys[stored], tuple(k)) if pos else Matrix([k])  # (pos + 1, hd)
        V_T = _with_column(cache.values_T[stored], v_row[cut]) if pos else (
            Matrix([v_row[cut]]).T)  # (head_dim, pos + 1): V^T
        # q . k_j / sqrt(head_dim) for the keys j = 0 .. pos, none after it: causal
        scores = [score / sqrt_d for score in dots(q, K.rows)]  # (pos + 1,)
        if model.alibi_slopes is not None:
            bias = alibi_at(model.alibi_slopes[h], [pos], range(pos + 1), pos + 1).rows[0]
            scores = [score + b_j for score, b_j in zip(scores, bias)]  # + -m_h (pos - j)
        attention_weights = softmax_row(scores)  # (pos + 1,): chapter 4's softmax
        joined += dots(attention_weights, V_T.rows)  # head h's sum_j weights_j v_j
        keys.append(K)
        values_T.append(V_T)
    return joined


def _with_row(K: Matrix, k: tuple[float, ...]) -> Matrix:
    """K with k after its rows: (n + 1, head_dim). K's rows are the cache's, checked when
    they came in, and k was computed by the model: no number is read again."""
    return K.picked(K.rows + (k,))


def _with_column(V_T: Matrix, v: Sequence[float]) -> Matrix:
    """V^T with v (head_dim,) as one more column: (head_dim, n + 1), as _with_row."""
    return V_T.picked([column + (value,) for column, value in zip(V_T.rows, v)])


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
    _check_eviction(model, cache, sinks, window)
    evicted = len(cache) - sinks - window
    if evicted <= 0:
        return cache  # it fits: nothing to drop
    keys, values_T = [], []
    for K, V_T in zip(cache.keys, cache.values_T):  # (len(cache), head_dim) per head, V^T
        K_window = K[-window:]  # (window, head_dim): the latest tokens
        if model.frequencies is not None:  # R(-evicted theta_i) = R(evicted theta_i)^T
            K_window = turned_back(K_window, model.frequencies, 1.0, [evicted] * window)
        keys.append(K.picked(K.rows[:sinks] + K_window.rows))  # (sinks + window, head_dim)
        values_T.append(V_T.picked([column[:sinks] + column[-window:]  # (head_dim, kept)
                                    for column in V_T.rows]))
    return filled(keys, values_T, model.cache_mark)


def generate_greedy(model: CachedModel, ids: list[int], max_new_tokens: int, *,
                    use_cache: bool) -> list[int]:
    """The prompt and max_new_tokens new IDs, each the top score after the ones before.

    With the cache, the prompt goes in token by token, then each new token;
    without it, the whole sequence runs again (`model.logits`) for every new token.
    """
    ids = list(ids)
    if not use_cache:
        for _ in range(max_new_tokens):
            last_row = model.logits(ids).rows[-1]  # the whole sequence again: O(n**2 d)
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


def _check_eviction(model: object, cache: object, sinks: object, window: object) -> None:
    """The model and its cache (as next_logits'), sinks >= 0 and a window >= 1."""
    _check_model_and_cache(model, cache)
    checked_size(sinks, "sinks", minimum=0)
    checked_size(window, "window")


def _check_model_and_cache(model: object, cache: object) -> None:
    """A model with a cache (TinyModel), and a KVCache with its heads, each head_dim wide."""
    if not all(hasattr(model, name) for name in ("token_columns", "cache_mark", "num_heads")):
        raise TypeError(f"model must be the TinyModel that fills the cache, got {model!r:.60}")
    check_type(cache, KVCache, "cache must be a KVCache (next_logits returns one; "
                               "the first is KVCache((), ()))")
    assert isinstance(cache, KVCache)  # for mypy: check_type has refused anything else
    settings: Any = model  # a TinyModel: it has them all (checked above)
    heads, head_dim = settings.num_heads * settings.num_layers, settings.head_dim
    layers = "" if settings.num_layers == 1 else (
        f" ({settings.num_layers} layers of {settings.num_heads})")
    if cache.keys and (len(cache.keys), len(cache.keys[0].rows[0])) != (heads, head_dim):
        raise ValueError(f"this cache holds {len(cache.keys)} heads of keys "
                         f"{len(cache.keys[0].rows[0])} wide; the model has {heads}{layers} "
                         f"of head_dim={head_dim}: a cache serves the model that filled it")
    if cache.filled_by is not None and cache.filled_by != settings.cache_mark:
        raise ValueError("this cache was filled by another model (another's settings or "
                         "tables): its keys and values are that model's numbers, and a cache "
                         "serves the model that filled it; pass that model, or start again "
                         "from KVCache((), ()) and feed this model the tokens")


def _check_step(model: CachedModel, cache: object, token_id: object) -> None:
    """The model and its cache, and an ID in its vocabulary; a learned table needs a row
    for the position len(cache)."""
    _check_model_and_cache(model, cache)
    assert isinstance(cache, KVCache)  # for mypy: checked above
    if (isinstance(token_id, bool) or not isinstance(token_id, int)
            or not 0 <= token_id < model.vocab_size):
        raise IndexError(f"token_id = {token_id!r} is not an ID of this model's vocabulary: "
                         f"valid IDs are 0..{model.vocab_size - 1}")
    if model.positions == "learned" and len(cache) >= model.context_length:
        raise ValueError(f"the new token stands at position {len(cache)}, but a learned "
                         f"position table has only context_length={model.context_length} rows "
                         f"(0 .. {model.context_length - 1}): evict tokens first")
