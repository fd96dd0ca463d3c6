"""The book's pages: one frame (style, navigation) around a chapter, a lesson or the index.

Every page is a plain HTML file with its style inside it: it opens from the
file system, prints cleanly, and loads nothing from anywhere. Every link is
relative and stays inside the book's folder: to its other pages, to a Python
file's listing (source/PATH.html, where a line number opens its line) and to the
copies of the files it offers whole (files/PATH: the lessons' scripts and
notebooks). Copied, zipped or served anywhere, the book keeps working, and the
folder the clone sits in changes no byte.
"""

from __future__ import annotations

import ast
import html
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from minipe.book.prose import Resolve, blocks, inline
from minipe.book.literate import Section, defined_name, highlight, literate_prose
from minipe.book.runs import Part
from minipe.book.sources import HELPER, Lesson, module_name

STYLE = """
:root { --ink: #1f1d1a; --muted: #6b665e; --rule: #e3ded3; --paper: #fffefb;
  --code: #f5f3ee; --accent: #8c2f14; }
html { background: var(--paper); }
body { margin: 0; color: var(--ink); font: 17px/1.6 "Iowan Old Style", "Palatino Linotype",
  Palatino, "Book Antiqua", Georgia, "DejaVu Serif", serif; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
p, ul, ol, .lead { max-width: 40em; }
.meta { max-width: none; }
p, li, td, .meta { overflow-wrap: break-word; }  /* a long path or name breaks, not the page */
p code, li code, td code { overflow-wrap: break-word; } .nobr { white-space: nowrap; }
h1 { font-size: 2rem; line-height: 1.2; margin: 1.2rem 0 .4rem; }
h1, h2, h3 { overflow-wrap: break-word; }  /* a path breaks after a / (<wbr>) */
h2 { font-size: 1.35rem; margin: 2.2rem 0 .6rem; border-bottom: 1px solid var(--rule); }
h3 { font-size: 1.1rem; margin: 1.6rem 0 .4rem; }
a { color: var(--accent); }
.meta { color: var(--muted); font-size: .92rem; }
code, pre { font-family: ui-monospace, "SF Mono", "DejaVu Sans Mono", Menlo, Consolas,
  monospace; font-size: 13px; }
p code, li code, td code { background: var(--code); padding: 0 .2em; border-radius: 3px; }
pre { line-height: 1.45; overflow-x: auto; margin: .6rem 0 1rem; }
pre.code { background: var(--code); padding: .6rem .9rem; border-radius: 4px; }
pre.formula { padding: .2rem 1rem; border-left: 3px solid var(--rule); }
.math { margin: .6rem 0 .1rem; padding: .2rem 1rem; border-left: 3px solid var(--rule);
  white-space: pre-wrap; overflow-wrap: anywhere; font: 1.1rem/1.7 "STIX Two Math",
  "Cambria Math", "Latin Modern Math", "DejaVu Serif", serif; }
.math.lines { font: 14px/1.8 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
  white-space: pre; overflow-x: auto; }  /* aligned columns: scrolled sideways, not wrapped */
.math sup, .math sub { font-size: .75em; line-height: 0; }
.radicand { border-top: 1px solid; padding-top: .1em; }
details.plain { margin: 0 0 1rem; font-size: .8rem; color: var(--muted); }
details.plain pre { margin: .2rem 0; color: var(--ink); }
pre.output { padding: .5rem .9rem; border: 1px solid var(--rule); border-radius: 4px;
  background: #fff; }
.output-label { color: var(--muted); font-size: .8rem; margin: -.4rem 0 -.5rem;
  font-style: italic; }
.ln { display: inline-block; width: 3.5ch; margin-right: 1.5ch; text-align: right;
  color: #a9a396; text-decoration: none; user-select: none; }
.ln:hover { color: var(--accent); }
.k { color: #6f2c91; } .s { color: #2b6a35; } .c { color: #8a6a2f; font-style: italic; }
.n { color: #9c3b12; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; }
figcaption .file { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .75rem; }
figcaption { color: var(--muted); font-size: .85rem; }
table { border-collapse: collapse; font-size: .92rem; margin: 1rem 0; }
th, td { text-align: left; vertical-align: top; padding: .35rem .6rem;
  border-bottom: 1px solid var(--rule); }
nav { max-width: 60rem; margin: 0 auto; padding: .6rem 1.5rem; display: flex;
  justify-content: space-between; flex-wrap: wrap; gap: 0 1rem; font-size: .9rem;
  color: var(--muted); }
nav.top { border-bottom: 1px solid var(--rule); } nav.bottom { border-top: 1px solid var(--rule); }
section.literate { margin: 1.4rem 0; }
h3.name { margin: 2rem 0 .3rem; font-size: 1rem; }
h3.name code { font-size: 15px; color: var(--accent); }
ol.contents { font-size: .95rem; color: var(--muted); margin: 1rem 0 1.5rem; }
ol.toc { list-style: none; padding: 0; columns: 2 18rem; } ol.toc li { break-inside: avoid; }
ol.toc li.part { font-weight: 600; margin-top: .3rem; } ol.toc code { font-size: 12px; }
@media (max-width: 44rem) {  /* a phone: less margin, code edge to edge, tables stacked */
  body { font-size: 16px; }
  main { padding: .6rem .9rem 2rem; } nav { padding: .5rem .9rem; font-size: .85rem; }
  h1 { font-size: 1.6rem; } h2 { font-size: 1.2rem; }
  code, pre { font-size: 12px; }
  pre.code, pre.output { margin-left: -.9rem; margin-right: -.9rem; border-radius: 0; }
  pre.output { border-left: 0; border-right: 0; }
  pre.formula, .math { padding: .2rem .6rem; }
  figure { overflow-x: auto; } figure svg { min-width: 600px; }  /* labels stay 9 px or more */
  .math.lines { font-size: 12px; white-space: pre-wrap; }  /* wrapped rather than cut */
  table, tbody, tr, td { display: block; } thead { display: none; }
  tr { border-bottom: 1px solid var(--rule); padding: .5rem 0; }
  td { border: 0; padding: .1rem 0; }
  td[data-label]:not([data-label=""])::before { content: attr(data-label) ": ";
    color: var(--muted); font-style: italic; }
  td:first-child { font-weight: 600; } td:first-child::before { content: none !important; }
}
@media print {
  html, body { background: #fff; } nav { display: none; } body { font-size: 11pt; }
  main { max-width: none; padding: 0; } a { color: inherit; text-decoration: none; }
  pre { white-space: pre-wrap; } figure { break-inside: avoid; } h2 { break-after: avoid; }
  pre.code .line { display: block; padding-left: 5ch; text-indent: -5ch; }
  .ln { width: 3.5ch; margin-right: 1.5ch; text-indent: 0; }
  details.plain { display: none; } .math.lines { white-space: pre-wrap; }
}
"""


@dataclass(frozen=True)
class Site:
    """Where the book is written (`out`) and the clone it is about (`root`)."""

    root: Path
    out: Path

    def page(self, from_page: str, to_page: str) -> str:
        """The relative link from one page of the book to another (paths inside the book)."""
        return posixpath.relpath(to_page, posixpath.dirname(from_page) or ".")

    def file(self, from_page: str, repo_path: str) -> str:
        """The relative link from a page to a file of the clone, inside the book: a Python
        file's listing (a line per anchor, `#L12`), any other file's copy."""
        inside = listing_page(repo_path) if repo_path.endswith(".py") else copy_path(repo_path)
        return self.page(from_page, inside)


def listing_page(repo_path: str) -> str:
    """Where a Python file of the clone is listed whole: source/minipe/rotary.py.html."""
    return f"source/{repo_path}.html"


def copy_path(repo_path: str) -> str:
    """Where a file of the clone is copied as it is: files/walkthroughs/01_text_to_ids.ipynb."""
    return f"files/{repo_path}"


def chapter_page(name: str) -> str:
    return f"chapters/{name}.html"


def lesson_page(stem: str) -> str:
    return f"lessons/{stem}.html"


HELPER_PAGE = lesson_page("lesson")  # walkthroughs/lesson.py, beside the lessons' pages


def frame(title: str, body: str, nav: str) -> str:
    """A whole page: its title, the navigation above and below, and the body."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            f"<nav class=\"top\">{nav}</nav>\n<main>\n{body}\n</main>\n"
            f"<nav class=\"bottom\">{nav}</nav>\n</body>\n</html>\n")


def navigation(site: Site, here: str, previous: tuple[str, str] | None,
               following: tuple[str, str] | None) -> str:
    """Previous, up (the contents) and next, each a (page, label) pair or None."""
    def link(pair: tuple[str, str] | None, arrow: str) -> str:
        if pair is None:
            return "<span></span>"
        page, label = pair
        label = html.escape(label)
        text = f"{arrow} {label}" if arrow == "←" else f"{label} {arrow}"
        return f'<a href="{site.page(here, page)}">{text}</a>'

    up = ('<span></span>' if here == "index.html"  # the contents: no link to itself
          else f'<a href="{site.page(here, "index.html")}">↑ contents</a>')
    return link(previous, "←") + up + link(following, "→")


def code_block(site: Site, here: str, repo_path: str, html_lines: list[str],
               numbers: tuple[int, ...], texts: dict[int, str] | None = None) -> str:
    """The lines `numbers` of a file, each with its number linking to it in the file.

    `texts` replaces a line's HTML (a lesson's dedented cell) where given."""
    target = site.file(here, repo_path)
    rows = []
    previous = None
    for number in numbers:
        if previous is not None and number > previous + 1 and texts is None:
            rows.append('<span class="ln gap">…</span>')  # lines moved into the prose above
        line = html_lines[number - 1] if texts is None else texts[number]
        rows.append(f'<a class="ln" id="L{number}" href="{target}#L{number}">{number}</a>{line}')
        previous = number
    return '<pre class="code">' + _lines(rows) + "</pre>"


def listing_body(site: Site, here: str, repo_path: str, source: str, heading: str) -> str:
    """A file's every line, each number its own anchor (`#L12`) and a link to itself."""
    lines = highlight(source.removesuffix("\n"))
    numbered = [f'<a class="ln" id="L{number}" href="#L{number}">{number}</a>{line}'
                for number, line in enumerate(lines, 1)]
    return heading + '\n<pre class="code listing">' + _lines(numbered) + "</pre>"


def _lines(rows: list[str]) -> str:
    """Code lines, each a span holding its newline: printed, a long line wraps under its own
    text, not under the line numbers (see the print style)."""
    return "".join(f'<span class="line">{row}\n</span>' for row in rows)


HREF = re.compile(r'href="([^"#:]+)')  # a relative link's path (an address has a ':')


def linked_files(written: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """The clone's files the pages link: those listed (source/PATH.html, by PATH) and
    those copied (files/PATH, by that page), each once, in order."""
    targets = sorted({posixpath.normpath(posixpath.join(posixpath.dirname(page), href))
                      for page, text in written.items() for href in HREF.findall(text)})
    listed = [target.removeprefix("source/").removesuffix(".html") for target in targets
              if target.startswith("source/")]
    return listed, [target for target in targets if target.startswith("files/")]


def listing(site: Site, repo_path: str, chapters: list[str], lessons: list[Lesson]) -> str:
    """A Python file of the clone, whole, with its literate page and its copy linked."""
    here = listing_page(repo_path)
    name = module_name(site.root, site.root / repo_path) if repo_path.startswith(
        "minipe/") else ""
    stems = {lesson.stem for lesson in lessons}
    stem = Path(repo_path).stem
    read = (chapter_page(name) if name in chapters else lesson_page(stem) if stem in stems
            else HELPER_PAGE if repo_path == HELPER else "")
    words = (f' · read as a page of the book: <a href="{site.page(here, read)}">'
             f"{html.escape(repo_path)}</a>" if read else "")
    heading = (f"<h1>{html.escape(repo_path).replace('/', '/<wbr>')}</h1>\n"
               f"<p class=\"meta\">The file as it is in "
               f"the clone, every line numbered{words}</p>")
    source = (site.root / repo_path).read_text(encoding="utf-8")
    body = listing_body(site, here, repo_path, source, heading)
    back = (read, Path(repo_path).name) if read else None
    return frame(f"{repo_path} · minipe", body, navigation(site, here, back, None))


def chapter_body(site: Site, here: str, repo_path: str, source: str, sections: list[Section],
                 heading: str, resolve: Resolve, members: tuple[str, ...] = ()) -> str:
    """A module's page: the heading, its contents (a package's `members`, as <li> items;
    the headings, and the public functions and classes, each an anchor), then each
    section's prose above its code; a section that opens a function or class is named
    above its prose, as its code will be."""
    lines = highlight(source)
    source_lines = source.split("\n")
    parts, contents, taken = [heading], list[tuple[float, str]](), set[str]()
    last = 0.5  # a heading with no code of its own stands after the code before it
    for node in ast.parse(source).body:  # each public def and class, by its line's anchor
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            contents.append((node.lineno, f'<li><a href="#L{node.lineno}"><code>{node.name}'
                                          "</code></a></li>"))
    for section in sections:
        text = literate_prose(section.prose, resolve) if section.prose.strip() else ""
        name = defined_name(source_lines, section.lines)
        if text.startswith("<h2>"):  # a comment between rules: a heading of the page
            key = _anchor(re.sub(r"<[^>]+>", "", text), taken)
            text = f'<h2 id="{key}">{text[4:]}'
            contents.append((section.lines[0] if section.lines else last, f'<li class="part">'
                             f'<a href="#{key}">{text[text.index(">") + 1:-5]}</a></li>'))
        key = _anchor(name, taken) if name else ""
        if name and text:
            text = f'<h3 class="name"><code>{html.escape(name)}</code></h3>\n{text}'
        if name:  # its section is its anchor (the line's stays the first part's)
            contents = [(line, item.replace(f'"#L{line}"', f'"#{key}"', 1)
                         if item.endswith(f"<code>{name}</code></a></li>") else item)
                        for line, item in contents]
        code = code_block(site, here, repo_path, lines, section.lines) if section.lines else ""
        anchor = f' id="{key}"' if key else ""
        last = section.lines[-1] + 0.5 if section.lines else last
        parts.append(f'<section class="literate"{anchor}>\n{text}\n{code}\n</section>')
    items = list(members) + [item for _, item in sorted(contents)]
    if items:
        parts.insert(1, f'<ol class="contents toc">{"".join(items)}</ol>')
    return "\n".join(parts)


def _anchor(title: str, taken: set[str]) -> str:
    """An id for a heading, unlike any other on the page (line anchors are L1, L2, ...)."""
    slug = re.sub(r"[^A-Za-z0-9_]+", "-", title).strip("-") or "section"
    key, count = slug, 1
    while key in taken or re.fullmatch(r"L\d+|cell-\d+", key):
        count += 1
        key = f"{slug}-{count}"
    taken.add(key)
    return key


def figure(name: str, svg: str) -> str:
    """An SVG drawn by a lesson, inline; its ids prefixed by its file name, so that two
    figures on one page never share an id, and so is every reference to them (a fill's
    `url(#masked)`, an `href="#scale"`), so that colour bars and hatching still find theirs."""
    prefix = re.sub(r"[^A-Za-z0-9]+", "-", Path(name).stem)
    svg = re.sub(r"^<\?xml[^>]*\?>\s*", "", svg.strip())
    svg = re.sub(r'\bid="', f'id="{prefix}-', svg)
    svg = re.sub(r"url\(#", f"url(#{prefix}-", svg)
    svg = re.sub(r'\bhref="#', f'href="#{prefix}-', svg)
    title = re.search(r"<text[^>]*>([^<]*)</text>", svg)  # the figure's own title, first
    words = html.escape(html.unescape(title.group(1)), quote=False) + " " if title else ""
    return (f"<figure>\n{svg}\n<figcaption>{words}<span class=\"file\">({html.escape(name)})"
            "</span></figcaption>\n</figure>")


def lesson_body(site: Site, here: str, lesson: Lesson, outputs: list[list[Part]],
                heading: str, resolve: Resolve) -> str:
    """A lesson's page: its docstring, then each cell's code, what it printed, its figures."""
    source = (site.root / lesson.path).read_text(encoding="utf-8")
    lines = highlight(source)
    intro = lesson.doc.partition("\n")[2]
    contents = "".join(f'<li><a href="#cell-{at}">{inline(cell.title, resolve)}</a></li>'
                       for at, cell in enumerate(lesson.cells) if cell.title)
    parts = [heading, blocks(intro, resolve), f'<ol class="contents">{contents}</ol>']
    for at, (cell, output) in enumerate(zip(lesson.cells, outputs)):
        if cell.title:
            parts.append(f'<h2 id="cell-{at}">{at}. {inline(cell.title, resolve)}</h2>')
        cell_html = highlight(cell.code)
        texts = {number: cell_html[at] for at, (number, _) in enumerate(cell.lines)}
        numbers = tuple(number for number, _ in cell.lines)
        parts.append(code_block(site, here, lesson.path, lines, numbers, texts))
        for part in output:
            if part.figure:
                parts.append(figure(part.figure, part.text))
            else:
                parts.append('<p class="output-label">prints</p>\n<pre class="output">'
                             + html.escape(part.text.strip("\n"), quote=False) + "</pre>")
    return "\n".join(parts)
