"""Running an agent program against the fake provider (``capture``): its environment points
every official SDK at the provider, and however it ends, everything it started is ended too
(``ProcessTree``) — a signal to end the run (``harness._interrupt``) included, which never
cuts that clean-up short: one arriving during it hurries it, and is raised after."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Final

from .._interrupt import deferred
from ._env import child_environment

if TYPE_CHECKING:  # what runs a command is loaded when one is run: check-log never does
    import subprocess

    from ._server import FakeProvider

__all__ = ["GRACE_SECONDS", "StderrTail", "run_command"]

GRACE_SECONDS: Final = 2.0
"""How long the processes of an ended command have between SIGTERM and SIGKILL."""
_POLL_SECONDS: Final = 0.1
_TAIL_BYTES: Final = 4096
_READER_SECONDS: Final = 2.0
"""How long the copy of the command's stderr may run on after its processes were ended."""


class StderrTail:
    """The end of what a command wrote to its standard error, which is passed on as it comes
    (to our standard error): why a program that died before its first request died."""

    def __init__(self, size: int = _TAIL_BYTES) -> None:
        self.size = size
        self._kept = bytearray()
        self._lock = threading.Lock()

    def add(self, data: bytes) -> None:
        with self._lock:
            self._kept += data
            del self._kept[: max(0, len(self._kept) - self.size)]

    def text(self, lines: int = 12) -> str:
        """The last ``lines`` lines, decoded (bad UTF-8 replaced), without a trailing newline."""
        with self._lock:
            data = bytes(self._kept)
        kept = data.decode("utf-8", "replace").rstrip("\n").split("\n")
        return "\n".join(kept[-lines:])

    def copy(self, source: IO[bytes], sink: IO[bytes] | None) -> None:
        """Copy ``source`` to ``sink`` until it ends, keeping its end (a thread's work)."""
        fd = source.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.add(chunk)
            if sink is not None:
                with contextlib.suppress(OSError, ValueError):
                    sink.write(chunk)
                    sink.flush()


def run_command(
    command: Sequence[str],
    provider: FakeProvider,
    timeout: float,
    *,
    grace: float = GRACE_SECONDS,
    to_stderr: bool = False,
    stderr_tail: StderrTail | None = None,
) -> str | int:
    """The command's exit status (negative: the signal that killed it), or a sentence saying
    why it has none (it could not be run, it timed out, the record could not be written).

    ``provider`` is running; the command's environment points at it. With ``to_stderr`` the
    command's standard output goes to our standard error (stdout carries JSON). With
    ``stderr_tail`` its standard error is passed on through a pipe, its end kept there.
    Whatever the command and its processes still run when it ends or times out get
    SIGTERM, then SIGKILL after ``grace`` seconds.
    """
    import secrets
    import subprocess

    from .._tree import RUN_VARIABLE, ProcessTree, subreaper

    env = child_environment(provider.origin, os.environ)
    token = secrets.token_hex(8)
    env[RUN_VARIABLE] = token
    with subreaper():
        try:
            process = subprocess.Popen(
                list(command),
                env=env,
                start_new_session=True,
                stdout=2 if to_stderr else None,
                stderr=None if stderr_tail is None else subprocess.PIPE,
            )
        except OSError as e:
            return f"cannot run {command[0]!r}: {e.strerror or e}"
        reader = None
        if stderr_tail is not None and process.stderr is not None:
            sink = getattr(sys.stderr, "buffer", None)
            reader = threading.Thread(
                target=stderr_tail.copy, args=(process.stderr, sink), daemon=True
            )
            reader.start()
        tree = ProcessTree(process.pid, token)
        try:
            code = _wait(process, provider, timeout)
        except BaseException:  # a signal (Interrupted): the same end, then the sentence
            with deferred():
                tree.end(grace)
                process.wait()
                _finish(reader, process)
            raise
        with deferred():  # a signal during the grace hurries it, and is raised after
            tree.end(grace)  # what it left running, or all of it after a time-out
            process.wait()
            _finish(reader, process)
    if code is None and provider.failure is not None:
        return provider.failure
    if code is None:
        return (
            f"timed out: the command did not finish within {timeout:g} s; it and every"
            f" process it started were ended (SIGTERM, then SIGKILL after {grace:g} s)"
        )
    return code


def _finish(reader: threading.Thread | None, process: subprocess.Popen[bytes]) -> None:
    """Let the copy of stderr reach its end (every writer has ended with the tree), then
    close the pipe."""
    if reader is not None:
        reader.join(_READER_SECONDS)
        if reader.is_alive():  # a writer outlived the tree: the thread (a daemon) reads on
            return
    if process.stderr is not None:
        with contextlib.suppress(OSError):
            process.stderr.close()


def _wait(process: subprocess.Popen[bytes], provider: FakeProvider, timeout: float) -> int | None:
    """The command's exit status; ``None`` on time-out or when the record cannot be
    written (``provider.failure``): there is no point in running on."""
    import subprocess

    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            return process.wait(timeout=max(0.0, min(_POLL_SECONDS, left)))
        except subprocess.TimeoutExpired:
            if provider.failure is not None or left <= _POLL_SECONDS:
                return None
