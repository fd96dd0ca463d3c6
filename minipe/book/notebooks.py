"""Each lesson as a Jupyter notebook (nbformat 4.5), written with `json`, outputs and all.

The notebook sits beside its script, walkthroughs/NN_topic.ipynb, so that
`from lesson import Lesson` finds lesson.py in the notebook's own directory, as
the script does. Its cells are the script's cells as Jupyter runs them:

- a markdown cell with the lesson's title and docstring;
- the first code cell sets `__doc__` to the script's docstring, as written (a
  notebook has no module docstring, and `Lesson(__doc__)` prints its title),
  then makes the script's imports;
- for each `# %% title` cell, a markdown heading and the code, with the
  `if __name__ == "__main__":` line left out and its block dedented (Jupyter
  runs every cell as `__main__`).

Each code cell's stored outputs are what the script printed in that cell, and
the figures it drew under `--svg`, as SVG. Run in Jupyter (no `--svg`), a cell
prints the same text, figure lines aside. Nothing in a notebook depends on the
day or the machine: the same lesson gives the same bytes.
"""

from __future__ import annotations

import json

from minipe.book.runs import Part
from minipe.book.sources import Lesson

KERNEL = {"display_name": "Python 3", "language": "python", "name": "python3"}
WRITTEN_BY = ("*This notebook is written by `python -m minipe book --notebooks` from "
              "[{name}]({name}), with what it prints: edit the script, not the notebook.*")


def _lines(text: str) -> list[str]:
    """A text as nbformat stores it: a list of lines, each but the last ending in a newline."""
    return text.splitlines(keepends=True)


def _markdown(number: int, text: str) -> dict[str, object]:
    return {"cell_type": "markdown", "id": f"cell-{number}", "metadata": {},
            "source": _lines(text)}


def _code(number: int, count: int, code: str, outputs: list[Part]) -> dict[str, object]:
    stored: list[dict[str, object]] = []
    for part in outputs:
        if part.figure:
            stored.append({"output_type": "display_data", "metadata": {},
                           "data": {"image/svg+xml": part.text,  # one string: smaller
                                    "text/plain": [f"<figure {part.figure}>"]}})
        elif stored and stored[-1]["output_type"] == "stream":
            stored[-1]["text"] = _lines("".join(stored[-1]["text"]) + part.text)  # type: ignore
        else:
            stored.append({"output_type": "stream", "name": "stdout",
                           "text": _lines(part.text)})
    return {"cell_type": "code", "execution_count": count, "id": f"cell-{number}",
            "metadata": {}, "outputs": stored, "source": _lines(code.rstrip("\n"))}


def notebook(lesson: Lesson, outputs: list[list[Part]]) -> dict[str, object]:
    """The lesson's notebook, as the dict that json writes."""
    name = lesson.path.rpartition("/")[2]
    title, _, rest = lesson.doc.partition("\n")
    intro = f"# {title}\n{rest}\n\n{WRITTEN_BY.format(name=name)}"
    cells: list[dict[str, object]] = [_markdown(0, intro)]
    count = 0
    for cell, output in zip(lesson.cells, outputs):
        if cell.title:
            cells.append(_markdown(len(cells), f"## {cell.title}"))
        code = cell.code
        if not cell.title:  # the first cell: the docstring, then the imports
            code = (f"__doc__ = {lesson.doc_source}  # Lesson(__doc__) prints its first line"
                    f"\n\n{code}")
        count += 1
        cells.append(_code(len(cells), count, code, output))
    return {"cells": cells, "metadata": {"kernelspec": KERNEL,
                                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def notebook_text(lesson: Lesson, outputs: list[list[Part]]) -> str:
    """The notebook file's text: sorted keys, one space of indent, as Jupyter writes it."""
    return json.dumps(notebook(lesson, outputs), indent=1, sort_keys=True,
                      ensure_ascii=False) + "\n"
