"""Outcomes the harness makes itself when a subject crashed, hung or broke the protocol.

Such an outcome is ``errored`` like one a subject reports, so code that only reads
``Outcome.status`` treats it as a failed scenario; being a ``SubjectFailure`` is the marker
that the subject itself misbehaved (the command line's exit code 3), as opposed to a
subject that answered ``errored`` for a scenario and kept serving.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from ._base import Outcome

__all__ = ["FailureKind", "SubjectFailure", "SubjectStartError", "is_subject_failure"]

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

    @classmethod
    def of(
        cls,
        kind: FailureKind,
        scenario: str,
        detail: str,
        *,
        exit_code: int | None = None,
        stderr_tail: str = "",
    ) -> SubjectFailure:
        code = "" if exit_code is None else f" (exit code {exit_code})"
        return cls(
            status="errored",
            message=f"{_WHAT[kind]} in scenario {scenario!r}: {detail}{code}",
            kind=kind,
            scenario=scenario,
            detail=detail,
            exit_code=exit_code,
            stderr_tail=stderr_tail,
        )

    def report(self) -> str:
        """The message, then the subject's last stderr lines, indented, when there are any."""
        if not self.stderr_tail.strip():
            return self.message or ""
        tail = "\n".join(f"  | {line}" for line in self.stderr_tail.rstrip("\n").splitlines())
        return f"{self.message}\nlast lines of the subject's stderr:\n{tail}"


def is_subject_failure(outcome: Outcome) -> bool:
    """Whether the subject crashed, hung or broke the protocol for this outcome (exit 3)."""
    return isinstance(outcome, SubjectFailure)


class SubjectStartError(Exception):
    """The subject could not be started: ``str()`` says why (exit code 3).

    ``exit_code`` is the process's when it exited; ``stderr_tail`` its last stderr lines.
    """

    def __init__(self, detail: str, *, exit_code: int | None = None, stderr_tail: str = "") -> None:
        code = "" if exit_code is None else f" (exit code {exit_code})"
        super().__init__(f"{detail}{code}")
        self.detail = detail
        self.exit_code = exit_code
        self.stderr_tail = stderr_tail
