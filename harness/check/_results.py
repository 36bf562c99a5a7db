"""What a check found: ``CheckRun``, the run's reports, failures and verdict, and
``ShrunkFailure``, a generated scenario that failed, shrunk.

Kept apart from the run loop (``_run``) so that the reports, which read a run's results, do
not load the generation and shrinking behind it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from ..rules import Finding, ScenarioReport
from ..scenarios import Scenario
from ..subjects import SubjectFailure
from ._expect import Expectations, KnownFailure

__all__ = ["CheckRun", "ShrunkFailure"]

_REASONS_SHOWN: Final = 3


@dataclass(frozen=True, slots=True)
class ShrunkFailure:
    """A generated scenario that failed, shrunk by Hypothesis, with its report.

    ``unshrunk`` says why the scenario is shown as generated rather than shrunk (the subject
    hung on it, or it did not fail again when replayed); None when it is the minimal one.
    """

    dialect: str
    scenario: Scenario
    report: ScenarioReport
    unshrunk: str | None = None


@dataclass(frozen=True, slots=True)
class CheckRun:
    """Everything a check found; ``exit_code`` follows the README's table (0 conforming,
    1 a rule failed, 3 the subject failed, 4 inconclusive: nothing was checked)."""

    subject: str
    dialects: tuple[str, ...]
    reports: tuple[ScenarioReport, ...]
    generated: int
    """How many of the reports are of generated scenarios."""
    shrunk: tuple[ShrunkFailure, ...]
    failures: tuple[SubjectFailure, ...]
    expectations: Expectations = field(default_factory=Expectations)
    scenario_ids: tuple[str, ...] | None = None
    """Every scenario id of the run, those not run included (None: the reports' ids)."""
    stopped: str | None = None
    """Why the run stopped before its end (hangs in a row, the deadline), or None."""

    def expected_failure(self, report: ScenarioReport, finding: Finding) -> KnownFailure | None:
        return self.expectations.expected(
            report.subject, report.scenario_id, report.dialect, finding.rule
        )

    @property
    def unexpected_failures(self) -> list[tuple[ScenarioReport, Finding]]:
        return [
            (r, f)
            for r in self.reports
            for f in r.findings
            if f.status == "fail" and self.expected_failure(r, f) is None
        ]

    @property
    def stale_expectations(self) -> list[tuple[KnownFailure, str]]:
        """Entries that can never match in this run, with why (see ``never_matching``)."""
        ids = self.scenario_ids
        if ids is None:
            ids = tuple(r.scenario_id for r in self.reports)
        return self.expectations.never_matching(
            scenarios=set(ids), dialects=self.dialects, subject=self.subject
        )

    @property
    def unexpected_passes(self) -> list[tuple[KnownFailure, str]]:
        """Entries whose rule passed where they expected a failure, then the stale ones
        (``where`` says which: ``stale, never matches: ...``); each makes the exit code 1."""
        return self.expectations.unexpected_passes(self.reports) + self.stale_expectations

    @property
    def inconclusive(self) -> tuple[str, ...]:
        """Why the run is no evidence either way, when no rule of any scenario run found
        anything (each was skipped by the subject or not run); empty when some rule did."""
        if any(f.status != "not-applicable" for r in self.reports for f in r.findings):
            return ()
        if not self.reports:
            return ("no scenario was run",)
        whys: dict[str, int] = {}
        for report in self.reports:
            why = report.findings[0].message if report.findings else "no finding"
            whys[why] = whys.get(why, 0) + 1
        shown = [f"{n} × {why}" for why, n in sorted(whys.items(), key=lambda kv: -kv[1])]
        more = len(shown) - _REASONS_SHOWN
        head = f"none of the {len(self.reports)} scenario runs was checked by any rule"
        return (head, *shown[:_REASONS_SHOWN], *([f"and {more} more reasons"] if more > 0 else []))

    @property
    def exit_code(self) -> int:
        if self.failures:
            return 3
        if self.unexpected_failures or self.unexpected_passes:
            return 1
        return 4 if self.inconclusive else 0
