"""Outcomes the harness makes itself when a subject crashed, hung or broke the protocol.

Such an outcome is ``errored`` like one a subject reports, so code that only reads
``Outcome.status`` treats it as a failed scenario; being a ``SubjectFailure`` is the marker
that the subject itself misbehaved (the command line's exit code 3), as opposed to a
subject that answered ``errored`` for a scenario and kept serving.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from ..protocol import Outcome

__all__ = [
    "FailureKind",
    "SubjectFailure",
    "SubjectStartError",
    "is_subject_failure",
    "printable",
]

FailureKind: TypeAlias = Literal["crash", "hang", "protocol", "start"]
"""crash: exited, or raised in process; hang: no reply within the timeout; protocol: a line
that is not the expected message (garbage, wrong shape or seq, over the size limit); start:
the subject could not be (re)started, so the scenario was not run."""

_WHAT: Final[dict[FailureKind, str]] = {
    "crash": "subject crashed",
    "hang": "subject hung",
    "protocol": "protocol error",
    "start": "subject could not start",
}


_CONTROL: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""C0 controls but tab and newline, DEL, C1 controls: what a terminal may act on."""


def printable(text: str) -> str:
    """``text`` with every control character a terminal could act on (ESC, CR, BEL, the C1
    range, ...) shown as an escape (``\\x1b``); tabs and newlines are kept."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _tail_report(head: str, stderr_tail: str) -> str:
    if not stderr_tail.strip():
        return head
    tail = "\n".join(f"  | {line}" for line in stderr_tail.rstrip("\n").splitlines())
    return f"{head}\nlast lines of the subject's stderr:\n{tail}"


@dataclass(frozen=True, slots=True)
class SubjectFailure(Outcome):
    """An ``errored`` outcome for a scenario during which the subject misbehaved.

    ``message`` is one line naming the scenario and what was wrong; ``report()`` adds the
    tail of the subject's stderr. Build it with ``SubjectFailure.of``.
    """

    kind: FailureKind = "protocol"
    scenario: str = ""
    detail: str = ""
    exit_code: int | None = None
    stderr_tail: str = ""
    stalled: bool = False
    """The subject stopped answering without exiting (it closed its stdout and ran on):
    like a hang, each try costs a restart, so a run counts it as one for its early stop."""

    @classmethod
    def of(
        cls,
        kind: FailureKind,
        scenario: str,
        detail: str,
        *,
        exit_code: int | None = None,
        stderr_tail: str = "",
        stalled: bool = False,
    ) -> SubjectFailure:
        code = "" if exit_code is None else f" (exit code {exit_code})"
        detail, stderr_tail = printable(detail), printable(stderr_tail)
        return cls(
            status="errored",
            message=f"{_WHAT[kind]} in scenario {scenario!r}: {detail}{code}",
            kind=kind,
            scenario=scenario,
            detail=detail,
            exit_code=exit_code,
            stderr_tail=stderr_tail,
            stalled=stalled,
        )

    def report(self) -> str:
        """The message, then the subject's last stderr lines, indented, when there are any
        (control characters escaped: see ``printable``)."""
        return _tail_report(self.message or "", self.stderr_tail)


def is_subject_failure(outcome: Outcome) -> bool:
    """Whether the subject crashed, hung or broke the protocol for this outcome (exit 3)."""
    return isinstance(outcome, SubjectFailure)


class SubjectStartError(Exception):
    """The subject could not be started: ``str()`` says why (exit code 3).

    ``exit_code`` is the process's when it exited; ``stderr_tail`` its last stderr lines
    (control characters escaped: see ``printable``); ``report()`` shows both.
    """

    def __init__(self, detail: str, *, exit_code: int | None = None, stderr_tail: str = "") -> None:
        detail = printable(detail)
        code = "" if exit_code is None else f" (exit code {exit_code})"
        super().__init__(f"{detail}{code}")
        self.detail = detail
        self.exit_code = exit_code
        self.stderr_tail = printable(stderr_tail)

    def report(self) -> str:
        """Why it could not start, then the subject's last stderr lines, indented."""
        return _tail_report(str(self), self.stderr_tail)
