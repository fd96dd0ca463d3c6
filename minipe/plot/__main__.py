"""python -m minipe.plot KIND: draw the encodings in the terminal, or as an SVG with --out.

    python -m minipe.plot pe --positions 64 --d-model 32 --out pe.svg
    python -m minipe.plot curves --dims 0 1 8 16
    python -m minipe.plot dot --max-offset 64 --at 0 10 --out dot.svg
    python -m minipe.plot attention "The cat sat on the mat" --causal --out att.svg
"""

from __future__ import annotations

import argparse
import sys

from minipe.pipeline import DEFAULT_TEXT, POSITION_KINDS, run
from minipe.plot.figures import (
    Heatmap,
    LineChart,
    attention_weights,
    curves,
    dot_products,
    pe_table,
)
from minipe.plot.files import write_svg
from minipe.plot.terminal import use_color

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
        epilog="Run `python -m minipe.plot KIND --help` for the options of each kind.")
    kinds = parser.add_subparsers(dest="kind", required=True, metavar="KIND",
                                  title="kinds (one of)")
    pe = kinds.add_parser("pe", help=KINDS["pe"], description=_sentence("pe"))
    pe.add_argument("--positions", type=int, default=64, metavar="N",
                    help="number of positions, the rows (default: 64)")
    pe.add_argument("--d-model", type=int, default=32, metavar="D",
                    help="number of dimensions, the columns (default: 32)")
    wave = kinds.add_parser("curves", help=KINDS["curves"], description=_sentence("curves"))
    wave.add_argument("--dims", type=int, nargs="+", default=[0, 1, 8, 16], metavar="J",
                      help="the columns to draw, 0 .. d_model-1; even j is a sine, odd j a "
                      "cosine (default: 0 1 8 16, which divide pos by 1, 1, 10 and 100)")
    wave.add_argument("--positions", type=int, default=64, metavar="N",
                      help="draw pos = 0 .. N-1 (default: 64)")
    wave.add_argument("--d-model", type=int, default=32, metavar="D",
                      help="width of the table (default: 32)")
    dot = kinds.add_parser("dot", help=KINDS["dot"], description=_sentence("dot"))
    dot.add_argument("--max-offset", type=int, default=64, metavar="K",
                     help="draw k = 0 .. K (default: 64)")
    dot.add_argument("--at", type=int, nargs="+", default=[0, 10], metavar="P",
                     help="the starting positions p, one line each (default: 0 10)")
    dot.add_argument("--d-model", type=int, default=32, metavar="D",
                     help="width of each PE vector (default: 32)")
    for sub in (pe, wave, dot):
        sub.add_argument("--base", type=float, default=10000.0,
                         help="the base of the formula (default: 10000, as in the paper)")
    attention = kinds.add_parser("attention", help=KINDS["attention"],
                                 description=_sentence("attention"))
    attention.add_argument("text", nargs="?", default=DEFAULT_TEXT,
                           help=f"the text to run (default: {DEFAULT_TEXT!r})")
    attention.add_argument("--d-model", type=int, default=8, metavar="N",
                           help="width of every embedding vector (default: 8)")
    attention.add_argument("--positions", choices=POSITION_KINDS, default="sinusoidal",
                           help="sinusoidal, learned, or none (default: sinusoidal)")
    attention.add_argument("--seed", type=int, default=0,
                           help="seed of the random tables (default: 0)")
    attention.add_argument("--causal", action="store_true",
                           help="GPT's causal mask: token i attends only to tokens 0..i")
    for sub in (pe, wave, dot, attention):
        sub.add_argument("--out", metavar="FILE.svg",
                         help="write an SVG file here instead of printing")
        sub.add_argument("--width", type=int, default=80, metavar="COLUMNS",
                         help="width of the printed picture (default: 80)")
        sub.set_defaults(kind_parser=sub)  # its errors show its own usage line
    return parser


def figure_for(args: argparse.Namespace) -> Heatmap | LineChart:
    """The figure the arguments ask for; TypeError or ValueError if they are out of range."""
    if args.kind == "pe":
        return pe_table(args.positions, args.d_model, base=args.base)
    if args.kind == "curves":
        return curves(args.dims, args.positions, args.d_model, base=args.base)
    if args.kind == "dot":
        return dot_products(args.max_offset, args.d_model, args.at, base=args.base)
    trace = run(args.text, d_model=args.d_model, positions=args.positions, seed=args.seed,
                causal=args.causal)
    return attention_weights(trace)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        figure = figure_for(args)
        if args.out is None:
            if isinstance(figure, Heatmap):
                print(figure.text(width=args.width, color=use_color(sys.stdout)))
            else:
                print(figure.text(width=args.width))
            return 0
        path = write_svg(args.out, figure.svg())
    except (TypeError, ValueError, OSError) as error:
        args.kind_parser.error(str(error))  # exits with status 2 and the message
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
