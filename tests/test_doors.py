"""The idea first, the door once, below: how much of each chapter checks, and where.

A chapter opens on its idea; the checks of its arguments sit in its door, at the
bottom of the file (or in chapter 10's door module, minipe/training/checks.py), and
a public function's body calls its door at most once, first, then computes.

How the lines are counted (the same rule for every file):

- code lines: the lines of every statement but imports and docstrings; comments
  and blank lines count as neither;
- checking lines: a door's lines (a function whose name begins with `check` or
  `checked`, with or without a leading underscore), a statement that calls a
  door (`x = checked_size(...)`, `check_ids(...)`), and a `raise` with the `if`
  above it whose body only raises, wherever they stand;
- teaching lines: every other code line.

Two totals. The chapters' own files together (`MOST_TOGETHER`): on the morning this
issue began (commit 6916208) they held 571 checking lines for 1,202 teaching, 0.475.
And everything that checks, the chapters' doors with the door modules
(minipe/training/checks.py) and the shared checks (minipe/checks.py), every code line
of those two modules counted as checking (`MOST_WITH_THE_DOORS`): 856 for 1,202 that
morning, 0.71. The first says the chapters read as ideas; the second that their checks
were consolidated, not only moved out of sight into a door module.

Run it as a script to see the table: python tests/test_doors.py
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "minipe"
CHAPTERS = ["tokenizer", "pretokenizer", "subword",  # 1, 1b
            "embedding", "positional", "attention", "rotary", "relative",
            "context", "wavelengths", "low_precision",
            "batches", "pipeline_trace", "pipeline", "pipeline_batch",
            "training/gradients", "training/block", "training/heads", "training/passes",
            "training/layers", "training/tables",
            "training/cache", "training/generation", "training/model", "training/lab", "training/probe"]  # 1-10, in reading order
DOOR_MODULES = ["training/checks", "checks"]  # chapter 10's door, the shared checks
DOOR = re.compile(r"^_?check")  # check_..., checked_..., _check_..., _checked_...

MOST_PER_TEACHING_LINE = 0.8  # in any one chapter file
MOST_TOGETHER = 0.45  # the chapters' files together, per teaching line (0.475 before)
MOST_WITH_THE_DOORS = 0.68  # and with the door modules' every line (0.71 before)
MOST_IN_THE_FIRST_HALF = 0.20  # of a chapter's code lines, before the reader meets its idea


def _lines(node: ast.AST) -> set[int]:
    first: int = node.lineno  # type: ignore[attr-defined]
    return set(range(first, (node.end_lineno or first) + 1))  # type: ignore[attr-defined]


def _called(node: ast.stmt) -> str:
    """The name a statement calls, if it is a call, an assignment of one, or a return of one."""
    value = getattr(node, "value", None)
    if isinstance(value, ast.Call):
        function = value.func
        if isinstance(function, ast.Name):
            return function.id
        if isinstance(function, ast.Attribute):
            return function.attr
    return ""


def _is_docstring(node: ast.stmt) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def counted(path: Path) -> tuple[list[int], set[int]]:
    """(the code lines in order, the checking lines among them) of one module."""
    source = path.read_text(encoding="utf-8")
    code: set[int] = set()
    checking: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.stmt) or isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if not _is_docstring(node):
            code |= {node.lineno} if hasattr(node, "body") else _lines(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and DOOR.match(node.name):
            checking |= _lines(node)
        elif isinstance(node, ast.Raise) or DOOR.match(_called(node)):
            checking |= _lines(node)
        elif isinstance(node, ast.If) and all(isinstance(part, ast.Raise) for part in node.body):
            checking |= set(range(node.lineno, node.body[0].lineno))
    quiet = {number for number, text in enumerate(source.splitlines(), start=1)
             if not text.strip() or text.strip().startswith("#")}
    code -= quiet
    return sorted(code), checking & code


def ratios(module: str) -> tuple[int, int, float]:
    """(checking lines, teaching lines, the share of checking in the first half)."""
    code, checking = counted(PACKAGE / f"{module}.py")
    first_half = code[: len(code) // 2]
    share = len(checking.intersection(first_half)) / max(1, len(first_half))
    return len(checking), len(code) - len(checking), share


def test_each_chapter_checks_less_than_it_teaches() -> None:
    for module in CHAPTERS:
        checking, teaching, _ = ratios(module)
        assert checking <= MOST_PER_TEACHING_LINE * teaching, (
            f"{module}.py: {checking} checking lines for {teaching} teaching lines")


def _totals() -> tuple[int, int, int]:
    """(the chapters' checking lines, their teaching lines, the door modules' code lines)."""
    checking = teaching = doors = 0
    for module in CHAPTERS:
        c, t, _ = ratios(module)
        checking, teaching = checking + c, teaching + t
    for module in DOOR_MODULES:
        c, t, _ = ratios(module)
        doors += c + t  # a door module's every line checks
    return checking, teaching, doors


def test_the_chapters_together_check_less_than_half_as_much_as_they_teach() -> None:
    checking, teaching, _ = _totals()
    assert checking <= MOST_TOGETHER * teaching, f"{checking} checking, {teaching} teaching"


def test_the_checks_were_consolidated_not_only_moved_into_a_door_module() -> None:
    checking, teaching, doors = _totals()
    assert checking + doors <= MOST_WITH_THE_DOORS * teaching, (
        f"{checking} checking lines in the chapters and {doors} in the door modules, "
        f"for {teaching} teaching lines")


def test_each_chapter_opens_on_its_idea() -> None:
    for module in CHAPTERS:
        _, _, share = ratios(module)
        assert share <= MOST_IN_THE_FIRST_HALF, (
            f"{module}.py: {share:.0%} of its first half checks arguments")


def _public_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    """Top-level public functions and the methods of top-level classes (dunders included)."""
    found: list[ast.FunctionDef] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            found.append(node)
        if isinstance(node, ast.ClassDef):
            found += [method for method in node.body if isinstance(method, ast.FunctionDef)
                      and (not method.name.startswith("_") or method.name.endswith("__"))]
    return found


def test_a_public_function_calls_its_door_once_first_then_computes() -> None:
    for module in CHAPTERS:
        tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
        for function in _public_functions(tree):
            body = [node for node in function.body if not _is_docstring(node)]
            where = f"{module}.py:{function.lineno} {function.name}"
            raises = [node.lineno for node in ast.walk(function) if isinstance(node, ast.Raise)]
            assert not raises, f"{where} raises at line {raises[0]}: refusals go in its door"
            doors = [node for node in ast.walk(function)
                     if isinstance(node, ast.stmt) and DOOR.match(_called(node))]
            assert len(doors) <= 1, f"{where} calls {len(doors)} doors: one, first"
            assert not doors or doors[0] is body[0], f"{where}: its door call is not first"


def test_a_chapters_door_sits_below_its_idea() -> None:
    for module in CHAPTERS:
        tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
        defined = [node for node in tree.body if isinstance(node, (ast.FunctionDef,
                                                                    ast.ClassDef))]
        doors = [node.lineno for node in defined if DOOR.match(node.name)]
        ideas = [node.lineno for node in defined if not DOOR.match(node.name)]
        assert not doors or not ideas or min(doors) > max(ideas), (
            f"{module}.py: a door at line {min(doors)} stands above the idea at line "
            f"{max(ideas)}")


def test_the_shared_checks_are_shared() -> None:
    """minipe/checks.py (support, not counted above) holds only checks that two or more
    modules call: a chapter's own checks live in its own door, where they are counted."""
    shared = ast.parse((PACKAGE / "checks.py").read_text(encoding="utf-8"))
    names = [node.name for node in shared.body
             if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")]
    callers: dict[str, set[str]] = {name: set() for name in names}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "minipe.checks":
                for alias in node.names:
                    callers.get(alias.name, set()).add(str(path.relative_to(PACKAGE)))
    alone = {name: sorted(modules) for name, modules in callers.items() if len(modules) < 2}
    assert not alone, f"checks used by one module only, which belong in its door: {alone}"


def main() -> None:
    print(f"{'chapter':<22}{'checking':>9}{'teaching':>9}{'per line':>9}{'1st half':>9}")
    for module in CHAPTERS:
        c, t, share = ratios(module)
        print(f"{module + '.py':<22}{c:>9}{t:>9}{c / t:9.2f}{share:>9.0%}")
    checking, teaching, doors = _totals()
    print(f"{'the chapters':<22}{checking:>9}{teaching:>9}{checking / teaching:9.2f}"
          f"   (at most {MOST_TOGETHER})")
    print(f"{'with the door modules':<22}{checking + doors:>9}{teaching:>9}"
          f"{(checking + doors) / teaching:9.2f}   (at most {MOST_WITH_THE_DOORS}: "
          f"{', '.join(m + '.py' for m in DOOR_MODULES)})")


if __name__ == "__main__":
    main()
