"""A module as a literate page: its docstrings and comments as prose above the lines they explain.

A module is cut into sections. Each starts where prose starts: the module's
docstring, a run of whole-line comments, or a `def` or `class` whose docstring
then moves above it (with the comments right above the `def`, if any). The
section's code is every line up to the next one, less the prose lines (and a
blank line right after them); a comment at the end of a code line (a shape, a
value) stays beside its line.

Code is coloured by Python's own tokenizer: keywords, strings, comments and
numbers, with nothing guessed.
"""

from __future__ import annotations

import ast
import functools
import html
import inspect
import io
import keyword
import re
import tokenize
from dataclasses import dataclass

from minipe.book.prose import Resolve, blocks, inline


@dataclass(frozen=True)
class Section:
    """Prose (plain text, as written in the docstring or comments) and the code line
    numbers it explains, counted from 1."""

    prose: str
    lines: tuple[int, ...]


def sections(source: str) -> list[Section]:
    """The module's sections, in order (see the module docstring)."""
    tree = ast.parse(source)
    lines = source.split("\n")
    prose_lines: set[int] = set()
    anchors: dict[int, str] = {}  # the line a section starts at -> its prose
    comments = _comment_blocks(source)
    for first, last in comments:
        prose_lines.update(range(first, last + 1))
        text = "\n".join(_uncomment(lines[number - 1]) for number in range(first, last + 1))
        anchors[first] = text
    for node, start in _documented(tree):
        body = node.body[0]
        prose_lines.update(range(body.lineno, (body.end_lineno or body.lineno) + 1))
        doc = inspect.cleandoc(ast.get_docstring(node, clean=False) or "")
        above = next((first for first, last in comments if last == start - 1), None)
        if above is not None and start > 1:  # the comments right above the def join its doc
            anchors[above] = anchors[above] + "\n\n" + doc
        else:
            anchors[start] = doc
    starts = sorted(set(anchors) | {1})
    found: list[Section] = []
    for start, end in zip(starts, starts[1:] + [len(lines) + 1]):
        code = [number for number in range(start, end) if number not in prose_lines
                and not (number - 1 in prose_lines and not lines[number - 1].strip())]
        while code and not lines[code[0] - 1].strip():
            code.pop(0)
        while code and not lines[code[-1] - 1].strip():
            code.pop()
        if anchors.get(start, "").strip() or code:
            found.append(Section(anchors.get(start, ""), tuple(code)))
    return found


Documented = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


def _documented(tree: ast.Module) -> list[tuple[Documented, int]]:
    """The module, each class and each function that has a docstring, with the line its
    section starts at: 1 for the module, the first decorator or the `def` for the others."""
    found: list[tuple[Documented, int]] = []
    if ast.get_docstring(tree) is not None:
        found.append((tree, 1))
    for node in ast.walk(tree):
        if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and ast.get_docstring(node) is not None):
            start = min([node.lineno] + [item.lineno for item in node.decorator_list])
            found.append((node, start))
    return found


def _comment_blocks(source: str) -> list[tuple[int, int]]:
    """(first, last) line of each run of whole-line comments between statements (one
    inside brackets, in the middle of a call or a list, stays in the code)."""
    whole = []
    depth = 0
    for token in _tokens(source):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif (token.type == tokenize.COMMENT and depth == 0
              and not token.line[:token.start[1]].strip()):
            whole.append(token.start[0])
    blocks: list[tuple[int, int]] = []
    for number in whole:
        if blocks and blocks[-1][1] == number - 1:
            blocks[-1] = (blocks[-1][0], number)
        else:
            blocks.append((number, number))
    return blocks


def _uncomment(line: str) -> str:
    """'    # a comment' -> 'a comment'; the comment's own indentation after '# ' is kept."""
    text = line.strip()[1:]
    return text[1:] if text.startswith(" ") else text


@functools.lru_cache(maxsize=64)
def _tokens(source: str) -> tuple[tokenize.TokenInfo, ...]:
    """The source's tokens, once per source: sections() and highlight() both read them."""
    return tuple(tokenize.generate_tokens(io.StringIO(source).readline))


def highlight(source: str) -> list[str]:
    """Each line of the source as HTML, its tokens in classes k (keyword), s (string),
    c (comment), n (number)."""
    lines = source.split("\n")
    marks: list[tuple[int, int, int, int, str]] = []  # start row, col, end row, col, class
    for token in _tokens(source):
        kind = ("k" if token.type == tokenize.NAME and keyword.iskeyword(token.string)
                else "s" if token.type == tokenize.STRING
                else "c" if token.type == tokenize.COMMENT
                else "n" if token.type == tokenize.NUMBER else "")
        if kind:
            marks.append((*token.start, *token.end, kind))
    out = [[html.escape(line, quote=False)] for line in lines]  # replaced where marked
    spans: dict[int, list[tuple[int, int, str]]] = {}
    for row, col, end_row, end_col, kind in marks:
        for number in range(row, end_row + 1):
            first = col if number == row else 0
            last = end_col if number == end_row else len(lines[number - 1])
            spans.setdefault(number, []).append((first, last, kind))
    for number, marked in spans.items():
        line = lines[number - 1]
        pieces: list[str] = []
        at = 0
        for first, last, kind in sorted(marked):
            pieces.append(html.escape(line[at:first], quote=False))
            pieces.append(f'<span class="{kind}">{html.escape(line[first:last], quote=False)}'
                          "</span>")
            at = last
        pieces.append(html.escape(line[at:], quote=False))
        out[number - 1] = pieces
    return ["".join(pieces) for pieces in out]


BANNER = re.compile(r"^[-=#~*]{5,}$")


def literate_prose(text: str, resolve: Resolve) -> str:
    """A section's prose; a comment block between rules of dashes is a heading."""
    lines = text.split("\n")
    kept = [line for line in lines if not BANNER.match(line.strip())]
    if len(kept) < len(lines) and len([line for line in kept if line.strip()]) == 1:
        return f"<h2>{inline(' '.join(kept).strip(), resolve)}</h2>"
    return blocks("\n".join(kept), resolve)


DEFINITION = re.compile(r"\s*(?:async\s+)?(?:def|class)\s+(\w+)")  # def name( / class Name


def defined_name(source_lines: list[str], numbers: tuple[int, ...]) -> str:
    """The function or class a section's code opens with (past its decorators), or ''."""
    for number in numbers:
        line = source_lines[number - 1]
        if line.strip() and not line.lstrip().startswith("@"):
            found = DEFINITION.match(line)
            return found.group(1) if found else ""
    return ""
