"""What the book reads from the clone: the chapters in reading order, the lessons and their cells.

The reading order has one home, the README's chapter map: the modules it links
under "## The chapters", in the order it links them. A link to a package's
`__init__.py` stands for the whole package: its `__init__` first, then its
modules in the order that face's docstring names them (`matrix.py  A ...`),
and any it does not name each after those it imports. A module the map does not link comes
just before the first module that imports it (the reading order is the
import order), or at the end if none does; a package always opens with its
`__init__`. Only the imports a reader meets first count: those at the top of
a module, not one inside a function (a command loaded when asked for) or
under `if TYPE_CHECKING:` (for types only).

A lesson is a script of `# %%` cells: the first (its docstring and imports)
has no marker; each other opens with `# %% title`, and its work sits under
`if __name__ == "__main__":`. Which chapters a lesson uses is read from what it
imports: a name taken from `minipe` or `minipe.plot` is followed through the
package's `__init__.py` to the module that defines it.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

LINK = re.compile(r"\]\((minipe/[^)#]*\.py)\)")  # a markdown link to a module of the package
MAIN_GUARD = 'if __name__ == "__main__":'


@dataclass(frozen=True)
class Cell:
    """One `# %%` cell of a lesson: its title (empty for the first) and its lines.

    `lines` are (line number in the file, text) pairs, the guard line left out and
    the lines under it dedented by 4: the code as a notebook cell runs it."""

    title: str
    lines: tuple[tuple[int, str], ...]

    @property
    def code(self) -> str:
        return "\n".join(text for _, text in self.lines).strip("\n") + "\n"


@dataclass(frozen=True)
class Lesson:
    """A walkthrough: its path relative to the clone, its docstring and its cells."""

    path: str  # e.g. "walkthroughs/04_sinusoidal_by_hand.py"
    doc: str
    doc_source: str  # the docstring as written, quotes and all
    cells: tuple[Cell, ...]

    @property
    def stem(self) -> str:
        return Path(self.path).stem

    @property
    def title(self) -> str:
        return self.doc.partition("\n")[0]

    @property
    def question(self) -> str:
        """The docstring's paragraph that starts with "Question:", on one line."""
        for paragraph in self.doc.split("\n\n"):
            if paragraph.startswith("Question:"):
                return " ".join(paragraph.removeprefix("Question:").split())
        return ""


def module_name(root: Path, path: Path) -> str:
    """minipe/arrays/matrix.py -> 'arrays'; minipe/plot/svg.py -> 'plot.svg'; minipe/plot/__init__.py
    -> 'plot'."""
    parts = path.relative_to(root / "minipe").with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_path(root: Path, name: str) -> Path:
    path = root.joinpath("minipe", *name.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def imports(root: Path, path: Path) -> dict[str, str]:
    """The names a file takes from minipe (`from minipe.x import y`), each with the module
    it takes it from ('' for `from minipe import y`)."""
    return dict(_imports_in(path.read_text(encoding="utf-8")))


@functools.lru_cache(maxsize=None)
def _imports_in(text: str) -> tuple[tuple[str, str], ...]:
    """imports() of a file's text, parsed once per text."""
    found: dict[str, str] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):  # minipe imports absolutely: from minipe.x import y
            module = node.module or ""
            if module == "minipe" or module.startswith("minipe."):
                for alias in node.names:
                    found[alias.asname or alias.name] = module.removeprefix("minipe").strip(".")
    return tuple(found.items())


def defining_module(root: Path, module: str, name: str) -> str:
    """The module that defines `name` as `module` offers it, following re-exports."""
    if module_path(root, f"{module}.{name}".strip(".")).exists():
        return f"{module}.{name}".strip(".")  # `from minipe import plot`: the module itself
    path = module_path(root, module) if module else root / "minipe" / "__init__.py"
    taken = imports(root, path).get(name)
    if taken is None or taken == module:
        return module
    return defining_module(root, taken, name)


def chapter_order(root: Path) -> list[str]:
    """Every module of minipe, in reading order (see the module docstring)."""
    readme = (root / "README.md").read_text(encoding="utf-8")
    section = readme.partition("\n## The chapters")[2].partition("\n## ")[0]
    every = sorted(module_name(root, path) for path in (root / "minipe").rglob("*.py"))
    every = [name for name in every if name]  # minipe/__init__.py is the package itself
    mapped: list[str] = []
    for link in LINK.findall(section):
        name = module_name(root, root / link)
        inside = [other for other in every if other.startswith(name + ".")]
        if (root / link).name == "__init__.py" and inside:
            mapped += [name] + _face_order(root, root / link, inside)
        else:
            mapped.append(name)
    mapped = [name for name in dict.fromkeys(mapped) if name in every]
    order = list(mapped)
    unmapped = _dependency_order(root, [other for other in every if other not in mapped])
    unused = []  # imported by no module placed so far: the end, in dependency order
    for name in reversed(unmapped):  # a module's users are placed before the module itself
        users = [at for at, other in enumerate(order)
                 if name in _minipe_imports(root, other)]
        if users:
            order.insert(users[0], name)
        else:
            unused.append(name)
    order += _dependency_order(root, unused)
    for name in list(order):  # a package's __init__ opens it: it comes before its modules
        members = [at for at, other in enumerate(order) if other.startswith(name + ".")]
        if members and order.index(name) > members[0]:
            order.remove(name)
            order.insert(members[0], name)
    return order


def chapter_rows(root: Path) -> dict[str, tuple[str, str]]:
    """Each module the chapter map links: its row's number (or letter) and what it teaches,
    as written (markdown). A package's link stands for all its modules."""
    readme = (root / "README.md").read_text(encoding="utf-8")
    section = readme.partition("\n## The chapters")[2].partition("\n## ")[0]
    rows: dict[str, tuple[str, str]] = {}
    for line in section.split("\n"):
        cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
        if not line.startswith("| ") or len(cells) < 3 or not LINK.search(line):
            continue
        for link in LINK.findall(line):
            name = module_name(root, root / link)
            package = [path for path in (root / link).parent.glob("*.py")
                       if (root / link).name == "__init__.py"]
            for member in [name] + [module_name(root, path) for path in package]:
                rows.setdefault(member, (cells[0].strip(), cells[2].strip()))
    return rows


LESSON_LINK = re.compile(r"\[(\d+)\]\(walkthroughs/\d+_\w+\.py\)(-(?=\[))?")  # [15](...)-[22]


def map_lessons(root: Path) -> dict[str, list[str]]:
    """The lessons the chapter map's row lists for each module it links (its last column:
    `[03](walkthroughs/03_....py)`; `[15](...)-[22](...)` is 15 to 22), by stem. A package's
    link stands for all its modules, as in chapter_rows()."""
    stems = {path.stem[:2]: path.stem for path in lesson_paths(root)}
    readme = (root / "README.md").read_text(encoding="utf-8")
    section = readme.partition("\n## The chapters")[2].partition("\n## ")[0]
    found: dict[str, list[str]] = {}
    for line in section.split("\n"):
        cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
        if not line.startswith("| ") or len(cells) < 4 or not LINK.search(cells[1]):
            continue
        numbers: list[int] = []
        dashed = False  # the link before ended in "-": this one closes a range
        for number, dash in LESSON_LINK.findall(cells[-1]):
            start = numbers[-1] + 1 if dashed else int(number)
            numbers += range(start, int(number) + 1)
            dashed = bool(dash)
        listed = [stems[f"{n:02}"] for n in numbers if f"{n:02}" in stems]
        for link in LINK.findall(cells[1]):
            name = module_name(root, root / link)
            package = [module_name(root, path) for path in (root / link).parent.glob("*.py")
                       if (root / link).name == "__init__.py"]
            for member in [name] + package:
                found.setdefault(member, listed)
    return found


def _minipe_imports(root: Path, name: str) -> set[str]:
    """The modules of minipe that module `name` imports from at its top (`from minipe
    import x`: the module that defines x); see the module docstring."""
    text = module_path(root, name).read_text(encoding="utf-8")
    return {module or defining_module(root, module, imported)
            for imported, module in _top_imports(text)}


@functools.lru_cache(maxsize=None)
def _top_imports(text: str) -> tuple[tuple[str, str], ...]:
    """imports() of a module's text, leaving out function bodies and `if TYPE_CHECKING:`."""
    found: list[tuple[str, str]] = []
    statements = list(ast.parse(text).body)
    while statements:
        node = statements.pop(0)
        if isinstance(node, ast.If) and not (isinstance(node.test, ast.Name)
                                             and node.test.id == "TYPE_CHECKING"):
            statements += node.body + node.orelse
        elif isinstance(node, ast.Try):
            statements += node.body + node.orelse + node.finalbody
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module == "minipe" or module.startswith("minipe."):
                found += [(alias.asname or alias.name, module.removeprefix("minipe").strip("."))
                          for alias in node.names]
    return tuple(found)


def _face_order(root: Path, face: Path, members: list[str]) -> list[str]:
    """A package's `members` in the order its face (`__init__.py`) names them in its
    docstring, then the others each after those it imports."""
    docstring = ast.get_docstring(ast.parse(face.read_text(encoding="utf-8"))) or ""
    package = module_name(root, face)
    named = [f"{package}.{stem}" for stem in re.findall(r"\b([a-z_]+)\.py\b", docstring)]
    first = [name for name in dict.fromkeys(named) if name in members]
    return first + _dependency_order(root, [name for name in members if name not in first])


def _dependency_order(root: Path, names: list[str]) -> list[str]:
    """`names`, each after those of them it imports; ties in alphabetical order."""
    needs = {name: _minipe_imports(root, name) & set(names) - {name} for name in names}
    order: list[str] = []
    while len(order) < len(names):
        ready = sorted(name for name in names if name not in order and needs[name] <= set(order))
        order.append(ready[0] if ready else min(set(names) - set(order)))  # a cycle: alphabet
    return order


HELPER = "walkthroughs/lesson.py"  # what every lesson imports first: not a lesson itself


def imports_helper(root: Path, path: Path) -> bool:
    """Whether the lesson imports walkthroughs/lesson.py (`from lesson import Lesson`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, ast.ImportFrom) and node.module == "lesson"
               or isinstance(node, ast.Import) and any(alias.name == "lesson"
                                                       for alias in node.names)
               for node in ast.walk(tree))


def lesson_paths(root: Path) -> list[Path]:
    """walkthroughs/NN_topic.py, in order: every numbered lesson, as it arrives."""
    return sorted((root / "walkthroughs").glob("[0-9][0-9]_*.py"))


def read_lesson(root: Path, path: Path) -> Lesson:
    """The lesson's docstring and cells (see the module docstring)."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    doc = ast.get_docstring(tree) or ""
    first = tree.body[0]
    doc_source = (ast.get_source_segment(text, first) or "") if doc else ""
    lines = text.split("\n")
    starts = [0] + [at for at, line in enumerate(lines) if line.startswith("# %%")]
    cells = []
    for start, end in zip(starts, starts[1:] + [len(lines)]):
        title = lines[start][4:].strip() if start > 0 else ""
        body = list(enumerate(lines[start + (start > 0): end], start + 1 + (start > 0)))
        if start == 0 and doc:  # the docstring is the page's prose, not code
            body = [(number, line) for number, line in body if number > (first.end_lineno or 0)]
        cells.append(Cell(title, tuple(_unguarded(body))))
    return Lesson(str(path.relative_to(root)), doc, doc_source, tuple(cells))


def _unguarded(body: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The lines with each `if __name__ == "__main__":` left out and its block dedented."""
    kept: list[tuple[int, str]] = []
    inside = False
    for number, line in body:
        if line == MAIN_GUARD:
            inside = True
            continue
        if inside and line and not line.startswith("    "):
            inside = False  # back at the top level: the block has ended
        kept.append((number, line[4:] if inside and line.startswith("    ") else line))
    while kept and not kept[0][1].strip():
        kept.pop(0)
    while kept and not kept[-1][1].strip():
        kept.pop()
    return kept


def lesson_chapters(root: Path, path: Path) -> list[str]:
    """The modules of minipe whose names the lesson imports, sorted."""
    taken = imports(root, path)
    return sorted({defining_module(root, module, name) for name, module in taken.items()})
