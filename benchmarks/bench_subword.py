"""GPT-2's tokenizer in pure Python: loading it, and encoding 100,000 characters.

Three rows (issue 33):

- the first `BytePairTokenizer.gpt2()`, in a fresh interpreter: reading the 50,000
  merges and building GPT-2's pattern (target: under TARGET_LOAD seconds);
- `import minipe` in a fresh interpreter, which must not load them (nothing at import);
- encoding TEXT_LENGTH characters, The Verdict (20,479) and then seeded made-up words
  (so that no piece comes back by copying), with minipe's `encode`, each run on a fresh tokenizer (its cache of pieces
  starts empty), and, side by side on the same merges and the same text, with the
  pure-Python encoder of OpenAI's tokenizer library,
  `tiktoken._educational.SimpleBytePairEncoding` (target: minipe at least as fast).
  A third row merges every piece anew (`byte_pair_encode`, no cache): the loop alone.
  All must give the same IDs (else exit status 2). Without tiktoken its row says so
  and is skipped; minipe's own times are still printed.

    python benchmarks/bench_subword.py            # best of 3
    python benchmarks/bench_subword.py --quick    # 1 run of 10,000 characters: a smoke test
    python benchmarks/bench_subword.py --strict   # exit 1 if a target is missed

Standard library only (tiktoken, if importable, is the one row's comparison).
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
TARGET_LOAD = 0.5  # seconds for the first gpt2()
TEXT_LENGTH = 100_000  # characters encoded
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def _seconds(job: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        job()
        times.append(time.perf_counter() - start)
    return min(times)


def _fresh(script: str, repeats: int) -> float:
    """The best time a fresh interpreter reports for `script` (which prints its seconds)."""
    times = []
    for _ in range(repeats):
        done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                              text=True, check=True)
        times.append(float(done.stdout))
    return min(times)


def _words_never_seen(length: int) -> str:
    """`length` characters of seeded made-up words (2-9 letters, now and then a capital, a
    comma or a number): after The Verdict, text whose pieces a cache has mostly not met."""
    rng = random.Random(0)
    words: list[str] = []
    while sum(map(len, words)) + len(words) < length:
        word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
        kind = rng.random()
        word = (word.capitalize() if kind < 0.1 else word + "," if kind < 0.2
                else str(rng.randint(0, 9999)) if kind < 0.25 else word)
        words.append(word)
    return " " + " ".join(words)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run of 10,000 characters")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)
    repeats, length = (1, 10_000) if args.quick else (3, TEXT_LENGTH)
    sys.path.insert(0, str(ROOT))
    from minipe import BytePairTokenizer
    from minipe.pretokenizer import pretokenize
    from minipe.subword import byte_pair_encode

    print(f"Python {platform.python_version()} on {platform.machine()}; best of {repeats}")
    timer = "import time; start = time.perf_counter(); "
    imported = _fresh(timer + "import minipe; print(time.perf_counter() - start)", repeats)
    print(f"import minipe                     {imported:8.3f} s")
    loaded = _fresh("import minipe, time; start = time.perf_counter(); "
                    "minipe.BytePairTokenizer.gpt2().encode('a b'); "
                    "print(time.perf_counter() - start)", repeats)
    print(f"first gpt2() and its first encode {loaded:8.3f} s   (target < {TARGET_LOAD} s)")

    verdict = (ROOT / "minipe" / "data" / "the-verdict.txt").read_text(encoding="utf-8")
    text = (verdict + _words_never_seen(length))[:length]  # no piece repeats by copying
    gpt2 = BytePairTokenizer.gpt2()
    fresh = [BytePairTokenizer(list(gpt2.merges), byte_ids=gpt2.byte_ids,
                               special_tokens=list(gpt2.special_tokens)) for _ in range(repeats)]
    ids = gpt2.encode(text)
    ours = _seconds(lambda: fresh.pop().encode(text), repeats)  # each run: an empty cache
    print(f"encode {length:,} characters      {ours:8.3f} s   minipe ({len(ids):,} tokens)")

    def every_piece_merged() -> list[int]:
        merged: list[int] = []
        for piece in pretokenize(text):
            merged += byte_pair_encode([gpt2.byte_ids[byte] for byte in piece.encode("utf-8")],
                                       gpt2.merges)
        return merged

    if every_piece_merged() != ids:
        print("byte_pair_encode piece by piece gives other IDs than encode")
        return 2
    bare = _seconds(every_piece_merged, repeats)
    print(f"encode {length:,} characters      {bare:8.3f} s   minipe, every piece merged anew "
          f"(no cache)")
    missed = loaded >= TARGET_LOAD
    if importlib.util.find_spec("tiktoken") is None:
        print("tiktoken is not installed: the side-by-side row with "
              "tiktoken._educational.SimpleBytePairEncoding is skipped")
    else:
        from tiktoken._educational import SimpleBytePairEncoding

        ranks = {token: token_id for token_id, token in enumerate(gpt2.vocab[:50256])}
        simple = SimpleBytePairEncoding(pat_str=GPT2_PATTERN, mergeable_ranks=ranks)
        if simple.encode(text, visualise=None) != ids:
            print("tiktoken's SimpleBytePairEncoding gives other IDs: not comparable")
            return 2
        theirs = _seconds(lambda: simple.encode(text, visualise=None), repeats)
        print(f"encode {length:,} characters      {theirs:8.3f} s   "
              f"tiktoken._educational.SimpleBytePairEncoding (minipe {theirs / ours:.1f}x "
              f"as fast, {theirs / bare:.1f}x without its cache; target >= 1)")
        missed = missed or ours > theirs
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
