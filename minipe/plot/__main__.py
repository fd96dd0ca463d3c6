"""python -m minipe.plot KIND: draw the encodings in the terminal, or as an SVG with --out.

    python -m minipe.plot pe --positions 64 --d-model 32 --out pe.svg
    python -m minipe.plot curves --positions 64 --d-model 16 --dims 0 1 4 8
    python -m minipe.plot dot --max-offset 64 --at 0 10 --d-model 32 --out dot.svg
    python -m minipe.plot attention "The cat sat on the mat" --position-kind rope --causal

One name per idea, in every kind: --positions N is how many positions (rows),
--d-model D how many numbers each vector holds, --base the sinusoids' base, --out the SVG
file, --width the printed width. The kind of position encoding, which
`python -m minipe` calls --positions, is --position-kind here: in this
command --positions is always a number.

Like every minipe command it ends quietly: Ctrl-C prints one line and exits
with 130, a reader that stops early (`| head -1`) ends it with status 1. What
would hold more than 4 GB is refused with the estimate in the sentence; long
but feasible work says on a terminal that it has started.
"""

from __future__ import annotations

import argparse
import shutil
import sys

from minipe.command_line import count, ends_quietly, index, working
from minipe.pipeline import DEFAULT_TEXT, POSITION_KINDS, numbers_held, run
from minipe.plot.figures import (
    Heatmap,
    LineChart,
    attention_weights,
    curves,
    dot_products,
    pe_table,
)
from minipe.plot.files import checked_svg_path, write_svg
from minipe.plot.terminal import use_color
from minipe.tokenizer import tokenize

MAX_WIDTH = 1000  # columns: wider than any terminal

KINDS = {
    "pe": "the sinusoidal table as a heatmap: rows are positions, columns dimensions",
    "curves": "chosen columns of the table as waves over the positions (lecture 003's "
              "missing plot): each dimension has its own wavelength",
    "dot": "PE(p) · PE(p + k) against the offset k: the same curve for every p",
    "attention": "the attention weights of `python -m minipe TEXT`, tokens on both axes",
}


def _sentence(kind: str) -> str:
    return KINDS[kind][0].upper() + KINDS[kind][1:] + "."


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m minipe.plot",
        description="Draw the encodings. Without --out, the picture is printed: heatmaps as "
        "shade blocks ( ░▒▓█, low to high), or in colour when the output is a terminal and "
        "NO_COLOR is not set; the curves and dot charts as text line charts, one marker per "
        "line. With --out FILE.svg, an SVG file (800 px wide) is written instead.",
        epilog="Run `python -m minipe.plot KIND --help` for the options of each kind. An "
        "option means the same in every kind: --positions N is always a number of positions "
        "(the encoding of `attention` is --position-kind).")
    kinds = parser.add_subparsers(dest="kind", required=True, metavar="KIND",
                                  title="kinds (one of)")
    pe = kinds.add_parser("pe", help=KINDS["pe"], description=_sentence("pe"))
    wave = kinds.add_parser("curves", help=KINDS["curves"], description=_sentence("curves"))
    dot = kinds.add_parser("dot", help=KINDS["dot"], description=_sentence("dot"))
    attention = kinds.add_parser("attention", help=KINDS["attention"],
                                 description=_sentence("attention"))
    for sub, rows in ((pe, "the rows of the table"), (wave, "pos = 0 .. N-1")):
        sub.add_argument("--positions", type=count, default=64, metavar="N", dest="num_positions",
                         help=f"how many positions: {rows} (default: 64)")
    wave.add_argument("--dims", type=int, nargs="+", metavar="J",
                      help="the columns to draw, 0 .. D-1; even j is a sine, odd j a cosine "
                      "(default: 0, 1, D/4 and D/2, rounded down to even: 0 1 8 16 for D = 32)")
    dot.add_argument("--max-offset", type=count, default=64, metavar="K",
                     help="draw k = 0 .. K (default: 64)")
    dot.add_argument("--at", type=index, nargs="+", default=[0, 10], metavar="P",
                     help="the starting positions p, one line each (default: 0 10)")
    for sub, default in ((pe, 32), (wave, 32), (dot, 32), (attention, 8)):
        sub.add_argument("--d-model", type=count, default=default, metavar="D",
                         help=f"d_model, how many numbers each vector holds (default: "
                         f"{default})")
    for sub in (pe, wave, dot):
        sub.add_argument("--base", type=float, default=10000.0,
                         help="the base of the formula (default: 10000, as in the paper)")
    attention.add_argument("text", nargs="?", default=DEFAULT_TEXT,
                           help=f"the text to run (default: {DEFAULT_TEXT!r})")
    attention.add_argument("--position-kind", choices=POSITION_KINDS, default="sinusoidal",
                           help="how positions enter: " + ", ".join(POSITION_KINDS) +
                           " (default: sinusoidal); `python -m minipe` calls this --positions")
    attention.add_argument("--positions", dest="misplaced_kind", help=argparse.SUPPRESS)
    attention.add_argument("--seed", type=index, default=0,
                           help="seed of the random tables (default: 0)")
    attention.add_argument("--causal", action="store_true",
                           help="GPT's causal mask: token i attends only to tokens 0..i")
    for sub in (pe, wave, dot, attention):
        sub.add_argument("--out", metavar="FILE.svg",
                         help="write an SVG file here instead of printing")
        sub.add_argument("--width", type=int, default=None, metavar="COLUMNS",
                         help="width of the printed picture (default: 80, or the terminal's "
                         "width when narrower)")
        sub.set_defaults(kind_parser=sub)  # its errors show its own usage line
    return parser


def figure_for(args: argparse.Namespace) -> Heatmap | LineChart:
    """The figure the arguments ask for; TypeError or ValueError if they are out of range."""
    if args.kind == "pe":
        return pe_table(args.num_positions, args.d_model, base=args.base)
    if args.kind == "curves":
        return curves(args.dims, args.num_positions, args.d_model, base=args.base)
    if args.kind == "dot":
        return dot_products(args.max_offset, args.d_model, args.at, base=args.base)
    if args.misplaced_kind is not None:
        raise ValueError(f"in `python -m minipe.plot`, --positions is a number of positions; "
                         f"choose the encoding with --position-kind {args.misplaced_kind}")
    trace = run(args.text, d_model=args.d_model, positions=args.position_kind, seed=args.seed,
                causal=args.causal)
    return attention_weights(trace)


def work_size(args: argparse.Namespace) -> int:
    """About how many numbers the figure computes: past LONG, a terminal is told."""
    d_model = int(args.d_model)
    if args.kind == "pe":
        return int(args.num_positions) * d_model
    if args.kind == "curves":
        return int(args.num_positions) * len(args.dims or (0, 1, 2, 3))
    if args.kind == "dot":
        return (int(args.max_offset) + 1) * len(args.at) * d_model  # one row per point
    return numbers_held(len(tokenize(args.text)), args.d_model, args.position_kind)


def plot_command(argv: list[str]) -> int:
    """`python -m minipe.plot KIND ...`: print or write the figure; bad options exit 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.width is None:  # 80 columns, or fewer on a narrower terminal (not below 24)
        narrower = shutil.get_terminal_size().columns if sys.stdout.isatty() else 80
        args.width = max(24, min(80, narrower))
    if args.width > MAX_WIDTH:
        args.kind_parser.error(f"--width must be at most {MAX_WIDTH} columns, got "
                               f"{args.width:,}; the printed picture is for a terminal")
    size = work_size(args)
    try:
        if args.out is not None:
            checked_svg_path(args.out)  # before the work: a bad name costs nothing
        with working(f"{args.kind}: about {size:,} numbers", size):
            figure = figure_for(args)
            if args.out is not None:
                said = f"wrote {write_svg(args.out, figure.svg())}"
            elif isinstance(figure, Heatmap):
                said = figure.text(width=args.width, color=use_color(sys.stdout))
            else:
                said = figure.text(width=args.width)
    except (TypeError, ValueError, OSError) as error:
        args.kind_parser.error(str(error))  # exits with status 2 and the message
    print(said)
    return 0


def main(argv: list[str] | None = None) -> int:
    return ends_quietly(plot_command, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
