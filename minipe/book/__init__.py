"""The book: minipe to read without running it, as HTML pages and as notebooks.

    python -m minipe book                # build/book/index.html, from the clone
    python -m minipe book DIR            # the book into DIR
    python -m minipe book --notebooks    # and rewrite walkthroughs/NN_topic.ipynb

A support part, like minipe/plot/, not a chapter: no chapter imports it.
Building it runs each lesson once (`runs.py`) and reads the clone
(`sources.py`); then it writes three kinds of pages:

- index.html: the chapter map in reading order, the lessons with the question
  each answers, the sources and the errata (from the two READMEs);
- chapters/NAME.html: each module as a literate page (`literate.py`), with
  the lessons that use it;
- lessons/NN_topic.html: each `# %%` cell's code, what it printed and the
  figures it drew (inline SVG), with the chapters it uses; lessons/lesson.html:
  walkthroughs/lesson.py, the helper every lesson imports first, as a literate page;
- source/PATH.html: each Python file the pages link, whole, an anchor per line
  (a line number on a chapter's page opens its line here); and files/PATH: the
  lessons' scripts and notebooks, copied as they are. No link leaves the folder.

Lessons are found by their names (walkthroughs/NN_topic.py): a new one gets its
page, its row in the index and its notebook with no list to update.

`build_book(out, runs)` and `lesson_notebooks(runs)` take the lessons' runs
from the caller, so a test can hand them runs it already has. The same runs
give the same bytes: no dates, no absolute paths, everything in a fixed order.
"""

from __future__ import annotations

import ast
import html
import posixpath
from pathlib import Path
from typing import Mapping

from minipe.book.pages import (
    Site,
    chapter_body,
    chapter_page,
    HELPER_PAGE,
    copy_path,
    frame,
    lesson_body,
    lesson_page,
    linked_files,
    listing,
    listing_page,
    navigation,
)
from minipe.book.prose import Resolve, blocks, inline
from minipe.book.literate import sections
from minipe.book.notebooks import notebook_text
from minipe.book.runs import LessonRun, cell_outputs, run_lessons
from minipe.book.sources import (
    HELPER,
    Lesson,
    chapter_order,
    chapter_rows,
    imports_helper,
    lesson_chapters,
    map_lessons,
    lesson_paths,
    module_name,
    module_path,
    read_lesson,
)
from minipe.command_line import write_whole

BAR = "\\|"  # a bar inside a markdown table's cell
ROOT = Path(__file__).resolve().parent.parent.parent  # the clone: minipe/book/ is two below

__all__ = ["LessonRun", "ROOT", "build_book", "lesson_notebooks", "run_lessons"]


def _resolver(site: Site, here: str, base: str, chapters: list[str],
              lessons: list[Lesson]) -> Resolve:
    """Where a markdown link written in directory `base` of the clone points from `here`:
    a module to its chapter page, a lesson to its page, a README section to the index."""
    stems = {lesson.stem for lesson in lessons}
    anchors = {"walkthroughs/README.md": "index.html", "README.md": "index.html"}

    def resolve(target: str) -> str:
        if "://" in target or target.startswith("mailto:"):
            return target
        path, _, fragment = target.partition("#")
        if not path:
            return target if here == "index.html" else site.page(here, "index.html") + target
        joined = posixpath.normpath(posixpath.join(base, path))
        path = joined if (site.root / joined).exists() or not (site.root / path).exists() else (
            posixpath.normpath(path))  # minipe/rotary.py named in a docstring: from the clone
        if path.startswith("minipe/") and path.endswith(".py"):
            name = module_name(site.root, site.root / path)
            if name in chapters:
                return site.page(here, chapter_page(name))
        if path.startswith("walkthroughs/") and Path(path).stem in stems:
            return site.page(here, lesson_page(Path(path).stem))
        if path == HELPER and (site.root / HELPER).exists():
            return site.page(here, HELPER_PAGE)
        if path in anchors and fragment in ("sources", "errata", "the-lessons"):
            return site.page(here, anchors[path]) + "#" + fragment
        if not (site.root / path).exists():
            return ""  # not a file of the clone: the text stays as written
        return site.file(here, path) + (f"#{fragment}" if fragment else "")

    return resolve


def _section(text: str, heading: str) -> str:
    """The markdown under `## heading`, up to the next `## `."""
    return text.partition(f"\n## {heading}\n")[2].partition("\n## ")[0]


def build_book(out: Path, runs: Mapping[str, LessonRun], root: Path = ROOT) -> list[Path]:
    """Write the book into `out` from the lessons' runs (by stem: "04_sinusoidal_by_hand");
    return the pages written, in order."""
    site = Site(root, out)
    chapters = chapter_order(root)
    lessons = [read_lesson(root, path) for path in lesson_paths(root)]
    missing = [lesson.stem for lesson in lessons if lesson.stem not in runs]
    if missing:
        raise ValueError(f"build_book needs a run of every lesson (by stem), but runs has "
                         f"none for {', '.join(missing)}: run_lessons() makes them")
    uses = {lesson.stem: lesson_chapters(root, root / lesson.path) for lesson in lessons}
    rows, mapped = chapter_rows(root), map_lessons(root)
    main = [name for name in chapters if not machinery(name)]
    tools = [name for name in chapters if machinery(name)]
    reading = ([(chapter_page(name), name) for name in main]  # "next" runs through all
               + [(lesson_page(lesson.stem), lesson.title) for lesson in lessons]
               + [(chapter_page(name), name) for name in tools])
    written: dict[str, str] = {"index.html": _index(site, main, tools, lessons)}
    for name in chapters:
        here = chapter_page(name)
        repo_path = module_path(root, name).relative_to(root).as_posix()
        resolve = _resolver(site, here, posixpath.dirname(repo_path), chapters, lessons)
        users = [lesson for lesson in lessons
                 if name in uses[lesson.stem] or lesson.stem in mapped.get(name, [])]
        used_by = ", ".join(f'<a href="{site.page(here, lesson_page(lesson.stem))}">'
                            f"{html.escape(lesson.title)}</a>" for lesson in users)
        part = (f"Appendix page {tools.index(name) + 1} of {len(tools)}, the machinery"
                if name in tools else f"Chapter page {main.index(name) + 1} of {len(main)}")
        face = name.rpartition(".")[0]  # a package's member: the package's page has the row
        place = ""
        if name in rows and face in rows and rows[face] == rows[name]:
            place = (f"<br><em>Part of chapter {html.escape(rows[name][0])}:</em> <a href=\""
                     f"{site.page(here, chapter_page(face))}\">{html.escape(face)}</a>")
        elif name in rows:
            number, teaches = rows[name]
            place = (f"<br><em>Chapter {html.escape(number)} of the map:</em> "
                     f"{inline(teaches.replace(BAR, '|'), resolve)}")
        heading = (f"<h1>{html.escape(repo_path).replace('/', '/<wbr>')}</h1>\n"
                   f"<p class=\"meta\">{part} · the file:"
                   f" <a href=\"{site.file(here, repo_path)}\">{html.escape(repo_path)}</a>"
                   f"{place}<br>Lessons about it: {used_by or 'none'}</p>")
        source = (root / repo_path).read_text(encoding="utf-8")
        members = tuple(f'<li><a href="{site.page(here, chapter_page(other))}">{other}</a></li>'
                        for other in chapters if other.startswith(name + "."))  # a package's
        body = chapter_body(site, here, repo_path, source, sections(source), heading,
                            resolve, members)
        written[here] = frame(f"{repo_path} · minipe", body, _around(site, here, reading))
    for at, lesson in enumerate(lessons):
        here = lesson_page(lesson.stem)
        resolve = _resolver(site, here, "walkthroughs", chapters, lessons)
        used = ", ".join(f'<a href="{site.page(here, chapter_page(name))}">{name}</a>'
                         for name in uses[lesson.stem])
        notebook = lesson.path.removesuffix(".py") + ".ipynb"
        linked = (f'<a href="{site.file(here, notebook)}">{notebook}</a>'
                  if (root / notebook).exists() else "none yet (book --notebooks writes it)")
        helper = (f' · and its helper, <a href="{site.page(here, HELPER_PAGE)}">lesson.py</a>'
                  if imports_helper(root, root / lesson.path) else "")
        heading = (f"<h1>{html.escape(lesson.title)}</h1>\n<p class=\"meta\">The script: "
                   f"<a href=\"{site.file(here, lesson.path)}\">{lesson.path}</a> (<a href="
                   f"\"{site.page(here, copy_path(lesson.path))}\">the file</a>) · as a "
                   f"notebook: {linked}<br>"
                   f"Chapters it uses: {used}{helper}</p>")
        outputs = cell_outputs(lesson, runs[lesson.stem])
        body = lesson_body(site, here, lesson, outputs, heading, resolve)
        written[here] = frame(f"{lesson.title} · minipe", body, _around(site, here, reading))
    if (root / HELPER).exists():
        written[HELPER_PAGE] = _helper(site, chapters, lessons)
    listed, copied = linked_files(written)
    for repo_path in listed:
        written[listing_page(repo_path)] = listing(site, repo_path, chapters, lessons)
    scripts = [lesson.path for lesson in lessons] + [HELPER] * (root / HELPER).exists()
    copied = sorted(set(copied) | {copy_path(path) for path in scripts})
    paths = []
    for page, text in written.items():  # each whole or not at all: OSError names the page
        paths.append(write_whole(out / page, text, folders=True))
    for page in copied:  # as they are: a reader downloads a lesson and runs it
        write_whole(out / page, (root / page.removeprefix("files/")).read_bytes(), folders=True)
    return paths


def machinery(name: str) -> bool:
    """Whether a module is the book's or the exercises' own machinery: an appendix of its own,
    after the chapters and the lessons."""
    return name.partition(".")[0] in ("book", "exercises")


def _around(site: Site, here: str, reading: list[tuple[str, str]]) -> str:
    """The navigation of a page in the reading order: chapters, lessons, the machinery."""
    at = [page for page, _ in reading].index(here)
    before = reading[at - 1] if at else None
    return navigation(site, here, before, reading[at + 1] if at + 1 < len(reading) else None)


def _helper(site: Site, chapters: list[str], lessons: list[Lesson]) -> str:
    """walkthroughs/lesson.py as a literate page: what every lesson imports first."""
    here = HELPER_PAGE
    resolve = _resolver(site, here, "walkthroughs", chapters, lessons)
    source = (site.root / HELPER).read_text(encoding="utf-8")
    users = [lesson for lesson in lessons if imports_helper(site.root, site.root / lesson.path)]
    heading = (f"<h1>{HELPER.replace('/', '/<wbr>')}</h1>\n<p class=\"meta\">The lessons' helper, "
               f"not a lesson · the file: <a href=\"{site.file(here, HELPER)}\">{HELPER}</a><br>"
               f"Imported first by {len(users)} of the {len(lessons)} lessons</p>")
    body = chapter_body(site, here, HELPER, source, sections(source), heading, resolve)
    first = (lesson_page(lessons[0].stem), lessons[0].title) if lessons else None
    return frame(f"{HELPER} · minipe", body, navigation(site, here, None, first))


def _index(site: Site, main: list[str], tools: list[str], lessons: list[Lesson]) -> str:
    """The contents: the chapter map, every module, the lessons, the sources, the errata,
    the machinery."""
    here = "index.html"
    chapters = main + tools
    readme = (site.root / "README.md").read_text(encoding="utf-8")
    walkthroughs = (site.root / "walkthroughs" / "README.md").read_text(encoding="utf-8")
    top = _resolver(site, here, "", chapters, lessons)
    inner = _resolver(site, here, "walkthroughs", chapters, lessons)
    intro = readme.partition("\n\n")[2].partition("\n\n")[0]
    modules, appendix = ("".join(f'<li><a href="{site.page(here, chapter_page(name))}">'
                                 f"{module_path(site.root, name).relative_to(site.root).as_posix()}"
                                 f"</a>: {inline(_first_line(site.root, name), top)}</li>"
                                 for name in names) for names in (main, tools))
    rows = "".join(f'<tr><td><a href="{site.page(here, lesson_page(lesson.stem))}">'
                   f"{html.escape(lesson.title)}</a></td><td>{html.escape(lesson.question)}"
                   "</td></tr>\n" for lesson in lessons)
    body = "\n".join([
        "<h1>minipe: the book</h1>",
        f'<p class="lead">{inline(" ".join(intro.split()), top)}</p>',
        "<p>Every chapter is a page of its source, with the docstrings and comments as prose "
        "above the lines they explain; every lesson is a page of its cells, each with what "
        "it prints and the figures it draws. Nothing here needs to be run.</p>",
        "<h2 id=\"chapters\">The chapters</h2>",
        blocks(_section(readme, "The chapters"), top),
        "<h3>Every module, in reading order</h3>",
        f'<ol class="modules">{modules}</ol>',
        "<h2 id=\"the-lessons\">The lessons</h2>",
        _helper_note(site, here),
        f"<table>\n<thead><tr><th>lesson</th><th>the question it answers</th></tr></thead>"
        f"\n<tbody>\n{rows}</tbody>\n</table>",
        "<h2 id=\"sources\">Sources</h2>",
        blocks(_section(walkthroughs, "Sources"), inner),
        "<h2 id=\"errata\">Errata</h2>",
        blocks(_section(walkthroughs, "Errata"), inner),
        "<h2 id=\"machinery\">Appendix: the machinery of the book and the exercises</h2>",
        "<p>How <code>python -m minipe book</code> writes these pages and <code>python -m "
        "minipe exercises</code> checks a learner's function: tools that stand on every "
        "chapter, read after the lessons.</p>",
        f'<ol class="modules">{appendix}</ol>',
    ])
    first = (chapter_page(chapters[0]), chapters[0]) if chapters else None
    nav = navigation(site, here, None, first)
    return frame("minipe: the book", body, nav)


def _helper_note(site: Site, here: str) -> str:
    """What the lessons import first, and which files of the clone have no page, and why."""
    helper = ""
    if (site.root / HELPER).exists():
        helper = (f'Each lesson imports <a href="{site.page(here, HELPER_PAGE)}">{HELPER}</a> '
                  "first: its command line (<code>--step</code>, <code>--svg</code>) and the "
                  "pause between stages. ")
    return (f"<p>{helper}Three parts of the clone have no page: the tests (<code>tests/</code>) "
            "and the benchmarks (<code>benchmarks/</code>) are read in the clone (the README "
            "says what they hold), and the exercises (<code>walkthroughs/exercises/"
            "</code>) are files to fill in, not to read: <code>python -m minipe exercises"
            "</code> lists and checks them (its code is on the pages of minipe/exercises/).</p>")


def _first_line(root: Path, name: str) -> str:
    """The first line of the module's docstring: what it is about."""
    tree = ast.parse(module_path(root, name).read_text(encoding="utf-8"))
    return (ast.get_docstring(tree) or "").partition("\n")[0]


def lesson_notebooks(runs: Mapping[str, LessonRun], root: Path = ROOT) -> dict[Path, str]:
    """Each lesson's notebook: its path (beside the script) and its text."""
    notebooks = {}
    for path in lesson_paths(root):
        if path.stem not in runs:
            raise ValueError(f"lesson_notebooks needs a run of {path.stem}: run_lessons() "
                             "makes one for every lesson")
        lesson = read_lesson(root, path)
        notebooks[path.with_suffix(".ipynb")] = notebook_text(lesson,
                                                              cell_outputs(lesson, runs[path.stem]))
    return notebooks
