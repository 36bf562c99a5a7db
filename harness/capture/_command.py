"""Running an agent program against the fake provider (``capture``): its environment points
every official SDK at the provider, and however it ends, everything it started is ended too
(``ProcessTree``) — a signal to end the run (``harness._interrupt``) included, which never
cuts that clean-up short: one arriving during it hurries it, and is raised after."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from .._interrupt import deferred
from ._env import child_environment

if TYPE_CHECKING:  # what runs a command is loaded when one is run: check-log never does
    import subprocess

    from ._server import FakeProvider

__all__ = ["GRACE_SECONDS", "run_command"]

GRACE_SECONDS: Final = 2.0
"""How long the processes of an ended command have between SIGTERM and SIGKILL."""
_POLL_SECONDS: Final = 0.1


def run_command(
    command: Sequence[str],
    provider: FakeProvider,
    timeout: float,
    *,
    grace: float = GRACE_SECONDS,
    to_stderr: bool = False,
) -> str | int:
    """The command's exit status (negative: the signal that killed it), or a sentence saying
    why it has none (it could not be run, it timed out, the record could not be written).

    ``provider`` is running; the command's environment points at it. With ``to_stderr`` the
    command's standard output goes to our standard error (stdout carries JSON). Whatever
    the command and its processes still run when it ends or times out get SIGTERM, then
    SIGKILL after ``grace`` seconds.
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
                list(command), env=env, start_new_session=True, stdout=2 if to_stderr else None
            )
        except OSError as e:
            return f"cannot run {command[0]!r}: {e.strerror or e}"
        tree = ProcessTree(process.pid, token)
        try:
            code = _wait(process, provider, timeout)
        except BaseException:  # a signal (Interrupted): the same end, then the sentence
            with deferred():
                tree.end(grace)
                process.wait()
            raise
        with deferred():  # a signal during the grace hurries it, and is raised after
            tree.end(grace)  # what it left running, or all of it after a time-out
            process.wait()
    if code is None and provider.failure is not None:
        return provider.failure
    if code is None:
        return (
            f"timed out: the command did not finish within {timeout:g} s; it and every"
            f" process it started were ended (SIGTERM, then SIGKILL after {grace:g} s)"
        )
    return code


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
