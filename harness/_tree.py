"""Ending everything a captured command or a subject process started, not only its process
group.

An agent's children may ignore SIGTERM, leave its process group (``setsid``) or be
re-parented when their parent exits. On Linux, the capture becomes a child subreaper
(``prctl(PR_SET_CHILD_SUBREAPER)``) so orphans of the command are re-parented to it rather
than to init, and every process of the run is found by walking ``/proc``: the command, its
process group, every process whose environment carries the run's token (``RUN_VARIABLE``,
set in the command's environment and inherited), orphans re-parented to the capture, and
every descendant of these. Each gets SIGTERM, then SIGKILL after a grace period; the ones
re-parented to the capture are reaped. A ``cmd:`` subject's processes are found the same
way but for the subreaper (``check`` runs other processes of its own: its ``--jobs``
workers): its token is what finds its orphans. Without ``/proc``, the process group is
signalled.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from ._interrupt import hurried

__all__ = ["RUN_VARIABLE", "ProcessTree", "subreaper"]

RUN_VARIABLE = "PREFIX_HARNESS_RUN"
"""Set to a random token in the command's environment: its processes carry it."""
_PR_SET_CHILD_SUBREAPER = 36
_PROC = Path("/proc")
_KILL_ROUNDS = 5
_KILL_WAIT = 0.5
_POLL = 0.02


def _set_subreaper(on: bool) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


@contextlib.contextmanager
def subreaper() -> Iterator[bool]:
    """Make this process a child subreaper for the block (Linux); whether it is one."""
    on = _set_subreaper(True)
    try:
        yield on
    finally:
        if on:
            _set_subreaper(False)


def _table() -> dict[int, tuple[int, int, str]] | None:
    """Every process: pid -> (parent pid, process group, state); ``None`` without /proc."""
    try:
        entries = os.listdir(_PROC)
    except OSError:
        return None
    table = {}
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            stat = (_PROC / entry / "stat").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) >= 3:
            table[int(entry)] = (int(fields[1]), int(fields[2]), fields[0].decode("ascii"))
    return table


def _carries(pid: int, marker: bytes) -> bool:
    try:
        environ = (_PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return False
    return marker in b"\0" + environ


class ProcessTree:
    """The processes of one captured command or subject (``root``, started in a session of
    its own, with ``RUN_VARIABLE=token`` in its environment). With ``adopt``, the children
    re-parented to this process since (it is a subreaper, and starts nothing else
    meanwhile) are the run's too."""

    def __init__(self, root: int, token: str, *, adopt: bool = True) -> None:
        self.root = root
        self.me = os.getpid()
        self._marker = f"\0{RUN_VARIABLE}={token}\0".encode()
        self._adopt = adopt
        self._before: set[int] = set()
        if adopt:
            table = _table() or {}
            self._before = {pid for pid, (ppid, _, _) in table.items() if ppid == self.me}
            self._before.discard(root)

    def members(self) -> set[int] | None:
        """The live processes of the run (zombies are not), or ``None`` without /proc."""
        table = _table()
        if table is None:
            return None
        seeds = set()
        for pid, (ppid, group, _) in table.items():
            if pid == self.me:
                continue
            if (
                pid == self.root
                or group == self.root
                or (self._adopt and ppid == self.me and pid not in self._before)
                or _carries(pid, self._marker)
            ):
                seeds.add(pid)
        children: dict[int, list[int]] = {}
        for pid, (ppid, _, _) in table.items():
            children.setdefault(ppid, []).append(pid)
        found, todo = set(), list(seeds)
        while todo:
            pid = todo.pop()
            if pid in found or pid == self.me:
                continue
            found.add(pid)
            todo.extend(children.get(pid, ()))
        self._reap(table, found)
        return {pid for pid in found if table[pid][2] not in "ZX"}

    def end(self, grace: float) -> int:
        """SIGTERM every process of the run, SIGKILL those left after ``grace`` seconds
        (and any started meanwhile), or at once when a signal to end the run arrives during
        the grace (``harness._interrupt.hurried``); how many processes were signalled."""
        alive = self.members()
        if alive is None:
            return self._end_group(grace)
        signalled = set(alive)
        _signal(alive, signal.SIGTERM)
        deadline, rounds = time.monotonic() + grace, 0
        while alive:
            time.sleep(_POLL)
            alive = self.members() or set()
            new = alive - signalled
            if time.monotonic() < deadline and not hurried():
                _signal(new, signal.SIGTERM)
            elif rounds < _KILL_ROUNDS:
                _signal(alive, signal.SIGKILL)
                rounds += 1
                deadline = time.monotonic() + _KILL_WAIT
            else:
                break
            signalled |= new
        return len(signalled)

    def _end_group(self, grace: float) -> int:
        _signal_group(self.root, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and not hurried():
            try:
                os.killpg(self.root, 0)
            except (ProcessLookupError, PermissionError):
                return 1
            time.sleep(_POLL)
        _signal_group(self.root, signal.SIGKILL)
        return 1

    def _reap(self, table: dict[int, tuple[int, int, str]], found: set[int]) -> None:
        """Collect the exit status of the run's processes re-parented to us (the root's is
        its starter's to collect)."""
        for pid in found:
            ppid, _, state = table[pid]
            if ppid == self.me and pid != self.root and state in "ZX":
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)


def _signal(pids: set[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _signal_group(group: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, sig)
