"""python -m minipe [TEXT]: print every stage from text to attention.

    python -m minipe
    python -m minipe "A man bites a dog" --d-model 8 --positions learned
    python -m minipe "A dog bites a man" --positions none   # blind to order
    python -m minipe "A dog bites a man" --positions none --causal   # the mask leaks it
    python -m minipe --positions rope      # rotate q and k; add nothing
    python -m minipe --positions alibi     # a distance penalty on the scores
    python -m minipe train --positions rope   # chapter 9: the same as python -m minipe.train
"""

from __future__ import annotations

import argparse
import os
import sys

from minipe.pipeline import DEFAULT_TEXT, POSITION_KINDS, run


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m minipe",
        description="Show how a transformer gets its input: text -> tokens -> token IDs "
        "-> token embeddings -> + position encodings -> input embeddings -> attention. "
        "Every stage is printed with its shape and its first and last numbers.",
        epilog="`python -m minipe train ...` (or `minipe train ...`) trains a small model "
        "instead: see `python -m minipe.train --help`.",
    )
    parser.add_argument("text", nargs="?", default=DEFAULT_TEXT,
                        help=f"the text to run (default: {DEFAULT_TEXT!r}); its own words "
                        "make the vocabulary")
    parser.add_argument("--d-model", type=int, default=8, metavar="N",
                        help="width of every embedding vector (default: 8)")
    parser.add_argument("--positions", choices=POSITION_KINDS, default="sinusoidal",
                        help="sinusoidal: the fixed sin/cos table of the 2017 paper; learned: "
                        "a random GPT-style table; rope: nothing added, the head rotates "
                        "each query and key by its position (RoPE, needs an even --d-model); "
                        "alibi: nothing added, score(i, j) gets -m*|i-j| with m = 0.5 "
                        "(ALiBi); none: no positions, so attention is blind to word order - "
                        "unless --causal, whose mask alone lets order in (default: "
                        "sinusoidal)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the random tables (token table: seed, learned "
                        "positions: seed+1, attention weights: seed+2; default: 0)")
    parser.add_argument("--causal", action="store_true",
                        help="GPT's causal mask: token i attends only to tokens 0..i")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["train"]:  # `minipe train ...`, once installed: the training command
        from minipe.train import main as train_main
        return train_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        trace = run(args.text, d_model=args.d_model, positions=args.positions,
                    seed=args.seed, causal=args.causal)
    except (TypeError, ValueError) as error:
        parser.error(str(error))  # exits with status 2 and the message
    try:
        print(trace, flush=True)  # flush now: a closed pipe shows up here, not at exit
    except BrokenPipeError:  # `python -m minipe | head`: the reader stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 1  # as Python's documentation of SIGPIPE advises; and no traceback
    return 0


if __name__ == "__main__":
    sys.exit(main())
