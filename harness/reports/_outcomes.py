"""What a run found, in the terms every report of ``check``, ``check-log`` and ``capture``
shares: failures (expected or not), expectations that did not hold, warnings, accepted
divergences, skipped scenarios, and the exit code.

The JSON, Markdown and text summaries and the ``--write-expect`` file are all made from an
``Outcomes``, so they cannot disagree. ``check_outcomes`` builds one from a ``CheckRun``,
``log_outcomes`` from a check of recorded requests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..check import Expectations, KnownFailure
from ..rules import Finding, ScenarioReport
from ._cost import lost_tokens

if TYPE_CHECKING:  # a check-log's report names no check run: the generators stay unloaded
    from ..check import CheckRun

__all__ = [
    "ACCEPTED",
    "Entry",
    "Outcomes",
    "Skipped",
    "check_outcomes",
    "log_outcomes",
]

ACCEPTED = "accepted divergence"
"""The words a rule's warning carries when the difference is one the README accepts (a
continuable child's restored persona, tool filter or structured-output tool)."""

_VERDICTS = {0: "conforming", 1: "not conforming", 3: "subject failed", 4: "inconclusive"}


@dataclass(frozen=True, slots=True)
class Entry:
    """A failure or an expectation that did not hold: where (``dialect`` may be None for an
    expectation of every dialect; ``scenario`` may be ``"*"``), the ``rule``, a one-line
    ``message`` and the expectation's ``reason`` (None for a failure nobody expected)."""

    dialect: str | None
    scenario: str
    rule: str
    message: str
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "dialect": self.dialect,
            "scenario": self.scenario,
            "rule": self.rule,
            "message": self.message,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Skipped:
    """A scenario (or recorded group) that no rule judged, and why."""

    dialect: str | None
    scenario: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"dialect": self.dialect, "scenario": self.scenario, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Outcomes:
    """A run's results for its reports; ``exit_code`` is the command's, ``--fail-on`` applied."""

    command: str
    subject: str
    dialects: tuple[str, ...]
    reports: tuple[ScenarioReport, ...]
    unexpected_failures: tuple[Entry, ...]
    expected_failures: tuple[Entry, ...]
    unexpected_passes: tuple[Entry, ...]
    skipped: tuple[Skipped, ...]
    run_exit_code: int
    """The command's exit code by its rules and expectations alone."""
    expectations: str | None = None
    """Where the expectations came from (a file name), or None."""
    fail_on: str = "failure"
    """``warning``: a run that would exit 0 exits 1 when it has a warning (``--fail-on``)."""
    generated: frozenset[str] = frozenset()
    """The ids of generated scenarios (``check``): drawn anew with another seed or release."""

    @property
    def failed_on_warning(self) -> str | None:
        """Why ``--fail-on warning`` fails this run (a sentence), or None when it does not."""
        if self.fail_on != "warning" or self.run_exit_code != 0 or not self.warnings:
            return None
        count = len(self.warnings)
        report, finding = self.warnings[0]
        first = f"{report.dialect} · {report.scenario_id} · {finding.rule}: {finding.message}"
        noun = "warning" if count == 1 else "warnings"
        return f"--fail-on warning: {count} {noun} (first: {first}) — exit 1"

    @property
    def exit_code(self) -> int:
        """The exit code, ``--fail-on`` applied."""
        return 1 if self.failed_on_warning is not None else self.run_exit_code

    @property
    def verdict(self) -> str:
        """``conforming``, ``not conforming``, ``failed on warnings``, ``subject failed`` or
        ``inconclusive``."""
        if self.failed_on_warning is not None:
            return "failed on warnings"
        return _VERDICTS.get(self.exit_code, f"exit {self.exit_code}")

    def _warnings(self, accepted: bool) -> tuple[tuple[ScenarioReport, Finding], ...]:
        return tuple(
            (r, f)
            for r in self.reports
            for f in r.findings
            if f.status == "warning" and (ACCEPTED in f.message) == accepted
        )

    @property
    def accepted(self) -> tuple[tuple[ScenarioReport, Finding], ...]:
        """Warnings for a divergence the README accepts."""
        return self._warnings(True)

    @property
    def warnings(self) -> tuple[tuple[ScenarioReport, Finding], ...]:
        """Every other warning (what ``--fail-on warning`` fails on)."""
        return self._warnings(False)

    @property
    def lost_tokens(self) -> int:
        """Cached tokens of inherited prefix lost, summed over every finding with a cost, each
        divergence counted once (several rules may find one; ``_cost.per_divergence``)."""
        return lost_tokens((r, f) for r in self.reports for f in r.findings)


def _failure(report: ScenarioReport, finding: Finding, reason: str | None = None) -> Entry:
    return Entry(report.dialect, report.scenario_id, finding.rule, finding.message, reason)


def _did_not_hold(entry: KnownFailure, where: str, passed: bool) -> Entry:
    """An expectation that passed ``where`` (``scenario/dialect``: the entry then says where
    it passed), or that never matched (the entry then says what the file says)."""
    if passed:
        scenario, _, dialect = where.partition("/")
        scope = " (an entry for every scenario)" if entry.scenario == "*" else ""
        message = f"expected to fail{scope}, passed"
        return Entry(dialect, scenario, entry.rule, message, entry.reason)
    message = f"never matched: {where.removeprefix('stale, never matches: ')}"
    return Entry(entry.dialect, entry.scenario, entry.rule, message, entry.reason)


def _skipped(reports: Sequence[ScenarioReport]) -> list[Skipped]:
    return [
        Skipped(r.dialect, r.scenario_id, r.findings[0].message if r.findings else "no finding")
        for r in reports
        if all(f.status == "not-applicable" for f in r.findings)
    ]


def check_outcomes(run: CheckRun, *, fail_on: str = "failure") -> Outcomes:
    """The outcomes of a ``check`` run."""
    passes = run.expectations.unexpected_passes(run.reports)
    expected = tuple(
        _failure(r, f, e.reason)
        for r in run.reports
        for f in r.findings
        if f.status == "fail" and (e := run.expected_failure(r, f)) is not None
    )
    return Outcomes(
        command="check",
        subject=run.subject,
        dialects=run.dialects,
        reports=run.reports,
        unexpected_failures=tuple(_failure(r, f) for r, f in run.unexpected_failures),
        expected_failures=expected,
        unexpected_passes=(
            *(_did_not_hold(e, where, True) for e, where in passes),
            *(_did_not_hold(e, where, False) for e, where in run.stale_expectations),
        ),
        skipped=tuple(_skipped(run.reports)),
        run_exit_code=run.exit_code,
        expectations=run.expectations.source,
        fail_on=fail_on,
        generated=frozenset(run.generated_ids),
    )


def log_outcomes(
    command: str,
    subject: str,
    reports: Sequence[ScenarioReport],
    not_checked: Sequence[tuple[str, str]],
    expectations: Expectations,
    stale: Sequence[tuple[KnownFailure, str]],
    exit_code: int,
    *,
    fail_on: str = "failure",
) -> Outcomes:
    """The outcomes of ``check-log`` or ``capture``: the groups' ``reports``, the groups not
    checked (``(what, why)``), the expectations and those of them that did not hold (``stale``:
    passed, or matched nothing), and the exit code the expectations give."""
    passes = {id(e) for e, _ in expectations.unexpected_passes(reports)}
    unexpected: list[Entry] = []
    known: list[Entry] = []
    for r in reports:
        for f in r.findings:
            if f.status != "fail":
                continue
            entry = expectations.expected(r.subject, r.scenario_id, r.dialect, f.rule)
            (unexpected if entry is None else known).append(
                _failure(r, f, None if entry is None else entry.reason)
            )
    return Outcomes(
        command=command,
        subject=subject,
        dialects=tuple(dict.fromkeys(r.dialect for r in reports)),
        reports=tuple(reports),
        unexpected_failures=tuple(unexpected),
        expected_failures=tuple(known),
        unexpected_passes=tuple(_did_not_hold(e, w, id(e) in passes) for e, w in stale),
        skipped=(
            *_skipped(reports),
            *(Skipped(None, what, why) for what, why in not_checked),
        ),
        run_exit_code=exit_code,
        expectations=expectations.source,
        fail_on=fail_on,
    )
