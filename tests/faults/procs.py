"""The process table of a run, found by a marker variable in each process's environment: the
tests set it in the environment of the command they start, every process the command starts
inherits it, and after the run none may be left."""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from pathlib import Path

MARKER = "PREFIX_HARNESS_FAULT_TEST"
"""The variable carrying a run's marker."""


def new_marker() -> str:
    return uuid.uuid4().hex


def marked(marker: str) -> list[int]:
    """The live processes (zombies are not) whose environment carries ``marker``."""
    needle = f"\0{MARKER}={marker}\0".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:
            continue
        if needle in b"\0" + environ and stat[stat.rfind(b")") + 2 :][:1] not in b"ZX":
            found.append(int(entry))
    return found


def left_behind(marker: str, within: float = 5.0) -> list[int]:
    """The processes of the run still alive ``within`` seconds from now at the latest (a
    SIGKILL lands asynchronously); they are then killed, so that no test leaks them."""
    deadline = time.monotonic() + within
    while (alive := marked(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in alive:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return alive
