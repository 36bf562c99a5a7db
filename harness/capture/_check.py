"""Checking recorded requests: group them, place the roles, rebuild each group's scenario
and outcome, and have ``harness.rules.evaluate`` judge it (docs/capture.md, "Checking").

A group whose scenario cannot be rebuilt is reported as not checked, with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..protocol import Outcome
from ..rules import Finding, ScenarioReport, evaluate, evaluate_conversation
from ..scenarios import Scenario
from ._group import GroupOptions, Prefixes, group
from ._observe import Ignored, Observed, observe
from ._rebuild import Case, cases
from ._record import Record
from ._roles import Roles, assign_roles
from ._usage import UsageComparison, compare_usage

__all__ = ["Check", "CheckResult", "NotChecked", "check_records", "check_requests"]


@dataclass(frozen=True, slots=True)
class Check:
    """One group checked: what it is, the rebuilt scenario and outcome, the rules' report.

    A conversation's own check (each request extends the one before) has no scenario or
    outcome: only its report.
    """

    what: str
    scenario: Scenario | None
    outcome: Outcome | None
    report: ScenarioReport

    @property
    def id(self) -> str:
        """The check's id: the scenario's (``fork-3``), or ``turns-N`` for conversation N."""
        return self.report.scenario_id


@dataclass(frozen=True, slots=True)
class NotChecked:
    """A group (or conversation) that could not be checked, and why."""

    what: str
    reason: str


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Everything a check of recorded requests found, per dialect in order: the groups
    (fork turns, spawns) in ``checks``, each multi-request conversation's append-only check
    in ``turns``."""

    requests: int
    roles: tuple[Roles, ...]
    checks: tuple[Check, ...]
    not_checked: tuple[NotChecked, ...]
    ignored: tuple[Ignored, ...]
    turns: tuple[Check, ...] = ()
    usage: UsageComparison | None = None
    """Predicted against reported cache usage, when requests of the log report usage."""

    @property
    def reports(self) -> tuple[ScenarioReport, ...]:
        return tuple(c.report for c in (*self.checks, *self.turns))

    @property
    def failed(self) -> bool:
        return any(r.failed for r in self.reports)

    @property
    def exit_code(self) -> int:
        """The README's table without known failures: 1 a rule failed, 4 inconclusive, 0."""
        if self.failed:
            return 1
        return 4 if self.inconclusive else 0

    @property
    def inconclusive(self) -> tuple[str, ...]:
        """Why this check is no evidence either way; empty when it is.

        A failure is evidence on its own. Without one, a check that checked no group, or
        that left out requests the fake refused or the dialect could not read, cannot vouch
        for the program: the first reason says what was missing, the others give counts,
        routes and the first error.
        """
        if self.failed:
            return ()
        missed = [i for i in self.ignored if i.kind != "retry"]
        reasons: list[str] = []
        if not self.checks:
            found = "no group could be checked" if self._calls() else "no fork or spawn call"
            reasons.append(
                f"nothing was checked: {found} among {self.requests} usable model "
                f"call{'' if self.requests == 1 else 's'}"
            )
        elif missed:
            reasons.append(
                f"{len(missed)} request{' was' if len(missed) == 1 else 's were'} left out, "
                "so the groups checked may not be all there are"
            )
        if not reasons:
            return ()
        for kind in ("refused", "unreadable"):
            some = [i for i in missed if i.kind == kind]
            if some:
                what = "refused by the fake" if kind == "refused" else "unreadable"
                first = f"first: request {some[0].seq}: {some[0].reason}"
                reasons.append(f"{len(some)} {what}; {first}")
        reasons += [f"not checked: {n.what}: {n.reason}" for n in self.not_checked[:3]]
        return tuple(reasons)

    def _calls(self) -> bool:
        """Whether any model turn called a fork tool or spawned a child."""
        return bool(self.not_checked) or any(r.fork_turns or r.spawns for r in self.roles)


def check_records(
    records: Iterable[Record],
    *,
    options: GroupOptions | None = None,
    subject: str = "capture",
    strict: bool = False,
) -> CheckResult:
    """Group and check a capture's records."""
    used, ignored = observe(records, Prefixes().note)
    return check_requests(used, ignored, options=options, subject=subject, strict=strict)


def check_requests(
    requests: Sequence[Observed],
    ignored: Sequence[Ignored] = (),
    *,
    options: GroupOptions | None = None,
    subject: str = "capture",
    strict: bool = False,
) -> CheckResult:
    """Group ``requests`` (each dialect on its own), place the roles and check each group
    (``strict``: the prefix rules on the bytes as sent, ``--strict-bytes``)."""
    options = options or GroupOptions()
    roles: list[Roles] = []
    checks: list[Check] = []
    not_checked: list[NotChecked] = []
    turns: list[Check] = []
    left_out = list(ignored)
    for dialect in sorted({r.dialect for r in requests}):
        grouping = group([r for r in requests if r.dialect == dialect], options)
        left_out += grouping.retries
        placed = assign_roles(grouping, options)
        roles.append(placed)
        for case in cases(placed, options):
            done = _evaluate(case, dialect, options, subject, strict)
            if isinstance(done, Check):
                checks.append(done)
            else:
                not_checked.append(done)
        turns += _turns(placed, dialect, subject, strict)
    left_out.sort(key=lambda i: i.seq)
    return CheckResult(
        len(requests),
        tuple(roles),
        tuple(checks),
        tuple(not_checked),
        tuple(left_out),
        tuple(turns),
        compare_usage(requests, roles),
    )


def _evaluate(
    case: Case, dialect: str, options: GroupOptions, subject: str, strict: bool
) -> Check | NotChecked:
    if case.scenario is None or case.outcome is None:
        return NotChecked(case.what, case.reason or "not rebuilt")
    try:
        report = evaluate(case.scenario, dialect, case.outcome, subject=subject, strict=strict)
    except ValueError as e:  # a rebuilt scenario the rules cannot read back
        return NotChecked(case.what, f"the rules could not read the rebuilt scenario: {e}")
    if case.scenario.action == "continuable" and options.parent_id is None:
        report = _without_parent_id(report)
    return Check(case.what, case.scenario, case.outcome, report)


def _turns(roles: Roles, dialect: str, subject: str, strict: bool) -> list[Check]:
    """One append-only check for each conversation of more than one request: the parent's,
    every child's and every other's turns must each extend the turn before. The bodies are
    read back one at a time as the check compares them, so a long conversation is never
    held whole."""
    out = []
    for conv in roles.conversations:
        if len(conv.requests) < 2:
            continue
        bodies = ((f"request {r.seq}", r.body) for r in conv.requests)  # read one at a time
        report = evaluate_conversation(
            f"turns-{conv.index + 1}", dialect, bodies, subject=subject, strict=strict
        )
        seqs = ", ".join(str(s) for s in conv.seqs)
        what = f"turns of {conv.name} ({roles.role(conv.index)}): requests {seqs}"
        out.append(Check(what, None, None, report))
    return out


def _without_parent_id(report: ScenarioReport) -> ScenarioReport:
    """The report with parent-id-guidance not applicable: the parent's id is not known."""
    why = "the parent's agent id is not known (give it with --parent-id)"
    findings = tuple(
        Finding(f.rule, "not-applicable", why) if f.rule == "parent-id-guidance" else f
        for f in report.findings
    )
    return replace(report, findings=findings)
