"""A protocol subject that appends its pid to the file ``PREFIX_PID_LOG`` names when it
starts, then serves the reference: a test counts the subjects a run started by the lines of
that file (``started``). ``spec()`` is the ``--prefix-subject`` value that runs it. With
``PREFIX_PID_EXIT`` set it exits with that code instead of serving: a subject that cannot
start; with ``PREFIX_PID_LATE`` set it writes one more line when told to stop."""

from __future__ import annotations

import os
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve()


def spec() -> str:
    return f"cmd:{sys.executable} {SCRIPT}"


def started(log: Path) -> list[str]:
    """The pids of the subjects started so far (none when the log does not exist)."""
    return log.read_text(encoding="utf-8").split() if log.exists() else []


if __name__ == "__main__":
    from harness.subjects import ReferenceSubject, serve

    with open(os.environ["PREFIX_PID_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()}\n")
    if os.environ.get("PREFIX_PID_EXIT"):
        sys.exit(int(os.environ["PREFIX_PID_EXIT"]))
    code = serve(ReferenceSubject(name="pid-logger"))
    if os.environ.get("PREFIX_PID_LATE"):  # a line after the last reply: a protocol error
        print('{"seq": 0, "status": "skipped"}', flush=True)
    sys.exit(code)
