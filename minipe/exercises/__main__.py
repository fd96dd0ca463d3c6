"""python -m minipe exercises: write the function, check it against minipe's, learn the mistake.

    python -m minipe exercises              # the list, each done or not done
    python -m minipe exercises check 3      # check exercise 3 (no number: the first not done)
    python -m minipe exercises hint 3       # a nudge
    python -m minipe exercises solution 3   # one way to do it, once you have tried

Installed, `minipe exercises` is the same command. The stubs are
walkthroughs/exercises/NN_name.py: open one, write the function
its docstring asks for, and check it. Like every minipe command it ends quietly
(Ctrl-C: one line, status 130; `| head`: status 1, no traceback).
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

from minipe.command_line import ends_quietly
from minipe.exercises import solutions, stubs
from minipe.exercises.catalogue import EXERCISES, Exercise, exercise
from minipe.exercises.checker import check

PROG = "python -m minipe exercises"
NEEDS_A_CLONE = (f"{PROG} needs the stubs in walkthroughs/exercises/ of a clone of the minipe "
                 "repository, which an installed minipe does not hold: clone the repository "
                 "with git and run the command inside it (or give --dir DIR)")


def number(text: str) -> int:
    """An exercise number from the command line; a sentence (and status 2) if there is none."""
    if not text.isdigit() or not 1 <= int(text) <= len(EXERCISES):
        raise argparse.ArgumentTypeError(f"no exercise {text!r}: they are numbered 1 .. "
                                         f"{len(EXERCISES)} (`{PROG}` lists them)")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Exercises that check themselves. Each is a stub file under "
        "walkthroughs/exercises/ with a function for you to write, its formula and a small "
        "example in its docstring. `check N` runs your function and minipe's on the same "
        "inputs, shows the first rows that differ (expected, yours, the difference) and "
        "names the mistake when it is a known one. Progress is the line DONE = False / True "
        "in each stub: check writes that word and nothing else.",
        epilog=f"Start with `{PROG} check`: it checks the first exercise not yet done.")
    folder = argparse.ArgumentParser(add_help=False)
    folder.add_argument("--dir", type=Path, metavar="DIR", default=argparse.SUPPRESS,
                        help="the folder of the stubs (default: walkthroughs/exercises here, "
                        "else in the clone minipe runs from)")
    parser.add_argument("--dir", type=Path, metavar="DIR", default=None,
                        help="the folder of the stubs (default: walkthroughs/exercises here, "
                        "else in the clone minipe runs from)")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", title="verbs (none: the list)")
    numbered = f"the exercise's number, 1 .. {len(EXERCISES)} (`{PROG}` lists them)"
    text = ("check exercise N (no N: the first not done); status 0 if right, 1 if not. When it "
            "is right, the stub's line DONE = False becomes DONE = True (and back if a later "
            "check fails)")
    check_verb = verbs.add_parser("check", parents=[folder], help=text, description=text)
    check_verb.add_argument("number", type=number, nargs="?", metavar="N", help=numbered)
    for verb, text in (("hint", "a nudge for exercise N: the steps, not the code"),
                       ("solution", "one way to solve exercise N, and the solutions it calls; "
                                    "only once your stub has a try")):
        sub = verbs.add_parser(verb, parents=[folder], help=text, description=text)
        sub.add_argument("number", type=number, metavar="N", help=numbered)
    return parser


def listing(folder: Path) -> int:
    print(f"exercises in {folder} (check one: {PROG} check N)")
    done = 0
    for item in EXERCISES:
        path = stubs.stub_path(folder, item)
        state = _state(path)
        done += state is True
        status = state if isinstance(state, str) else {True: "done", False: "not done",
                                                        None: "no marker"}[state]
        print(f"  {item.number:>2}  {item.title:<52} {status:<9} {path.name}")
    left = [item for item in EXERCISES if not _done(folder, item)]
    tail = f" Next: {PROG} check {left[0].number}" if left else " All done."
    print(f"{done} of {len(EXERCISES)} done.{tail}")
    return 0


def _state(path: Path) -> bool | None | str:
    """True or False as the stub's marker says, None without one; "missing" or "not UTF-8"."""
    if not path.exists():
        return "missing"
    try:
        return stubs.is_done(stubs.read(path))
    except ValueError:  # not UTF-8: `check N` says so in a sentence
        return "not UTF-8"


def _done(folder: Path, item: Exercise) -> bool:
    return _state(stubs.stub_path(folder, item)) is True


def check_command(folder: Path, chosen: Exercise | None) -> int:
    if chosen is None:
        left = [item for item in EXERCISES if not _done(folder, item)]
        if not left:
            print(f"all {len(EXERCISES)} exercises are done: `{PROG} check N` checks one again")
            return 0
        chosen = left[0]
    path = stubs.stub_path(folder, chosen)
    print(f"exercise {chosen.number}: {chosen.title} ({path})")
    source = stubs.read(path)
    result = check(chosen, path, source)
    print(result.text)
    try:
        said = stubs.mark(path, source, result.status == "done")  # a broken stub is not done
    except OSError as error:  # a read-only clone, a full disk: the stub stays as it was
        print(f"{error}: the check above stands, but the stub's line DONE = "
              f"{stubs.is_done(source)} is unchanged", file=sys.stderr)
        return 1
    if said:
        print(said)
    return 0 if result.status == "done" else 1


def solution_command(folder: Path, chosen: Exercise) -> int:
    path = stubs.stub_path(folder, chosen)
    result = check(chosen, path, stubs.read(path))
    if result.status == "not done":
        print(f"exercise {chosen.number} has no try yet: write one and `check "
              f"{chosen.number}` first; `hint {chosen.number}` gives a nudge")
        return 1
    print(f"One way to write exercise {chosen.number}, from minipe/exercises/solutions.py "
          f"(yours may differ and be just as right):\n")
    for name in dict.fromkeys(_needed(chosen.function)):  # each once, helpers first
        print(inspect.getsource(getattr(solutions, name)))
    return 0


def _needed(function: str) -> list[str]:
    """The solution `function` and the solutions it calls, those first: what it needs to run."""
    source = inspect.getsource(getattr(solutions, function))
    others = [item.function for item in EXERCISES if item.function != function]
    called = [name for name in others if f"{name}(" in source]
    return [helper for name in called for helper in _needed(name)] + [function]


def command(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    folder = args.dir if args.dir is not None else stubs.default_folder()
    if folder.exists() and not folder.is_dir():
        parser.error(f"{folder} is a file: --dir needs the folder that holds the stubs")
    if not folder.is_dir() and args.dir is None:  # installed from a wheel, outside a clone
        print(NEEDS_A_CLONE, file=sys.stderr)
        return 2
    if not folder.is_dir():
        parser.error(f"no folder {folder}: run from the clone, or give --dir DIR")
    chosen = exercise(args.number) if getattr(args, "number", None) else None
    if chosen is not None and not stubs.stub_path(folder, chosen).exists():
        parser.error(f"no stub {stubs.stub_path(folder, chosen)}")
    if args.verb == "hint":
        assert chosen is not None
        print(f"exercise {chosen.number}, {chosen.title}: {chosen.hint}")
        return 0
    try:
        if args.verb == "solution":
            assert chosen is not None
            return solution_command(folder, chosen)
        if args.verb == "check":
            return check_command(folder, chosen)
    except ValueError as error:  # a stub that is not UTF-8 (stubs.read)
        print(error, file=sys.stderr)
        return 1
    return listing(folder)


def main(argv: list[str] | None = None) -> int:
    return ends_quietly(command, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
