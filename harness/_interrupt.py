"""The signals that end a run — SIGINT, SIGTERM and SIGHUP — each end it the same way.

While a command runs under ``handled()``, the first of them raises ``Interrupted`` in the
main thread (a ``KeyboardInterrupt``, so code that lets Ctrl-C through lets each of them
through); the command ends everything it started, then exits with 128 + the signal's number
and one sentence. Clean-up is never cut short: a signal after the first is only noted, and a
block that must run whole (``deferred()``: ending a process tree, renaming a file into place)
holds a first signal until it is done. A signal that arrives while processes are being ended
makes them end at once (``hurried()``: SIGKILL without the grace SIGTERM gets).

The state is the process's own (signal dispositions are), kept from ``handled()`` to its
end; without it (a library caller, another thread) nothing here changes Python's behaviour.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Final

__all__ = ["SIGNALS", "Interrupted", "deferred", "handled", "hurried", "quiet_worker"]

SIGNALS: Final = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that end a run: Ctrl-C, ``kill``/``timeout``/``docker stop``/a cancelled CI
job, and a closed terminal."""


class Interrupted(KeyboardInterrupt):
    """The run was ended by ``signum``; ``exit_code`` is 128 + its number (130 for SIGINT).
    ``detail`` is what the run did about it, said after the signal's name."""

    def __init__(self, signum: int, detail: str = "") -> None:
        super().__init__(signum)
        self.signum = signum
        self.detail = detail

    @property
    def name(self) -> str:
        try:
            return signal.Signals(self.signum).name
        except ValueError:
            return f"signal {self.signum}"

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    def sentence(self) -> str:
        """``interrupted by SIGTERM: <detail>``."""
        return f"interrupted by {self.name}" + (f": {self.detail}" if self.detail else "")


class _State:
    """The signals received while ``handled()`` is in force."""

    def __init__(self) -> None:
        self.received: list[int] = []
        self.raised = False
        self.holding = 0
        """How many ``deferred()`` blocks are running."""
        self.late = 0
        """Signals that arrived during clean-up (held, or after the first was raised)."""

    def handler(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(signum)
        if self.raised or self.holding:
            self.late += 1
            return
        self.raised = True
        raise Interrupted(signum)


_state: _State | None = None


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """Handle ``SIGNALS`` for the block (in the main thread; elsewhere, nothing changes),
    then put the previous handlers back."""
    global _state
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    state, outer = _State(), _state
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    installed = []
    for s in SIGNALS:
        if previous[s] == signal.SIG_IGN:
            continue  # ignored by who started us (nohup, a background job): so it stays
        with contextlib.suppress(OSError, ValueError):
            signal.signal(s, state.handler)
            installed.append(s)
    _state = state
    try:
        yield
    finally:
        _state = outer
        for s in installed:
            with contextlib.suppress(OSError, ValueError, TypeError):
                signal.signal(s, previous[s])


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Run the block whole: a signal that arrives during it is raised when it ends (unless
    one was raised already)."""
    state = _state
    if state is None:
        yield
        return
    state.holding += 1
    try:
        yield
    finally:
        state.holding -= 1
        if not state.holding and state.received and not state.raised:
            state.raised = True
            raise Interrupted(state.received[0])


def hurried() -> bool:
    """Whether a signal arrived during clean-up: what is being ended should end now."""
    return _state is not None and _state.late > 0


def quiet_worker() -> None:
    """In a worker process forked from a handled run: SIGINT (a terminal's Ctrl-C reaches
    every process of its group) is left to the parent, which ends its workers; SIGTERM and
    SIGHUP still raise ``Interrupted``, once."""
    global _state
    state = _State()
    _state = state
    with contextlib.suppress(OSError, ValueError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for s in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, state.handler)
