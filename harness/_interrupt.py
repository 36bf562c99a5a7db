"""The signals that end a run — SIGINT, SIGTERM and SIGHUP — each end it the same way.

While a command runs under ``handled()``, the first of them raises ``Interrupted`` in the
main thread (a ``KeyboardInterrupt``, so code that lets Ctrl-C through lets each of them
through); the command ends everything it started, then exits with 128 + the signal's number
and one sentence. Clean-up is never cut short: a signal after the first is only noted, and a
block that must run whole (``deferred()``: ending a process tree, renaming a file into place)
holds a first signal until it is done. A signal that arrives while processes are being ended
makes them end at once (``hurried()``: SIGKILL without the grace SIGTERM gets).

A handler runs between any two bytecodes, so the first signal's exception can be raised where
the interpreter can only print it ("Exception ignored in ..."): a garbage collector callback
(Hypothesis keeps one), a ``__del__``, a finalizer. Lost there, it would leave the run going
on as if no signal had come (a subject stuck for its whole timeout). While a run is handled,
``sys.unraisablehook`` watches for it: a swallowed ``Interrupted`` is sent again, from a
thread, once the interpreter is back in ordinary code. And a signal that lands as the main
thread enters a wait, after Python last looked for signals and before the system call, does
not end that wait: each signal also writes to a pipe (``wakeup_fd``) that a long wait (a
subject's reply) watches too.

The state is the process's own (signal dispositions are), kept from ``handled()`` to its
end; without it (a library caller, another thread) nothing here changes Python's behaviour.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any, Final

__all__ = [
    "SIGNALS",
    "Interrupted",
    "deferred",
    "drain",
    "handled",
    "hurried",
    "interruption",
    "quiet_worker",
    "wakeup_fd",
]

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


def interruption(error: BaseException | None) -> Interrupted | None:
    """The ``Interrupted`` that ``error`` is, or was raised while handling (its context or
    cause, however deep): a library's clean-up that fails while a signal's exception passes
    through it (Hypothesis asserts on a run the signal cut short before it began) raises
    its own error over it, and that error is still the signal's doing."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, Interrupted):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


class _State:
    """The signals received while ``handled()`` is in force."""

    def __init__(self) -> None:
        self.received: list[int] = []
        self.raised = False
        self.holding = 0
        """How many ``deferred()`` blocks are running."""
        self.late = 0
        """Signals that arrived during clean-up (held, or after the first was raised)."""
        self.again = 0
        """Sendings of a swallowed raise under way (``swallowed``)."""
        self.watching = 0
        """How many ``swallowed`` calls are running: no handler raises inside one."""
        self.active = True
        self.main = threading.main_thread().ident
        self.wakeup: int | None = None
        """The read end of the pipe each signal writes a byte to (``wakeup_fd``)."""

    def handler(self, signum: int, frame: FrameType | None) -> None:
        if self.again:  # the swallowed signal sent again (or a new one: the count is the same)
            self.again -= 1
            if self.raised or self.holding or self.watching:
                return  # raised meanwhile, or held: raised as the block ends
        else:
            self.received.append(signum)
            if self.raised or self.holding or self.watching:
                self.late += 1
                return
        self.raised = True
        raise Interrupted(signum)

    def swallowed(self, error: BaseException | None) -> bool:
        """Whether ``error``, which the interpreter could not raise (``sys.unraisablehook``),
        is the run's ``Interrupted``: it is then sent again, from a thread, so that the
        handler raises it once this hook and the code it ran in have returned."""
        if not isinstance(error, Interrupted) or not self.raised:
            return False
        self.watching += 1
        self.raised = False
        self.again += 1
        try:
            _thread.start_new_thread(self._send_again, (error.signum,))
        except RuntimeError:  # no thread can be started: the next signal raises
            self.again -= 1
        self.watching -= 1
        return True

    def _send_again(self, signum: int) -> None:
        """In a thread of its own: once ``swallowed`` has returned, send ``signum`` to the
        main thread (a signal to the process may land in this one, and not cut a wait of the
        main thread short), again every ``_RESEND`` s until its handler has run: this thread
        runs when the main one lets go of the interpreter, which it does as it enters a wait
        (``select``, ``sleep``), and a signal that lands before the wait's system call begins
        is only seen when the wait ends. The check and the sending are one step for the
        handler (it runs in the main thread, with the interpreter), so no sending is left
        over to be taken for a second signal."""
        while self.watching:
            time.sleep(_RESEND / 10)
        while self.again and self.active and self.main is not None:
            try:
                signal.pthread_kill(self.main, signum)
            except (OSError, ValueError):
                return
            time.sleep(_RESEND)


_RESEND: Final = 0.05
"""How often a swallowed signal is sent again until its handler has run (``_send_again``)."""

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
    hook = sys.unraisablehook
    sys.unraisablehook = _watching(state, hook)
    pipe, before = _wake_on_signals(state)
    try:
        yield
    finally:
        _state = outer
        state.active = False
        sys.unraisablehook = hook
        for s in installed:
            with contextlib.suppress(OSError, ValueError, TypeError):
                signal.signal(s, previous[s])
        if pipe is not None:
            with contextlib.suppress(OSError, ValueError):
                signal.set_wakeup_fd(before)
            for fd in pipe:
                os.close(fd)


def _wake_on_signals(state: _State) -> tuple[tuple[int, int] | None, int]:
    """A pipe each signal writes a byte to (``signal.set_wakeup_fd``), its read end kept in
    ``state.wakeup``; the pipe (None when there is none) and the descriptor it replaced."""
    try:
        pipe = os.pipe()
    except OSError:
        return None, -1
    try:
        for fd in pipe:
            os.set_blocking(fd, False)
        before = signal.set_wakeup_fd(pipe[1], warn_on_full_buffer=False)
    except (OSError, ValueError):
        for fd in pipe:
            os.close(fd)
        return None, -1
    state.wakeup = pipe[0]
    return pipe, before


def wakeup_fd() -> int | None:
    """A descriptor that becomes readable when a signal arrives while a run is handled (None
    without one): a wait on a selector registers it, because a signal that lands as the main
    thread enters ``select`` (after Python's last look for signals, before the system call)
    does not cut that wait short, and a subject's may last its whole timeout. Read what it
    holds with ``drain``; the handler itself raises as usual."""
    return None if _state is None else _state.wakeup


def drain(fd: int) -> None:
    """Empty the ``wakeup_fd`` pipe."""
    with contextlib.suppress(OSError):
        while os.read(fd, 512):
            pass


def _watching(state: _State, hook: Callable[[Any], object]) -> Callable[[Any], None]:
    """``sys.unraisablehook`` while ``state`` is in force: a swallowed ``Interrupted`` of the
    run is sent again (``_State.swallowed``), anything else goes to ``hook``."""

    def watch(unraisable: Any) -> None:
        if not state.swallowed(unraisable.exc_value):
            hook(unraisable)

    return watch


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
    sys.unraisablehook = _watching(state, sys.unraisablehook)  # the worker's, to its end
    with contextlib.suppress(OSError, ValueError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for s in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, state.handler)
