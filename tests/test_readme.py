"""What the READMEs tell a learner to type works as written (issue 10, item 9).

The pdb recipe runs literally, fed to pdb on stdin; `python -m minipe | head`
ends quietly; both READMEs name the lessons that draw, read from the lessons
themselves; and figures land where git ignores them unless the learner says
where. The README's chapter map is the package face's (minipe/__init__.py), row
for row, and what the Quick start shows is what the command prints.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from commands import minipe

import minipe as package

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
INDEX = (ROOT / "walkthroughs" / "README.md").read_text()
LESSONS = sorted((ROOT / "walkthroughs").glob("[0-9][0-9]_*.py"))


def _pdb_recipe(command: str) -> list[str]:
    """The `(Pdb) ...` lines that follow `    command` in the README, comments cut off."""
    assert README.count(f"    {command}\n") == 1, command
    block = README.split(f"    {command}\n", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^ {4}\(Pdb\) (.+?)(?:\s+#.*)?$", block, flags=re.MULTILINE)


def _run_pdb(command: str, commands: list[str]) -> subprocess.CompletedProcess[str]:
    """`command` (python -m pdb -m ...) run from the clone, fed the recipe on stdin."""
    arguments = command.split()[1:]  # after "python"
    return subprocess.run([sys.executable, *arguments], cwd=ROOT,
                          input="\n".join([*commands, "quit", ""]), capture_output=True,
                          text=True, timeout=60)


def test_the_pdb_recipe_runs_as_written() -> None:
    commands = _pdb_recipe("python -m pdb -m minipe")
    assert commands[-1] == "p token_ids", commands  # the recipe ends by printing a stage
    done = _run_pdb("python -m pdb -m minipe", commands)
    assert "***" not in done.stdout, done.stdout  # pdb marks every failed command so
    assert "Error" not in done.stdout + done.stderr, done.stdout
    # "The cat sat on the mat": vocabulary cat 0, mat 1, on 2, sat 3, the 4 (sorted)
    assert "[4, 0, 3, 2, 4, 1]" in done.stdout
    assert "'The cat sat on the mat'" in done.stdout  # `p text`


@pytest.mark.skipif(sys.version_info[:3] == (3, 13, 0),
                    reason="CPython 3.13.0's pdb refuses a module's own arguments "
                           "(python/cpython#125115, fixed in 3.13.1)")
def test_the_pdb_recipe_for_one_backward_step_runs_as_written() -> None:
    command = "python -m pdb -m minipe train --steps 1"
    commands = _pdb_recipe(command)
    assert commands[:3] == ["import minipe.training.gradients",
                            "b minipe.training.gradients.softmax_backward", "c"], commands
    done = _run_pdb(command, commands)
    assert "***" not in done.stdout, done.stdout  # no command failed
    assert "Error" not in done.stdout + done.stderr, done.stdout
    assert "gradients.py(" in done.stdout and "softmax_backward()" in done.stdout  # it stopped
    for frame in ("lab.py(", "train()", "model.py(", "loss_and_gradients()", "backprop()",
                  "passes.py(", "backward()", "heads.py(", "attend_backward()"):  # `w`'s chain
        assert frame in done.stdout, frame
    # the command's defaults: T = 8, causal. Query 0's causal row of weights is [1, 0, ...,
    # 0], and ds_j = w_j (dw_j - w_0 dw_0) is 1 (dw_0 - dw_0) = 0 for j = 0 and 0 x ... else
    assert "((8, 8), (8, 8))" in done.stdout
    assert "[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]" in done.stdout
    assert "[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]" in done.stdout


def test_a_pipe_closed_early_ends_quietly() -> None:
    # Like `python -m minipe | head -0`: the reader goes away before minipe writes, so
    # every write meets a closed pipe (EPIPE) - without the fix, a BrokenPipeError trace.
    process = subprocess.Popen([sys.executable, "-m", "minipe"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    errors = process.stderr.read()
    process.stderr.close()
    assert process.wait(timeout=60) == 1  # as Python's documentation advises for EPIPE
    assert errors == b""


def _drawing_lessons() -> list[str]:
    """The two-digit numbers of the lessons that call lesson.save_figure."""
    return [path.name[:2] for path in LESSONS if "lesson.save_figure(" in path.read_text()]


def test_both_readmes_name_the_lessons_that_draw() -> None:
    drawing = _drawing_lessons()
    assert len(drawing) >= 5, drawing
    # walkthroughs/README.md: "With `--svg`, lessons 03, 04, ... and 12 also write"
    sentence = re.search(r"With `--svg`, lessons ([\d, and]+?) also write", INDEX)
    assert sentence, "walkthroughs/README.md lost its sentence on --svg"
    assert re.findall(r"\d\d", sentence.group(1)) == drawing
    # README.md: the chapter table's row for minipe/plot/ links each drawing lesson
    row = next(line for line in README.splitlines() if "| [`minipe/plot/`]" in line)
    cell = row.split("|")[-2]
    assert re.findall(r"\[(\d\d)\]\(walkthroughs/\1_", cell) == drawing


def _suggested_svg_dirs() -> list[str]:
    """Every `... .py --svg DIR` the READMEs and lesson.py suggest (a path, not 'DIR')."""
    texts = README + INDEX + (ROOT / "walkthroughs" / "lesson.py").read_text()
    commands = re.findall(r"\.py\b[^\n`]*?--svg ([\w./-]+)", texts)  # on a command's line
    return [found for found in commands if found != "DIR"]


def test_figures_land_where_git_ignores_them_unless_the_learner_says(tmp_path: Path) -> None:
    assert _suggested_svg_dirs() == []  # the READMEs suggest bare `--svg` ...
    lesson = ROOT / "walkthroughs" / "08_binary_vs_sinusoidal.py"
    done = subprocess.run([sys.executable, str(lesson), "--svg"], cwd=tmp_path,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    written = re.findall(r"\[figure written: (.+)\]", done.stdout)
    default = ROOT / "build" / "figures" / "neighbour_distances.svg"
    assert written == [str(default)]  # ... which draws into the clone's build/figures/
    assert default.exists()
    assert "build/" in (ROOT / ".gitignore").read_text().splitlines()
    if shutil.which("git") and (ROOT / ".git").exists():
        ignored = subprocess.run(["git", "check-ignore", "-q", str(default)], cwd=ROOT)
        assert ignored.returncode == 0, f"git does not ignore {default}"
    # and `--svg DIR` draws where the learner says
    chosen = tmp_path / "mine"
    done = subprocess.run([sys.executable, str(lesson), "--svg", str(chosen)], cwd=ROOT,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert [path.name for path in chosen.iterdir()] == ["neighbour_distances.svg"]



@pytest.mark.parametrize("name", ["README.md", "walkthroughs/README.md"])
def test_no_readme_points_outside_the_repository(name: str) -> None:
    readme = ROOT / name
    text = readme.read_text()
    assert "shared/lectures" not in text  # the lecture notes are not in a clone
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text)  # [...](path), not http: links
    paths = re.findall(r"`(\.\./[^`]*)`", text)  # and `../...` in code spans
    assert links, name
    for target in links + paths:
        resolved = (readme.parent / target).resolve()
        assert resolved.is_relative_to(ROOT), f"{name} points outside the clone: {target}"
        assert resolved.exists(), f"{name} links {target}, which does not exist"


def _sources() -> list[str]:
    """The short names the Sources table of walkthroughs/README.md defines, in order."""
    section = INDEX.split("\n## Sources\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| (lecture \d{3}) \|", section, flags=re.MULTILINE)


def test_the_sources_table_defines_every_lecture_a_lesson_cites() -> None:
    assert _sources() == [f"lecture {n:03}" for n in range(5)]
    cited: set[str] = set()
    for path in LESSONS:
        source = path.read_text()
        # "lecture 003", "Lectures 001 and 002", "lectures 000 and 004", "Lectures 001-004"
        for group in re.findall(r"[Ll]ectures? (\d{3}(?:(?:, | and |-)\d{3})*)", source):
            cited.update(f"lecture {n}" for n in re.findall(r"\d{3}", group))
    assert cited and cited <= set(_sources()), cited - set(_sources())


@pytest.mark.parametrize("path", LESSONS, ids=[path.stem for path in LESSONS])
def test_each_lesson_says_which_claim_it_checks(path: Path) -> None:
    docstring = path.read_text().split('"""')[1]
    claim = re.search(r"Claim checked \(lectures? [^)]+\): (.+?)\n\n", docstring, re.DOTALL)
    assert claim, f"{path.name}: say in the docstring which claim the lesson checks"
    assert len(claim.group(1).split()) >= 8  # a sentence, not a label


def _face_map() -> list[tuple[str, list[str]]]:
    """The chapter map of minipe/__init__.py's docstring: (number, files) per chapter.

    A line `    7  context.py    ...` opens chapter 7; `       wavelengths.py  ...` under it
    adds a file to it; `    A, B arrays/  ...` is the appendices'."""
    docstring = package.__doc__ or ""
    chapters: list[tuple[str, list[str]]] = []
    for number, name in re.findall(r"^ {4}(\d+[a-z]?|[A-Z](?:, [A-Z])*)?\s+"  # 7, 1b, A, B
                                   r"([a-z_]+(?:\.py|/))\s{2,}", docstring, flags=re.MULTILINE):
        if number:
            chapters.append((number, [name]))
        else:
            chapters[-1][1].append(name)
    return chapters


def _readme_map() -> list[tuple[str, list[str]]]:
    """The README's chapter table: (number, the files its module cell links) per row."""
    section = README.split("\n## The chapters\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if line.startswith("| ") and not line.startswith(("| #", "| ---")):
            cells = line.strip("|").split(" | ")
            links = re.findall(r"\[`minipe/([^`]+)`\]\((minipe/[^)]+)\)", cells[1])
            for name, target in links:  # a folder's link opens its face, which maps it
                assert target == "minipe/" + (name + "__init__.py" if name.endswith("/")
                                              else name), (name, target)
                assert (ROOT / target).exists(), target
            rows.append((cells[0].strip(), [name for name, _ in links]))
    return rows


def test_the_readmes_chapter_map_is_the_package_faces() -> None:
    face = _face_map()
    # read by hand off minipe/__init__.py: chapters 1-11 and the appendices, in this order
    numbers = ["1", "1b"] + [str(n) for n in range(2, 12)] + ["A, B", "C"]  # 1b: issue 33
    assert [number for number, _ in face] == numbers
    assert face[7] == ("7", ["context.py", "wavelengths.py", "low_precision.py"])
    assert face[10] == ("10", ["training/"])
    assert _readme_map() == face


def test_the_readme_stays_short() -> None:
    # issue 29: a README a newcomer reads to the end, about 150 lines, one short line a chapter
    assert len(README.splitlines()) <= 160
    for number, _ in _readme_map():
        row = next(line for line in README.splitlines() if line.startswith(f"| {number} | "))
        teaches = row.strip("|").split(" | ")[2]
        assert len(teaches) <= 100, (number, teaches)


def test_the_quick_start_shows_what_the_first_command_prints() -> None:
    section = README.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    assert section.startswith("\n    python -m minipe\n")
    shown = section.split(":\n\n", 1)[1].split("\n\n", 2)
    excerpt = [line[4:] for line in "\n".join(shown[:2]).splitlines() if line.strip()]
    done = minipe()
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    at = 0
    for line in excerpt:  # each shown line, in order; "..." stands for lines left out
        if line.strip() == "...":
            continue
        assert line in printed[at:], line
        at = printed.index(line, at) + 1
    assert len(excerpt) >= 8 and excerpt[-1].strip() == "..."


def test_the_book_reads_each_wing_in_the_order_its_face_names_it() -> None:
    # arrays: read by hand off minipe/arrays/__init__.py; training: its face's map lines
    from minipe.book.sources import chapter_order

    order = chapter_order(ROOT)
    arrays = [name for name in order if name.startswith("arrays.")]
    assert arrays == ["arrays.matrix", "arrays.vector", "arrays.batch", "arrays.checks",
                      "arrays.broadcast"]
    training = [name for name in order if name.startswith("training.")]
    face = (ROOT / "minipe" / "training" / "__init__.py").read_text()
    listed = re.findall(r"^ {4}([a-z_]+)\.py  ", face, flags=re.MULTILINE)  # its map's lines
    assert len(listed) == 12 and listed[0] == "gradients" and listed[-1] == "probe", listed
    assert training == [f"training.{name}" for name in listed]
    assert (order.index("pipeline_batch") < order.index("training") < order.index("plot")
            < order.index("arrays") < order.index("numerics"))  # the README's rows 9-11, A, B, C


@pytest.mark.slow  # trains five heads, 300 steps x 8 each
def test_the_training_example_holds_on_the_seeds_the_readme_names() -> None:
    """The README's `minipe train` examples name seeds 1 and 2 beside seed 0 (issue 30,
    part 1): what it says of them is what they reach (seed 0's numbers: test_claims). Trained as the command trains (its
    defaults: 300 steps x 8, Adam at 0.05, `--seed` for the tables and the batches)."""
    text = " ".join(README.split())  # the README's lines joined
    for seed in (0, 1, 2):
        head = package.train(package.TinyModel(5, 8, 8, positions="rope", seed=seed),
                             "previous-token", seed=seed)
        assert package.accuracy(head.model, "previous-token") == 1.0  # "100.0% at T and 2T"
        assert package.accuracy(head.model, "previous-token", seq_len=16) == 1.0
    assert "`--seed 1` and `--seed 2` reach 100.0% at both too" in text
    for seed in (1, 2):
        bag = package.train(package.TinyModel(9, 8, 6, positions="none", seed=seed),
                            "who-bites-whom", seed=seed).model
        assert f"{package.accuracy(bag, 'who-bites-whom'):.1%}" == "53.1%"
        # its 36 sentences: one bag per mirrored pair, so exactly one of each pair right
        right, losses = 0, []
        for s in range(1, 5):  # nouns man 1, dog 2, cat 3, fox 4; verbs 5-7; who? 8
            for o in range(1, 5):
                for v in range(5, 8):
                    if s != o:
                        row = bag.logits([0, s, v, 0, o, 8])[5].tolist()  # at 'who?'
                        right += row.index(max(row)) == s
                        losses.append(math.log(sum(math.exp(x) for x in row)) - row[s])
        assert right == 18 and math.log(2) <= sum(losses) / 36
        assert f"{sum(losses) / 36:.2f}" == "0.97"
    assert "`--seed 1` and `2`: 53.1%, 18, 0.97)" in text  # each seed: 18 of all 36
