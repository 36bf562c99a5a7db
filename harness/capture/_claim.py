"""A record file owned by one run: written beside its path, locked, renamed into place.

Two captures given the same record file (two runs in one directory, on the default
``capture.jsonl``) would truncate it and read each other's requests back as their own. So a
run writes ``FILE.partial``, holding an exclusive lock on it (``flock``) from before it is
truncated until the run ends; a second run on the same file finds the lock taken and
refuses at once, naming the process that holds it. When the run ends, ``FILE.partial`` is
renamed to ``FILE``: an earlier record stays whole until then, and a reader of ``FILE``
never sees a record being written. A run killed outright (SIGKILL) leaves its requests in
``FILE.partial``; the next run on the file takes it over.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from .._files import target
from .._interrupt import deferred

if sys.platform != "win32":
    import fcntl

__all__ = ["PARTIAL", "Claim", "ClaimError"]

PARTIAL = ".partial"
"""What a record being written adds to its file's name."""
_TRIES = 5
"""How many times the lock is tried again when the file was renamed under it."""


class ClaimError(ValueError):
    """The record file cannot be had: ``str()`` is one sentence naming it."""


class Claim:
    """``path``'s partial file, created (or taken over), locked and emptied; ``fd`` reads
    and writes it. ``publish()`` renames it to ``path``; the lock lasts until ``fd`` is
    closed (``release()``)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.final = target(path)
        if self.final.is_dir():
            raise ClaimError(f"the record file {self.path} is a directory")
        if self.final.exists() and not self.final.is_file():
            raise ClaimError(
                f"the record file {self.path} is not a regular file: a record is read back"
                " when the run ends"
            )
        self.partial = self.final.with_name(self.final.name + PARTIAL)
        self.fd = self._locked()
        self.published = False
        os.ftruncate(self.fd, 0)

    def _locked(self) -> int:
        """A descriptor of the partial file, locked by this process."""
        for _ in range(_TRIES):
            fd = os.open(self.partial, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
            if sys.platform == "win32":
                return fd
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                who = "another run" if holder is None else f"another run (pid {holder})"
                raise ClaimError(
                    f"the record file {self.path} is being written by {who}, as"
                    f" {self.partial}: give each run its own --record"
                ) from None
            except BaseException:
                os.close(fd)
                raise
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.partial))
            except FileNotFoundError:
                same = False
            if same:
                return fd
            os.close(fd)  # the run that held it renamed it into place meanwhile: try again
        raise ClaimError(f"the record file {self.path} keeps being replaced by another run")

    def publish(self) -> None:
        """Rename the partial file to the record's path (once); ``OSError`` if it cannot."""
        if not self.published:
            with deferred():
                os.replace(self.partial, self.final)
                self.published = True

    def release(self) -> None:
        """Close the descriptor (the lock goes with it). Idempotent."""
        fd, self.fd = self.fd, -1
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)


def _holder(fd: int) -> int | None:
    """The process holding the ``flock`` on ``fd``'s file, from ``/proc/locks`` (Linux);
    None when it cannot be told."""
    status = os.fstat(fd)
    key = f"{os.major(status.st_dev):02x}:{os.minor(status.st_dev):02x}:{status.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as locks:
            for line in locks:
                fields = line.split()
                if len(fields) > 5 and fields[1] == "FLOCK" and fields[5] == key:
                    return int(fields[4]) if fields[4].isdigit() else None
    except OSError:
        pass
    return None
