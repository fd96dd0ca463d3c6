"""The house rules: stdlib only, imports pointing one way, nothing at import, the public API."""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest

import minipe

PACKAGE = Path(minipe.__file__).resolve().parent
ROOT = PACKAGE.parent

# The reading order, which is the import order: a module imports only modules above it
# in its list (and, for a wing or a tool, what the lists before its own hold). The
# chapter map in minipe/__init__.py's docstring names the same chapters in the same order.
SUPPORT = ["checks", "display", "command_line"]  # import nothing of minipe but each other
APPENDICES = ["arrays.broadcast", "arrays.checks", "arrays.vector", "arrays.matrix",
              "arrays.batch", "arrays", "numerics"]  # appendices A, B and C: support only
CHAPTERS = ["tokenizer", "pretokenizer", "subword",  # 1, 1b
            "embedding", "positional", "attention", "rotary", "relative",
            "context", "wavelengths", "low_precision",
            "batches", "pipeline_trace", "pipeline", "pipeline_batch"]  # 1-9
TRAINING = ["training.gradients", "training.block", "training.heads", "training.passes",
            "training.layers", "training.tables",
            "training.checks", "training.cache", "training.generation", "training.model",
            "training.lab",
            "training.probe", "training"]  # 10
# the tools stand on everything above; no chapter imports them
TOOLS = ["plot.colors", "plot.files", "plot.table", "plot.terminal", "plot.svg",
         "plot.figures", "plot", "plot.__main__",
         "book.sources", "book.runs", "book.prose", "book.literate", "book.pages",
         "book.notebooks", "book", "book.command",
         "exercises", "exercises.mistakes_1_12", "exercises.mistakes_13_23",
         "exercises.mistakes_24_26",
         "exercises.mistakes", "exercises.reference", "exercises.wrong", "exercises.wrong_1_8",
         "exercises.wrong_9_16", "exercises.wrong_17_21", "exercises.wrong_22_23",
         "exercises.wrong_24_26", "exercises.catalogue_24_26",
         "exercises.catalogue", "exercises.compare", "exercises.checker", "exercises.solutions",
         "exercises.stubs",
         "exercises.__main__", "__main__"]
READING_ORDER = SUPPORT + APPENDICES + CHAPTERS + TRAINING + TOOLS
LAZY = {"__main__": {"book.command", "exercises.__main__"}}  # imported inside a function


@functools.cache
def _parsed(path: Path) -> ast.Module:
    """The module's syntax tree, parsed once for the tests that read it (never changed)."""
    return ast.parse(path.read_text())


def _imports(path: Path) -> set[str]:
    """Every module `path` imports, as a dotted name; `from minipe import x` counts as
    minipe.x, and a relative `from . import x` or `from .x import y` as minipe.x."""
    names: set[str] = set()
    for node in ast.walk(_parsed(path)):
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
    """minipe/arrays/matrix.py -> 'arrays'; minipe/plot/svg.py -> 'plot.svg'; a package's
    __init__.py -> the package: minipe/plot/__init__.py -> 'plot'."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_path(module: str) -> Path:
    path = PACKAGE.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def test_every_module_is_in_the_reading_order() -> None:
    modules = {_module_name(path) for path in PACKAGE.rglob("*.py")} - {""}
    assert modules == set(READING_ORDER)
    assert len(READING_ORDER) == len(set(READING_ORDER))


def test_imports_point_one_way() -> None:
    """Each module imports only modules above it: support nothing but support, the arrays
    only support, a chapter earlier chapters, the arrays and support (never training/ or a
    tool), training/ the input side and its own floors below it, a tool anything above."""
    for at, module in enumerate(READING_ORDER):
        imported = {name.removeprefix("minipe.") for name in _imports(_module_path(module))
                    if name.startswith("minipe.")}
        allowed = set(READING_ORDER[:at]) | LAZY.get(module, set())
        if module in SUPPORT:
            allowed &= set(SUPPORT)
        assert imported <= allowed, f"{module} imports {sorted(imported - allowed)}"


def test_the_chapter_map_names_the_chapters_in_the_reading_order() -> None:
    doc = minipe.__doc__ or ""
    mapped = re.findall(r"^ +(?:\d+[a-z]? +|[A-Z, ]+ )?([a-z_]+)(?:\.py|/) ", doc, re.M)
    files = [name for name in mapped if name in CHAPTERS]
    assert files == CHAPTERS
    assert mapped.index("training") > mapped.index("pipeline_batch")
    assert {"arrays", "plot"} <= set(mapped)


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
                "clipped_relative_positions", "RelativePositionEmbedding",
                # issue 12: past the context window
                "rope_frequencies",
                # issue 11: the lab
                "TinyModel", "train"]
    for name in contract:
        assert hasattr(minipe, name), name
        assert name in minipe.__all__
    assert issubclass(minipe.ShapeError, ValueError)
    # `train` is the function, in this process too (tests/test_commands.py checks that no
    # module of the package can take its place)
    assert callable(minipe.train) and minipe.train.__module__ == "minipe.training.lab"
    model = minipe.TinyModel(5, 8, 8, positions="learned", causal=True, base=10000.0, seed=0)
    for method in ("parameters", "logits", "loss_and_gradients"):
        assert callable(getattr(model, method)), method


def test_typed_package_marker_ships() -> None:
    assert (PACKAGE / "py.typed").exists()


def test_the_import_check_sees_every_form(tmp_path: Path) -> None:
    module = tmp_path / "example.py"
    module.write_text("from minipe import attention\nfrom .arrays import Matrix\n"
                      "from . import tokenizer\nimport minipe.embedding\nimport math\n")
    assert _imports(module) == {"minipe.attention", "minipe.arrays", "minipe.tokenizer",
                                "minipe.embedding", "math"}


def test_objects_cannot_be_changed_after_they_are_built() -> None:
    objects = [(minipe.Vector([1.0]), "values"), (minipe.Matrix([[1.0]]), "rows"),
               (minipe.Batch([[[1.0]]]), "matrices"), (minipe.Embedding(2, 2), "weight"),
               (minipe.LearnedPositionalEmbedding(2, 2), "_table"),
               (minipe.SingleHeadAttention(2, 2), "W_q"),
               (minipe.RotaryAttention(2, 2), "base"),
               (minipe.RelativePositionEmbedding(2, 2), "_table"),
               (minipe.Tokenizer.from_corpus("a b"), "_token_to_id")]
    for thing, name in objects:
        assert hasattr(thing, name)
        assert dataclasses.is_dataclass(thing)  # frozen: no attribute can be set or deleted
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot assign to field '{name}'"):
            setattr(thing, name, None)
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot delete field '{name}'"):
            delattr(thing, name)


def test_no_module_uses_another_modules_private_names() -> None:
    """A leading underscore means "this module only": `x._name` is allowed only where
    the module itself defines `_name` (a function, a class attribute or a field)."""
    for path in PACKAGE.rglob("*.py"):
        tree = _parsed(path)
        defined = {node.name for node in ast.walk(tree)
                   if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        defined |= {target.id for node in ast.walk(tree) if isinstance(node, ast.AnnAssign)
                    for target in [node.target] if isinstance(target, ast.Name)}
        defined |= {node.value for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and isinstance(node.value, str)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                    and not node.attr.startswith("__"):
                assert node.attr in defined, f"{path.name} uses {node.attr}, defined elsewhere"
            if isinstance(node, ast.ImportFrom):
                private = [alias.name for alias in node.names if alias.name.startswith("_")]
                assert not private, f"{path.name} imports {private} from {node.module}"
