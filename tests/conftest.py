"""The commands that several tests read, run once per session and shared.

The slow part of the suite is not the asserts but the commands: each lesson run
as a learner runs it, the benchmarks' quick modes, `mypy --strict`. Each is run
once, by `run(command)`, and every test that reads it shares the result (the
queue and its threads: tests/shared_runs.py). As the
tests are collected, one background thread starts running the commands the
tests will need (a machine has a second core), the longest first, while pytest
collects and runs the other tests first; the tests that read the commands run last
(the book's first: building it is work only this process can do, see _BookRuns).
A test that needs a command nobody has started yet runs it itself; one that waits
for a command the thread is running runs the next queued one meanwhile.

Nothing here decides what a test checks: a command's result is the
`subprocess.CompletedProcess` the test would have got by running it. Five
shortcuts, each said where it is made: the lessons that train run once, with
--svg (lesson_output); one interpreter imports every lesson in turn
(lesson_imported); one interpreter runs every other lesson with --svg in turn, its
second run (svg_output), which the book's tests read too (book_runs); one
interpreter trains the five default models in turn (default_training); one
interpreter runs in turn the `python -m minipe ...` and `python -m minipe.plot ...`
commands that tests read for their output and status (module_command; a fresh run of
`python -m minipe` checks that its part there is the same). Commands that several
tests run alike, such as `python -m minipe --help`, run once. Where
PYTHONDONTWRITEBYTECODE is set, bytecode is cached under build/ instead
(_cache_bytecode_under_build).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from shared_runs import Command as Command
from shared_runs import SharedCommands

ROOT = Path(__file__).resolve().parent.parent
WALKTHROUGHS = ROOT / "walkthroughs"
LESSONS = sorted(WALKTHROUGHS.glob("[0-9][0-9]_*.py"))
SVG_DIR = ROOT / "build" / "test-figures"  # git ignores build/; emptied each session
MYPY_CACHE = ROOT / "build" / "mypy_cache"  # warm from the second run on: about 0.5 s
OTHER_HASH_SEED = "1" if os.environ.get("PYTHONHASHSEED") != "1" else "2"  # for second runs
TRAINING_LESSONS = {"07", "15", "16", "18", "19", "20", "21"}  # the slowest: started first
RUN_ONCE = TRAINING_LESSONS  # 2-6 s each: one run, with --svg (see lesson_output)


SHARED = SharedCommands(ROOT, lambda command: _seconds(command))


def run(command: Command) -> subprocess.CompletedProcess[str]:
    """The command's result: its one run this session."""
    return SHARED.run(command)


def seconds(command: Command) -> float:
    """How long the command's one run took (other work ran beside it: not a benchmark)."""
    return SHARED.seconds(command)


# The `python -m minipe ...` and `python -m minipe.plot ...` commands that tests read for
# what they print and their status, by the test that reads them: one interpreter runs them
# all in turn (MODULE_RUNS), an interpreter's start (0.15-0.25 s of CPU) each saved. The
# tests of Ctrl-C, closed pipes and imports start their own.
PLOT_ENVIRONMENT = (("NO_COLOR", ""),)  # no colour: piped, and said so
COMMAND_READERS: dict[str, tuple[tuple[str, ...], ...]] = {
    # tests/test_commands.py
    "test_the_command_trains_and_reports_t_and_2t": (
        ("minipe", "train", "--positions", "rope", "--steps", "40"),
        ("minipe", "train", "--positions", "learned", "--steps", "5")),
    "test_the_command_explains_every_option_and_refuses_bad_ones": (
        ("minipe", "train", "--help"), ("minipe", "train", "--steps", "0"),
        ("minipe", "train", "--positions", "absolute")),
    "test_a_text_that_is_a_command_name_goes_after_two_dashes": (
        ("minipe", "--", "train"), ("minipe", "--help")),
    "test_a_text_too_long_for_memory_is_refused_with_the_estimate": (
        ("minipe", " ".join(["word"] * 10_000)), ("minipe", "a b", "--d-model", "10000")),
    # tests/test_batches.py
    "test_the_command_shows_a_padded_batch_and_refuses_what_does_not_fit": (
        ("minipe", "The cat sat on the mat", "A dog bites a man", "--padding-side", "left"),
        ("minipe", "--help"), ("minipe", "the cat", "--padding-side", "left"),
        ("minipe", "the cat", "")),
    # tests/test_pipeline.py, tests/test_causal_order.py
    "test_python_dash_m_minipe_runs_from_the_clone": (("minipe",),),
    "test_help_explains_every_option": (("minipe", "--help"),),
    "test_help_says_the_mask_lets_order_in": (("minipe", "--help"),),
    # tests/test_plot.py
    "test_without_out_the_picture_is_printed_plainly_when_piped": (
        ("minipe.plot", "attention", "A dog bites a man", "--width", "60"),
        ("minipe.plot", "pe"), ("minipe.plot", "curves")),
    "test_help_explains_each_kind": (("minipe.plot", "--help"),
                                     ("minipe.plot", "curves", "--help")),
    "test_one_option_name_per_idea_across_the_kinds": tuple(
        ("minipe.plot", kind, "--help") for kind in ("pe", "curves", "dot", "attention")),
}
MODULE_COMMANDS = tuple(dict.fromkeys(command for commands in COMMAND_READERS.values()
                                      for command in commands))

# How one interpreter runs several commands in turn (EVERY_COMMAND, EVERY_LESSON): each
# one's part of stdout and stderr begins with a NUL mark, and its exit status is printed
# last, as `python` would have ended: a SystemExit's code, 1 for any other exception.
RUN_AND_REPORT = """
import sys, traceback
def run_and_report(mark, call):
    for stream in (sys.stdout, sys.stderr):
        print("\\x00" + mark, file=stream, flush=True)
    code = 0
    try:
        call()
    except SystemExit as end:
        if isinstance(end.code, str):
            print(end.code, file=sys.stderr)
        code = end.code if isinstance(end.code, int) else int(end.code is not None)
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush(); sys.stderr.flush()
    print("\\x00exit", code, file=sys.stderr, flush=True)
"""

EVERY_COMMAND = RUN_AND_REPORT + """
import json, os, runpy
for number, spec in enumerate(sys.argv[1:]):
    module, args, environment = json.loads(spec)
    kept = dict(os.environ)
    os.environ.update(environment)
    sys.argv = ["-m", *args]  # run_module puts the module's file first, as -m does
    run_and_report(str(number),
                   lambda: runpy.run_module(module, run_name="__main__", alter_sys=True))
    os.environ.clear()
    os.environ.update(kept)
"""


def _environment(module: str) -> tuple[tuple[str, str], ...]:
    return PLOT_ENVIRONMENT if module == "minipe.plot" else ()


# One interpreter runs each of MODULE_COMMANDS in turn, runpy.run_module(module,
# run_name="__main__") with sys.argv as `python -m module ARGS` sets it, marking where each
# begins on stdout and stderr (see module_command).
MODULE_RUNS = Command((sys.executable, "-c", EVERY_COMMAND,
                       *(json.dumps([module, args, dict(_environment(module))])
                         for module, *args in MODULE_COMMANDS)), timeout=120)


def module_command(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """What `python -m MODULE ARGS` run from the clone prints, and its status, once a session:
    its part of MODULE_RUNS if a test there reads it (exit status 1 if it raised, as
    `python -m` gives), else a run of its own."""
    if (module, *args) not in MODULE_COMMANDS:
        return run(Command((sys.executable, "-m", module, *args), timeout=60,
                           environment=_environment(module)))
    done = run(MODULE_RUNS)
    assert done.returncode == 0, done.stderr
    number = str(MODULE_COMMANDS.index((module, *args)))

    def part(stream: str) -> str:
        return stream.split("\x00" + number + "\n")[1].split("\x00")[0]

    status = done.stderr.split("\x00" + number + "\n")[1].split("\x00exit ")[1]
    return subprocess.CompletedProcess([sys.executable, "-m", module, *args],
                                       int(status.split()[0]), part(done.stdout),
                                       part(done.stderr))


def minipe_command(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m minipe ARGS` from the clone, once a session (module_command)."""
    return module_command("minipe", *args)


def lesson(path: Path) -> Command:
    """`python walkthroughs/NN_name.py`, as a learner runs it."""
    return Command((sys.executable, str(path)), timeout=60)


def lesson_with_svg(path: Path) -> Command:
    """The lesson with `--svg DIR` (a directory of its own under SVG_DIR, made by the
    lesson), under another PYTHONHASHSEED than the plain run: a second run to compare."""
    return Command((sys.executable, str(path), "--svg", str(SVG_DIR / path.stem)),
                   hash_seed=OTHER_HASH_SEED, timeout=60)


def without_figure_lines(stdout: str) -> str:
    """What `--svg` adds to a lesson's output is one line per figure written: drop them."""
    return "".join(line for line in stdout.splitlines(keepends=True)
                   if not line.startswith("   [figure written: "))


def plain_run(path: Path) -> Command:
    """The run whose output stands for the lesson's plain output (see lesson_output)."""
    return lesson_with_svg(path) if path.name[:2] in RUN_ONCE else lesson(path)


def lesson_output(path: Path) -> subprocess.CompletedProcess[str]:
    """What `python walkthroughs/NN_name.py` prints: its plain run's result, once a session.

    The lessons that train longest (RUN_ONCE) run once, with --svg: their output without
    the "[figure written: ...]" lines stands for the plain run's (the cheaper lessons'
    two runs check that this is all --svg adds), and TRAINING_PROBE under two hash seeds
    stands for their second run."""
    done = run(plain_run(path))
    if path.name[:2] not in RUN_ONCE:
        return done
    return subprocess.CompletedProcess(done.args, done.returncode,
                                       without_figure_lines(done.stdout), done.stderr)


TRAINING_PROBE = """
from minipe import TinyModel, accuracy, rope_frequencies, train
thetas, scale = rope_frequencies(8, method="yarn", factor=2.0, original_context_length=8)
for kind in ("none", "learned", "sinusoidal", "rope", "alibi", "rope, YaRN"):
    for task, vocab_size, T in (("previous-token", 5, 8), ("copy-back", 5, 8),
                                ("who-bites-whom", 9, 6)):
        model = TinyModel(vocab_size, 8, T, positions=kind.split(",")[0], seed=0)
        if kind == "rope, YaRN":
            model = model.with_frequencies(thetas, attention_scale=scale)
        result = train(model, task, steps=3, batch_size=2)
        share = accuracy(result.model, task, samples=4)
        print(kind, task, *map(repr, result.losses), repr(share))
"""


def training_probe(hash_seed: str) -> Command:
    """Three steps of training for every kind of position (and YaRN's frequencies) on
    every task, printing each loss and the accuracy exactly: what the lessons that train
    print comes from these calls."""
    return Command((sys.executable, "-c", TRAINING_PROBE), hash_seed=hash_seed, timeout=60)


PROBE_SEEDS = ("0", OTHER_HASH_SEED)  # 0: no hash randomization at all


EVERY_LESSON = RUN_AND_REPORT + """
import os, runpy
sys.path.insert(0, sys.argv[1])
run_name, svg_root = sys.argv[2], sys.argv[3]
for path in sys.argv[4:]:
    stem = os.path.splitext(os.path.basename(path))[0]
    sys.argv = [path, "--svg", os.path.join(svg_root, stem)] if svg_root else [path]
    run_and_report(path, lambda: runpy.run_path(path, run_name=run_name))
"""


def in_one_interpreter(paths: list[Path], run_name: str, svg: bool = False,
                       hash_seed: str | None = None) -> Command:
    """One interpreter runs each lesson in turn, runpy.run_path(path, run_name=run_name),
    with sys.argv as `python path` (and `--svg SVG_DIR/NN_name` if svg) would set it,
    marking where each begins on stdout and stderr (see lesson_part)."""
    return Command((sys.executable, "-c", EVERY_LESSON, str(WALKTHROUGHS), run_name,
                    str(SVG_DIR) if svg else "", *map(str, paths)),
                   hash_seed=hash_seed, timeout=60)


def lesson_part(command: Command, path: Path) -> subprocess.CompletedProcess[str]:
    """The lesson's part of the command's output, and its exit status (1 if it raised):
    as if it had run alone. A print at import time in minipe or in lesson.py shows under
    the first lesson."""
    done = run(command)
    assert done.returncode == 0, done.stderr

    def part(stream: str) -> str:
        return stream.split("\x00" + str(path) + "\n")[1].split("\x00")[0]

    status = done.stderr.split("\x00" + str(path) + "\n")[1].split("\x00exit ")[1]
    return subprocess.CompletedProcess([str(path)], int(status.split()[0]), part(done.stdout),
                                       part(done.stderr))


IMPORTS = in_one_interpreter(LESSONS, "imported")


def lesson_imported(path: Path) -> subprocess.CompletedProcess[str]:
    """What importing the lesson under another name than __main__ printed, as a notebook or
    a test would (runpy.run_path(path, run_name="imported")); returncode 1 if it raised.
    One interpreter imports every lesson in turn (IMPORTS)."""
    return lesson_part(IMPORTS, path)


# The second run of the lessons that do not train: one interpreter runs them all in turn,
# as __main__ with --svg, under another PYTHONHASHSEED than their plain runs (a fresh
# interpreter each, as a learner runs them). Starting 14 interpreters costs 2-3 s of CPU.
SVG_RUNS = in_one_interpreter([path for path in LESSONS if path.name[:2] not in RUN_ONCE],
                              "__main__", svg=True, hash_seed=OTHER_HASH_SEED)


def svg_command(path: Path) -> Command:
    """The shared command that runs the lesson with --svg (see svg_output)."""
    return lesson_with_svg(path) if path.name[:2] in RUN_ONCE else SVG_RUNS


def svg_output(path: Path) -> subprocess.CompletedProcess[str]:
    """What `python walkthroughs/NN_name.py --svg SVG_DIR/NN_name` printed, under another
    PYTHONHASHSEED than the plain run, once a session: the lessons that train in a process
    of their own (lesson_with_svg), the others in one interpreter in turn (SVG_RUNS)."""
    command = svg_command(path)
    return run(command) if command != SVG_RUNS else lesson_part(SVG_RUNS, path)


KINDS = ("none", "learned", "sinusoidal", "rope", "alibi")
DEFAULT_TRAINING = """
import sys
from minipe import TinyModel, accuracy, train
for positions in sys.argv[1:]:
    result = train(TinyModel(5, 8, 8, positions=positions), "previous-token")
    score = accuracy(result.model, "previous-token", samples=128)
    at_T = accuracy(result.model, "previous-token")  # what `python -m minipe train` prints
    at_2T = (accuracy(result.model, "previous-token", seq_len=16)
             if positions != "learned" else float("nan"))  # a learned table has 8 rows
    print(positions, *map(repr, (score, result.losses[0], result.losses[-1], at_T, at_2T)))
"""
# The five default trainings, one after the other in one interpreter: one start, not five
# (each train() owns its random.Random(seed), so what one trains does not touch the next).
DEFAULT_TRAININGS = Command((sys.executable, "-c", DEFAULT_TRAINING, *KINDS), timeout=240)


def default_training(positions: str) -> tuple[float, float, float, float, float]:
    """TinyModel(5, 8, 8, positions) trained at train()'s defaults on previous-token, by the
    session's one run of DEFAULT_TRAININGS, exactly (printed with repr): its accuracy on 128
    samples, its first loss and its last, and its accuracy at T = 8 and at 2T = 16 on
    accuracy()'s default 64 samples, as `python -m minipe train` measures them (NaN at 2T
    for a learned table, which has no row past 7)."""
    done = run(DEFAULT_TRAININGS)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.split()[0] == positions)
    score, first_loss, last_loss, at_T, at_2T = (float(word) for word in line.split()[1:])
    return score, first_loss, last_loss, at_T, at_2T


def benchmark(name: str, *args: str) -> Command:
    return Command((sys.executable, str(ROOT / "benchmarks" / name), *args))


BENCHMARKS = {
    "bench_core": benchmark("bench_core.py", "--quick"),
    "bench_steps": benchmark("bench_steps.py", "--strict", "--guards"),
    "bench_printing": benchmark("bench_printing.py", "--quick"),
    "bench_train": benchmark("bench_train.py", "--quick"),
    "bench_walkthroughs": benchmark("bench_walkthroughs.py", "--repeats", "1",
                                    "--only", "01_text_to_ids.py"),
}
MYPY_TARGETS = [str(ROOT / name) for name in ("minipe", "tests", "walkthroughs", "benchmarks")
                if (ROOT / name).exists()]
MYPY = Command((sys.executable, "-m", "mypy", "--strict", "--config-file",
                str(ROOT / "pyproject.toml"), "--cache-dir", str(MYPY_CACHE), *MYPY_TARGETS),
               timeout=300)


# Rough CPU seconds of the commands that take seconds (3.11, a quiet machine): a hint for
# the order the thread starts them in, never a result. Longest first, so that the session
# does not end waiting for one of them: a lesson that trains, bench_train, the default
# trainings, mypy on a cold cache (a fresh clone; 0.5 s once build/ holds its cache).
LESSON_SECONDS = {
    "18": 4.7, "15": 4.4, "16": 3.8, "21": 2.2, "07": 1.8, "19": 1.7, "20": 1.5,
}


def _seconds(command: Command) -> float:
    """About how long the command takes: the ones above, 0 for those under a second."""
    script = Path(command.args[1]).name
    if command == MYPY:
        return 0.5 if MYPY_CACHE.is_dir() else 8.0
    if script[:2] in TRAINING_LESSONS and script.endswith(".py"):
        return LESSON_SECONDS.get(script[:2], 3.0)
    if script in ("bench_train.py", "bench_generate.py"):
        return 1.1
    if command == MODULE_RUNS:
        return 2.0  # 22 commands, one of which trains 40 steps
    if command == SVG_RUNS:
        return 1.0  # 14 lessons: the book's tests wait for it, before the READERS
    return 15.0 if command == DEFAULT_TRAININGS else 0.0


def _reads(item: pytest.Item) -> list[Command]:
    """The shared commands a test reads (none for most)."""
    where, name = Path(str(item.fspath)).name, item.name.split("[")[0]
    params: dict[str, object] = getattr(getattr(item, "callspec", None), "params", {})
    path = params.get("path")
    if where == "test_walkthroughs.py" and isinstance(path, Path):
        if name == "test_lesson_runs_and_prints_its_key_numbers":
            return [plain_run(path)]
        if name == "test_lesson_prints_the_same_on_every_run":
            if path.name[:2] in RUN_ONCE:
                return [training_probe(seed) for seed in PROBE_SEEDS]
            return [plain_run(path), svg_command(path)]
        if name == "test_lesson_writes_its_figures_under_svg":
            return [svg_command(path)]
        if name == "test_importing_a_lesson_does_nothing":
            return [IMPORTS]
    if where in ("test_walkthroughs.py", "test_claims.py") and name.startswith("test_lesson_"):
        number = name.split("_")[2]  # test_lesson_15_...: lesson 15's output
        return [plain_run(path) for path in LESSONS if path.name[:2] == number]
    if where == "test_walkthroughs.py" and name == "test_the_figures_name_what_they_show":
        return [svg_command(path) for path in LESSONS if path.name[:2] in ("05", "09")]
    if where == "test_errata.py" and name.startswith("test_every_lesson_pointer"):
        return [plain_run(path) for path in LESSONS]
    if where == "test_benchmarks.py":
        if name == "test_bench_walkthroughs_times_every_lesson":
            return [BENCHMARKS["bench_walkthroughs"], *map(plain_run, LESSONS)]
        return [command for script, command in BENCHMARKS.items() if f"_{script}_" in name]
    if name.startswith("test_the_defaults_learn_"):  # test_training.py
        return [DEFAULT_TRAININGS]
    if name == "test_mypy_strict_passes" and importlib.util.find_spec("mypy") is not None:
        return [MYPY]
    if name in COMMAND_READERS:
        return [MODULE_RUNS]
    return []


def _needed(items: list[pytest.Item]) -> list[Command]:
    """The commands the selected tests will read, each once, in the order they read them
    (the thread runs those that train first)."""
    return list(dict.fromkeys(command for item in items for command in _reads(item)))


READERS = ("test_training.py::test_the_defaults_learn", "test_errata.py::test_every_lesson",
           "test_types.py", "test_benchmarks.py", "test_walkthroughs.py")


def _rank(item: pytest.Item) -> int:
    """0 for a test that reads no shared command; n for the nth of READERS."""
    where = item.nodeid.rsplit("/", 1)[-1]
    return next((n + 1 for n, reader in enumerate(READERS) if where.startswith(reader)), 0)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that read the shared commands run last, in this order (READERS), so that
    the thread has run most commands by then; the others keep their order."""
    items.sort(key=_rank)


def pytest_collection(session: pytest.Session) -> None:
    _empty(SVG_DIR)  # before any lesson draws into it


def pytest_itemcollected(item: pytest.Item) -> None:
    """Queue what the test reads as soon as it is collected: the thread starts while
    pytest still collects (a test that -k leaves out: its commands leave the queue)."""
    SHARED.add(_reads(item))


def pytest_collection_finish(session: pytest.Session) -> None:
    SHARED.collected(_needed(list(session.items)))


def pytest_sessionfinish(session: pytest.Session) -> None:
    SHARED.stop()


def _empty(directory: Path) -> None:
    """Remove the figures a past session drew, so that each lesson's --svg makes its own
    directory afresh (the figures test checks what the lesson writes, and only that)."""
    shutil.rmtree(directory, ignore_errors=True)



# --- the book (tests/test_book.py): it reads every lesson's shared --svg run -------------------

def book_runs() -> dict[str, tuple[str, Path]]:
    """Each lesson's shared `--svg` run (svg_output: the runs the figures tests read), by
    stem: what it printed and the directory its figures went into (missing if the lesson
    drew nothing)."""
    runs = {}
    for path in LESSONS:
        done = svg_output(path)
        assert done.returncode == 0, done.stderr
        runs[path.stem] = (done.stdout, SVG_DIR / path.stem)
    return runs


class _BookRuns:
    """The book's tests that take the `runs` fixture read every lesson's --svg run: queue
    those runs, and run the book's tests first among the tests that read shared commands
    (before the READERS above): building and parsing the book is 4-6 s of work only this
    process can do, done while the thread still runs commands; the READERS' commands are
    many short ones, which both threads share at the end."""

    @staticmethod
    def _reads_the_runs(item: pytest.Item) -> bool:
        return (Path(str(item.fspath)).name == "test_book.py"
                and "runs" in getattr(item, "fixturenames", ()))

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        items.sort(key=lambda item: 0 if _rank(item) == 0 and not self._reads_the_runs(item)
                   else 1 if self._reads_the_runs(item) else 2)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if any(map(self._reads_the_runs, session.items)):
            SHARED.add([svg_command(path) for path in LESSONS])


BYTECODE = ROOT / "build" / "pycache"  # git ignores build/


def _cache_bytecode_under_build() -> None:
    """Where the environment says not to write bytecode (PYTHONDONTWRITEBYTECODE), every
    interpreter the tests start would compile minipe afresh (about 0.05-0.1 s of CPU
    each, 150 of them); pytest would compile the test modules and the chapters afresh too
    (about 2.5 s). Bytecode goes under build/ instead (PYTHONPYCACHEPREFIX), for this
    process and the ones it starts: nothing is written next to the sources."""
    if not sys.flags.dont_write_bytecode:
        return  # bytecode is written as usual, in __pycache__ (or under the prefix set)
    prefix = os.environ.get("PYTHONPYCACHEPREFIX") or str(BYTECODE)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    sys.pycache_prefix = prefix  # the test modules and minipe, imported from now on
    sys.dont_write_bytecode = False


def pytest_configure(config: pytest.Config) -> None:
    _cache_bytecode_under_build()
    config.pluginmanager.register(_BookRuns(), "minipe-book-runs")
