"""A Python subject run in this process, guarded so that it behaves like any other subject.

A subject's ``assemble`` promises never to raise and to return an ``Outcome`` of bodies as
bytes; when one breaks that promise the scenario gets a ``SubjectFailure`` (``crash`` with
the traceback's last lines, or ``protocol``) instead of ending the run.

That includes what is no ``Exception``: ``sys.exit()`` (``SystemExit``, even with code 0),
``GeneratorExit``, a ``KeyboardInterrupt`` the subject raises itself, any other
``BaseException``. Left alone, one would end the harness with the subject's exit code and
no report. A real Ctrl-C still stops the run: while the subject runs, a SIGINT handler
notes that the harness received the signal (and then does what the handler before it
did); a ``KeyboardInterrupt`` that escapes the subject is the user's when a SIGINT arrived
during the call, and the subject's own (a crash) when none did. Off the main thread no
handler can be installed, and a ``KeyboardInterrupt`` is taken as the user's. SIGTERM and
SIGHUP, when the command line handles them, raise ``Interrupted``: always the user's too.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType, TracebackType
from typing import Final, TypeVar

from .._interrupt import Interrupted
from ..protocol import Outcome, Subject
from ..scenarios import Lifecycle, Scenario
from ._failure import SubjectFailure

__all__ = ["InProcessSubject", "guarded", "guarded_assemble"]

_TRACE_LINES: Final = 12
_T = TypeVar("_T")


class _Raised(Exception):
    """What a guarded call raised, when it is the subject's doing."""

    def __init__(self, error: BaseException, trace: str) -> None:
        super().__init__(error)
        self.error = error
        self.trace = trace


def _guarded(call: Callable[[], _T]) -> _T:
    """``call()``; ``_Raised`` for anything it raises that is not the user's Ctrl-C."""
    interrupted = False
    installed = threading.current_thread() is threading.main_thread()
    previous: object = None
    if installed:
        previous = signal.getsignal(signal.SIGINT)

        def note(signum: int, frame: FrameType | None) -> None:
            nonlocal interrupted
            interrupted = True
            if callable(previous):
                previous(signum, frame)
            elif previous != signal.SIG_IGN:
                raise KeyboardInterrupt

        try:
            signal.signal(signal.SIGINT, note)
        except (ValueError, OSError):  # pragma: no cover - not the main interpreter
            installed = False
    try:
        return call()
    except KeyboardInterrupt as e:
        if interrupted or not installed or isinstance(e, Interrupted):
            raise
        raise _Raised(e, _trace()) from None
    except BaseException as e:  # a subject under test may end in any way
        raise _Raised(e, _trace()) from None
    finally:
        if installed:
            signal.signal(signal.SIGINT, previous)  # type: ignore[arg-type]


def _trace() -> str:
    return "\n".join(traceback.format_exc().splitlines()[-_TRACE_LINES:])


def _raised(e: BaseException) -> str:
    """``SystemExit(0)``, ``RuntimeError: boom``: what was raised, on one line."""
    if isinstance(e, SystemExit):
        return f"SystemExit({e.code!r})"
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def guarded(call: Callable[[], _T], what: str) -> _T:
    """``call()``; ``ValueError`` saying "``what`` raised ..." for anything it raises (a
    ``sys.exit()`` included) but the user's Ctrl-C: loading a subject that fails so is a bad
    subject, told in one sentence, not an exit of the harness with the subject's code."""
    try:
        return _guarded(call)
    except _Raised as r:
        raise ValueError(f"{what} raised {_raised(r.error)}") from None


def guarded_assemble(subject: Subject, scenario: Scenario, dialect: str) -> Outcome:
    """``subject.assemble``, with whatever it raises (but the user's Ctrl-C) as a crash."""
    try:
        return _guarded(lambda: subject.assemble(scenario, dialect))
    except _Raised as r:
        detail = f"assemble raised {_raised(r.error)}"
        return SubjectFailure.of("crash", scenario.id, detail, stderr_tail=r.trace)


@dataclass(frozen=True, slots=True)
class InProcessSubject:
    """``subject`` behind the runner's interface: ``start``/``close``, never raising.

    Its ``name``, ``dialects`` and ``lifecycles`` are read once, here, guarded: a property
    that raises (or calls ``sys.exit()``) is a ``ValueError`` naming it."""

    subject: Subject
    name: str = field(init=False)
    dialects: tuple[str, ...] = field(init=False)
    lifecycles: tuple[Lifecycle, ...] = field(init=False)

    def __post_init__(self) -> None:
        inner = self.subject
        name = guarded(lambda: inner.name, "the subject's name")
        dialects = guarded(lambda: tuple(inner.dialects), f"subject {name!r}: its dialects")
        lifecycles = guarded(lambda: tuple(inner.lifecycles), f"subject {name!r}: its lifecycles")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "dialects", dialects)
        object.__setattr__(self, "lifecycles", lifecycles)

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        outcome = guarded_assemble(self.subject, scenario, dialect)
        if isinstance(outcome, SubjectFailure):
            return outcome
        problem = _problem(outcome)
        if problem is not None:
            return SubjectFailure.of("protocol", scenario.id, problem)
        return outcome

    def start(self) -> None:
        """Nothing to start in process."""

    def close(self) -> None:
        """Close the wrapped subject if it has a ``close()``; what that raises (a
        ``sys.exit()`` included, but the user's Ctrl-C) is ignored: the run is over."""
        close = getattr(self.subject, "close", None)
        if callable(close):
            with contextlib.suppress(_Raised):
                _guarded(close)

    def __enter__(self) -> InProcessSubject:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _problem(outcome: object) -> str | None:
    """Why ``outcome`` is not an Outcome of byte bodies, or None."""
    if not isinstance(outcome, Outcome):
        return f"assemble returned {type(outcome).__name__}, not an Outcome"
    if outcome.status not in ("assembled", "rejected", "skipped", "errored"):
        return f"assemble returned an Outcome with status {outcome.status!r}"
    bodies = [outcome.parent, *outcome.children, *outcome.follow_ups, outcome.parent_next]
    wrong = next((b for b in bodies if b is not None and not isinstance(b, bytes)), None)
    if wrong is not None:
        return f"assemble returned a body of type {type(wrong).__name__}, not bytes"
    return None
