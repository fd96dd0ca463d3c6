"""Run a learner's function on an exercise's cases and say, in sentences, how it went.

The stub file is read once and run from that text, so what is checked is what
the marker line is later written into. Each case calls the learner's function
and minipe's with the same inputs (each gets its own copy). The first case that
differs is shown as a grid - expected, yours and their difference, row by row -
and, when a known wrong solution gives exactly the learner's numbers, the
mistake is named with the chapter line that has it right. An exception from the
learner's code is told as a sentence with the learner's own line.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import signal
import textwrap
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from minipe.exercises.catalogue import Exercise, Function, call_each
from minipe.exercises.compare import describe_arg, grid, plain, same, shape_of
from minipe.exercises.mistakes import MISTAKES

Passed = Sequence[tuple[tuple[Any, ...], Any]]  # (args, minipe's answer) of the cases right so far
TIME_LIMIT = 10.0  # seconds a learner's code may run: every case of minipe's takes < 0.1 s


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Stop the learner's code with a TimeoutError after `seconds` (a loop that never ends),
    where the interpreter can (SIGALRM: Linux and macOS, in the main thread); else no limit."""
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise TimeoutError(f"it ran {seconds:g} s without returning: a loop that never ends?")

    before = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


@dataclass(frozen=True)
class Outcome:
    """What one call gave: a value, or an error and the learner's line it came from."""

    value: Any = None
    error: Exception | None = None
    line: str = ""  # "line 12: return table[pos]" in the learner's file, if the error came from it
    changed: str = ""  # the argument the call changed in place ("tokens"), if it changed one
    shared: str = ""  # the argument whose own lists the answer holds ("table"), if asked


@dataclass(frozen=True)
class Result:
    status: str  # "done", "not done" (the stub is untouched), "wrong" or "broken"
    text: str  # what to print
    mistake: str = ""  # the key of the mistake recognised, if one was


def load(path: Path, source: str, function: str) -> tuple[Function | None, Result | None]:
    """Run the stub's text; its function, or a Result saying why there is none."""
    namespace: dict[str, Any] = {"__name__": f"exercise_{path.stem}", "__file__": str(path)}
    try:
        code = compile(source, str(path), "exec")
    except SyntaxError as error:
        text = (f"{path} line {error.lineno} is not Python yet: {error.msg}\n"
                f"    {(error.text or '').strip()}")
        return None, Result("broken", text)
    try:
        with time_limit(TIME_LIMIT):
            exec(code, namespace)
    except (Exception, SystemExit) as error:  # the learner's file, run: anything can happen
        where = learner_line(error, path) or "import"
        if isinstance(error, SystemExit):  # not the checker's end: a sentence
            return None, Result("broken", f"running {path} called sys.exit({error.code!r}) at "
                                          f"{where}: a stub only defines its function")
        return None, Result("broken", f"running {path} raised {type(error).__name__} at "
                                      f"{where}: {error}")
    found = namespace.get(function)
    if not callable(found):
        return None, Result("broken", f"{path} defines no function {function}(): the checker "
                                      f"calls that name")
    return found, None


def learner_line(error: BaseException, path: Path) -> str:
    """'line 31: return ids[0]', the last line of `path` the error passed through ('' if none)."""
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if Path(frame.filename) == path:
            return f"line {frame.lineno}: {(frame.line or '').strip()}"
    return ""


def outcome(exercise: Exercise, function: Function, args: tuple[Any, ...], path: Path) -> Outcome:
    given = copy.deepcopy(args)  # its own copy: the caller's lists, as far as it knows
    try:
        with time_limit(TIME_LIMIT):
            value = exercise.call(function, given)
    except Exception as error:  # a learner's TypeError or IndexError becomes a sentence
        return Outcome(error=error, line=learner_line(error, path))
    except SystemExit as error:  # sys.exit() in the stub: a sentence, not the checker's end
        ended = RuntimeError(f"sys.exit({error.code!r}) ends Python; return the value instead")
        return Outcome(error=ended, line=learner_line(error, path))
    shared = shared_argument(function, given, value) if exercise.copies else ""
    return Outcome(value=value, changed=changed_argument(function, args, given), shared=shared)


def changed_argument(function: Function, args: tuple[Any, ...], given: tuple[Any, ...]) -> str:
    """The name of the first argument the call changed in place ('' if none)."""
    for number, (before, after) in enumerate(zip(args, given)):
        if before != after:
            return parameter_name(function, number)
    return ""


def shared_argument(function: Function, given: tuple[Any, ...], value: Any) -> str:
    """The name of the first argument one of whose lists the answer holds itself, not a
    copy of it ('' if none): lookup's table[i] returned as it is."""
    answer = {id(item) for item in _lists(value)}
    for number, argument in enumerate(given):
        if any(id(item) in answer for item in _lists(argument)):
            return parameter_name(function, number)
    return ""


def _lists(value: Any) -> list[Any]:
    """value and every list inside it."""
    if not isinstance(value, list):
        return []
    return [value] + [inner for item in value for inner in _lists(item)]


def parameter_name(function: Function, number: int) -> str:
    """The learner's own name of parameter `number` when the signature has it, else
    'argument 1'."""
    try:
        names = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):  # a builtin without a signature
        names = []
    return names[number] if number < len(names) else f"argument {number + 1}"


def describe(exercise: Exercise, args: tuple[Any, ...]) -> str:
    """How a case is called, in Python: 'pe_table(4, 6)'."""
    if exercise.call is call_each:
        return f"{exercise.function}(r) for r in {describe_arg(args[0])}"
    return f"{exercise.function}({', '.join(map(describe_arg, args))})"


def recognise(exercise: Exercise, args: tuple[Any, ...], yours: Outcome, path: Path,
              passed: Passed = ()) -> str:
    """The key of the first known wrong solution that gives exactly what the learner's gave
    on the failing case, and minipe's answer on every case `passed` before it, as the
    learner's did (a softmax that subtracts the mean and one that subtracts the minimum
    both overflow somewhere, but not on the same cases)."""
    for key, wrong_function in exercise.wrong:
        theirs = outcome(exercise, wrong_function, args, path)
        if yours.error is not None:
            # an overflow, a 0 / 0 or max() of nothing is as telling as a number; an
            # IndexError or a TypeError is not
            if not (type(theirs.error) is type(yours.error)
                    and (isinstance(yours.error, ArithmeticError)
                         or (isinstance(yours.error, ValueError)
                             and str(theirs.error) == str(yours.error)))):
                continue
        elif theirs.error is not None or not same(_checked_part(exercise, args, theirs.value),
                                                  _checked_part(exercise, args, yours.value)):
            continue
        if all(_gives(exercise, wrong_function, earlier, expected, path)
               for earlier, expected in passed):
            return key
    return ""


def _gives(exercise: Exercise, function: Function, args: tuple[Any, ...], expected: Any,
           path: Path) -> bool:
    """Whether `function` gives minipe's answer `expected` on args."""
    theirs = outcome(exercise, function, args, path)
    return theirs.error is None and same(_checked_part(exercise, args, expected),
                                         _checked_part(exercise, args, theirs.value))


def _checked_part(exercise: Exercise, args: tuple[Any, ...], value: Any) -> Any:
    """The value as plain lists; for position_ids, 0 at every padding slot (never checked)."""
    try:
        value = plain(value)
    except TypeError:
        return None
    if exercise.real_only and shape_of(value) is not None:
        value = [[y if real else 0.0 for y, real in zip(row, mask)]
                 for row, mask in zip(value, args[0])]
    return value


def check(exercise: Exercise, path: Path, source: str) -> Result:
    """Every case of the exercise, until the first that differs."""
    function, broken = load(path, source, exercise.function)
    if broken is not None:
        return broken
    assert function is not None
    cases = exercise.cases()
    passed: list[tuple[tuple[Any, ...], Any]] = []  # the cases the learner's function got right
    for number, args in enumerate(cases, start=1):
        call = f"case {number} of {len(cases)}: {describe(exercise, args)}"
        expected = plain(exercise.call(exercise.reference, copy.deepcopy(args)))
        yours = outcome(exercise, function, args, path)
        failed = _compare(exercise, args, expected, yours, path, call, passed)
        if failed is not None:
            return failed
        passed.append((args, expected))
    return Result("done", f"exercise {exercise.number} ({exercise.title}) is right: all "
                          f"{len(cases)} cases agree with {exercise.chapter}.")


def _compare(exercise: Exercise, args: tuple[Any, ...], expected: Any, yours: Outcome,
             path: Path, call: str, passed: Passed) -> Result | None:
    name = f"{exercise.function}()"
    if isinstance(yours.error, NotImplementedError) and "raise NotImplementedError" in yours.line:
        line = yours.line.split(":")[0]
        return Result("not done", f"exercise {exercise.number} is not done yet: {name} in "
                                  f"{path} still raises NotImplementedError ({line}). Write "
                                  f"its body; `python -m minipe exercises hint "
                                  f"{exercise.number}` gives a nudge.")
    if yours.changed:
        key = "changed-its-arguments"
        return Result("wrong", f"{call}\n{name} changed its argument {yours.changed} in "
                               f"place: the caller's list is not what it was before the call"
                               + _named(key), key)
    if yours.shared:
        key = "rows-shared"
        return Result("wrong", f"{call}\n{name} returned some of the very lists it was given "
                               f"as {yours.shared}, not copies of them" + _named(key), key)
    if yours.error is not None:
        key = recognise(exercise, args, yours, path, passed)
        where = f"your {yours.line}" if yours.line else "a line of minipe that it called"
        if not yours.line and isinstance(yours.error, TypeError) and "argument" in str(yours.error):
            where = "the call itself: its parameters differ from the stub's def line"
        text = (f"{call}\n{name} raised {type(yours.error).__name__} at {where}\n"
                f"    {type(yours.error).__name__}: {yours.error}")
        return Result("wrong", text + (_named(key) if key else ""), key)
    try:
        value = plain(yours.value)
    except TypeError as error:
        return Result("wrong", f"{call}\n{name} returned {error} ({yours.value!r:.60}); it "
                               f"should return numbers shaped like {_shape_text(expected)}"
                               f"{' - a return is missing?' if yours.value is None else ''}")
    shape, wanted = shape_of(value), shape_of(expected)
    if shape == wanted and exercise.real_only:  # position_ids: padding may hold anything
        value = [[y if real else e for y, e, real in zip(row_y, row_e, mask)]
                 for row_y, row_e, mask in zip(value, expected, args[0])]
    if shape == wanted and same(expected, value):
        return None
    key = recognise(exercise, args, yours, path, passed)  # only for a case that failed
    if shape != wanted:
        return Result("wrong", f"{call}\nexpected shape {_shape_text(expected)}, yours is "
                               f"{'ragged (rows of different lengths)' if shape is None else shape}"
                               + _named(key), key)
    assert wanted is not None
    lines = [call, *grid(expected, value, wanted)]
    return Result("wrong", "\n".join(lines) + _named(key), key)


def _shape_text(expected: Any) -> str:
    shape = shape_of(expected)
    return "a single number" if shape == () else str(shape)


def _named(key: str) -> str:
    if not key:
        return ("\nNot a mistake the checker knows by name: compare with the formula in the "
                "stub's docstring, or ask for a hint.")
    return "\n" + textwrap.fill(f"A known mistake, {key}: {MISTAKES[key].sentence()}.", width=88)
