"""The commands: python -m minipe [TEXT], python -m minipe train, python -m minipe.plot KIND.

Each runs as a learner runs it, in a subprocess from the clone: it trains and reports,
explains its options, refuses what cannot finish with the estimate in the sentence, and
ends quietly on Ctrl-C (one line, status 130) and when its reader goes away (status 1, as
Python's documentation advises for a closed pipe, and nothing on stderr). The lessons too.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from commands import ran

import minipe
from minipe.__main__ import main, train_parser
from minipe.command_line import Progress, why_unwritable, write_whole

ROOT = Path(__file__).resolve().parent.parent
WALKTHROUGHS = ROOT / "walkthroughs"


def _command(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m minipe ARGS` from the clone, once a session (tests/commands.py)."""
    return ran("-m", "minipe", *args)


def _python(script: str) -> subprocess.CompletedProcess[str]:
    """Run a few lines of Python in a fresh interpreter, from the clone."""
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


# --- python -m minipe train ---------------------------------------------------------------

@pytest.mark.slow
def test_the_command_trains_and_reports_t_and_2t() -> None:
    done = _command("train", "--positions", "rope", "--steps", "40")
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[-3].startswith("loss ") and lines[-2].startswith("accuracy at T = 8: ")
    assert lines[-1].startswith("at 2T = 16: ")
    # piped: a line at step 1 and every 40 // 10 = 4 steps, 4 .. 40: 1 + 10 lines
    assert sum(line.startswith("step ") for line in lines) == 11
    learned = _command("train", "--positions", "learned", "--steps", "5").stdout.splitlines()
    assert learned[-1].startswith("at 2T = 16: cannot run - the learned table has 8 rows")


@pytest.mark.parametrize("argv, words", [
    (["--k", "5"], "--k is copy-back's distance; --task previous-token does not use it"),
    (["--base", "500"], "--base is the base of sinusoidal and rope positions; --positions "
                        "learned does not use it"),
    (["--learning-rate", "0"], "argument --learning-rate: must be a number > 0 such as 0.05"),
    (["--learning-rate", "inf"], "argument --learning-rate: must be a number > 0"),
    (["--seq-len", "0"], "argument --seq-len: must be >= 1, got 0"),
    (["--task", "who-bites-whom", "--seq-len", "12"], "--seq-len is for previous-token, "
     "copy-back and induction; who-bites-whom's sentences are fixed: 6 tokens of its"),
    (["--task", "who-bites-whom", "--vocab-size", "5"], "--vocab-size is for previous-token, "
     "copy-back and induction; who-bites-whom's sentences are fixed"),
    (["--layers", "0"], "argument --layers: must be >= 1, got 0"),
    (["--layers", "two"], "argument --layers: "),
    (["--norm", "batch"], "argument --norm: invalid choice: 'batch' (choose from 'layer', "
                          "'rms')"),
    (["--heads", "0"], "argument --heads: must be >= 1, got 0"),
    (["--heads", "3"], "--heads 3 does not divide --d-model 8: each head takes d_model / "
                       "heads of the columns of q, k and v (heads that fit 8: 1, 2, 4, 8)"),
    (["--heads", "4", "--d-model", "6"], "(heads that fit 6: 1, 2, 3, 6)"),
    (["--positions", "rope", "--heads", "8"], "--positions rope turns each head's columns of q "
     "and k in pairs, but --d-model 8 / --heads 8 leaves each head 1 column, an odd number"),
    (["--positions", "rope", "--d-model", "6", "--heads", "2"], "--d-model 6 / --heads 2 "
                                                                "leaves each head 3 columns"),
])
def test_train_refuses_an_option_its_run_would_ignore_or_cannot_use(
        argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Refused before anything is printed on stdout: a usage error, status 2."""
    with pytest.raises(SystemExit) as usage:
        main(["train", *argv])
    said = capsys.readouterr()
    assert usage.value.code == 2 and words in said.err and said.out == ""


def test_the_command_trains_a_block_model(capsys: pytest.CaptureFixture[str]) -> None:
    """--layers, --mlp and --norm make the TinyModel it trains (its repr, the first line)."""
    assert main(["train", "--layers", "2", "--mlp", "--norm", "rms", "--steps", "2",
                 "--positions", "rope"]) == 0
    said = capsys.readouterr().out.splitlines()
    assert said[0] == ("TinyModel(vocab_size=5, d_model=8, context_length=8, "
                       "positions='rope', num_layers=2, mlp=True, norm='rms')")
    assert said[-1].startswith("at 2T = 16: ")
    helped = " ".join(train_parser().format_help().split())
    assert "--layers N attention layers, each adding its heads' output to a residual" in helped
    assert "--norm {layer,rms}" in helped and "--mlp after each layer's heads, an MLP" in helped


def test_the_command_trains_heads(capsys: pytest.CaptureFixture[str]) -> None:
    """--heads makes the TinyModel's num_heads (its repr, the first line); --help says so."""
    assert main(["train", "--heads", "2", "--layers", "2", "--steps", "2",
                 "--positions", "alibi"]) == 0
    said = capsys.readouterr().out.splitlines()
    assert said[0] == ("TinyModel(vocab_size=5, d_model=8, context_length=8, "
                       "positions='alibi', num_heads=2, num_layers=2)")
    helped = " ".join(train_parser().format_help().split())
    assert ("--heads N attention heads a layer; each takes d_model / N of the columns of q, "
            "k and v, so N must divide --d-model (default: 1)") in helped


def test_the_command_trains_two_layers_on_induction(capsys: pytest.CaptureFixture[str]) -> None:
    """--task induction is listed in --help and trains: T 8, so 2T reads 16 tokens."""
    assert main(["train", "--task", "induction", "--layers", "2", "--steps", "2",
                 "--positions", "rope"]) == 0
    said = capsys.readouterr().out.splitlines()
    assert said[1].startswith("task induction: 2 steps x 8 sequences of T = 8")
    assert said[-1].startswith("at 2T = 16: ")
    helped = " ".join(train_parser().format_help().split())
    assert "induction: a stretch of tokens comes twice in a row" in helped


def test_a_diverging_run_names_the_option_to_change(capsys: pytest.CaptureFixture[str]) -> None:
    """The lab's sentence in the command's words: --learning-rate, and no "model you passed
    in" (the command's user passed none). 1e6: the loss is past 100 ln 5 at step 2."""
    with pytest.raises(SystemExit) as usage:
        main(["train", "--learning-rate", "1e6"])
    said = capsys.readouterr().err
    assert usage.value.code == 2 and "training diverged at step 2: the loss reached" in said
    assert "--learning-rate 1e+06 is too large" in said and "try --learning-rate 0.05" in said
    assert "learning_rate=" not in said and "passed in" not in said


def test_a_run_that_would_take_days_stops_after_its_first_step(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The first step's time times --steps: 10^8 steps of at least 1 ms each are over
    a day, refused with the estimate (a usage error, status 2). 10^9 steps' losses alone
    would not fit in memory: train() refuses them before the first step."""
    with pytest.raises(SystemExit) as usage:
        main(["train", "--steps", "100000000"])
    assert usage.value.code == 2
    said = capsys.readouterr().err
    days = re.search(r"--steps 100,000,000 would take about ([\d,]+) days at (\d+) ms a step",
                     said)
    assert days is not None, said
    assert int(days.group(1).replace(",", "")) >= 1 and int(days.group(2)) >= 1
    assert "try --steps 300" in said
    with pytest.raises(SystemExit):
        main(["train", "--steps", "1000000000"])
    assert "train(steps=1,000,000,000)'s losses, one number a step, would hold" in (
        capsys.readouterr().err)


def test_a_misspelt_command_or_an_unquoted_sentence_gets_a_note(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The texts still run (status 0), with a note on stderr of what was probably meant;
    a text that is a command's name, given after --, and two words, get none."""
    for argv, note in ((["exercise"], "note: 'exercise' runs as a text here; the command is "
                                      "`python -m minipe exercises`"),
                       (["books"], "the command is `python -m minipe book`"),
                       (["plot", "pe"], "the command is `python -m minipe.plot`"),
                       ("The cat sat on the mat".split(),
                        "6 one-word texts make a batch of 6 texts; for one sentence, quote it: "
                        "python -m minipe \"The cat sat ...\"")):
        assert main(argv) == 0
        assert note in capsys.readouterr().err, argv
    for argv in (["--", "train"], ["a", "b"], ["The cat sat on the mat"]):
        assert main(argv) == 0
        assert "note:" not in capsys.readouterr().err, argv


def test_an_output_encoding_without_the_pictures_characters_gets_question_marks() -> None:
    """Sent to a file in an encoding without the shade blocks (ASCII here; a Windows code
    page lacks them too), the picture is drawn with ? where a character is missing."""
    done = subprocess.run([sys.executable, "-m", "minipe.plot", "pe", "--positions", "4",
                           "--d-model", "8"], cwd=ROOT, capture_output=True, timeout=60,
                          env={**os.environ, "PYTHONIOENCODING": "ascii", "NO_COLOR": "1"})
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert done.stdout.splitlines()[1].startswith(b"0 ?") and b"?" * 16 in done.stdout


def test_the_command_explains_every_option_and_refuses_bad_ones() -> None:
    helped = _command("train", "--help").stdout
    assert helped.startswith("usage: python -m minipe train")
    for option in ("--positions", "--task", "--steps", "--batch-size", "--learning-rate",
                   "--seq-len", "--d-model", "--vocab-size", "--k", "--base", "--seed"):
        assert option in helped
    bad = _command("train", "--steps", "0")
    assert bad.returncode == 2 and "argument --steps: must be >= 1, got 0" in bad.stderr
    assert "invalid choice: 'absolute'" in _command("train", "--positions", "absolute").stderr


def test_minipe_train_is_the_same_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "--steps", "3", "--positions", "none"]) == 0
    assert "accuracy at T = 8: " in capsys.readouterr().out


def test_on_a_terminal_the_progress_redraws_one_line() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    progress = Progress(steps=4, stream=screen)
    for step in range(1, 5):
        progress(step, 1.0 / step)
    drawn = screen.getvalue()
    assert drawn.count("\r") == 4 and drawn.endswith("\n") and drawn.count("\n") == 1
    assert "step 4/4  loss  0.2500  [" + "#" * 30 + "]" in drawn  # the bar is full at the end
    assert progress.step == 4  # what Ctrl-C reports


def test_minipe_train_is_the_function_whatever_is_imported() -> None:
    # Importing a submodule binds its name in the package; so no module may be called train.
    script = ("import importlib, pkgutil, types, minipe\n"
              "for module in pkgutil.walk_packages(minipe.__path__, 'minipe.'):\n"
              "    importlib.import_module(module.name)\n"
              "assert isinstance(minipe.train, types.FunctionType), minipe.train\n"
              "try:\n"
              "    import minipe.train\n"
              "except ModuleNotFoundError:\n"
              "    print('no module minipe.train')\n")
    done = _python(script)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "no module minipe.train\n"
    assert not (ROOT / "minipe" / "train.py").exists() and callable(minipe.train)


def test_ctrl_c_during_training_says_the_step_and_exits_130() -> None:
    process = subprocess.Popen([sys.executable, "-m", "minipe", "train", "--steps", "100000"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    assert process.stdout is not None and process.stderr is not None
    line = process.stdout.readline()
    while not line.startswith("step "):  # the model, the task, then step 1: training runs
        line = process.stdout.readline()
    process.send_signal(signal.SIGINT)
    out, errors = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Traceback" not in errors
    said = errors.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("stopped by Ctrl-C at step ")
    assert said[0].endswith("of 100000: nothing is lost, train() never changes the model "
                            "it was given")
    assert "loss " not in out  # no summary after the interruption


# --- python -m minipe [TEXT] --------------------------------------------------------------

def test_a_text_that_is_a_command_name_goes_after_two_dashes() -> None:
    done = _command("--", "train")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("text: 'train'   (d_model=8, positions=sinusoidal)")
    help_words = " ".join(_command("--help").stdout.split())  # argparse wraps at any width
    assert "python -m minipe -- train" in help_words
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python -m minipe -- train" in readme


def test_a_text_too_long_for_memory_is_refused_with_the_estimate() -> None:
    done = _command(" ".join(["word"] * 10_000))
    assert done.returncode == 2 and done.stdout == ""
    # 2 x 10000^2 scores and weights + 8 x 10000 x 8 vectors + 3 x 8^2 head weights
    held = 2 * 10_000 * 10_000 + 8 * 10_000 * 8 + 3 * 8 * 8  # 200,640,192
    gigabytes = round(held * 32 / 1e9)  # 6.4 GB: 6
    assert f"run() on 10,000 tokens at d_model = 8 would hold {held:,} numbers, about " \
        f"{gigabytes} GB" in done.stderr
    wide = _command("a b", "--d-model", "10000")  # 3 x 10^8 head weights alone
    assert wide.returncode == 2 and "at d_model = 10000 would hold" in wide.stderr


def test_ctrl_c_in_the_pipeline_is_one_line_and_130() -> None:
    # a run that is interrupted while it works: run() sends this process SIGINT
    script = ("import os, signal, sys, time\n"
              "import minipe.__main__ as command\n"
              "def run(*args, **kwargs):\n"
              "    os.kill(os.getpid(), signal.SIGINT)\n"
              "    time.sleep(30)\n"
              "command.run = run\n"
              "sys.exit(command.main([]))\n")
    done = _python(script)
    assert done.returncode == 130
    assert done.stderr.strip() == "stopped by Ctrl-C" and done.stdout == ""


# --- every command and lesson ends quietly when its reader goes away ----------------------

def _with_closed_stdout(argv: list[str]) -> tuple[int, str]:
    """Run argv with stdout a pipe whose reader has already gone (like `| head -0`): every
    write meets EPIPE. Returns the status and what was written on stderr."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(argv, cwd=ROOT, stdout=write_end, stderr=subprocess.PIPE,
                              text=True, timeout=60, env={**os.environ, "NO_COLOR": "1"})
    finally:
        os.close(write_end)
    return done.returncode, done.stderr


@pytest.mark.parametrize("args", [
    ["-m", "minipe"],
    ["-m", "minipe", "--positions", "alibi", "--causal"],
    ["-m", "minipe", "train", "--steps", "20"],
    ["-m", "minipe.plot", "pe"],
    ["-m", "minipe.plot", "curves"],
    ["-m", "minipe.plot", "dot", "--at", "1000000000"],
    ["-m", "minipe.plot", "attention"],
])
def test_every_command_ends_quietly_when_the_pipe_is_closed(args: list[str]) -> None:
    status, errors = _with_closed_stdout([sys.executable, *args])
    assert (status, errors) == (1, "")


@pytest.mark.parametrize("lesson", ["01_text_to_ids.py", "04_sinusoidal_by_hand.py",
                                    "09_the_whole_pipeline.py", "14_past_the_context_window.py"])
def test_a_lesson_ends_quietly_when_the_pipe_is_closed(lesson: str) -> None:
    status, errors = _with_closed_stdout([sys.executable, str(WALKTHROUGHS / lesson)])
    assert (status, errors) == (1, "")


def test_training_read_by_head_ends_quietly() -> None:
    # head leaves after the first line. Piped, a progress line comes at step 1 and every
    # 100,000 // 10 = 10,000 steps (about two minutes): on_step also asks the pipe at every
    # step whether its reader has gone (POLLERR), so the run stops a step later, quietly
    command = f"{shlex.quote(sys.executable)} -m minipe train --steps 100000 | head -1"
    done = subprocess.run(["sh", "-c", command], cwd=ROOT, capture_output=True, text=True,
                          timeout=30)
    assert done.stdout == ("TinyModel(vocab_size=5, d_model=8, context_length=8, "
                           "positions='learned')\n")
    assert done.stderr == ""


def test_a_lesson_read_by_head_ends_quietly() -> None:
    # the real thing: head reads one line, then leaves while the lesson still prints
    lesson = shlex.quote(str(WALKTHROUGHS / "09_the_whole_pipeline.py"))
    command = f"{shlex.quote(sys.executable)} {lesson} | head -1"
    done = subprocess.run(["sh", "-c", command], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.stdout == "Lesson 9: the whole pipeline\n" and done.stderr == ""


def test_ctrl_c_in_a_lesson_is_one_line_and_130() -> None:
    script = ("import os, signal, sys, time\n"
              f"sys.path.insert(0, {str(WALKTHROUGHS)!r})\n"
              "from lesson import Lesson\n"
              "lesson = Lesson('Lesson 0: a test', [])\n"
              "lesson.stage('the first stage')\n"
              "os.kill(os.getpid(), signal.SIGINT)\n"
              "time.sleep(30)\n")
    done = _python(script)
    assert done.returncode == 130
    assert done.stderr.strip() == "stopped by Ctrl-C"
    assert done.stdout == "Lesson 0: a test\n================\n\n1. the first stage\n"


# --- long but feasible work says so, on a terminal only -----------------------------------

class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_long_batch_says_it_has_started_on_a_terminal(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    import minipe.command_line as command_line

    monkeypatch.setattr(command_line, "LONG", 100)  # a small batch stands for a long one
    screen = _Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    assert main(["the cat sat", "a dog"]) == 0
    assert re.fullmatch(r"2 texts of up to 3 tokens, [\d,]+ numbers to hold: working \.\.\. "
                        r"done in \d+\.\d s\n", screen.getvalue()), screen.getvalue()
    assert "2 texts, padded on the right to 3 tokens" in capsys.readouterr().out


def test_long_work_says_it_has_started_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    from minipe.command_line import LONG, working

    screen = _Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    with working("3,000 tokens", LONG + 1):
        assert screen.getvalue() == "3,000 tokens: working ..."  # said before the work
    assert re.fullmatch(r"3,000 tokens: working \.\.\. done in \d+\.\d s\n", screen.getvalue())
    with working("small", LONG):  # at most LONG numbers: quick, nothing said
        pass
    piped = io.StringIO()  # not a terminal: nothing said, whatever the size
    monkeypatch.setattr(sys, "stderr", piped)
    with working("3,000 tokens", 10 * LONG):
        pass
    assert piped.getvalue() == "" and screen.getvalue().count("\n") == 1
    refused = _Terminal()  # work that fails: the line is erased, the error speaks
    monkeypatch.setattr(sys, "stderr", refused)
    with pytest.raises(ValueError), working("big", LONG + 1):
        raise ValueError("too big")
    # "big: working ..." is 16 characters: back to the start, 16 spaces, back again
    assert refused.getvalue() == "big: working ..." + "\r" + " " * 16 + "\r"


def test_a_lesson_that_cannot_write_its_figures_says_so(tmp_path: Path) -> None:
    a_file = tmp_path / "taken"
    a_file.write_text("")
    done = subprocess.run([sys.executable, str(WALKTHROUGHS / "04_sinusoidal_by_hand.py"),
                           "--svg", str(a_file / "figures")], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""  # refused before the first stage
    assert done.stderr.splitlines()[-1] == (
        f"04_sinusoidal_by_hand.py: error: --svg {a_file / 'figures'}: cannot make the "
        f"directory for the figures: Not a directory")


def test_write_whole_writes_the_file_whole_or_not_at_all(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file a command writes goes through write_whole: text as UTF-8 bytes (a \\r\\n
    kept), bytes as they are; a replaced file keeps its mode, a new one is 0o644; a folder
    that cannot hold the file (its parent is a file: refused for root too), a failed rename
    and Ctrl-C mid-write leave the old file as it was and no temporary file."""
    page = write_whole(tmp_path / "a" / "b" / "page.html", "café\r\n", folders=True)
    assert page.read_bytes() == b"caf\xc3\xa9\r\n" and page.stat().st_mode & 0o777 == 0o644
    stub = tmp_path / "stub.py"
    stub.write_bytes(b"DONE = False\n")
    stub.chmod(0o600)
    assert write_whole(stub, b"DONE = True\n") == stub and stub.read_bytes() == b"DONE = True\n"
    assert stub.stat().st_mode & 0o777 == 0o600
    taken = tmp_path / "taken"
    taken.write_text("")
    with pytest.raises(OSError, match=re.escape(f"cannot write {str(taken / 'x.html')!r}: Not a "
                                                f"directory (is {str(taken)!r} an existing, "
                                                f"writable folder?)")):
        write_whole(taken / "x.html", "page")
    with pytest.raises(OSError, match=re.escape(f"{str(taken / 'x.html')!r}: File exists (is")):
        write_whole(taken / "x.html", "page", folders=True)  # a file where a folder goes
    for fault in (PermissionError(13, "Permission denied"), KeyboardInterrupt()):
        def fail(source: str, target: str, fault: BaseException = fault) -> None:
            raise fault

        monkeypatch.setattr("minipe.command_line.os.replace", fail)
        expected = OSError if isinstance(fault, OSError) else KeyboardInterrupt
        with pytest.raises(expected, match=re.escape(f"{str(stub)!r}: Permission denied")
                           if expected is OSError else None):
            write_whole(stub, "DONE = False\n")
        assert stub.read_bytes() == b"DONE = True\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a", "stub.py", "taken"]


def test_why_unwritable_names_the_reason_before_the_work(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    assert why_unwritable(tmp_path / "new") == "" and (tmp_path / "new").is_dir()
    (tmp_path / "taken").write_text("")
    assert why_unwritable(tmp_path / "taken" / "pages") == "Not a directory"

    def read_only(*args: object, **kwargs: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr("minipe.command_line.tempfile.TemporaryFile", read_only)
    assert why_unwritable(tmp_path) == "Read-only file system"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["new", "taken"]


def test_a_gpt2_batch_pads_with_endoftext(capsys: pytest.CaptureFixture[str]) -> None:
    """GPT-2 has no pad token: 50256 pads (tiktoken's IDs: 'A dog' is [32, 3290])."""
    assert main(["--tokenizer", "gpt2", "The bookshelf", "A dog", "--padding-side", "left"]) == 0
    out = capsys.readouterr().out
    assert "padded on the left to 4 tokens with <|endoftext|>'s ID 50256" in out
    assert "[50256, 50256, 32, 3290]" in out
    assert "[464, 3835, 258, 1652]" in out


def test_a_gpt2_text_with_endoftext_is_refused_with_the_reason(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--tokenizer", "gpt2", "a", "b<|endoftext|>"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "text 2 holds the special token '<|endoftext|>' at index 1" in err
    # what the command can do, not the API's keyword (the command takes no allowed_special)
    assert "give two texts or more: --tokenizer gpt2 pads the shorter ones with it" in err
    assert "BytePairTokenizer.gpt2().encode(text, allowed_special={'<|endoftext|>'})" in err
    with pytest.raises(SystemExit):
        main(["--tokenizer", "gpt2", "<|endoftext|>"])
    assert "error: text holds the special token" in capsys.readouterr().err
    assert main(["a dog <|endoftext|>"]) == 0  # chapter 1's words: its own special token
