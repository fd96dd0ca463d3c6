"""The house rules: stdlib only, imports pointing one way, nothing at import, the public API."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import minipe

PACKAGE = Path(minipe.__file__).resolve().parent
ROOT = PACKAGE.parent

# DESIGN.md's module map: a chapter may import only the chapters listed for it.
ALLOWED_IMPORTS = {
    "broadcast": set(),
    "checks": {"broadcast"},  # shared plumbing: argument checks ...
    "display": set(),  # ... and printing
    "linalg": {"broadcast", "checks", "display"},
    "tokenizer": {"checks"},
    "embedding": {"broadcast", "checks", "linalg"},
    "positional": {"broadcast", "checks", "linalg", "embedding"},
    "rotary": {"broadcast", "checks", "linalg"},
    "relative": {"broadcast", "checks", "linalg", "embedding"},
    "attention": {"broadcast", "checks", "linalg", "rotary"},
    "pipeline": {"broadcast", "checks", "linalg", "tokenizer", "embedding", "positional",
                 "rotary", "relative", "attention", "display"},
    "__main__": {"pipeline"},
    # chapter 8, the pictures: a package of small modules (minipe/plot/)
    "plot.table": {"broadcast", "checks", "linalg"},
    "plot.colors": set(),
    "plot.files": set(),
    "plot.terminal": {"broadcast", "checks", "plot.table", "plot.colors"},
    "plot.svg": {"checks", "plot.table", "plot.colors"},
    "plot.figures": {"checks", "linalg", "positional", "pipeline", "plot.table", "plot.svg",
                     "plot.terminal", "plot.colors"},
    "plot": {"plot.figures", "plot.svg", "plot.terminal", "plot.files"},
    "plot.__main__": {"pipeline", "plot.figures", "plot.files", "plot.terminal"},
}


def _imports(path: Path) -> set[str]:
    """Every module `path` imports, as a dotted name; `from minipe import x` counts as
    minipe.x, and a relative `from . import x` or `from .x import y` as minipe.x."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level > 0:  # relative: inside the package
                module = "minipe" + ("." + module if module else "")
            if module == "minipe":
                names.update(f"minipe.{alias.name}" for alias in node.names)
            else:
                names.add(module)
    return names


def _module_name(path: Path) -> str:
    """minipe/linalg.py -> 'linalg'; minipe/plot/svg.py -> 'plot.svg'; a package's
    __init__.py -> the package: minipe/plot/__init__.py -> 'plot'."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_path(module: str) -> Path:
    path = PACKAGE.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def test_every_chapter_is_in_the_module_map() -> None:
    chapters = {_module_name(path) for path in PACKAGE.rglob("*.py")} - {""}
    assert chapters == set(ALLOWED_IMPORTS)


def test_imports_point_one_way() -> None:
    for chapter, allowed in ALLOWED_IMPORTS.items():
        imported = {name.removeprefix("minipe.") for name in _imports(_module_path(chapter))
                    if name.startswith("minipe.")}
        assert imported <= allowed, f"{chapter} imports {sorted(imported - allowed)}"


def test_only_the_standard_library_at_run_time() -> None:
    for path in PACKAGE.rglob("*.py"):
        for name in _imports(path):
            top = name.split(".")[0]
            assert top == "minipe" or top in sys.stdlib_module_names or top == "__future__", \
                f"{path.name} imports {name}"


def _runs_silently(script: str) -> None:
    """`python -c script` from the clone succeeds and prints nothing at all."""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""


def test_importing_prints_nothing_and_leaves_global_random_alone() -> None:
    script = ("import random; random.seed(1); before = random.random(); random.seed(1); "
              "import minipe; assert random.random() == before")
    _runs_silently(script)


def test_importing_minipe_leaves_the_pictures_out() -> None:
    # the pictures are a package of their own: `from minipe.plot import ...`
    script = ("import sys, minipe; assert 'minipe.plot' not in sys.modules; "
              "import random; random.seed(1); before = random.random(); random.seed(1); "
              "import minipe.plot; assert random.random() == before")
    _runs_silently(script)


def test_the_public_api_of_design_md() -> None:
    contract = ["Vector", "Matrix", "Batch", "allclose", "broadcast_shapes", "add", "Tokenizer",
                "Embedding", "ShapeError", "sinusoidal_encoding", "LearnedPositionalEmbedding",
                "relative_shift_matrix", "binary_encoding", "softmax",
                "scaled_dot_product_attention", "SingleHeadAttention", "run",
                # issue 4: rotary and relative positions
                "apply_rotary", "alibi_slopes", "alibi_bias", "t5_relative_bucket",
                "clipped_relative_positions", "RelativePositionEmbedding"]
    for name in contract:
        assert hasattr(minipe, name), name
        assert name in minipe.__all__
    assert issubclass(minipe.ShapeError, ValueError)


def test_typed_package_marker_ships() -> None:
    assert (PACKAGE / "py.typed").exists()


def test_the_import_check_sees_every_form(tmp_path: Path) -> None:
    module = tmp_path / "example.py"
    module.write_text("from minipe import attention\nfrom .linalg import Matrix\n"
                      "from . import tokenizer\nimport minipe.embedding\nimport math\n")
    assert _imports(module) == {"minipe.attention", "minipe.linalg", "minipe.tokenizer",
                                "minipe.embedding", "math"}


def test_objects_cannot_be_changed_after_they_are_built() -> None:
    objects = [(minipe.Vector([1.0]), "_values"), (minipe.Matrix([[1.0]]), "_rows"),
               (minipe.Batch([[[1.0]]]), "_matrices"), (minipe.Embedding(2, 2), "_weight"),
               (minipe.LearnedPositionalEmbedding(2, 2), "_table"),
               (minipe.SingleHeadAttention(2, 2), "_W_q"),
               (minipe.SingleHeadAttention(2, 2, rotary=True), "_rotary"),
               (minipe.RelativePositionEmbedding(2, 2), "_table"),
               (minipe.Tokenizer.from_corpus("a b"), "_token_to_id")]
    for thing, name in objects:
        assert hasattr(thing, name)
        with pytest.raises(AttributeError, match="is immutable"):
            setattr(thing, name, None)
        with pytest.raises(AttributeError, match="is immutable"):
            delattr(thing, name)
