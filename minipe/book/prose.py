"""Prose into HTML: the little markdown that minipe's READMEs, docstrings and comments use.

Blocks: paragraphs (separated by blank lines), indented lines kept as written
(formulas, examples, `>>>` sessions), `- ` lists, `|` tables and `#` headings.
Inline: `code`, [text](target), <https://...>, **bold**, *emphasis*. Everything else is
escaped, so a formula's `<` and `&` read as written. An indented block that reads as
a formula (a power, a root, a subscripted equation; not a command or a regex) is
also typeset with <sup> and <sub>, its plain text kept below it to copy.

A link's target goes through `resolve`, which says where it points from the
page being written (a page of the book, a file of the clone, or an address),
or '' if it leads nowhere: then the link stays text, as written.
"""

from __future__ import annotations

import html
import re
from typing import Callable

Resolve = Callable[[str], str]
# **bold** and *emphasis* start after a space or a mark and end before one, as markdown's
# flanking rule has it: the powers in 2**e <= |x| < 2**(e+1) are not a bold pair
INLINE = re.compile(r"`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)|<(https?://[^>\s]+)>"
                    r"|(?<![\w*])\*\*([^*\s](?:[^*]*[^*\s])?)\*\*(?![\w*])"
                    r"|(?<![\w*])\*([^*\s](?:[^*]*[^*\s])?)\*(?![\w*])")
NUMBERED = re.compile(r"\d+\. ")  # "2. Learned ...": a numbered point starts a paragraph,
ENDED = re.compile(r"[.:;!?)]\s*$")  # after a sentence; "16 and\n32. Does" is one sentence
CELL_BAR = re.compile(r"(?<!\\)\|")  # a table's column bar; `\|` is a bar inside a cell


def inline(text: str, resolve: Resolve, *, paths: bool = True) -> str:
    """One line or paragraph of markdown, as HTML. With `paths`, a file of the clone named
    in the prose (minipe/rotary.py, as text or as a whole `code` span) is a link to it."""
    out: list[str] = []
    at = 0
    for match in INLINE.finditer(text):
        out.append(_named(text[at:match.start()], resolve, paths))
        code, label, target, address, bold, emphasis = match.groups()
        href = resolve(code) if code is not None and paths and PATH.fullmatch(code) else ""
        if code is not None:
            shown = f'<code{NOBR * (len(code) <= 24)}>{html.escape(code, quote=False)}</code>'
            out.append(f'<a href="{html.escape(href)}">{shown}</a>' if href else shown)
        elif label is not None:
            href = resolve(target)
            out.append(f'<a href="{html.escape(href)}">{inline(label, resolve, paths=False)}'
                       "</a>" if href
                       else html.escape(match.group(0), quote=False))  # leads nowhere: text
        elif address is not None:
            out.append(f'<a href="{html.escape(address)}">{html.escape(address)}</a>')
        elif bold is not None:
            out.append(f"<strong>{inline(bold, resolve, paths=paths)}</strong>")
        else:
            out.append(f"<em>{inline(emphasis, resolve, paths=paths)}</em>")
        at = match.end()
    out.append(_named(text[at:], resolve, paths))
    return "".join(out)


PATH = re.compile(r"\b(?:minipe|walkthroughs|tests|benchmarks)/[\w/]*\w\.(?:py|md)\b")
NOBR = ' class="nobr"'  # a short span (`--step`) is never broken across two lines


def _named(text: str, resolve: Resolve, paths: bool) -> str:
    """Plain text, escaped; with `paths`, each file of the clone it names a link."""
    out, at = [], 0
    for match in PATH.finditer(text) if paths else ():
        href = resolve(match.group(0))
        if href:
            out += [_escaped(text[at:match.start()]),
                    f'<a href="{html.escape(href)}">{match.group(0)}</a>']
            at = match.end()
    return "".join(out) + _escaped(text[at:])


OPTION = re.compile(r"\[?--\w[\w-]*\]?")  # "[--step]": one word, never broken at its hyphens


def _escaped(text: str) -> str:
    """Plain text, escaped, each command-line option kept on one line."""
    return OPTION.sub(lambda found: f"<span{NOBR}>{found.group(0)}</span>",
                      html.escape(text, quote=False))


def blocks(text: str, resolve: Resolve) -> str:
    """A whole text (a README section, a docstring, a run of comments) as HTML blocks."""
    out: list[str] = []
    lines = text.strip("\n").split("\n")
    at = 0
    while at < len(lines):
        line = lines[at]
        end = at + 1
        if not line.strip():
            at += 1
            continue
        if line.startswith(">>> "):  # a doctest: to the blank line
            while end < len(lines) and lines[end].strip():
                end += 1
            kept = "\n".join(lines[at:end])
            out.append(f'<pre class="formula">{html.escape(kept, quote=False)}</pre>')
        elif line.startswith(("    ", "\t")):  # indented: kept as written
            while end < len(lines) and (lines[end].startswith(("    ", "\t"))
                                        or not lines[end].strip() and end + 1 < len(lines)
                                        and lines[end + 1].startswith("    ")):
                end += 1
            out.append(formula(_dedent("\n".join(lines[at:end]))))
        elif line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")) + 1, 4)
            out.append(f"<h{level}>{inline(line.lstrip('#').strip(), resolve)}</h{level}>")
        elif line.startswith("|"):
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            out.append(table(lines[at:end], resolve))
        elif line.startswith(("- ", "* ")):
            items: list[str] = []
            while end <= len(lines):
                item = [lines[end - 1][2:]]
                while end < len(lines) and lines[end].startswith("  ") and lines[end].strip():
                    item.append(lines[end].strip())
                    end += 1
                items.append(f"<li>{inline(' '.join(item), resolve)}</li>")
                if end < len(lines) and lines[end].startswith(("- ", "* ")):
                    end += 1
                else:
                    break
            out.append("<ul>" + "".join(items) + "</ul>")
        else:
            while (end < len(lines) and lines[end].strip()
                   and not (NUMBERED.match(lines[end]) and ENDED.search(lines[end - 1]))
                   and not lines[end].startswith(("    ", "|", "- ", "* ", ">>> "))):
                end += 1
            paragraph = " ".join(part.strip() for part in lines[at:end])
            if any("  " in part.strip() for part in lines[at:end]):  # aligned: a formula
                kept = html.escape("\n".join(lines[at:end]), quote=False)
                out.append(f'<pre class="formula">{kept}</pre>')
            else:
                out.append(f"<p>{inline(paragraph, resolve)}</p>")
        at = end
    return "\n".join(out)


MATH = re.compile(r"\*\*|\^|sqrt\(|\btheta|\bsum_|softmax\(|\bexp\(|\bsin\(|\bcos\(")
COMMAND = re.compile(r"^\s*(python|>>>|\$|from |import |<)|\\", re.M)  # code, not math
GREEK = {"theta": "θ", "pi": "π", "beta": "β", "gamma": "γ", "alpha": "α", "lambda": "λ"}
WORD = r"(?:[A-Za-z]|theta|beta|gamma|alpha|lambda)"  # a symbol that takes a subscript
SUBSCRIPT = re.compile(rf"\b({WORD})_(\{{[^{{}}]*\}}|[a-z0-9]{{1,2}}\b)")
POWER = re.compile(r"(\*\*|\^)(-?[\w.']+)")  # base**2, K^T; a bracketed power is read below


def formula(text: str) -> str:
    """An indented block as written; one that reads as a formula also typeset, with HTML's
    <sup> and <sub>: base**(2i / d) -> base<sup>2i / d</sup>, theta_i -> θ<sub>i</sub>,
    sqrt(d_k) -> √ over d<sub>k</sub>. The plain text stays below it, to copy."""
    plain = f'<pre class="formula">{html.escape(text, quote=False)}</pre>'
    math = MATH.search(text) or " = " in text and SUBSCRIPT.search(text)  # M_k PE(pos)
    if not math or COMMAND.search(text):
        return plain
    lines = "lines" if "\n" in text.strip() else "line"  # several: aligned, in monospace
    return (f'<div class="math {lines}" role="math" aria-label="{html.escape(" ".join(text.split()))}">'
            f"{typeset(text)}</div>\n<details class=\"plain\"><summary>as plain text"
            f"</summary>{plain}</details>")


def typeset(text: str) -> str:
    """A formula's text as HTML (see formula())."""
    out = html.escape(text, quote=False)
    out = _bracketed(out, ("**(", "^("), "<sup>", "</sup>")
    out = _bracketed(out, ("sqrt(",), '√<span class="radicand">', "</span>")
    out = POWER.sub(r"<sup>\2</sup>", out)
    out = re.sub(r"\bsum_(\w)\b", r"∑<sub>\1</sub>", out)
    out = SUBSCRIPT.sub(lambda found: f"{found.group(1)}<sub>{found.group(2).strip('{}')}</sub>",
                        out)
    out = re.sub(r"\b(theta|beta|gamma|alpha|lambda|pi)(?=\b|\d|<)",
                 lambda found: GREEK[found.group(1)], out)
    for ascii_text, sign in (("&lt;=", "≤"), ("&gt;=", "≥"), ("-&gt;", "→"), ("!=", "≠"),
                             (" * ", " · "), ("2*π", "2π"), ("-inf", "−∞"),
                             (" - ", " − "), (" . ", " · ")):
        out = out.replace(ascii_text, sign)
    return out


def _bracketed(text: str, openers: tuple[str, ...], before: str, after: str) -> str:
    """Each `opener(...)` (brackets balanced) as before + what is inside + after."""
    for opener in openers:
        at = text.find(opener)
        while at >= 0:
            depth, end = 1, at + len(opener)
            while end < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            if depth:
                break  # unbalanced: left as written
            inner = text[at + len(opener):end - 1]
            text = text[:at] + before + inner + after + text[end:]
            at = text.find(opener, at)
    return text


def table(rows: list[str], resolve: Resolve) -> str:
    """A markdown table (header, `---` row, body) as an HTML table. Each cell carries its
    column's name (data-label), which a narrow screen shows when it stacks the cells."""
    def cells(row: str) -> list[str]:
        parts = CELL_BAR.split(row.strip().strip("|"))
        return [part.strip().replace("\\|", "|") for part in parts]

    names = cells(rows[0])
    head = "".join(f"<th>{inline(cell, resolve)}</th>" for cell in names)
    labels = [html.escape(re.sub(r"[`*]", "", name), quote=True) for name in names]
    body = []
    for row in rows[2:]:
        values = cells(row)
        named = zip(labels + [""] * (len(values) - len(labels)), values)  # a label per cell
        body.append("<tr>" + "".join(f'<td data-label="{label}">{inline(cell, resolve)}</td>'
                                     for label, cell in named) + "</tr>")
    return (f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(body)
            + "\n</tbody>\n</table>")


def _dedent(text: str) -> str:
    """The lines with their common indentation taken away."""
    lines = text.split("\n")
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return "\n".join(line[indent:] for line in lines).rstrip()
