"""Every walkthrough runs, prints what its notebook holds, and prints the numbers worked here.

A lesson checks its own claims (`lesson.check` on the line that prints each one: a
false claim stops it with status 1), so these tests do not read its sentences for
numbers. They hold what the lesson cannot check itself: its committed notebook,
walkthroughs/NN_topic.ipynb, is the golden record of what it prints, byte for byte;
KEY_NUMBERS are numbers worked here with `math` or by hand, never by minipe; and
the behaviour of a lesson as a program (--step, --svg, pdb, importing it).
Each lesson runs once a session, as a learner runs it (tests/commands.py).
"""

from __future__ import annotations

import collections
import importlib.util
import io
import itertools
import json
import math
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from commands import FIGURES, LESSONS, ROOT, lesson, lesson_with_figures, ran

from minipe.book.runs import FIGURE_LINE, MEASURED

WALKTHROUGHS = ROOT / "walkthroughs"
WIDTH = 80
PROMPT = "press Enter for the next stage"
ANSWER_PROMPT = "then press Enter for the answer"
# the lessons that train: 1.5-16 s
TRAINING = {"07", "15", "16", "18", "19", "20", "21", "24", "27", "28"}


def _each(paths: list[Path]) -> list[object]:
    """The lessons as test parameters, those that train marked slow."""
    return [pytest.param(path, id=path.stem,
                         marks=[pytest.mark.slow] if path.name[:2] in TRAINING else [])
            for path in paths]


def _sinusoid_dot(k: int, d_model: int) -> float:
    """PE(p) . PE(p + k) = sum_i cos(k / 10000^(2i/d_model)), by the angle-difference formula."""
    return sum(math.cos(k / 10000 ** (2 * i / d_model)) for i in range(d_model // 2))


def _sinusoid_step(d_model: int) -> float:
    """|PE(p + 1) - PE(p)| = sqrt(sum_i (2 - 2 cos w_i)): each pair moves along a unit circle."""
    return math.sqrt(2 * (d_model // 2) - 2 * _sinusoid_dot(1, d_model))


def _rope_score(q: list[float], k: list[float], offset: int) -> float:
    """(R_m q) . (R_n k) with n - m = offset, d = 4, base 10000, worked pair by pair:
    for q's pair (a, b) and k's pair (c, e), turning k by delta relative to q gives
    (a c + b e) cos(delta) + (b c - a e) sin(delta), delta = offset * theta_i."""
    score = 0.0
    for i, theta in enumerate((1.0, 0.01)):  # theta_i = 10000**(-2i/4)
        a, b = q[2 * i], q[2 * i + 1]
        c, e = k[2 * i], k[2 * i + 1]
        delta = offset * theta
        score += (a * c + b * e) * math.cos(delta) + (b * c - a * e) * math.sin(delta)
    return score


ROPE_Q, ROPE_K = [1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 1.0]  # lesson 11's q and k

# Lessons 23-25: GPT-2's IDs for The Verdict as OpenAI's tokenizer library gives them, and
# its trainer's (tests/reference/make_subword_reference.py, run by hand); tokens read here.
SUBWORD = json.loads((ROOT / "tests" / "reference" / "subword_reference.json").read_text(
    encoding="utf-8"))
VERDICT_IDS: list[int] = SUBWORD["verdict_ids"]  # tiktoken's 5,145 IDs
VERDICT = (ROOT / "minipe" / "data" / "the-verdict.txt").read_text(encoding="utf-8")


def _gpt2_token_bytes() -> list[bytes]:
    """GPT-2's tokens as bytes, read from vocab.bpe as OpenAI's encoder.py does: its
    bytes_to_unicode (printable bytes as themselves, the other 68 as chr(256 + n)), in
    that order IDs 0..255, then line k's two halves joined as ID 255 + k."""
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    others = [byte for byte in range(256) if byte not in printable]
    symbols = [chr(byte) for byte in printable] + [chr(256 + n) for n in range(len(others))]
    byte_of = dict(zip(symbols, printable + others))
    tokens = [bytes([byte_of[symbol]]) for symbol in symbols]
    merges = (ROOT / "minipe" / "data" / "gpt2-vocab.bpe").read_text(encoding="utf-8")
    for line in merges.splitlines()[1:]:
        tokens.append(bytes(byte_of[symbol] for symbol in line.replace(" ", "")))
    return tokens


def _verdict_words_in(tokens: int) -> int:
    """The Verdict's words (runs of non-whitespace) that end within its first `tokens`."""
    token_bytes = _gpt2_token_bytes()
    length = len(b"".join(token_bytes[i] for i in VERDICT_IDS[:tokens]).decode("utf-8"))
    return sum(1 for word in re.finditer(r"\S+", VERDICT) if word.end() <= length)


def _window(k: int, start: int) -> str:
    """Lesson 25's window k from token `start`: 4 inputs, the 4 after them as targets."""
    return (f"window {k}: inputs {VERDICT_IDS[start:start + 4]}  "
            f"targets {VERDICT_IDS[start + 1:start + 5]}")


def _vocabulary_row(vocab_size: int, tokens: int) -> str:
    """Lesson 24's row: the table's rows x GPT-2's 768, tokens, windows of 1,024."""
    return (f"{vocab_size:>10,}  {vocab_size * 768:>16,}  {tokens:>7,}   "
            f"{math.ceil(tokens / 1024):>16}")

YARN_GAMMA_0 = (8 / (2 * math.pi) - 1) / (32 - 1)  # lesson 18's pair 0 on the paper's ramp


# The numbers each lesson must print, worked here, and where each comes from.
KEY_NUMBERS: dict[str, list[str]] = {
    "01_text_to_ids.py": [
        "[4, 0, 3, 2, 4, 1]",  # sorted vocabulary: cat 0, mat 1, on 2, sat 3, the 4
        "[2, 4, 1, 4, 0, 3]",  # "on the mat the cat sat" with the same vocabulary
        "vocab_size = 7",  # 5 words + <|unk|> + <|endoftext|>
        "[4, 5, 3, 2, 4, 1]",  # 'dog' is not in the vocabulary: <|unk|> is ID 5
    ],
    "02_token_embeddings.py": [
        "shape = (7, 4)",  # vocab_size rows, d_model columns
    ],
    "03_attention_is_blind_to_order.py": [
        # the causal mask, no positions: 'a' at 0 and 3 differ; equal scores average a
        # value that is 1 at token 0 only into 1/(i+1) at position i
        *(f"causal average {1 / (i + 1):.4f}, 1/(i+1) = {1 / (i + 1):.4f}" for i in range(5)),
    ],
    "04_sinusoidal_by_hand.py": [
        f"{math.sin(1):8.5f}",  # lecture 003: PE(1, 0) = sin 1 = 0.8415
        f"{math.cos(1):8.5f}",  # PE(1, 1) = cos 1 = 0.5403
        f"{math.cos(0.01):8.5f}",  # PE(1, 3) = cos 0.01 = 0.99995
        f"{math.cos(3):8.5f}",  # PE(3, 1) = cos 3 = -0.9900
        f"{math.cos(0.03):8.5f}",  # PE(3, 3) = cos 0.03 = 0.99955
        "PE(0) = [0, 1, 0, 1]",
        f"{2 * math.pi * 1000:9.2f}",  # d_model = 8, i = 3: wavelength 2 pi * 1000
        f"{math.sqrt(100000):.2f}",  # base 100000, d_model = 4: denominator 100000**(1/2)
    ],
    "05_learned_positions_and_broadcasting.py": [
        "token IDs: shape (8, 4)",  # lecture 001: batch 8, context 4
        "token embeddings: shape (8, 4, 256)",
        "position embeddings: shape (4, 256)",
        "input embeddings: shape (8, 4, 256)",
        f"{50257 * 768:,}",  # GPT-2's token table
        f"{1024 * 768:,}",  # GPT-2's position table
        # 32 bytes a number (a 24-byte float object and an 8-byte pointer) against NumPy's 8
        f"32 bytes, so the token table holds {50257 * 768 * 32 / 1e9:.2f} GB",
        f"the bare 8 bytes: {50257 * 768 * 8 / 1e9:.2f} GB",
    ],
    "06_relative_from_absolute.py": [
        f"[{math.cos(2):7.4f} {math.sin(2):7.4f}",  # M_2's first block: [cos 2, sin 2]
        f"{_sinusoid_dot(0, 64):7.4f}",  # k = 0: d_model / 2 = 32
        f"{_sinusoid_dot(1, 64):7.4f}",
        f"{_sinusoid_dot(4, 64):7.4f}",
        f"{_sinusoid_dot(63, 64) / 32:6.3f}",
        # cos is even: the token 1 before p = 10 scores as the token 1 after it
        f"PE(10) . PE(11) = {_sinusoid_dot(1, 64):7.4f}   PE(10) . PE(9) = "
        f"{_sinusoid_dot(1, 64):7.4f}",
        # W_q W_k^T = M_2: score(i, j) = sum cos((j + 2 - i) w), highest at j = i - 2
        f"peak key j for queries i = 2..11: {[i - 2 for i in range(2, 12)]}",
        f"= {16 / 2 - _sinusoid_dot(1, 16):.4f}",  # the peak minus its neighbour (offset 1)
        "sine-only code(0) = [" + " ".join(["0.0000"] * 8) + "]",  # sin 0 = 0
    ],
    "07_fixed_vs_learned.py": [
        f"[{math.sin(4):7.4f} {math.cos(4):7.4f}",  # PE(4) begins [sin 4, cos 4]
        f"a guess among 5 kinds: {1 / 5:.1%}",
    ],
    "08_binary_vs_sinusoidal.py": [
        "pos  7: 1110",  # 7 = 4 + 2 + 1, least significant bit first
        "pos  8: 0001",
        f"from 7 to 8: {math.sqrt(4):.4f}, from 8 to 9: {math.sqrt(1):.4f}",  # 4 bits vs 1 flip
        f"= {_sinusoid_step(8):.4f}",  # the same step at every position
    ],
    "09_the_whole_pipeline.py": [
        "token IDs: [4, 0, 3, 2, 4, 1]",
        f"sqrt(8) = {math.sqrt(8):.4f}",
        # causal: the first token sees only itself, so its weights are [1, 0, 0, 0, 0, 0]
        "0 the  [ 1.0000  0.0000  0.0000  0.0000  0.0000  0.0000]",
    ],
    "10_check_yourself.py": [
        f"sin = {math.sin(10):7.4f}, cos = {math.cos(10):7.4f}",
        f"{1000 / (2 * math.pi):7.3f}",  # pos 1000, i = 0: 1000 / 2 pi turns
    ],
    "11_rope_by_hand.py": [
        # theta_i = 10000**(-2i/4): 1 and 0.01; at position 2 the angles are 2 and 0.02
        "0  (0, 1)      1.0000     2.0000 rad",
        "1  (2, 3)      0.0100     0.0200 rad",
        # the numbers (worked independently there): interleaved, half, norm sqrt(30)
        "apply_rotary: [-2.2347  0.0770  2.9194  4.0592]",
        "half layout:  [-3.1440  1.9196 -0.3391  4.0392]   norm 5.4772",
        f"|R_2 q|        = {math.sqrt(30):.4f}",
        # |q + PE(2)| = |[1 + sin 2, 2 + cos 2, 3 + sin .02, 4 + cos .02]|
        "|q + PE(2)|    = " + format(math.hypot(1 + math.sin(2), 2 + math.cos(2),
                                               3 + math.sin(0.02), 4 + math.cos(0.02)), ".4f"),
        # row m = 3 of the table: offsets n - m = -3 .. 1; on the diagonal q . k = 8.5
        "   m=3  " + "".join(f"{_rope_score(ROPE_Q, ROPE_K, n - 3):9.4f}" for n in range(5)),
        f"{_rope_score(ROPE_Q, ROPE_K, 0):9.4f}",  # 0.5 - 2 + 6 + 4 = 8.5
        f"m=100, n=101: {_rope_score(ROPE_Q, ROPE_K, 1):.4f}",
    ],
    "12_absolute_vs_relative.py": [
        "a larger penalty: -2.5 at 5",  # ALiBi, m = 1/2: -0.5 * (5 - 0)
    ],
    "13_inside_attention.py": [
        f"Q K^T / sqrt(4): score(i, j) = q_i . k_j / {math.sqrt(4):g}",
        f"score     -inf   exp = {math.exp(-math.inf):.4f}",  # exp(-inf) = 0
        f"sqrt(d_model / 2) = {math.sqrt(512 / 2):.4f}",  # 16: each pair sin**2 + cos**2 = 1
        f"those times sqrt(512) = {math.sqrt(512):.2f}",
        # a variance of 1000 draws of x is off by sqrt((E[x**4] - 1) / 1000), E[x**4] =
        # 3 + 6/d_k: d_k = 256 gives sqrt(2.0234375 / 1000), d_k = 4 sqrt(3.5 / 1000)
        f"/ 1000): {math.sqrt(2.0234375 / 1000):.3f} to {math.sqrt(3.5 / 1000):.3f} here",
    ],
    "14_past_the_context_window.py": [  # its frequency tables: tests/test_context.py
        # d = 128, L = 2048: theta_63 = 10000**(-126/128) turns 0.038 times; 2047 * theta_63
        f"Pair 63 turns {2048 * 10000 ** (-126 / 128) / (2 * math.pi):.3f} times inside 2048",
        f"2047 * theta_63 = {2047 * 10000 ** (-126 / 128):.4f} rad",  # 0.2364, the issue's
        f"base' = 10000 * 4**(128/126) = {10000 * 4 ** (128 / 126):,.2f}",  # 40,889.94
        # dynamic at seq_len 8192: g = 4 * 8192 / 2048 - 3 = 13, the slowest theta / 13
        f"g = 4*8192/2048 - 3 = 13, 1/g = {1 / 13:.4f}; pair 63 ratio {1 / 13:.4f}",
        f"multiplied by {0.1 * math.log(16) + 1:.4f} (0.1 ln 16 + 1)",  # YaRN, factor 16
        "   " + " ".join(f"{1 / (i + 1):.4f}" for i in range(6)),  # NoPE: 1/(i+1)
        f"among    8 keys: weight {math.exp(5) / (math.exp(5) + 7):.3f}",  # 0.955
        f"among 1024 keys: weight {math.exp(5) / (math.exp(5) + 1023):.3f}",  # 0.127
    ],
    "15_does_attention_need_positions.py": [
        f"ln 5 = {math.log(5):.4f}",  # the loss of a uniform guess over 5 kinds
        f"of {4 * 3 * 3} sentences",  # 4 subjects x 3 other nouns x 3 verbs
        *(f"   {m:4g} {math.exp(-m):8.4f} " for m in (0.5, 2, 8)),  # e**-m per step back
    ],
    "16_what_the_learned_table_learned.py": [
        # cos(PE_i, PE_j) = sum_i cos(k w_i) / (d/2), k = j - i: |PE|**2 = d/2 = 4
        "   i=0  " + "".join(f"{_sinusoid_dot(j, 8) / 4:7.2f}" for j in range(8)),
        *(f"sinusoidal {_sinusoid_dot(k, 8) / 4:6.2f}" for k in (1, 2, 3)),
    ],
    "17_gradients_of_positions.py": [
        "inputs: 8 sequences of 4 IDs",  # lecture 001's batch of 8 x 4
        f"it averages over all {8 * 3} targets",  # 8 sequences, positions 1-3 each
    ],
    "18_train_short_test_long.py": [
        # d = 8, L = T = 8, factor 4; turns in 8 = 8 theta_i / (2 pi), theta_i = 10000**(-i/4)
        # PI: every ratio 1/4. NTK: base' = 10000 * 4**(8/6), ratio 4**(-i/3): 1, 0.63, 0.397, 1/4
        # YaRN: only pair 0 turns more than once (8 / 2 pi = 1.27): Hugging Face's ramp keeps
        # it (the ramp starts at pair 0); the paper's blends it, gamma = (1.27 - 1) / 31
        *(f"   {i:4} {10000 ** (-i / 4):12.4f} {8 * 10000 ** (-i / 4) / (2 * math.pi):11.3f}  "
          f"{0.25:8.4f}{4 ** (-i / 3):8.4f}{1.0 if i == 0 else 0.25:8.4f}"
          f"{(1 - YARN_GAMMA_0) / 4 + YARN_GAMMA_0 if i == 0 else 0.25:8.4f}" for i in range(4)),
        f"Pair 0 turns r = {8 / (2 * math.pi):.3f} times",
        f"gamma = (r - 1) / 31 = {YARN_GAMMA_0:.4f}, so nearly divided (ratio "
        f"{(1 - YARN_GAMMA_0) / 4 + YARN_GAMMA_0:.4f})",
        f"q and k by {0.1 * math.log(4) + 1:.4f}.",  # YaRN: 0.1 ln 4 + 1, both ramps
        f"1/8 = {1 / 8:.1%}",  # a guess among 8 token kinds
        f"2 pi = {2 * math.pi:.2f} positions",  # pair 0's wavelength, theta_0 = 1
        # where pair 0 is back at the angle of r = 2: 2 + 2 pi k
        "r = 2 + 2 pi k = " + ", ".join(f"{2 + 2 * math.pi * k:.2f}" for k in (1, 2, 3, 4)),
    ],
    "19_padded_batches.py": [
        # 9 words sorted (a bites cat dog man mat on sat the), then <|unk|> 9, <|endoftext|> 10
        "padding ID: 10",
        "ids [10, 10, 10, 10, 8, 2] attention_mask [0, 0, 0, 0, 1, 1]",  # the 8, cat 2
        # cumsum(mask) - 1 at the real tokens, 0 at padding, worked by hand
        "[0, 1, 2, 3, 4, 5]  [0, 0, 1, 2, 3, 4]",
        "[0, 1, 2, 3, 4, 5]  [0, 0, 0, 0, 0, 1]",
        # lengths 8, 7, 6, 5, 4, 3 twice, then 8, 7, 6, 5: each but its first token a target
        f"{2 * (7 + 6 + 5 + 4 + 3 + 2) + (7 + 6 + 5 + 4)} targets. A head of each kind",
    ],
    "20_generation_with_a_cache.py": [
        # copy-back at the last of [1, 6, 3, 5] is 6 (two before it), then 3, 5, 6: the
        # last three tokens repeat; cached or not, greedy decoding picks the same tokens
        "with cache    [1, 6, 3, 5, 6, 3, 5, 6]",
        "without       [1, 6, 3, 5, 6, 3, 5, 6]",
        *(f"   {n:3} {n + 1:20} {(n + 1) ** 2:30}" for n in (8, 64, 512)),  # n + 1, (n + 1)**2
        "at most 2 + 5 = 7 tokens, so a new token stands at position 7 at most",  # 0 .. 7
        # turned again, copy-back repeats the last three tokens to the end: 6, 3, 5, ...
        "turned again  " + str([6, 3, 5] * 5 + [6]),
    ],
    "21_several_heads.py": [
        # Press et al.'s slopes for 4 heads, 2**(-2 (h + 1)), and -m d at d = 1, 4, 7
        *(f"   {h:4}  {2 ** (-2 * (h + 1)):<10g} {-2 ** (-2 * (h + 1)):8.4f}"
          f" {-4 * 2 ** (-2 * (h + 1)):8.4f} {-7 * 2 ** (-2 * (h + 1)):8.4f}" for h in range(4)),
        f"a guess among 8 is right on {1 / 8:.1%}",
        f"head_dim 8 / 4 = {8 // 4}, m = 0.25",  # 4 heads cut d_model = 8 into 2 columns each
        f"over all 8**3 = {8 ** 3} starts",  # query 2 sees 3 tokens, each one of 8 kinds
    ],
    "22_packed_documents.py": [
        # the words sorted (a bites cat dog man mat on sat the): the 8, cat 2, sat 7, on 6,
        # mat 5, a 0, dog 3, bites 1, man 4; the three texts end to end
        "ids          [8, 2, 7, 6, 8, 5, 0, 3, 1, 0, 4, 8, 2]",
        "position_ids [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 0, 1]",  # restarting at 0, 0, 0
        "labels       [-100, 2, 7, 6, 8, 5, -100, 3, 1, 0, 4, -100, 2]",  # -100 at each start
        # causal: 13 * 14 / 2 = 91 pairs; the documents' triangles 21 + 15 + 3 = 39
        f"lets\n{13 * 14 // 2 - (21 + 15 + 3)} more pairs through",
    ],
    "23_positions_count_tokens.py": [
        # tiktoken's IDs (GPT-2's encoding on the shipped merges), written by hand
        "IDs      [464, 3797, 3332, 319, 262, 3835, 258, 1652]",  # ' books' 'he' 'lf'
        "word_ids [0, 1, 2, 3, 4, 5, 5, 5]",
        "IDs      [1930, 1859, 2207, 375, 654]",  # 'pos' 'itional' ' enc' 'od' 'ings'
        "IDs      [45203, 2207, 375, 654]",  # ' positional' ' enc' 'od' 'ings'
        "'the'    -> [1169]", "' the'   -> [262]", "'The'    -> [464]", "' The'   -> [383]",
        "IDs      [32, 3290, 26081, 257, 582]", "IDs      [32, 582, 26081, 257, 3290]",
        f"{len(VERDICT):,} characters, {len(VERDICT.split()):,} words, "
        f"{len(VERDICT_IDS):,} tokens",  # 20,479 characters, 3,634 words, 5,145 tokens
        f"hold {_verdict_words_in(1024)} whole words; token 1,025 is ' to'",  # 726
        f"word {_verdict_words_in(1024) + 1} begins at token 1,025",
    ],
    "24_train_your_own.py": [
        # by hand: pieces 'low' x1, ' low' x4, ' lower' x2, ' newest' x6, ' widest' x3;
        # e s: newest 6 + widest 3 (s t ties at 9, seen later); l o: 1 + 4 + 2; ' ' low: 4 + 2
        "256  'e' + 's'      x 9", "257  'es' + 't'     x 9", "258  'l' + 'o'      x 7",
        "259  'lo' + 'w'     x 7", "260  ' ' + 'low'    x 6", "261  ' ' + 'n'      x 6",
        # The Verdict through tiktoken's own trainer (_educational.bpe_train) and GPT-2's
        *(_vocabulary_row(int(size), len(trained["verdict_ids"]))
          for size, trained in SUBWORD["trained"].items()),  # 14,029, 9,299, 6,998
        _vocabulary_row(50257, len(VERDICT_IDS)),  # 5,145
    ],
    "25_windows_and_stride.py": [
        _window(0, 0), _window(1, 1), _window(2, 2),  # stride 1
        _window(1, 4), _window(2, 8),  # stride 4
        _window(1, 5),  # stride 5: token 4 is skipped
        _window(1, 3),  # Hugging Face's stride=1 (overlap) at max_length 4: a step of 3
        f"{len(VERDICT_IDS) - 4:,} windows ({len(VERDICT_IDS):,} - 4)",  # 5,141
        f"{math.ceil((len(VERDICT_IDS) - 4) / 4):,} windows (ceil(5,141 / 4))",  # 1,286
        f"token 4 ({VERDICT_IDS[4]}, ' thought')",
        # windows start at 0, 5, ..., 5 * 1,028; the gaps 4, 9, ... before each next start
        f"{math.ceil((len(VERDICT_IDS) - 4) / 5) - 1:,} tokens (4, 9, 14, ...)",  # 1,028
        f"position; {math.ceil((len(VERDICT_IDS) - 4) / 5):,} windows",  # 1,029
    ],
    "26_numbers_a_gpu_stores.py": [
        # bfloat16 keeps 0..256, then 128 values an octave: up to 4,096 (4,095 -> 4,096) and
        # 32,768; float16 keeps 0..2,048, then 1,024 an octave
        f"{257 + 4 * 128:>8,}  {257 + 7 * 128:>9,}", f"{2049 + 1024:>8,}  {2049 + 4 * 1024:>9,}",
        f"are {2 ** (16 - 7)} apart",  # bfloat16 at 2**16: 7 mantissa bits
        # theta_1 at d = 128 in bfloat16: 256 steps in [0.5, 1) -> 222/256; the angle at 4,095
        f"is stored as {round(256 * 10000 ** (-2 / 128)) / 256:.5f}, and 4,095 times the gap "
        f"is {4095 * (round(256 * 10000 ** (-2 / 128)) / 256 - 10000 ** (-2 / 128)):.1f}",
        # gpt-neox issue 1003: theta_1 at d = 32 in float16 (2,048 steps in [0.5, 1)) is 0.5625;
        # 1,857 x 0.5625 = 1,044.56, and float16 keeps integers in [1024, 2048)
        f"float16 {round(1857 * round(2048 * 10000 ** (-2 / 32)) / 2048)}",
    ],
    "27_where_positions_live.py": [
        f"1/16 = {1 / 16}",  # chance at T 16: 0.0625
        f"1/8 = {1 / 8}",  # chance at T 8: 0.125
        f"0.02 sqrt(96) = {0.02 * math.sqrt(96):.3f}",  # 0.196: U(-a, a) to std 0.02
        f"sqrt(32) = {math.sqrt(32):.3f}",  # a LayerNorm'd row of 32 numbers: 5.657
    ],
    "28_induction_heads.py": [
        f"1/8 = {1 / 8}",  # chance over 8 token kinds: 0.125
        "d_model = 8 + 8 + 8",  # the hand-set circuit: token, position, previous token
        "gives 1/3 to 1/7",  # an even spread over i + 1 keys at i = 2 .. 6
    ],
}


# The figures each lesson draws under --svg DIR (issue 5: walkthroughs write their figures).
FIGURES_DRAWN: dict[str, set[str]] = {
    "03_attention_is_blind_to_order.py": {"weights_without_positions.svg",
                                          "weights_with_positions.svg"},
    "04_sinusoidal_by_hand.py": {"pe_curves.svg", "pe_table.svg"},
    "05_learned_positions_and_broadcasting.py": {"pe_table_1024x768.svg"},
    "06_relative_from_absolute.py": {"dot_products.svg"},
    "08_binary_vs_sinusoidal.py": {"neighbour_distances.svg"},
    "09_the_whole_pipeline.py": {"causal_weights.svg"},
    "12_absolute_vs_relative.py": {f"weights_{kind}.svg"
                                   for kind in ("none", "sinusoidal", "rope", "alibi")},
    "14_past_the_context_window.py": {"decay_bound.svg"},
    "15_does_attention_need_positions.py": {"loss_curves.svg"},
    "16_what_the_learned_table_learned.py": {"learned_cosine.svg", "sinusoidal_cosine.svg",
                                             "learned_scores.svg", "sinusoidal_scores.svg"},
    "18_train_short_test_long.py": {"train_short_test_long.svg"},
}


def _notebook_text(path: Path) -> str:
    """What the committed notebook says the lesson prints: its cells' text, in order."""
    notebook = json.loads(path.with_suffix(".ipynb").read_text(encoding="utf-8"))
    return "".join("".join(output["text"]) for cell in notebook["cells"]
                   if cell["cell_type"] == "code" for output in cell["outputs"]
                   if output["output_type"] == "stream")


def _printed(path: Path) -> str:
    """What the lesson printed (its claims held: status 0, nothing on stderr), without the
    lines that say where a figure was written."""
    done = lesson_with_figures(path)  # `--svg FIGURES/NN_topic`: new and empty each session
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return "".join(line for line in done.stdout.splitlines(keepends=True)
                   if not line.startswith(FIGURE_LINE))


@pytest.mark.parametrize("path", _each(LESSONS))
def test_lesson_prints_what_its_notebook_holds(path: Path) -> None:
    """It printed what its notebook holds, which another process wrote: the same on every
    run. A measured time ("built in 0.49 s here") is the one thing the book writes as
    "... s here"."""
    assert MEASURED.sub("… s here", _printed(path)) == _notebook_text(path), (
        f"{path.name} no longer prints what {path.stem}.ipynb holds: if the change is "
        f"meant, python -m minipe book --notebooks DIR")


@pytest.mark.parametrize("path", _each(LESSONS))
def test_lesson_prints_its_key_numbers_and_draws_its_figures(path: Path) -> None:
    """Its claims held, it printed the numbers worked here, and under --svg it drew its
    figures, and only those."""
    assert sorted(KEY_NUMBERS) == [each.name for each in LESSONS], "worked numbers, please"
    printed = _printed(path)
    lines = printed.splitlines()
    too_wide = [line for line in lines if len(line) > WIDTH]
    assert not too_wide, f"{len(too_wide)} lines wider than {WIDTH}: {too_wide[0]!r}"
    assert 20 <= len(lines) <= 120, f"{len(lines)} lines: a narrative, not a dump"
    for number in KEY_NUMBERS[path.name]:
        assert number in printed, f"{path.name} does not print {number!r}"
    assert PROMPT not in printed  # without --step it never pauses
    expected = FIGURES_DRAWN.get(path.name, set())
    drawn = FIGURES / path.stem
    written = {child.name for child in drawn.iterdir()} if drawn.exists() else set()
    assert written == expected  # and no temporary file left behind
    assert lesson_with_figures(path).stdout.count(FIGURE_LINE) == len(expected)
    for name in expected:
        root = ElementTree.parse(drawn / name).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert any(element.tag == "{http://www.w3.org/2000/svg}text" and element.text
                   for element in root.iter())  # a titled figure, not a bare grid


def test_a_false_claim_stops_the_lesson_and_names_itself() -> None:
    """lesson.check prints nothing for a true claim; a false one ends the script with
    status 1 and one sentence on stderr naming the lesson, the stage and the claim."""
    script = ("import sys; sys.path.insert(0, 'walkthroughs'); from lesson import Lesson\n"
              "lesson = Lesson('Lesson 99: a test', argv=[]); lesson.stage('Two numbers')\n"
              "lesson.check('one is one', 1 == 1); print('said: 2 < 1')\n"
              "lesson.check('2 is less than 1', 2 < 1); print('never printed')")
    done = ran("-c", script)
    assert done.returncode == 1
    assert done.stdout.endswith("1. Two numbers\nsaid: 2 < 1\n")
    assert ("Lesson 99: a test, stage 1: the lesson claims that 2 is less than 1, but its own "
            "numbers say otherwise.") in done.stderr
    assert "one is one" not in done.stderr and "Traceback" not in done.stderr


def _bag_best(i: int, kinds: int = 5) -> float:
    """The best share of a guess of the token at i - 1 from the bag of the i tokens before
    query i: the commonest kind's count / i, averaged over all kinds**i sequences, one by
    one (the naive count; the lesson sums over count vectors instead)."""
    best = sum(max(collections.Counter(tokens).values())
               for tokens in itertools.product(range(kinds), repeat=i))
    return best / float(kinds ** i) / i


def test_lesson_15s_bag_bound_is_the_naive_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lesson 15 bounds the head without positions by the bag's best guess, summed over
    count vectors; here every sequence is counted one by one."""
    monkeypatch.syspath_prepend(str(WALKTHROUGHS))
    taught = runpy.run_path(str(WALKTHROUGHS / "15_does_attention_need_positions.py"),
                            run_name="imported")
    for i in range(1, 8):
        assert math.isclose(taught["bag_best"](i), _bag_best(i), rel_tol=1e-12), i


@pytest.mark.parametrize("path", LESSONS, ids=[path.stem for path in LESSONS])
def test_lesson_reads_as_cells(path: Path) -> None:
    source = path.read_text()
    assert source.count("# %%") >= 3  # cells for VS Code, PyCharm, Jupyter (jupytext)
    assert source.count("lesson.stage(") >= 3
    assert "Question:" in source  # the docstring says what the lesson answers
    # public API only: `from minipe import ...`, and minipe.plot for the figures
    assert not re.search(r"(import|from) minipe\.(?!plot import)", source)
    assert '"__main__"' in source


IMPORT_EACH = """
import contextlib, io, runpy, sys
sys.path.insert(0, "walkthroughs")
for path in sys.argv[1:]:
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
        runpy.run_path(path, run_name="imported")
    print(path, repr(said.getvalue()))
"""


def test_importing_a_lesson_does_nothing() -> None:
    """Imported (by a notebook, a test), not run: no output and no error, for every lesson."""
    done = ran("-c", IMPORT_EACH, *map(str, LESSONS))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.splitlines() == [f"{path} ''" for path in LESSONS]


def test_step_without_a_terminal_runs_straight_through() -> None:
    done = subprocess.run([sys.executable, str(LESSONS[0]), "--step"], cwd=ROOT,
                          input="\n" * 20, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr  # stdin is a pipe, not a terminal
    assert "stdin is not a terminal" in done.stdout
    assert PROMPT not in done.stdout


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("terminal", [True, False])
def test_progress_shows_steps_on_a_terminal_only(terminal: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """lesson.progress's callback redraws 'label: step k/steps' on a terminal's stderr and
    wipes it after the last step; on a pipe it writes nothing (piped output stays the same)."""
    spec = importlib.util.spec_from_file_location("lesson", WALKTHROUGHS / "lesson.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    stderr = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    on_step = module.Lesson("Title", argv=[]).progress("rope", 2)
    on_step(1, 1.5)
    on_step(2, 0.25)
    if not terminal:
        assert stderr.getvalue() == ""
        return
    first, second = "   rope: step 1/2, loss 1.5000", "   rope: step 2/2, loss 0.2500"
    assert stderr.getvalue() == ("\r" + first + "\r" + second
                                 + "\r" + " " * len(second) + "\r")


def _pauses(screen: bytes) -> int:
    return screen.count(PROMPT.encode()) + screen.count(ANSWER_PROMPT.encode())


def _screens_at_each_pause(lesson: Path) -> list[str]:
    """Run `lesson --step` on a pseudo-terminal, pressing Enter only once it waits.

    Returns what was on screen at each pause (checked to be waiting), then the
    whole output at the end."""
    controller, terminal = os.openpty()
    shown: list[bytes] = []
    try:
        process = subprocess.Popen([sys.executable, str(lesson), "--step"], cwd=ROOT,
                                   stdin=terminal, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        assert process.stdout is not None
        screen = b""
        while True:
            pauses = _pauses(screen)
            while _pauses(screen) == pauses:  # read up to the next pause, or the end
                chunk = os.read(process.stdout.fileno(), 4096)
                if not chunk:
                    break
                screen += chunk
            if _pauses(screen) == pauses:  # ended without pausing again
                break
            assert process.poll() is None  # it is waiting for Enter
            shown.append(screen)
            os.write(controller, b"\n")  # Enter
        process.wait(timeout=60)
        assert process.stderr is not None
        errors = process.stderr.read()
        process.stderr.close()
        process.stdout.close()
    finally:
        os.close(controller)
        os.close(terminal)
    assert process.returncode == 0, errors.decode()
    return [part.decode() for part in shown] + [screen.decode()]


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal (POSIX)")
def test_step_pauses_after_each_stage_until_enter() -> None:
    lesson = WALKTHROUGHS / "03_attention_is_blind_to_order.py"  # 5 stages: 4 pauses
    screens = _screens_at_each_pause(lesson)
    assert len(screens) == 4 + 1
    for stage in range(1, 5):  # at pause `stage`, stage `stage` is shown, the next is not
        assert f"{stage}. " in screens[stage - 1]
        assert f"\n{stage + 1}. " not in screens[stage - 1]
    output = screens[-1]
    assert output.count(PROMPT) == 4
    assert "4. Add sinusoidal positions" in output
    assert "5. The causal mask alone lets order in" in output


# Lesson 10: each question's heading, then something only its answer prints.
QUESTIONS_AND_ANSWERS = [
    ("1. Why is self-attention", "identical to the outputs of the original order?"),
    ("2. What is a positional encoding for", "X (5, 8) + PE (5, 8)"),
    ("3. What does 'fixed' mean", "sinusoidal table, two calls"),
    ("4. Write PE(pos, 0) and PE(pos, 1)", "table agrees: True"),
    ("5. What does 10000**(2i/d_model) do", "turns of each pair's"),
]


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal (POSIX)")
def test_lesson_10_shows_each_question_then_waits_then_answers() -> None:
    screens = _screens_at_each_pause(WALKTHROUGHS / "10_check_yourself.py")
    # 5 questions: a pause before each answer, one before each later question, the end
    assert len(screens) == 2 * len(QUESTIONS_AND_ANSWERS) - 1 + 1
    for number, (question, answer) in enumerate(QUESTIONS_AND_ANSWERS):
        waiting = screens[2 * number]  # the pause right after question `number`
        assert waiting.rstrip().endswith(ANSWER_PROMPT), waiting[-200:]
        assert question in waiting
        assert answer not in waiting  # not computed, not shown, before Enter
        answered = screens[2 * number + 1]
        assert answer in answered.split(question)[1]
    assert screens[-1].count(ANSWER_PROMPT) == 5 and screens[-1].count(PROMPT) == 4


def test_a_lesson_runs_under_pdb() -> None:
    lesson = WALKTHROUGHS / "01_text_to_ids.py"
    done = subprocess.run([sys.executable, "-m", "pdb", str(lesson)], cwd=ROOT,
                          input="continue\nquit\n", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "[4, 0, 3, 2, 4, 1]" in done.stdout
    assert "The program finished" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_the_readmes_list_every_lesson() -> None:
    index = (WALKTHROUGHS / "README.md").read_text()
    for path in LESSONS:
        assert f"({path.name})" in index, f"walkthroughs/README.md does not link {path.name}"
    assert "walkthroughs/README.md" in (ROOT / "README.md").read_text()


def test_the_pdb_recipe_points_at_the_line_it_names() -> None:
    index = (WALKTHROUGHS / "README.md").read_text()
    recipe = r"`b (\d+)` sets a breakpoint on the line that\s+calls `run\(\.\.\.\)`"
    match = re.search(recipe, index)
    assert match, "walkthroughs/README.md lost its pdb recipe"
    lines = (WALKTHROUGHS / "09_the_whole_pipeline.py").read_text().splitlines()
    assert "= run(" in lines[int(match.group(1)) - 1]


def test_the_figures_name_what_they_show() -> None:
    pipeline = WALKTHROUGHS / "09_the_whole_pipeline.py"
    lesson_with_figures(pipeline)  # the figures the test above checks, drawn once
    figure = FIGURES / pipeline.stem / "causal_weights.svg"
    words = [element.text for element in ElementTree.parse(figure).iter()
             if element.tag == "{http://www.w3.org/2000/svg}text"]
    for token in ("0 the", "1 cat", "5 mat"):  # the tokens label both axes
        assert words.count(token) == 2, token
    assert "1.000" in words  # the first token attends only to itself
    broadcasting = WALKTHROUGHS / "05_learned_positions_and_broadcasting.py"
    lesson_with_figures(broadcasting)
    big = (FIGURES / broadcasting.stem / "pe_table_1024x768.svg").read_text()
    assert "downsampled from 1024 x 768" in big  # and it says so


def test_an_unknown_option_is_refused_but_a_kernels_arguments_are_not() -> None:
    """--svgdir for --svg is a typo, refused with status 2 before the lesson starts; a notebook
    kernel's own arguments (-f its connection file) pass."""
    typo = lesson(WALKTHROUGHS / "01_text_to_ids.py", "--svgdir", "figures")
    assert typo.returncode == 2 and typo.stdout == ""
    assert "unrecognized arguments: --svgdir (a lesson takes --step and --svg [DIR])" in typo.stderr
    kernel = lesson(WALKTHROUGHS / "01_text_to_ids.py", "-f", "kernel-1234.json")
    assert kernel.returncode == 0 and kernel.stdout.startswith("Lesson 1: text to token IDs")


def test_only_a_lesson_with_a_long_stage_takes_long() -> None:
    """--long is lesson 28's own option: another lesson refuses it as a typo, and lesson 28
    names it among what it takes, refusing a misspelling before it trains anything."""
    other = lesson(WALKTHROUGHS / "01_text_to_ids.py", "--long")
    assert other.returncode == 2 and other.stdout == ""
    assert "unrecognized arguments: --long (a lesson takes --step and --svg [DIR])" in other.stderr
    typo = lesson(WALKTHROUGHS / "28_induction_heads.py", "--longer")
    assert typo.returncode == 2 and typo.stdout == ""
    assert ("unrecognized arguments: --longer (this lesson takes --step, --svg [DIR] and "
            "--long)") in typo.stderr


@pytest.mark.slow
@pytest.mark.long
def test_lesson_28s_long_stage_trains_and_its_claims_hold() -> None:
    """`--long` trains fifteen two-layer models (the five kinds, seeds 0, 1, 2: about 4.5
    minutes of CPU on 3.11, 3 on 3.13) and checks every claim it prints on every seed: a
    false one would end it with status 1 and the claim on stderr. Marked long, it runs only
    when asked (python -m pytest -m long), as the stage runs only when a learner asks."""
    done = lesson(WALKTHROUGHS / "28_induction_heads.py", "--long")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    stage = done.stdout.partition("5. What learns it")[2]
    assert stage.count(": trained in ") == 15 and "--long\n" not in stage
    assert "   alibi      " in stage and "   none       " in stage  # the table's rows


def test_svg_needs_a_directory(tmp_path: Path) -> None:
    a_file = tmp_path / "figures"
    a_file.write_text("not a directory")
    done = lesson(WALKTHROUGHS / "04_sinusoidal_by_hand.py", "--svg", str(a_file))
    assert done.returncode == 2
    assert "--svg needs a directory" in done.stderr and str(a_file) in done.stderr
    empty = lesson(WALKTHROUGHS / "04_sinusoidal_by_hand.py", "--svg", "")
    assert empty.returncode == 2 and "DIR is empty" in empty.stderr
