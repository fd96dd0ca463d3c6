"""The book (`python -m minipe book`) and the lessons' notebooks (issue 20).

The book is built here from the lessons' runs the other tests share
(tests/commands.py's lesson_with_figures), not by running every lesson again, into
this session's own folder. Every page is parsed with html.parser: its links and
anchors must resolve inside the book's folder (a copy elsewhere works as well),
and nothing may load from anywhere. The expected values come
from the runs themselves (what a lesson printed, the figure files it wrote),
from the README read with a plain regex, or are written out by hand.
"""

from __future__ import annotations

import ast
import errno
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from commands import FIGURES, LESSONS, ROOT, lesson_with_figures

from minipe.__main__ import main
from minipe.book import LessonRun, build_book, lesson_notebooks
from minipe.book.literate import sections
from minipe.book.pages import STYLE
from minipe.book.prose import blocks, formula, inline, typeset
from minipe.book.sources import chapter_order, lesson_paths, read_lesson

FIGURE_LINE = "   [figure written: "


@pytest.fixture(scope="session")
def runs() -> dict[str, LessonRun]:
    """Every lesson's one run this session, by stem: what it printed, and the directory its
    figures went into (None if it drew nothing)."""
    found = {}
    for path in LESSONS:
        done = lesson_with_figures(path)
        assert done.returncode == 0, done.stderr
        figures = FIGURES / path.stem
        found[path.stem] = LessonRun(done.stdout, figures if figures.is_dir() else None)
    return found


@pytest.fixture(scope="session")
def book(runs: dict[str, LessonRun], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("book")  # this session's own: another's cannot remove it
    build_book(out, runs)
    return out


REFERENCE = re.compile(r"url\(#([^)]+)\)|^#(.+)")  # an attribute's url(#id), an href's #id


class Page(HTMLParser):
    """What a page links to, what it loads, its ids, its figures and its printed outputs."""

    def __init__(self, path: Path) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.loads: list[str] = []
        self.ids: list[str] = []
        self.references: list[tuple[str, str]] = []  # ids its attributes name (two ways)
        self.captions: list[str] = []
        self.svgs = 0
        self.outputs: list[str] = []
        self._in: str | None = None
        self.feed(path.read_text(encoding="utf-8"))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for name, value in attrs:  # a fill="url(#scale)", an <a href="#L12">, a <use href="#x">
            if value and (name.endswith("href") and value.startswith("#") or "url(#" in value):
                self.references += REFERENCE.findall(value)
        if found.get("id"):
            self.ids.append(str(found["id"]))
        if tag == "a" and found.get("href"):
            self.links.append(str(found["href"]))
        if tag in ("script", "link", "img", "iframe", "object", "embed", "source", "video"):
            self.loads.append(f"<{tag}> {found}")
        if tag == "svg":
            self.svgs += 1
        if tag == "figcaption" or (tag == "pre" and found.get("class") == "output"):
            self._in = tag
            (self.captions if tag == "figcaption" else self.outputs).append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "figcaption":
            self.captions[-1] += data
        elif self._in == "pre":
            self.outputs[-1] += data


@pytest.fixture(scope="session")
def pages(book: Path) -> dict[Path, Page]:
    """Every page of the book, parsed once for the tests that read them."""
    return {path: Page(path) for path in sorted(book.rglob("*.html"))}


def broken_links(book: Path, pages: dict[Path, Page]) -> list[str]:
    """Each link of the book's pages that leaves its folder, leads nowhere, or names an
    anchor its page does not have (an address, https://..., is a link to follow)."""
    broken = []
    places: dict[Path, tuple[Path, bool, bool]] = {}  # pages link the same few
    for path, page in pages.items():
        for link in page.links:
            if link.startswith("https://"):
                continue  # a source's address: a link to follow, nothing the page loads
            target, _, fragment = link.partition("#")
            linked = path.parent / target if target else path
            if linked not in places:  # each place resolved and looked up once
                where = linked.resolve()
                places[linked] = (where, where.exists(), where.is_relative_to(book.resolve()))
            where, exists, inside = places[linked]
            name = path.relative_to(book).as_posix()
            if not inside:
                broken.append(f"{name}: {link} leaves the book's folder")
            elif not exists:
                broken.append(f"{name}: {link} leads nowhere")
            elif fragment and where.suffix == ".html" and fragment not in pages[where].ids:
                broken.append(f"{name}: {link}: no #{fragment} there")
    return broken


@pytest.mark.slow
def test_every_link_and_anchor_resolves_inside_the_book_and_nothing_loads_from_outside(
        book: Path, pages: dict[Path, Page]) -> None:
    for path, page in pages.items():
        assert page.loads == [], f"{path.name} loads {page.loads}"
        text = path.read_text(encoding="utf-8")
        assert "url(" not in text.partition("</style>")[0] and "@import" not in text
        assert len(page.ids) == len(set(page.ids)), f"{path.name} repeats an id"
    assert broken_links(book, pages) == []




@pytest.mark.slow
def test_every_reference_inside_a_page_resolves_on_that_page(
        book: Path, pages: dict[Path, Page]) -> None:
    # a heatmap's colour bar is fill="url(#scale)" and a masked cell fill="url(#masked)":
    # the ids they name must be on the page, as the figure's own file has them
    for path, page in pages.items():
        named = {first or second for first, second in page.references}
        assert named <= set(page.ids), f"{path.name}: no {sorted(named - set(page.ids))}"
    lesson_09 = (book / "lessons" / "09_the_whole_pipeline.html").read_text(encoding="utf-8")
    assert 'fill="url(#causal-weights-masked)"' in lesson_09  # the striped cells are there


@pytest.mark.slow
def test_a_copy_of_the_book_anywhere_has_no_broken_link(book: Path, tmp_path: Path) -> None:
    # zipped for a class, served by python -m http.server: the folder alone is the book
    moved = tmp_path / "elsewhere" / "minipe-book"
    shutil.copytree(book, moved)
    copied = {path: Page(path) for path in sorted(moved.rglob("*.html"))}
    assert len(copied) > 100 and broken_links(moved, copied) == []
    # the lessons' scripts and notebooks are in it, byte for byte
    for path in LESSONS:
        for kind in (".py", ".ipynb"):  # a lesson just added has no notebook yet
            inside = moved / "files" / "walkthroughs" / (path.stem + kind)
            if path.with_suffix(kind).exists():
                assert inside.read_bytes() == path.with_suffix(kind).read_bytes()


@pytest.mark.slow
def test_every_module_has_a_page_in_the_readmes_order(book: Path) -> None:
    modules = sorted(ROOT.glob("minipe/**/*.py"))
    expected_pages = len(modules) - 1  # minipe/__init__.py is the package, not a chapter
    assert len(list((book / "chapters").glob("*.html"))) == expected_pages
    index = (book / "index.html").read_text(encoding="utf-8")
    listed = re.findall(r'<li><a href="chapters/([^"]+)\.html">', index)
    assert len(listed) == expected_pages
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    chapters = readme.split("\n## The chapters")[1].split("\n## ")[0]
    mapped = list(dict.fromkeys(re.findall(r"\]\(minipe/([a-z_]+)\.py\)", chapters)))
    assert mapped[:4] == ["tokenizer", "pretokenizer", "subword", "embedding"]  # first rows
    assert [name for name in listed if name in mapped] == mapped  # in the map's order


@pytest.mark.slow
def test_a_chapter_links_to_its_lessons_and_back(book: Path, pages: dict[Path, Page]) -> None:
    # walkthroughs/01_text_to_ids.py imports one name from minipe: Tokenizer, which
    # minipe/__init__.py takes from minipe/tokenizer.py.
    lesson = (book / "lessons" / "01_text_to_ids.html").read_text(encoding="utf-8")
    uses = re.findall(r'href="(\.\./chapters/[^"]+)"', lesson.partition("Chapters it uses:")[2]
                      .partition("</p>")[0])
    assert uses == ["../chapters/tokenizer.html"]
    chapter = pages[book / "chapters" / "tokenizer.html"]
    assert "../lessons/01_text_to_ids.html" in chapter.links
    # lesson 04 imports sinusoidal_position (minipe/positional.py); lesson 01 does not
    positional = pages[book / "chapters" / "positional.html"]
    assert "../lessons/04_sinusoidal_by_hand.html" in positional.links
    assert "../lessons/01_text_to_ids.html" not in positional.links
    # a line number opens its line in the file's listing, a page of the book with every line
    assert "../source/minipe/positional.py.html#L35" in positional.links
    listing = pages[book / "source" / "minipe" / "positional.py.html"]
    lines = (ROOT / "minipe" / "positional.py").read_text(encoding="utf-8").count("\n")
    assert [f"L{number}" for number in range(1, lines + 1)] == [
        name for name in listing.ids if name.startswith("L")]


@pytest.mark.slow
def test_every_lesson_page_shows_what_it_printed_and_every_figure(
        book: Path, pages: dict[Path, Page], runs: dict[str, LessonRun]) -> None:
    for stem, run in runs.items():
        page = pages[book / "lessons" / f"{stem}.html"]
        # lesson 05 times GPT-2's table: "built in 0.49 s here" -> "built in … s here"
        stdout = re.sub(r"\d\.\d\d s here", "… s here", run.stdout)
        printed = [line for line in stdout.splitlines()
                   if line.strip() and not line.startswith(FIGURE_LINE)]
        shown = [line for output in page.outputs for line in output.splitlines()
                 if line.strip()]
        assert shown == printed, stem
        drawn = sorted(path.name for path in run.figures.iterdir()) if run.figures else []
        # each caption is the figure's title, then its file's name
        assert sorted(caption.rpartition("(")[2].rstrip(")") for caption in page.captions) \
            == drawn, stem
        assert all(len(caption.rpartition("(")[0].strip()) > 10 for caption in page.captions)
        assert page.svgs == len(drawn), stem


@pytest.mark.slow
def test_the_same_runs_give_the_same_bytes(book: Path, runs: dict[str, LessonRun],
                                          tmp_path: Path) -> None:
    again = tmp_path / "again"
    build_book(again, runs)
    first = {path.relative_to(book): path.read_bytes() for path in book.rglob("*.html")}
    second = {path.relative_to(again): path.read_bytes() for path in again.rglob("*.html")}
    assert first == second
    for text in first.values():
        assert str(ROOT).encode() not in text  # no absolute path


@pytest.mark.slow
def test_a_clone_in_another_folder_gives_the_same_bytes(
        runs: dict[str, LessonRun], tmp_path: Path) -> None:
    # one snapshot of the files, under two names at two depths: nothing written depends on
    # where they sit
    books: list[dict[Path, bytes]] = []
    for where in ("clone", "a/b/clone-named-otherwise"):
        clone = tmp_path / where
        for part in ("minipe", "walkthroughs", "tests"):
            source = ROOT / part if not books else tmp_path / "clone" / part
            shutil.copytree(source, clone / part, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(ROOT / "README.md" if not books else tmp_path / "clone" / "README.md",
                    clone / "README.md")
        build_book(tmp_path / f"book-{len(books)}", runs, root=clone)
        books.append({path.relative_to(tmp_path / f"book-{len(books)}"): path.read_bytes()
                      for path in (tmp_path / f"book-{len(books)}").rglob("*")
                      if path.is_file()})
    assert books[0] == books[1] and len(books[0]) > 150


@pytest.mark.slow
def test_the_notebooks_are_up_to_date(runs: dict[str, LessonRun]) -> None:
    for path, text in lesson_notebooks(runs).items():
        assert path.exists() and path.read_text(encoding="utf-8") == text, (
            f"{path.name} is out of date: python -m minipe book --notebooks")


CELL_KEYS = {  # nbformat 4.5's schema: the keys each cell must have (and may have)
    "markdown": {"id", "cell_type", "metadata", "source"},
    "code": {"id", "cell_type", "metadata", "source", "outputs", "execution_count"},
}
OUTPUT_KEYS = {"stream": {"output_type", "name", "text"},
               "display_data": {"output_type", "data", "metadata"}}


def test_the_notebooks_are_valid_nbformat_4() -> None:
    for path in lesson_paths(ROOT):
        notebook = json.loads(path.with_suffix(".ipynb").read_text(encoding="utf-8"))
        assert set(notebook) == {"cells", "metadata", "nbformat", "nbformat_minor"}
        assert (notebook["nbformat"], notebook["nbformat_minor"]) == (4, 5)
        assert notebook["metadata"]["kernelspec"]["name"] == "python3"
        ids = [cell["id"] for cell in notebook["cells"]]
        assert len(ids) == len(set(ids)) and all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name)
                                                 for name in ids)
        for cell in notebook["cells"]:
            assert set(cell) == CELL_KEYS[cell["cell_type"]]
            assert all(isinstance(line, str) for line in cell["source"])
            for output in cell.get("outputs", []):
                assert set(output) == OUTPUT_KEYS[output["output_type"]]
                if output["output_type"] == "display_data":
                    assert output["data"]["image/svg+xml"].startswith("<svg")


RUN_CELLS = """
import io, json, sys, contextlib
notebook = json.load(open(sys.argv[1], encoding="utf-8"))
namespace = {"__name__": "__main__"}
for cell in notebook["cells"]:
    if cell["cell_type"] != "code":
        continue
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile("".join(cell["source"]), "cell", "exec"), namespace)
    stored = "".join(line for output in cell["outputs"] if output["output_type"] == "stream"
                     for line in output["text"])
    assert printed.getvalue() == stored, (printed.getvalue(), stored)
print("ran", sum(cell["cell_type"] == "code" for cell in notebook["cells"]), "cells")
"""


@pytest.mark.parametrize("name", ["01_text_to_ids.ipynb", "04_sinusoidal_by_hand.ipynb"])
def test_a_notebook_runs_top_to_bottom_and_prints_its_stored_outputs(name: str) -> None:
    # as Jupyter runs it: one namespace named __main__, from the notebook's directory
    done = subprocess.run([sys.executable, "-c", RUN_CELLS, name], cwd=ROOT / "walkthroughs",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ran ")


def test_a_lessons_cells_are_its_code_without_the_guard() -> None:
    # The script's statements, each `if __name__ == "__main__":` replaced by its body,
    # are the statements of the cells, in order (the docstring aside).
    for path in lesson_paths(ROOT):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        expected: list[ast.stmt] = []
        for node in tree.body[1:]:
            guard = isinstance(node, ast.If) and ast.unparse(node.test) == (
                "__name__ == '__main__'")
            expected += node.body if guard and isinstance(node, ast.If) else [node]
        cells = [node for cell in read_lesson(ROOT, path).cells
                 for node in ast.parse(cell.code).body]
        assert ast.dump(ast.Module(cells, [])) == ast.dump(ast.Module(expected, [])), path.name


SMALL = '''"""A module."""

import math

# Two lines of comment
# above the function.
def f(x):
    """Doubled."""
    return 2 * x  # the doubling
'''


def test_a_module_is_cut_where_its_prose_starts() -> None:
    # by hand: the docstring (line 1) heads lines 3; the comments (lines 5-6) and f's
    # docstring (line 8) head the def (line 7) and its body (line 9)
    found = [(section.prose, section.lines) for section in sections(SMALL)]
    assert found == [("A module.", (3,)),
                     ("Two lines of comment\nabove the function.\n\nDoubled.", (7, 9))]


def test_a_comment_inside_brackets_stays_in_the_code() -> None:
    # lines 2 and 5 are whole-line comments; line 2 sits inside the list's brackets
    source = "x = [\n    # one\n    1,\n]\n# after\ny = 2\n"
    found = [(section.prose, section.lines) for section in sections(source)]
    assert found == [("", (1, 2, 3, 4)), ("after", (6,))]


def test_the_command_refuses_a_file_for_dir(tmp_path: Path) -> None:
    a_file = tmp_path / "book.txt"
    a_file.write_text("")
    done = subprocess.run([sys.executable, "-m", "minipe", "book", str(a_file)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "is a file: DIR must be a directory" in done.stderr
    # a DIR that cannot be made, and an empty one, are refused before any lesson runs
    for where, words in ((a_file / "pages", "cannot write the pages into"),
                         ("", "DIR is empty")):
        done = subprocess.run([sys.executable, "-m", "minipe", "book", str(where)], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and words in done.stderr, done.stderr
        assert "running" not in done.stderr  # no lesson ran


REAL_FDOPEN = os.fdopen  # minipe.command_line.os is os: a patched fdopen is everyone's


class FullDisk:
    """os.fdopen for minipe.command_line that fails on its `nth` file like a full disk: half
    the bytes reach the temporary file, then OSError(ENOSPC). The files before it pass."""

    opened = 0

    def __init__(self, nth: int) -> None:
        self.nth = nth

    def __call__(self, handle: int, mode: str = "r") -> Any:
        self.opened += 1
        stream = REAL_FDOPEN(handle, mode)
        if self.opened < self.nth:
            return stream
        full = self

        class Failing:
            def __enter__(self) -> Failing:
                return self

            def __exit__(self, *exc: object) -> None:
                stream.close()

            def write(self, data: bytes) -> int:
                stream.write(data[: len(data) // 2])
                stream.flush()
                raise OSError(errno.ENOSPC, f"No space left on device (file {full.nth})")

        return Failing()


def _no_lessons(*args: object) -> None:
    raise AssertionError("no lesson runs once a folder is refused")


@pytest.mark.slow  # builds the book: every lesson runs
def test_a_full_disk_stops_the_book_at_the_page_it_names(
        runs: dict[str, LessonRun], book: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk fills at the 10th file: the 9 before are whole (as the session's book has
    them), the 10th is not there, no temporary file is left; one sentence names it; 1."""
    out = tmp_path / "book"
    monkeypatch.setattr("minipe.book.command.run_lessons", lambda *args: runs)
    monkeypatch.setattr("minipe.command_line.os.fdopen", FullDisk(10))
    assert main(["book", str(out)]) == 1
    said = capsys.readouterr()
    last = said.err.strip().splitlines()[-1]
    named = re.fullmatch(r"book: cannot write '(.+)': No space left on device \(file 10\); the "
                         r"files written before it are whole, this one and the rest are as "
                         r"they were", last)
    assert named, said.err
    assert "Traceback" not in said.err and said.out == ""
    written = sorted(path for path in out.rglob("*") if path.is_file())
    assert len(written) == 9 and not Path(named.group(1)).exists()
    assert not [path for path in written if path.name.endswith(".tmp")]
    for path in written:
        assert path.read_bytes() == (book / path.relative_to(out)).read_bytes()


@pytest.mark.slow  # builds the book: every lesson runs
def test_notebooks_that_cannot_be_written_are_refused_before_the_lessons_or_named(
        runs: dict[str, LessonRun], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only walkthroughs/ (simulated: root writes through chmod): refused, status 2,
    before any lesson runs or page is written. A disk that fills at the 2nd notebook: the 1st
    is new, the 2nd and 3rd as they were, no temporary file; one sentence names it; 1. The
    notebooks here are three files in this test's own folder, never the clone's."""
    real = tempfile.TemporaryFile

    def read_only(*args: Any, dir: Path, **kwargs: Any) -> Any:  # noqa: A002 (tempfile's name)
        if Path(dir).name == "walkthroughs":
            raise OSError(errno.EROFS, "Read-only file system")
        return real(*args, dir=dir, **kwargs)

    monkeypatch.setattr("minipe.command_line.tempfile.TemporaryFile", read_only)
    monkeypatch.setattr("minipe.book.command.run_lessons", _no_lessons)
    with pytest.raises(SystemExit) as stopped:
        main(["book", str(tmp_path / "refused"), "--notebooks"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f"--notebooks cannot write into {ROOT / 'walkthroughs'}: Read-only file system" in err
    assert list((tmp_path / "refused").iterdir()) == []
    monkeypatch.undo()

    folder = tmp_path / "walkthroughs"
    folder.mkdir()
    notebooks = {folder / f"0{n}_lesson.ipynb": f"new {n}\n" for n in (1, 2, 3)}
    for path in notebooks:
        path.write_text("old\n")
    monkeypatch.setattr("minipe.book.command.run_lessons", lambda *args: runs)
    monkeypatch.setattr("minipe.book.command.lesson_notebooks", lambda *args: notebooks)
    pages = len(list(_book_files(runs, tmp_path / "counted")))
    monkeypatch.setattr("minipe.command_line.os.fdopen", FullDisk(pages + 2))
    assert main(["book", str(tmp_path / "book"), "--notebooks"]) == 1
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith(f"book: cannot write {str(folder / '02_lesson.ipynb')!r}: No space")
    assert [path.read_text() for path in notebooks] == ["new 1\n", "old\n", "old\n"]
    assert sorted(path.name for path in folder.iterdir()) == [path.name for path in notebooks]


def _book_files(runs: dict[str, LessonRun], out: Path) -> list[Path]:
    """The files build_book writes (pages and copies), by building it once."""
    build_book(out, runs)
    return [path for path in out.rglob("*") if path.is_file()]


def test_a_missing_run_is_named(tmp_path: Path) -> None:
    fewer = {path.stem: LessonRun("", None) for path in LESSONS if path.stem != "01_text_to_ids"}
    with pytest.raises(ValueError, match="runs has none for 01_text_to_ids"):
        build_book(tmp_path / "missing", fewer)


@pytest.mark.slow
def test_the_lessons_helper_has_a_page_that_each_lesson_links(book: Path) -> None:
    # walkthroughs/01_text_to_ids.py's line 12 is `from lesson import Lesson`: its page links
    # the helper's page, and so does the index (the sentence above the lessons' table)
    helper = book / "lessons" / "lesson.html"
    assert "<h1>walkthroughs/<wbr>lesson.py</h1>" in helper.read_text(encoding="utf-8")
    assert "lesson.html" in Page(book / "lessons" / "01_text_to_ids.html").links
    assert "lessons/lesson.html" in Page(book / "index.html").links


def test_a_module_the_map_leaves_out_comes_before_its_first_importer() -> None:
    # read off the files' top imports by hand: passes.py imports heads and gradients,
    # heads.py imports gradients, model.py imports passes; none of the four imports
    # the exercises, which come at the end of the book
    order = chapter_order(ROOT)
    at = {name: order.index(f"training.{name}") for name in ("gradients", "heads", "passes",
                                                               "model")}
    assert at["gradients"] < at["heads"] < at["passes"] < at["model"]
    assert max(at.values()) < order.index("exercises")


@pytest.mark.slow
def test_a_table_cell_carries_its_columns_name_and_a_function_is_named(book: Path) -> None:
    # the README's chapter map has the header | # | module | what it teaches | ...: on a
    # narrow screen each cell shows its column's name (data-label)
    index = (book / "index.html").read_text(encoding="utf-8")
    assert '<td data-label="#">1</td><td data-label="module">' in index
    # rotary.py's function rotary_thetas: its name heads its docstring's prose
    rotary = (book / "chapters" / "rotary.html").read_text(encoding="utf-8")
    named = rotary.index('<h3 class="name"><code>rotary_thetas</code></h3>')
    assert named < rotary.index("theta_i = base**(-2i / d) for the pairs") < rotary.index(
        '<span class="k">def</span> rotary_thetas')


POWER_BY_CARET = re.compile(r"[\w)\]|]\^(?![TV]\b)")  # x^2, e^z; K^T (a transpose), a^V a name
POWER_BY_STARS = re.compile(r"[\w)\]]\s?\*\*\s?[\w(-]")  # 10000**(2i/d), x ** 2; not f(**kw)


def test_the_docstrings_write_powers_one_way() -> None:  # the chapters' and the lessons'
    # base**(2i / d_model), as the line that computes it reads: never base^(2i / d_model)
    # beside it (a `code span` quotes what a program prints, as written)
    mixed = []
    for path in [*sorted((ROOT / "minipe").rglob("*.py")), *LESSONS]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef)):
                prose = re.sub(r"`[^`]*`", "", ast.get_docstring(node) or "")
                mixed += [f"{path.name}: {line.strip()}" for line in prose.splitlines()
                          if POWER_BY_CARET.search(line)]
    assert mixed == []
    assert "base**(2i / d_model)" in (ROOT / "minipe" / "positional.py").read_text()


@pytest.mark.slow
def test_every_page_of_the_book_writes_a_power_one_way(book: Path) -> None:
    # ** is the notation: a page's text as a reader sees it (tags out) - docstrings, comments,
    # what a lesson prints, a figure's title, the errata - never writes x^2 or 10000^(2i/d)
    # (K^T, a transpose, and a name like a^V stay). The code beside it writes x ** 2.
    carets = []
    for path in sorted(book.rglob("*.html")):
        text = html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")))
        carets += [f"{path.relative_to(book)}: {line.strip()}" for line in text.splitlines()
                   if POWER_BY_CARET.search(line)]
    assert carets == []
    lesson = (book / "lessons" / "04_sinusoidal_by_hand.html").read_text(encoding="utf-8")
    assert POWER_BY_STARS.search(html.unescape(lesson))  # the other way, as the lesson prints


PHONE = 390  # px: a phone's viewport
WIDTH = re.compile(r"(?<![\w-])(?:min-)?width\s*:\s*([\d.]+)(px|rem|em|ch)")
PX = {"px": 1, "rem": 16, "em": 17, "ch": 9}  # the body's 17 px; a mono ch at 13-15 px


def css_rules(css: str) -> list[tuple[str, str, str]]:
    """(block, selector, declarations) of each rule: block '' or an @media's condition."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    found = []
    for part in re.split(r"(?=@media)", css):
        block = re.match(r"@media([^{]*)\{", part)
        for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", part[block.end():]
                                          if block else part):
            found += [(block.group(1).strip() if block else "", selector.strip(), body)
                      for selector in selectors.split(",")]
    return found


@pytest.mark.slow
def test_nothing_but_what_scrolls_is_wider_than_a_phone(pages: dict[Path, Page]) -> None:
    # looked at in Chromium at 390 px, every page is as wide as the screen; what holds it:
    rules = css_rules(STYLE)
    scrolls = {(block, selector) for block, selector, body in rules
               if re.search(r"overflow-x:\s*(auto|scroll)", body)}
    for block, selector, body in rules:
        # a fixed width over 390 px only inside a box that scrolls sideways (figure svg:
        # 600 px on a phone, in a figure that scrolls)
        for number, unit in WIDTH.findall(body):
            if float(number) * PX[unit] > PHONE:
                assert (block, selector.split()[0]) in scrolls, (block, selector, body)
        # a line kept whole (white-space: pre, nowrap) scrolls, or is a short span
        if re.search(r"white-space:\s*(pre|nowrap)(?![\w-])", body):
            assert (block, selector) in scrolls or selector == ".nobr", (selector, body)
    # a long word breaks rather than widen the page: a path in a heading (after a /), a
    # name in a paragraph, a list, a table cell; the navigation's links wrap
    breaks = {selector for _, selector, body in rules if "overflow-wrap" in body}
    assert {"h1", "h2", "h3", "p", "li", "td"} <= breaks
    assert any(selector == "nav" and "flex-wrap: wrap" in body for _, selector, body in rules)
    for path in pages:
        text = path.read_text(encoding="utf-8")
        for heading in re.findall(r"<h1>(.*?)</h1>", text):
            assert "/" not in heading.replace("/<wbr>", ""), (path.name, heading)
        for short in re.findall(r'class="nobr">([^<]*)<', text):
            assert len(html.unescape(short)) <= 24, (path.name, short)  # 24 x 8 px


def test_a_formula_is_typeset_and_its_plain_text_kept() -> None:
    # worked by hand: the power's brackets go, sqrt's radicand is overlined, theta_i is θ_i
    assert typeset("softmax(Q K^T / sqrt(d_k)) V") == (
        'softmax(Q K<sup>T</sup> / √<span class="radicand">d<sub>k</sub></span>) V')
    assert typeset("theta_i = base**(-2i / d)") == "θ<sub>i</sub> = base<sup>-2i / d</sup>"
    assert typeset("m / (1 - beta1**t)") == "m / (1 − β1<sup>t</sup>)"
    shown = formula("PE(pos, 2i) = sin(pos / base**(2i / d_model))")
    assert "base<sup>2i / d_model</sup>" in shown
    assert "<pre class=\"formula\">PE(pos, 2i) = sin(pos / base**(2i / d_model))</pre>" in shown
    # a command, a regex or a table of names is kept as written, not typeset
    for kept in ("python -m minipe book --notebooks", r"\s+(?!\S)|[^\s\p{L}]+",
                 "Matrix   shape (n, d)      a sequence, or a weight W_q"):
        assert formula(kept).startswith('<pre class="formula">')


@pytest.mark.slow
def test_every_chapters_opening_formula_and_every_lesson_formula_is_typeset(
        book: Path) -> None:
    # the first indented block of a module's docstring that has a power, a root or a
    # subscripted equation is on its page as HTML math; so is each such block of a lesson
    checked = 0
    modules = sorted((ROOT / "minipe").rglob("*.py"))[1:]  # minipe/__init__.py: no page
    for path in [*modules, *LESSONS]:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        blocks = re.findall(r"(?m)^(    \S.*(?:\n    .*)*)", doc)
        math = [block for block in blocks if re.search(r"\*\*|\^|sqrt\(", block)
                and not re.search(r"python |\\", block)]
        if not math:
            continue
        if path in LESSONS:
            page = book / "lessons" / f"{path.stem}.html"
        else:
            name = ".".join(path.relative_to(ROOT / "minipe").with_suffix("").parts)
            page = book / "chapters" / f"{name.removesuffix('__init__').strip('.')}.html"
        text = page.read_text(encoding="utf-8")
        assert text.count('<div class="math') >= (len(math) if path in LESSONS else 1), page
        checked += 1
    assert checked >= 8
    attention = (book / "chapters" / "attention.html").read_text(encoding="utf-8")
    assert "K<sup>T</sup> / √<span class=\"radicand\">d<sub>k</sub></span>) V" in attention


@pytest.mark.slow
def test_chapters_list_the_lessons_the_map_gives_them_and_next_follows_the_reading_order(
        book: Path, pages: dict[Path, Page]) -> None:
    # README's row 10 (minipe/training/) lists lessons 07 and 15-22: heads.py (lesson 21 is
    # about heads) and gradients.py (lesson 17) are among its modules, though no lesson
    # imports them by name
    for name, stem in (("training.heads", "21_several_heads"),
                       ("training.gradients", "17_gradients_of_positions")):
        assert f"../lessons/{stem}.html" in pages[book / "chapters" / f"{name}.html"].links
    # one lead per chapter: the package's page has the map's row, its modules point to it
    lead = "<em>Chapter 10 of the map:</em>"
    assert lead in (book / "chapters" / "training.html").read_text(encoding="utf-8")
    heads = (book / "chapters" / "training.heads.html").read_text(encoding="utf-8")
    assert lead not in heads and '<em>Part of chapter 10:</em> <a href="training.html">' in heads

    def following(page: Path) -> str:
        text = page.read_text(encoding="utf-8")
        nav = text.partition('<nav class="top">')[2].partition("</nav>")[0]
        found = re.findall(r'href="([^"]+)">[^<]*→', nav)
        return (page.parent / found[0]).resolve().relative_to(book.resolve()).as_posix() \
            if found else ""

    # "next" from the first chapter page: every chapter, then the lessons, then the
    # book's and the exercises' machinery, each page once
    walked: list[str] = []
    page = book / "chapters" / "tokenizer.html"
    while page.name and len(walked) < 500:
        walked.append(page.relative_to(book).as_posix())
        after = following(page)
        page = book / after if after else Path("")
    machinery = [at for at, name in enumerate(walked)
                 if re.match(r"chapters/(book|exercises)\b", name)]
    lessons = [at for at, name in enumerate(walked) if name.startswith("lessons/")]
    assert len(lessons) == len(LESSONS) and len(set(walked)) == len(walked)
    assert max(lessons) < min(machinery) and machinery == list(range(min(machinery),
                                                                      len(walked)))
    assert walked[lessons[0] - 1] == "chapters/__main__.html"
    index = (book / "index.html").read_text(encoding="utf-8")
    appendix = index.partition('id="machinery"')[2].partition("</main>")[0]
    assert 'href="chapters/book.html"' in appendix and 'href="chapters/tokenizer.html"' \
        not in appendix


@pytest.mark.slow
def test_every_chapter_page_has_its_contents_with_each_public_name(
        book: Path, pages: dict[Path, Page]) -> None:
    # a module's public functions and classes (read off its file with ast), each listed at
    # the top of its page and linked to an anchor there; a package's page lists its modules
    for path in sorted((ROOT / "minipe").rglob("*.py"))[1:]:  # minipe/__init__.py: no page
        name = ".".join(path.relative_to(ROOT / "minipe").with_suffix("").parts)
        page = book / "chapters" / f"{name.removesuffix('__init__').strip('.')}.html"
        text = page.read_text(encoding="utf-8")
        contents = text.partition('<ol class="contents toc">')[2].partition("</ol>")[0]
        public = [node.name for node in ast.parse(path.read_text(encoding="utf-8")).body
                  if isinstance(node, (ast.FunctionDef, ast.ClassDef))
                  and not node.name.startswith("_")]
        # a page lists what its module defines; a module of data alone (a table of named
        # mistakes) defines nothing to list
        assert contents or not public, f"{page.name} has no contents"
        listed = re.findall(r'<a href="#([^"]+)"><code>([^<]+)</code>', contents)
        assert [shown for _, shown in listed] == public, page.name
        assert all(anchor in pages[page].ids for anchor, _ in listed)
    rotary = (book / "chapters" / "rotary.html").read_text(encoding="utf-8")
    assert '<section class="literate" id="apply_rotary">' in rotary


@pytest.mark.slow
def test_every_module_named_in_the_prose_is_a_link(book: Path) -> None:
    # outside code listings and titles, each minipe/NAME.py a page's prose names links to it
    named = re.compile(r'(<a href="([^"]+)">)?(?:<code[^>]*>)?minipe/[\w/]*\w\.py')
    linked = 0
    for path in sorted((book / "chapters").glob("*.html")) + [book / "index.html"]:
        text = path.read_text(encoding="utf-8").partition("</h1>")[2]
        prose = re.sub(r"<pre.*?</pre>|<details.*?</details>", "", text, flags=re.S)
        for found in named.finditer(prose):
            assert found.group(1), f"{path.name}: {prose[found.start() - 40:found.end()]}"
            linked += 1
    assert linked > 150
    positional = (book / "chapters" / "positional.html").read_text(encoding="utf-8")
    assert '<a href="arrays.broadcast.html">minipe/arrays/broadcast.py</a>' in positional


def test_prose_keeps_an_option_whole_and_a_wrapped_number_in_its_sentence() -> None:
    def nowhere(target: str) -> str:
        return ""

    assert inline("Run: python x.py [--step]", nowhere) == (
        'Run: python x.py <span class="nobr">[--step]</span>')
    # lesson 18's question wraps before "32.": one paragraph; after a full stop, a new point
    assert blocks("hand it 16 and\n32. Does it hold?", nowhere) == (
        "<p>hand it 16 and 32. Does it hold?</p>")
    assert blocks("Fixed.\n2. Learned.", nowhere) == "<p>Fixed.</p>\n<p>2. Learned.</p>"


def test_powers_in_prose_are_not_read_as_bold() -> None:
    # two powers in one paragraph made a bold pair: '2e <= |x| < 2(e+1)' in appendix C's page
    from minipe.book.prose import inline
    shown = inline("between 2**e <= |x| < 2**(e+1), and (2 - 2**(1 - p)) * 2**emax", str)
    assert "<strong>" not in shown and "2**e" in shown and "2**(e+1)" in shown
    assert inline("**The idea first.** A *formula*", str) == (
        "<strong>The idea first.</strong> A <em>formula</em>")
