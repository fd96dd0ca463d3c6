"""Installed as users install it (issue 29): a wheel, a fresh venv outside the clone, the commands.

The wheel is built from a copy of the clone's pyproject.toml, README.md and minipe/, with the
running Python's setuptools and no network (`pip wheel --no-build-isolation --no-index`); pip
installs it into a venv made in a temporary directory; every command then runs from another
temporary directory, so nothing of the clone is on the path. A subpackage missing from
pyproject's list ends here in ModuleNotFoundError, as it would for a user.

Building a wheel offline needs setuptools 70.1 or newer (which builds wheels itself) or the
`wheel` package beside an older one; without either the test says so and is skipped (.ci/run
installs setuptools into its venvs).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def _builds_wheels_offline() -> bool:
    """setuptools >= 70.1 has bdist_wheel in it; before that it needs the `wheel` package."""
    if importlib.util.find_spec("setuptools") is None:
        return False
    major, minor = (int(part) for part in
                    importlib.metadata.version("setuptools").split(".")[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


def _run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """ARGS from `cwd`, with no PYTHONPATH, pip kept offline and no bytecode written (nor
    sent into the clone's build/pycache by a PYTHONPYCACHEPREFIX)."""
    environment = {name: value for name, value in os.environ.items() if name not in
                   ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONPYCACHEPREFIX")}
    environment.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
                       PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([str(arg) for arg in args], cwd=cwd, env=environment, text=True,
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the venv's python, a directory outside the clone): minipe installed from its wheel."""
    if not _builds_wheels_offline():
        pytest.skip("building a wheel offline needs setuptools >= 70.1 (or the wheel package) "
                    "in the Python that runs the tests: python -m pip install 'setuptools>=70.1'")
    top = tmp_path_factory.mktemp("install")
    assert not top.resolve().is_relative_to(ROOT)
    source = top / "source"
    shutil.copytree(ROOT / "minipe", source / "minipe",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    built = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                 "--no-index", "-q", "-w", top / "dist", source, cwd=top)
    assert built.returncode == 0, built.stderr
    [wheel] = (top / "dist").glob("minipe-*.whl")
    made = _run(sys.executable, "-m", "venv", "--without-pip", top / "venv", cwd=top)
    assert made.returncode == 0, made.stderr
    python = top / "venv" / ("Scripts" if os.name == "nt" else "bin") / "python"
    added = _run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps",
                 "--no-index", "--no-compile", "-q", wheel, cwd=top)
    assert added.returncode == 0, added.stderr
    away = top / "elsewhere"
    away.mkdir()
    return python, away


def test_the_installed_package_is_the_wheels_not_the_clones(
        installed: tuple[Path, Path]) -> None:
    python, away = installed
    done = _run(python, "-c", "import minipe; print(minipe.__file__)", cwd=away)
    assert done.returncode == 0, done.stderr
    where = Path(done.stdout.strip()).resolve()
    assert where.is_relative_to(python.parent.parent.resolve()) and "site-packages" in where.parts


def test_the_trace_runs_installed(installed: tuple[Path, Path]) -> None:
    python, away = installed
    done = _run(python, "-m", "minipe", cwd=away)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("text: 'The cat sat on the mat'   (d_model=8, "
                                  "positions=sinusoidal)")
    assert "[4, 0, 3, 2, 4, 1]" in done.stdout  # cat 0, mat 1, on 2, sat 3, the 4 (sorted)


@pytest.mark.parametrize("command", [("minipe",), ("minipe", "train"), ("minipe", "book"),
                                     ("minipe", "exercises"), ("minipe.plot",)],
                         ids=["minipe", "train", "book", "exercises", "plot"])
def test_every_verb_explains_itself_installed(installed: tuple[Path, Path],
                                              command: tuple[str, ...]) -> None:
    python, away = installed
    done = _run(python, "-m", *command, "--help", cwd=away)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m ") and done.stderr == ""


def test_the_console_script_is_the_same_command(installed: tuple[Path, Path]) -> None:
    python, away = installed
    done = _run(python.parent / "minipe", "--", "train", cwd=away)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("text: 'train'   (d_model=8, positions=sinusoidal)")


@pytest.mark.parametrize("verb", ["book", "exercises"])
def test_what_needs_the_clone_says_so_in_one_sentence(installed: tuple[Path, Path],
                                                      verb: str) -> None:
    # the lessons and the exercises' stubs live in walkthroughs/, which no wheel holds
    python, away = installed
    done = _run(python, "-m", "minipe", verb, cwd=away)
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.splitlines()  # one sentence, no usage line, no traceback
    assert line.startswith(f"python -m minipe {verb} needs ")
    assert "a clone of the minipe repository" in line
    assert "clone the repository with git and run the command inside it" in line
    assert not (away / "build").exists()  # nothing written where it was run
