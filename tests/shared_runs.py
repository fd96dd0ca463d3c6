"""How tests/conftest.py runs a command once and shares it: the queue and its two threads.

conftest.py says which commands the tests read (the lessons, the benchmarks' quick
modes, mypy ...) and why each is run the way it is; this module only runs them. A
`Command` is run once a session, by `SharedCommands.run`, in whichever thread asks
first: the background thread that works through the queue (the longest command
first, while pytest runs the other tests on the other core), or a test that needs
it before the thread has started it. A test that waits for a command the thread is
running runs the next queued one meanwhile. Nothing here decides what a test
checks: a command's result is the `subprocess.CompletedProcess` the test would have
got by running it.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable


@dataclass(frozen=True)
class Command:
    """One command, run from the clone with stdin closed; `hash_seed` sets PYTHONHASHSEED
    (None: the environment's, random by default)."""

    args: tuple[str, ...]
    hash_seed: str | None = None
    timeout: float = 120
    environment: tuple[tuple[str, str], ...] = ()  # set on top of this process's


@dataclass
class _Job:
    started: bool = False
    done: threading.Event = field(default_factory=threading.Event)
    result: subprocess.CompletedProcess[str] | None = None
    seconds: float = 0.0
    error: BaseException | None = None


class SharedCommands:
    """Each command's one run, by whichever thread asks first: commands run in `root`, the
    queue's longest first by `seconds` (a rough guess of each command's time)."""

    def __init__(self, root: Path, seconds: Callable[[Command], float]) -> None:
        self.root = root
        self.guess = seconds
        self.lock = threading.Lock()
        self.more = threading.Condition(self.lock)  # a command was queued, or none will be
        self.jobs: dict[Command, _Job] = {}
        self.queue: list[Command] = []
        self.collecting = True  # while pytest collects, more commands may be queued
        self.stopping = False
        self.thread: threading.Thread | None = None
        self.running: set[subprocess.Popen[str]] = set()

    def _claim(self, command: Command) -> _Job | None:
        """The job, marked started by the caller, or None if someone else started it."""
        with self.lock:
            job = self.jobs.setdefault(command, _Job())
            if job.started:
                return None
            job.started = True
            return job

    def _pick(self) -> tuple[Command, _Job] | None:
        """Claim the next queued command nobody has started, those that train first
        (call with the lock held)."""
        waiting = [command for command in self.queue
                   if not self.jobs.setdefault(command, _Job()).started]
        if self.stopping or not waiting:
            return None
        command = max(waiting, key=self.guess)  # the longest first; ties: in queue order
        self.jobs[command].started = True
        return command, self.jobs[command]

    def add(self, commands: list[Command]) -> None:
        """Queue commands (each once), and start the thread if it has not started."""
        with self.lock:
            self.queue += [command for command in dict.fromkeys(commands)
                           if command not in self.queue]
            self.more.notify_all()
            if self.thread is None and self.queue:
                self.thread = threading.Thread(target=self.work, name="shared commands",
                                               daemon=True)
                self.thread.start()

    def collected(self, needed: list[Command]) -> None:
        """Collection is over: keep only the commands the selected tests read."""
        with self.lock:
            self.queue = [command for command in self.queue if command in needed]
            self.collecting = False
            self.more.notify_all()
        self.add(needed)

    def _execute(self, command: Command, job: _Job) -> None:
        env = dict(os.environ)
        if command.hash_seed is not None:
            env["PYTHONHASHSEED"] = command.hash_seed
        env.update(command.environment)
        start = time.perf_counter()
        try:
            with subprocess.Popen(command.args, cwd=self.root, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env) as process:
                with self.lock:
                    self.running.add(process)
                try:
                    stdout, stderr = process.communicate(timeout=command.timeout)
                except BaseException:  # too slow, or Ctrl-C: the command ends here
                    process.kill()
                    process.communicate()
                    raise
                finally:
                    with self.lock:
                        self.running.discard(process)
            job.result = subprocess.CompletedProcess(list(command.args), process.returncode,
                                                     stdout, stderr)
            job.seconds = time.perf_counter() - start
        except Exception as error:  # handed to the test that asks, in its thread
            job.error = error
        except BaseException as error:  # Ctrl-C ends the session too
            job.error = error
            raise
        finally:
            job.done.set()

    def run(self, command: Command) -> subprocess.CompletedProcess[str]:
        job = self._claim(command)
        if job is not None:
            self._execute(command, job)
        else:
            job = self.jobs[command]
            while not job.done.is_set() and self._help():
                pass  # another thread runs it: run queued commands meanwhile
            job.done.wait()
        if job.error is not None:
            raise job.error
        assert job.result is not None
        return job.result

    def seconds(self, command: Command) -> float:
        """The wall-clock time of the command's one run (run now if nobody ran it)."""
        self.run(command)
        return self.jobs[command].seconds

    def _help(self) -> bool:
        """Run the next queued command nobody has started; False if there is none."""
        with self.lock:
            picked = self._pick()
        if picked is None:
            return False
        self._execute(*picked)
        return True

    def work(self) -> None:
        """The background thread: run the queued commands nobody has started, until
        collection is over and none is left."""
        while True:
            with self.lock:
                picked = self._pick()
                while picked is None and self.collecting and not self.stopping:
                    self.more.wait()
                    picked = self._pick()
            if picked is None:
                return
            self._execute(*picked)

    def stop(self) -> None:
        with self.lock:
            self.stopping = True
            self.more.notify_all()
            for process in self.running:
                process.kill()
