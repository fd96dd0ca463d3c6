"""python -m minipe [TEXT ...] and python -m minipe train: the commands of the book.

    python -m minipe
    python -m minipe "A man bites a dog" --d-model 8 --positions learned
    python -m minipe "A dog bites a man" --positions none   # blind to order
    python -m minipe "A dog bites a man" --positions none --causal   # the mask leaks it
    python -m minipe --positions rope      # rotate q and k; add nothing
    python -m minipe --positions alibi     # a distance penalty on the scores
    python -m minipe -- train              # the pipeline on the word "train" itself
    python -m minipe "The cat sat on the mat" "A dog bites a man"   # a padded batch
    python -m minipe "The cat sat on the mat" "the cat" --padding-side left
    python -m minipe --tokenizer gpt2 "The cat sat on the bookshelf"   # GPT-2's tokens
    python -m minipe --tokenizer gpt2 "The cat sat" "A dog"   # padded with 50256

    python -m minipe train --positions rope --task previous-token
    python -m minipe train --positions none --task who-bites-whom    # blind to order
    python -m minipe train --positions learned --steps 100 --seed 3
    python -m minipe train --task copy-back --layers 2 --mlp --norm layer   # a block model
    python -m minipe train --task induction --layers 2 --heads 2 --norm layer --d-model 16

    python -m minipe book                  # the book: build/book/index.html
    python -m minipe book --notebooks      # and the lessons' notebooks
    python -m minipe exercises             # write a function, check it (see its --help)

`train` trains a TinyModel on a task: on a terminal its progress is one line
that redraws itself (step, loss, a bar); piped or redirected, a plain line
every tenth of the run. Then a summary: the loss before and after, and the
accuracy at the training length T and at 2T, where a learned table has no
rows and says so. Installed, `minipe` is the same command: `minipe train`.

`book` runs every lesson once and writes the chapters and the lessons as HTML
pages to read without running anything (minipe/book/).

In Python the function is `from minipe import train`: no module of the
package is called `train`, so importing one never hides the function.

Every command ends quietly: Ctrl-C prints one line and exits with 130 (what a
shell reports for it); a reader that stops early (`| head -1`) ends it with
no traceback and status 1, as Python's documentation advises for a closed pipe.
"""

from __future__ import annotations

import argparse
import difflib
import sys
import time

from minipe.command_line import Progress, count, ends_quietly, index, rate, working
from minipe.display import counted
from minipe.training.lab import TASKS, WORDS, TrainingDiverged, accuracy, train
from minipe.pipeline import (DEFAULT_TEXT, POSITION_KINDS, TOKENIZERS, count_tokens,
                             numbers_held, run)
from minipe.pipeline_batch import run_batch
from minipe.tokenizer import END_OF_TEXT
from minipe.training.model import TinyModel

def trace_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m minipe",
        description="Show how a transformer gets its input: text -> tokens -> token IDs "
        "-> token embeddings -> + position encodings -> input embeddings -> attention. "
        "Every stage is printed with its shape and its first and last numbers.",
        epilog="`python -m minipe train ...` (or `minipe train ...`) trains a small model "
        "instead: see `python -m minipe train --help`; `python -m minipe book` writes the book; "
        "`python -m minipe exercises` lists the exercises. To run the pipeline on a text "
        "that is a command's name, put -- before it: `python -m minipe -- train`.",
    )
    parser.add_argument("text", nargs="*", default=[DEFAULT_TEXT],
                        help=f"the text to run (default: {DEFAULT_TEXT!r}); its own words "
                        "make the vocabulary. Several texts make a padded batch: their ids, "
                        "attention mask and position_ids, and a check that each text's real "
                        "rows equal the text alone. A text that is a command's name (train, "
                        "book, exercises) goes after --")
    parser.add_argument("--d-model", type=count, default=8, metavar="N",
                        help="width of every embedding vector (default: 8)")
    parser.add_argument("--positions", choices=POSITION_KINDS, default="sinusoidal",
                        help="sinusoidal: the fixed sin/cos table of the 2017 paper; learned: "
                        "a random GPT-style table; rope: nothing added, the head rotates "
                        "each query and key by its position (RoPE, needs an even --d-model); "
                        "alibi: nothing added, score(i, j) gets -m*|i-j| with m = 0.5 "
                        "(ALiBi); none: no positions, so attention is blind to word order - "
                        "unless --causal, whose mask alone lets order in (default: "
                        "sinusoidal)")
    parser.add_argument("--seed", type=index, default=0,
                        help="seed of the random tables (token table: seed, learned "
                        "positions: seed+1, attention weights: seed+2; default: 0)")
    parser.add_argument("--causal", action="store_true",
                        help="GPT's causal mask: token i attends only to tokens 0..i")
    parser.add_argument("--padding-side", choices=("right", "left"), default=None,
                        help="with several texts: pad after each text (right, the default) "
                        "or before it (left, as generation wants)")
    parser.add_argument("--tokenizer", choices=TOKENIZERS, default="words",
                        help="words: chapter 1's, a token per word, the vocabulary the text's "
                        "own words (instant); gpt2: GPT-2's byte-level BPE (chapter 1b), so a "
                        "word may take several tokens and positions count tokens. It costs: "
                        "GPT-2's 50,000 merges are read (about 0.1 s) and its token table is "
                        "drawn whole, 50,257 rows x d_model (402,056 numbers at --d-model 8, "
                        "about 0.3 s; 16 times as long at 128) (default: words)")
    return parser


def train_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m minipe train",
        description="Train one attention head (minipe's TinyModel), or a stack of layers, "
        "with Adam on a task that needs positions, then test it at the training length T "
        "and at 2T. Ctrl-C stops it; the model is only ever replaced, never changed, so "
        "nothing is lost.")
    parser.add_argument("--positions", choices=POSITION_KINDS, default="learned",
                        help="how the model knows where a token is: none; learned (a table "
                        "of T rows, trained); sinusoidal (the fixed table); rope (q and k "
                        "turned by position); alibi (-|i - j| / 2 added to the scores) "
                        "(default: learned)")
    parser.add_argument("--task", choices=TASKS, default="previous-token",
                        help="previous-token: predict the token before; copy-back: the token "
                        "K back; induction: a stretch of tokens comes twice in a row, at a "
                        "drawn place: in the repeat, predict the next token from the first "
                        "copy; who-bites-whom: in 'a man bites a dog who?', predict the "
                        "subject (default: previous-token)")
    parser.add_argument("--steps", type=count, default=300, help="training steps (default: 300)")
    parser.add_argument("--batch-size", type=count, default=8,
                        help="sequences per step, each new (default: 8)")
    parser.add_argument("--learning-rate", type=rate, default=0.05,
                        help="Adam's step size (default: 0.05)")
    parser.add_argument("--seq-len", type=count, default=None, metavar="T",
                        help="training length T, at least 2 (previous-token), K + 1 "
                        "(copy-back) or 4 (induction); also the learned table's rows (default: 8; "
                        "who-bites-whom's sentences have 6 tokens)")
    parser.add_argument("--d-model", type=count, default=8, help="width of every vector; "
                        "even for rope (default: 8)")
    parser.add_argument("--vocab-size", type=count, default=None,
                        help=f"token kinds for previous-token, copy-back and induction "
                        f"(default: 5; "
                        f"who-bites-whom uses its {len(WORDS)} words)")
    parser.add_argument("--k", type=count, default=None,
                        help="copy-back's distance, less than T (default: 2; only --task "
                        "copy-back)")
    parser.add_argument("--base", type=float, default=None,
                        help="the base of sinusoidal and rope positions (default: 10000; "
                        "only those two)")
    parser.add_argument("--layers", type=count, default=1, metavar="N",
                        help="attention layers, each adding its heads' output to a residual "
                        "stream that the next reads (GPT-2's block); positions are added "
                        "once, at the bottom, and RoPE and ALiBi act in every layer "
                        "(default: 1, the one head alone, read out without a residual)")
    parser.add_argument("--mlp", action="store_true",
                        help="after each layer's heads, an MLP d_model -> 4 d_model -> "
                        "d_model with GELU, added to the residual stream (default: none)")
    parser.add_argument("--norm", choices=("layer", "rms"), default=None,
                        help="normalise each token's row before every layer's heads and MLP "
                        "and before the read-out (pre-norm): layer (LayerNorm: minus the "
                        "mean, over the spread, GPT-2's) or rms (RMSNorm: over the root mean "
                        "square, Llama's) (default: none)")
    parser.add_argument("--heads", type=count, default=1, metavar="N",
                        help="attention heads a layer; each takes d_model / N of the columns "
                        "of q, k and v, so N must divide --d-model (default: 1)")
    parser.add_argument("--seed", type=index, default=0,
                        help="seed of the model's tables and of the batches (default: 0)")
    return parser


def train_command(argv: list[str]) -> int:
    """`python -m minipe train ...`: 0 when done, 130 after Ctrl-C; bad options exit 2."""
    parser = train_parser()
    args = parser.parse_args(argv)
    if args.k is not None and args.task != "copy-back":
        parser.error(f"--k is copy-back's distance; --task {args.task} does not use it")
    if args.base is not None and args.positions not in ("sinusoidal", "rope"):
        parser.error(f"--base is the base of sinusoidal and rope positions; --positions "
                     f"{args.positions} does not use it")
    for option, given in (("--seq-len", args.seq_len), ("--vocab-size", args.vocab_size)):
        if given is not None and args.task == "who-bites-whom":
            parser.error(f"{option} is for previous-token, copy-back and induction; "
                         f"who-bites-whom's sentences are fixed: 6 tokens of its "
                         f"{len(WORDS)} words")
    if args.d_model % args.heads:
        fits = ", ".join(str(n) for n in range(1, args.d_model + 1) if args.d_model % n == 0)
        parser.error(f"--heads {args.heads} does not divide --d-model {args.d_model}: each "
                     f"head takes d_model / heads of the columns of q, k and v (heads that "
                     f"fit {args.d_model}: {fits})")
    if args.positions == "rope" and args.d_model // args.heads % 2:
        parser.error(f"--positions rope turns each head's columns of q and k in pairs, but "
                     f"--d-model {args.d_model} / --heads {args.heads} leaves each head "
                     f"{counted(args.d_model // args.heads, 'column')}, an odd number")
    args.k = 2 if args.k is None else args.k
    args.base = 10000.0 if args.base is None else args.base
    vocab_size = len(WORDS) if args.task == "who-bites-whom" else args.vocab_size or 5
    seq_len = 6 if args.task == "who-bites-whom" else args.seq_len or 8
    progress = Progress(args.steps, sys.stdout)
    try:
        model = TinyModel(vocab_size, args.d_model, seq_len, positions=args.positions,
                          base=args.base, seed=args.seed, num_layers=args.layers,
                          mlp=args.mlp, norm=args.norm, num_heads=args.heads)
        print(f"{model!r}\ntask {args.task}: {counted(args.steps, 'step')} x "
              f"{counted(args.batch_size, 'sequence')} of T = {seq_len}, Adam at "
              f"{args.learning_rate}", flush=True)
        start = time.perf_counter()
        result = train(model, args.task, steps=args.steps, batch_size=args.batch_size,
                       learning_rate=args.learning_rate, seed=args.seed, k=args.k,
                       on_step=progress)
    except TrainingDiverged as error:  # the API's sentence, in the command's words
        parser.error(f"training diverged at step {error.step}: {error.what}. --learning-rate "
                     f"{error.learning_rate:g} is too large (Adam moves every weight by about "
                     f"that much a step): try --learning-rate {error.smaller:g}")
    except (TypeError, ValueError) as error:
        parser.error(str(error))  # exits with status 2 and the sentence
    except KeyboardInterrupt:
        print(f"\nstopped by Ctrl-C at step {progress.step} of {args.steps}: nothing is "
              f"lost, train() never changes the model it was given", file=sys.stderr)
        return 130
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


COMMAND_NAMES = {"train": "python -m minipe train", "book": "python -m minipe book",
                 "exercises": "python -m minipe exercises", "plot": "python -m minipe.plot"}


def _notes(texts: list[str]) -> list[str]:
    """What the learner may have meant: a command, misspelt (`exercise`), or one sentence
    typed without quotes (every word a text of its own). The texts still run."""
    notes = []
    near = difflib.get_close_matches(texts[0].lower(), COMMAND_NAMES, n=1, cutoff=0.7)
    if near and (texts[0] != near[0] or near[0] == "plot"):
        notes.append(f"{texts[0]!r} runs as a text here; the command is "
                     f"`{COMMAND_NAMES[near[0]]}`")
    if len(texts) >= 3 and all(len(text.split()) == 1 for text in texts):
        notes.append(f"{len(texts)} one-word texts make a batch of {len(texts)} texts; for "
                     f"one sentence, quote it: python -m minipe \"{' '.join(texts[:3])} ...\"")
    return notes


def _refuse_special_text(parser: argparse.ArgumentParser, texts: list[str]) -> None:
    """GPT-2's tokenizer refuses a special token's text unless the caller allows it
    (encode's allowed_special); the command has no such option: say what it can do."""
    for k, text in enumerate(texts):
        if END_OF_TEXT in text:
            which = "text" if len(texts) == 1 else f"text {k + 1}"
            parser.error(
                f"{which} holds the special token {END_OF_TEXT!r} at index "
                f"{text.index(END_OF_TEXT)}: the command encodes what you type as text, and "
                f"GPT-2's tokenizer never lets text become a special token by accident. To see "
                f"its ID 50256 here, give two texts or more: --tokenizer gpt2 pads the shorter "
                f"ones with it. To encode it inside a text, use Python: "
                f"BytePairTokenizer.gpt2().encode(text, allowed_special={{{END_OF_TEXT!r}}})")


def trace_command(argv: list[str]) -> int:
    """`python -m minipe [TEXT] ...`: print every stage; bad options exit 2."""
    parser = trace_parser()
    args = parser.parse_args(argv)
    for note in _notes(args.text):
        print(f"note: {note}", file=sys.stderr)
    if args.tokenizer == "gpt2":
        _refuse_special_text(parser, args.text)
    if len(args.text) > 1:
        return batch_command(parser, args)
    if args.padding_side is not None:
        parser.error("--padding-side pads a batch: give two texts or more")
    text = args.text[0]
    vocab_size = 50257 if args.tokenizer == "gpt2" else 0  # GPT-2's table; chapter 1's is tiny
    try:
        n = count_tokens(text, args.tokenizer)
        size = numbers_held(n, args.d_model, args.positions, vocab_size)  # run() refuses > 4 GB
        with working(f"{n:,} tokens, {size:,} numbers to hold", size):
            trace = run(text, d_model=args.d_model, positions=args.positions,
                        seed=args.seed, causal=args.causal, tokenizer=args.tokenizer)
    except (TypeError, ValueError) as error:
        parser.error(str(error))  # exits with status 2 and the message
    print(trace)
    return 0


def batch_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """`python -m minipe TEXT TEXT ...`: the padded batch; bad options exit 2."""
    table = (50257 if args.tokenizer == "gpt2" else 0) * args.d_model  # GPT-2's token table
    try:  # each text three times: padded, alone, and by column
        longest = max(count_tokens(text, args.tokenizer) for text in args.text)
        size = table + 3 * len(args.text) * numbers_held(longest, args.d_model, args.positions)
        with working(f"{len(args.text)} texts of up to {longest:,} tokens, {size:,} numbers "
                     f"to hold", size):
            trace = run_batch(args.text, d_model=args.d_model, positions=args.positions,
                              seed=args.seed, causal=args.causal,
                              padding_side=args.padding_side or "right",
                              tokenizer=args.tokenizer)
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    print(trace)
    return 0


def book_command(argv: list[str]) -> int:
    """`python -m minipe book [DIR] [--notebooks]`: see minipe/book/command.py."""
    from minipe.book.command import book_command as build  # only now: the book is optional

    return build(argv)


def exercises_command(argv: list[str]) -> int:
    """`python -m minipe exercises ...`: minipe/exercises/ (imported here, when asked for)."""
    from minipe.exercises.__main__ import command  # only now: support, not a chapter

    return command(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    commands = {"train": train_command, "book": book_command,
                "exercises": exercises_command}
    command = commands.get(argv[0], trace_command) if argv else trace_command
    return ends_quietly(command, argv[1:] if command is not trace_command else argv)


if __name__ == "__main__":
    sys.exit(main())
