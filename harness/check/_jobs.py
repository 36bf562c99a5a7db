"""Scenario runs spread over worker processes, each with its own subject (``check --jobs N``).

The parent knows every scenario run before any worker starts (generation happens in the
parent, deterministically) and hands out their positions one at a time; a worker builds its
own subject once (a ``cmd:`` subject is started once per worker), runs each scenario it is
given and sends back the report. The parent reads the results in the run's order, so the
report is the one a single process gives. A worker that dies (an in-process subject that
ends its process) is a crash of the scenario it was running, and a new worker takes over.

A run ended by a signal ends its workers (``terminate``): each ends its subject and everything
that subject started, and exits quietly, without a traceback. Ctrl-C, which a terminal sends
to every process of its group, is left to the parent; a worker whose parent is gone ends too.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from .._interrupt import Interrupted, deferred, hurried, quiet_worker
from ..protocol import Subject
from ..rules import ScenarioReport, evaluate
from ..scenarios import Scenario
from ..subjects import SubjectFailure

if TYPE_CHECKING:  # multiprocessing is loaded by the first Workers: a run of one job never is
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

__all__ = ["Result", "RunOne", "Workers", "cpu_count"]

Result = tuple[ScenarioReport, Sequence[SubjectFailure]]
RunOne = Callable[[Subject, Scenario, str], Result]
_STOP: Final = -1
_END_SECONDS: Final = 5.0
"""How long a worker ended by ``terminate`` has to end its subject before it is killed."""
_POLL_SECONDS: Final = 0.05


def cpu_count() -> int:
    """The CPUs this process may run on (``--jobs auto``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _context() -> Any:
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _serve(
    conn: Connection,
    factory: Callable[[], Subject],
    work: Sequence[tuple[Scenario, str]],
    run_one: RunOne,
) -> None:
    """A worker: one subject, then the scenario runs the parent names, until it says stop.
    Ended by a signal, or with its parent gone, it ends its subject and exits quietly."""
    quiet_worker()
    subject: Subject | None = None
    ended: int | None = None
    try:
        subject = factory()
        while (position := conn.recv()) != _STOP:
            scenario, dialect = work[position]
            conn.send((position, run_one(subject, scenario, dialect)))
        finish = getattr(subject, "finish", None)
        finished = finish() if callable(finish) else ()
        conn.send((_STOP, tuple(f for f in finished if isinstance(f, SubjectFailure))))
    except Interrupted as e:  # the parent ends the run
        ended = e.exit_code
    except (EOFError, BrokenPipeError, ConnectionResetError):  # the parent is gone
        ended = 1
    finally:
        with deferred():
            end = getattr(subject, "kill" if ended is not None else "close", None)
            end = end if callable(end) else getattr(subject, "close", None)
            if callable(end):
                end()
            conn.close()
    if ended is not None:
        raise SystemExit(ended)  # multiprocessing prints no traceback for this one


class _Worker:
    def __init__(self, context: Any, target: Callable[..., None], args: tuple[Any, ...]) -> None:
        self.conn, child = context.Pipe()
        self.process: BaseProcess = context.Process(target=target, args=(child, *args), daemon=True)
        self.process.start()
        child.close()
        self.busy: int | None = None


class Workers:
    """``jobs`` worker processes over ``work`` (scenario, dialect pairs); ``result(i)`` is
    the result of ``work[i]``, run ahead of time while workers are free. ``wanted(i)`` says
    whether a position is still worth running (False once the run will never read it)."""

    def __init__(
        self,
        jobs: int,
        factory: Callable[[], Subject],
        work: Sequence[tuple[Scenario, str]],
        run_one: RunOne,
        name: str,
        wanted: Callable[[int], bool],
    ) -> None:
        self._context = _context()
        self._args = (factory, work, run_one)
        self._work = work
        self._name = name
        self._wanted = wanted
        self._workers = [self._spawn() for _ in range(jobs)]
        self._done: dict[int, Result] = {}
        self._next = 0
        self.failures: list[SubjectFailure] = []
        """What the workers' subjects wrote after their last reply (``finish()``)."""

    def _spawn(self) -> _Worker:
        return _Worker(self._context, _serve, self._args)

    def _dispatch(self, needed: int) -> None:
        busy = {w.busy for w in self._workers}
        for worker in self._workers:
            if worker.busy is not None:
                continue
            if needed not in self._done and needed not in busy:
                position = needed  # the one the run waits for goes first
            else:
                while self._next < len(self._work) and (
                    self._next in self._done
                    or self._next in busy
                    or self._next < needed
                    or not self._wanted(self._next)
                ):
                    self._next += 1
                if self._next >= len(self._work):
                    return
                position = self._next
                self._next += 1
            worker.busy = position
            busy.add(position)
            with contextlib.suppress(OSError):  # it died idle: reading from it will say so
                worker.conn.send(position)

    def result(self, position: int) -> Result:
        from multiprocessing.connection import wait

        while position not in self._done:
            self._dispatch(position)
            ready = wait([w.conn for w in self._workers if w.busy is not None])
            for worker in [w for w in self._workers if w.conn in ready]:
                self._receive(worker)
        return self._done.pop(position)

    def _receive(self, worker: _Worker) -> None:
        busy = worker.busy
        try:
            position, result = worker.conn.recv()
        except (EOFError, OSError):
            worker.process.join()
            code = worker.process.exitcode
            self._workers[self._workers.index(worker)] = self._spawn()
            if busy is not None:
                self._done[busy] = self._died(busy, code)
            return
        worker.busy = None
        self._done[position] = result

    def _died(self, position: int, code: int | None) -> Result:
        scenario, dialect = self._work[position]
        detail = "the worker process running the subject died"
        failure = SubjectFailure.of("crash", scenario.id, detail, exit_code=code)
        return evaluate(scenario, dialect, failure, subject=self._name), [failure]

    def terminate(self) -> None:
        """End every worker now (the run is ended): SIGTERM, on which each ends its subject
        and exits; a worker still there ``_END_SECONDS`` later, or at once when another
        signal arrives meanwhile, is killed."""
        with deferred():
            for worker in self._workers:
                if worker.process.is_alive():
                    worker.process.terminate()
            deadline = time.monotonic() + _END_SECONDS
            for worker in self._workers:
                while worker.process.is_alive() and time.monotonic() < deadline and not hurried():
                    worker.process.join(_POLL_SECONDS)
                if worker.process.is_alive():
                    worker.process.kill()
                worker.process.join()
                worker.conn.close()

    def close(self) -> None:
        """Let each worker finish its scenario, stop its subject, and collect ``finish()``."""
        for worker in self._workers:
            try:
                while worker.busy is not None:
                    position, result = worker.conn.recv()
                    worker.busy = None if position == worker.busy else worker.busy
                worker.conn.send(_STOP)
                while True:
                    position, result = worker.conn.recv()
                    if position == _STOP:
                        self.failures.extend(result)
                        break
            except (EOFError, OSError):
                pass
            worker.conn.close()
            worker.process.join()
