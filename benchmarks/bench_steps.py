"""How far does a learner step in pdb before reaching each idea of `run()`?

pdb's `step` stops at every event a trace function sees in the code being
debugged: a call into a function, each new line, and each return. This
script counts exactly those events (`sys.settrace`'s "call", "line" and
"return") in minipe's own frames, during one default `run()`, and prints how
many come before each landmark - the line that holds an idea:

    the tokenizer's regex      TOKEN_PATTERN.findall(...)
    the first math.sin         a sinusoidal position, PE(pos, 2i)
    the embedding lookup       the token table's rows taken by ID
    token + position           token_embeddings + position_encodings
    the score line             q @ k.T / math.sqrt(d_k)
    the softmax's exp          exp(x_j - max)

Then the same count for one training step of chapter 10,
`model.loss_and_gradients(inputs, targets)` on 2 sequences of 4 tokens with a
learned table (the model is built before the count starts):

    the lookup E[ids]          the token table's rows taken by ID
    the cross-entropy          log sum_j e^z_j - z_t
    the softmax's gradient     sum_k w_k dw_k
    the batch sum              dP[t] = the sum over the batch of dx_b[t]

A landmark is found by the text of its line (a regular expression below),
so the script keeps working when lines move. Fewer stops is better: a learner
who presses `s` from `run()` should land in the idea, not in plumbing.

    python benchmarks/bench_steps.py            # the table, for a default run()
    python benchmarks/bench_steps.py --strict   # exit 1 if a landmark is not reached

Each chapter's checking lines against its teaching lines are counted by
tests/test_doors.py, which holds their limits (`python tests/test_doors.py` prints them).

Standard library only; it runs from the clone without an install.
"""

from __future__ import annotations

import argparse
import linecache
import re
import sys
from pathlib import Path
from types import FrameType
from typing import Any, Callable, NamedTuple, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = str(ROOT / "minipe")


class Landmark(NamedTuple):
    """An idea, and how to recognise the line that computes it."""

    name: str
    module: str  # the file's path inside minipe/
    pattern: str  # a regular expression matched against the line's text


LANDMARKS = (
    Landmark("the tokenizer's regex", "tokenizer.py", r"TOKEN_PATTERN\.findall"),
    Landmark("the first math.sin", "positional.py", r"\bsin\(angle\)"),
    Landmark("the embedding lookup", "embedding.py", r"(rows|table)\[token_id\]"),  # _lookup
    Landmark("token + position", "pipeline.py", r"token_embeddings \+ position_encodings"),
    Landmark("the score line", "attention.py",
             r"scores\w* = .*q\w* @ k\w*\.T|q_i, k_j\)\) / sqrt_d_k"),
    Landmark("the softmax's exp", "attention.py", r"math\.exp\("),
)

TRAINING_LANDMARKS = (
    Landmark("the lookup E[ids]", "arrays/matrix.py", r"table\[token_id\] for token_id in ids"),
    Landmark("the cross-entropy", "training/gradients.py", r"math\.log\(total_exp\)"),
    Landmark("the softmax's gradient", "training/gradients.py", r"through = "),
    Landmark("the batch sum", "training/gradients.py", r"d_P\[t\] = "),
)

TraceFunction = Callable[[FrameType, str, Any], Optional[Callable[..., Any]]]


class StepCounter:
    """Counts pdb's stopping events in minipe's frames; notes when each landmark first runs."""

    def __init__(self, landmarks: Sequence[Landmark] = LANDMARKS) -> None:
        self.stops = 0
        self.reached: dict[str, int] = {}
        self._patterns = [(landmark, re.compile(landmark.pattern)) for landmark in landmarks]

    def _ours(self, frame: FrameType) -> bool:
        return frame.f_code.co_filename.startswith(PACKAGE)

    def on_call(self, frame: FrameType, event: str, arg: Any) -> TraceFunction | None:
        if event != "call" or not self._ours(frame):
            return None  # not minipe: no line events from this frame
        self.stops += 1
        return self.on_event

    def on_event(self, frame: FrameType, event: str, arg: Any) -> TraceFunction | None:
        if event in ("line", "return"):
            self.stops += 1
        if event == "line":
            self._note_landmark(frame)
        return self.on_event

    def _note_landmark(self, frame: FrameType) -> None:
        filename = frame.f_code.co_filename
        text = linecache.getline(filename, frame.f_lineno)
        for landmark, pattern in self._patterns:
            if landmark.name in self.reached or not filename.endswith("/" + landmark.module):
                continue
            if pattern.search(text):
                self.reached[landmark.name] = self.stops


def count_default_run() -> StepCounter:
    """One `run()` with its defaults, under the counter."""
    if sys.path[:1] != [str(ROOT)]:
        sys.path.insert(0, str(ROOT))  # the clone's minipe, installed or not
    from minipe import run

    counter = StepCounter()
    sys.settrace(counter.on_call)
    try:
        run()
    finally:
        sys.settrace(None)
    return counter


def count_training_step() -> StepCounter:
    """One step of chapter 10's loss and gradients, under the counter."""
    if sys.path[:1] != [str(ROOT)]:
        sys.path.insert(0, str(ROOT))
    from minipe import TinyModel

    model = TinyModel(5, 8, 4, positions="learned")
    inputs, targets = [[0, 1, 2, 3], [3, 2, 1, 0]], [[-100, 0, 1, 2], [-100, 3, 2, 1]]
    counter = StepCounter(TRAINING_LANDMARKS)
    sys.settrace(counter.on_call)
    try:
        model.loss_and_gradients(inputs, targets)
    finally:
        sys.settrace(None)
    return counter


def print_counts(title: str, counter: StepCounter, landmarks: Sequence[Landmark]) -> None:
    print(title)
    for landmark in landmarks:
        reached = counter.reached.get(landmark.name)
        shown = "not reached" if reached is None else f"{reached:>6}"
        print(f"  before {landmark.name:<24}{shown}")
    print(f"  {'total':<31}{counter.stops:>6}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 if some landmark was never reached")
    arguments = parser.parse_args(argv)
    counter = count_default_run()
    print_counts("pdb `step` stops in minipe's frames during one default run():", counter,
                 LANDMARKS)
    training = count_training_step()
    print_counts("and during one training step, loss_and_gradients (chapter 10):", training,
                 TRAINING_LANDMARKS)
    missing = [landmark.name for landmark in LANDMARKS if landmark.name not in counter.reached]
    missing += [landmark.name for landmark in TRAINING_LANDMARKS
                if landmark.name not in training.reached]
    return 1 if arguments.strict and missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
