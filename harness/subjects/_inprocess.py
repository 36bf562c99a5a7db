"""A Python subject run in this process, guarded so that it behaves like any other subject.

A subject's ``assemble`` promises never to raise and to return an ``Outcome`` of bodies as
bytes; when one breaks that promise the scenario gets a ``SubjectFailure`` (``crash`` with
the traceback's last lines, or ``protocol``) instead of ending the run.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from types import TracebackType
from typing import Final

from ..scenarios import Lifecycle, Scenario
from ._base import Outcome, Subject
from ._failure import SubjectFailure

__all__ = ["InProcessSubject"]

_TRACE_LINES: Final = 12


@dataclass(frozen=True, slots=True)
class InProcessSubject:
    """``subject`` behind the runner's interface: ``start``/``close``, never raising."""

    subject: Subject

    @property
    def name(self) -> str:
        return self.subject.name

    @property
    def dialects(self) -> tuple[str, ...]:
        return tuple(self.subject.dialects)

    @property
    def lifecycles(self) -> tuple[Lifecycle, ...]:
        return tuple(self.subject.lifecycles)

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        try:
            outcome = self.subject.assemble(scenario, dialect)
        except Exception as e:
            trace = traceback.format_exc().splitlines()[-_TRACE_LINES:]
            detail = f"assemble raised {type(e).__name__}: {e}"
            return SubjectFailure.of("crash", scenario.id, detail, stderr_tail="\n".join(trace))
        problem = _problem(outcome)
        if problem is not None:
            return SubjectFailure.of("protocol", scenario.id, problem)
        return outcome

    def start(self) -> None:
        """Nothing to start in process."""

    def close(self) -> None:
        """Close the wrapped subject if it has a ``close()``."""
        close = getattr(self.subject, "close", None)
        if callable(close):
            close()

    def __enter__(self) -> InProcessSubject:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _problem(outcome: object) -> str | None:
    """Why ``outcome`` is not an Outcome of byte bodies, or None."""
    if not isinstance(outcome, Outcome):
        return f"assemble returned {type(outcome).__name__}, not an Outcome"
    if outcome.status not in ("assembled", "rejected", "skipped", "errored"):
        return f"assemble returned an Outcome with status {outcome.status!r}"
    bodies = [outcome.parent, *outcome.children, *outcome.follow_ups, outcome.parent_next]
    wrong = next((b for b in bodies if b is not None and not isinstance(b, bytes)), None)
    if wrong is not None:
        return f"assemble returned a body of type {type(wrong).__name__}, not bytes"
    return None
