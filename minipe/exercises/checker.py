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
import math
import signal
import textwrap
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from minipe.display import format_number, grid_line
from minipe.exercises.catalogue import Exercise, Function, call_each
from minipe.exercises.mistakes import MISTAKES

Passed = Sequence[tuple[tuple[Any, ...], Any]]  # (args, minipe's answer) of the cases right so far
SHOWN_ROWS = 3  # the differing rows shown in a grid
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
    return Outcome(value=value, changed=changed_argument(function, args, given))


def changed_argument(function: Function, args: tuple[Any, ...], given: tuple[Any, ...]) -> str:
    """The name of the first argument the call changed in place ('' if none): the learner's
    own parameter name when the signature has it, else 'argument 1'."""
    for number, (before, after) in enumerate(zip(args, given)):
        if before != after:
            try:
                names = list(inspect.signature(function).parameters)
            except (TypeError, ValueError):  # a builtin without a signature
                names = []
            return names[number] if number < len(names) else f"argument {number + 1}"
    return ""


def plain(value: Any) -> Any:
    """Nested lists of floats (a Matrix, tuples and ints are welcome); otherwise a TypeError
    that says what was found: 'a str', 'a list holding a str', 'an int too large ...'."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, bool):  # a mask's True and False: 1.0 and 0.0
        return float(value)
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:  # an int past 1.8e308
            raise TypeError("an int too large for a float") from None
    if isinstance(value, (list, tuple)):
        try:
            return [plain(item) for item in value]
        except TypeError as error:
            raise TypeError(f"a {type(value).__name__} holding {error}") from None
    raise TypeError(f"a {type(value).__name__}")


def shape_of(value: Any) -> tuple[int, ...] | None:
    """The shape of nested lists of floats; None when rows differ in length."""
    if isinstance(value, float):
        return ()
    inner = {shape_of(item) for item in value}
    if len(inner) > 1 or None in inner:
        return None
    rest = inner.pop() if inner else ()
    return None if rest is None else (len(value),) + rest


def rows_of(value: Any, shape: tuple[int, ...]) -> list[tuple[str, list[float]]]:
    """(label, row) pairs: a number is one row of one, a table its rows, a batch [b][t]."""
    if len(shape) == 0:
        return [("", [value])]
    if len(shape) == 1:
        return [("", value)]
    if len(shape) == 2:
        return [(f"[{i}]", row) for i, row in enumerate(value)]
    return [(f"[{b}][{t}]", row) for b, matrix in enumerate(value) for t, row in enumerate(matrix)]


def close(a: float, b: float) -> bool:
    """Equal to 9 digits; nan is close to nan (a known mistake's nan row is the learner's)."""
    return a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) or (a != a and b != b)


def same(expected: Any, yours: Any) -> bool:
    if isinstance(expected, float):
        return isinstance(yours, float) and close(expected, yours)
    return (isinstance(yours, list) and len(expected) == len(yours)
            and all(same(e, y) for e, y in zip(expected, yours)))


def difference(e: float, y: float) -> float:
    return 0.0 if close(e, y) else y - e


def grid(expected: Any, yours: Any, shape: tuple[int, ...]) -> list[str]:
    """The first rows that differ, each as three lines: expected, yours, yours - expected."""
    pairs = list(zip(rows_of(expected, shape), rows_of(yours, shape)))
    differing = [(label, e, y) for (label, e), (_, y) in pairs if not same(e, y)]
    width = max(len(label) for label, _, _ in differing)
    lines = []
    for label, e, y in differing[:SHOWN_ROWS]:
        lines.append(f"  {label:<{width}}  expected    {grid_line(e)}")
        lines.append(f"  {'':<{width}}  yours       {grid_line(y)}")
        lines.append(f"  {'':<{width}}  difference  {grid_line(list(map(difference, e, y)))}")
    if len(differing) > SHOWN_ROWS:
        lines.append(f"  ... {len(differing) - SHOWN_ROWS} more differing (of {len(pairs)} "
                     f"rows)")
    return lines


def describe_arg(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        shape = shape_of(plain(value)) if not any(isinstance(v, str) for v in value) else None
        if shape is None:
            return f"<{len(value)} items>"
        numbers = _numbers(value)
        if len(shape) == 1 and shape[0] <= 8:  # a few numbers: shown, floats to 5 digits
            return "[" + ", ".join(map(_number, numbers)) + "]"
        if len(numbers) <= 24 and all(isinstance(x, int) for x in numbers):  # a small mask
            return repr(value)
        return "<" + " x ".join(map(str, shape)) + " list>"
    return repr(value)


def _number(x: Any) -> str:
    return format_number(x) if isinstance(x, float) else repr(x)


def _numbers(value: Any) -> list[Any]:
    return [x for item in value for x in _numbers(item)] if isinstance(value, list) else [value]


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
            # an overflow or a 0 / 0 is as telling as a number; any other error is not
            if not (isinstance(yours.error, ArithmeticError)
                    and type(theirs.error) is type(yours.error)):
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
