"""python -m minipe.train: train a TinyModel on a task, watch the loss, test at T and 2T.

    python -m minipe.train --positions rope --task previous-token
    python -m minipe.train --positions none --task who-bites-whom    # blind to order
    python -m minipe.train --positions learned --steps 100 --seed 3

On a terminal the progress is one line that redraws itself (step, loss, a
bar); piped or redirected, it is a plain line every tenth of the run. Then a
summary: the loss before and after, and the accuracy at the training length
T and at 2T, where a learned table has no rows and says so.

In Python, take the function from the package: `from minipe import train`.
This file is the command; importing it (`import minipe.train`) makes Python
bind the name minipe.train to this module instead of the function.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

from minipe.lab import TASKS, WORDS, accuracy, train
from minipe.training import POSITIONS, TinyModel

BAR = 30  # characters in the progress bar


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m minipe.train",
        description="Train one attention head (minipe's TinyModel) with Adam on a task that "
        "needs positions, then test it at the training length T and at 2T.")
    parser.add_argument("--positions", choices=POSITIONS, default="learned",
                        help="how the model knows where a token is: none; learned (a table "
                        "of T rows, trained); sinusoidal (the fixed table); rope (q and k "
                        "turned by position); alibi (-|i - j| / 2 added to the scores) "
                        "(default: learned)")
    parser.add_argument("--task", choices=TASKS, default="previous-token",
                        help="previous-token: predict the token before; copy-back: the token "
                        "K back; who-bites-whom: in 'a man bites a dog who?', predict the "
                        "subject (default: previous-token)")
    parser.add_argument("--steps", type=int, default=300, help="training steps (default: 300)")
    parser.add_argument("--batch-size", type=int, default=8,
                        help="sequences per step, each new (default: 8)")
    parser.add_argument("--learning-rate", type=float, default=0.05,
                        help="Adam's step size (default: 0.05)")
    parser.add_argument("--seq-len", type=int, default=8, metavar="T",
                        help="training length T; also the learned table's rows "
                        "(default: 8; who-bites-whom's sentences have 6 tokens)")
    parser.add_argument("--d-model", type=int, default=8, help="width of every vector "
                        "(default: 8)")
    parser.add_argument("--vocab-size", type=int, default=5,
                        help=f"token kinds for previous-token and copy-back (default: 5; "
                        f"who-bites-whom uses its {len(WORDS)} words)")
    parser.add_argument("--k", type=int, default=2, help="copy-back's distance (default: 2)")
    parser.add_argument("--base", type=float, default=10000.0,
                        help="the base of sinusoidal and rope positions (default: 10000)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the model's tables and of the batches (default: 0)")
    return parser


class Progress:
    """on_step for `train`: a redrawn line on a terminal, plain lines otherwise."""

    def __init__(self, steps: int, stream: TextIO) -> None:
        self.steps = steps
        self.stream = stream
        self.live = stream.isatty()
        self.every = max(1, steps // 10)  # piped: ten lines per run

    def __call__(self, step: int, loss: float) -> None:
        filled = BAR * step // self.steps
        line = f"step {step:>{len(str(self.steps))}}/{self.steps}  loss {loss:7.4f}  " \
               f"[{'#' * filled}{'.' * (BAR - filled)}]"
        if self.live:
            self.stream.write("\r" + line + ("\n" if step == self.steps else ""))
            self.stream.flush()
        elif step % self.every == 0 or step in (1, self.steps):
            self.stream.write(line + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    vocab_size = len(WORDS) if args.task == "who-bites-whom" else args.vocab_size
    seq_len = 6 if args.task == "who-bites-whom" else args.seq_len
    try:
        model = TinyModel(vocab_size, args.d_model, seq_len, positions=args.positions,
                          base=args.base, seed=args.seed)
        print(f"{model!r}\ntask {args.task}: {args.steps} steps x {args.batch_size} "
              f"sequences of T = {seq_len}, Adam at {args.learning_rate}")
        start = time.perf_counter()
        result = train(model, args.task, steps=args.steps, batch_size=args.batch_size,
                       learning_rate=args.learning_rate, seed=args.seed, k=args.k,
                       on_step=Progress(args.steps, sys.stdout))
    except (TypeError, ValueError) as error:
        parser.error(str(error))  # exits with status 2 and the sentence
    seconds = time.perf_counter() - start
    print(f"loss {result.losses[0]:.4f} -> {result.losses[-1]:.4f} in {seconds:.1f} s")
    print(f"accuracy at T = {seq_len}: {accuracy(result.model, args.task, k=args.k):.1%}")
    if args.task == "who-bites-whom":
        print("at 2T: does not apply (every sentence has 6 tokens)")
    elif args.positions == "learned":
        print(f"at 2T = {2 * seq_len}: cannot run - the learned table has {seq_len} rows, "
              f"none for positions {seq_len}..{2 * seq_len - 1}")
    else:
        long = accuracy(result.model, args.task, seq_len=2 * seq_len, k=args.k)
        print(f"at 2T = {2 * seq_len}: {long:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
