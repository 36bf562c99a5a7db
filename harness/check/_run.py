"""Running a subject over the fixture corpus and generated scenarios, rules on every outcome.

Generated scenarios come from ``harness.strategies.scenarios`` through Hypothesis itself, so a
failing one is shrunk by Hypothesis to a minimal scenario before it is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings

from ..rules import Finding, ScenarioReport, evaluate
from ..scenarios import ACTIONS, Scenario, lifecycle_of
from ..strategies import scenarios
from ..subjects import Subject, SubjectFailure, is_subject_failure
from ._expect import Expectations, KnownFailure

__all__ = ["CheckRun", "Progress", "ShrunkFailure", "run_check"]

Progress = Callable[[int, int, str], None]
"""Called as ``progress(done, total, what)`` after each scenario run."""


@dataclass(frozen=True, slots=True)
class ShrunkFailure:
    """A generated scenario that failed, shrunk by Hypothesis, with its report."""

    dialect: str
    scenario: Scenario
    report: ScenarioReport


@dataclass(frozen=True, slots=True)
class CheckRun:
    """Everything a check found; ``exit_code`` follows SPEC §8."""

    subject: str
    dialects: tuple[str, ...]
    reports: tuple[ScenarioReport, ...]
    generated: int
    shrunk: tuple[ShrunkFailure, ...]
    failures: tuple[SubjectFailure, ...]
    expectations: Expectations = field(default_factory=Expectations)

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
    def unexpected_passes(self) -> list[tuple[KnownFailure, str]]:
        return self.expectations.unexpected_passes(self.reports)

    @property
    def exit_code(self) -> int:
        if self.failures:
            return 3
        return 1 if self.unexpected_failures or self.unexpected_passes else 0


class _Failed(Exception):
    """Raised inside the Hypothesis probe so that it shrinks a failing scenario."""


def _one(
    subject: Subject, scenario: Scenario, dialect: str
) -> tuple[ScenarioReport, Sequence[SubjectFailure]]:
    outcome = subject.assemble(scenario, dialect)
    report = evaluate(scenario, dialect, outcome, subject=subject.name)
    return report, [outcome] if is_subject_failure(outcome) else []  # type: ignore[list-item]


def _generated(
    subject: Subject,
    dialect: str,
    examples: int,
    rng_seed: int | None,
    tick: Callable[[str], None],
) -> tuple[list[ScenarioReport], ShrunkFailure | None, list[SubjectFailure]]:
    actions = [a for a in ACTIONS if lifecycle_of(a) in subject.lifecycles]
    reports: list[ScenarioReport] = []
    failures: list[SubjectFailure] = []
    failing: list[tuple[Scenario, ScenarioReport]] = []
    if not actions or examples <= 0:
        return reports, None, failures

    def probe(scenario: Scenario) -> None:
        report, crashed = _one(subject, scenario, dialect)
        if not failing:  # after the first failure Hypothesis is shrinking: not new examples
            reports.append(report)
            failures.extend(crashed)
            tick(f"{dialect} generated")
        if report.failed or crashed:
            failing.append((scenario, report))
            raise _Failed

    test = settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=rng_seed is None,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
    )(given(scenarios(actions=actions))(probe))
    if rng_seed is not None:
        test = seed(rng_seed)(test)
    try:
        test()
    except _Failed:
        scenario, report = failing[-1]  # the last failure Hypothesis replays is the minimal one
        return reports, ShrunkFailure(dialect, scenario, report), failures
    return reports, None, failures


def run_check(
    subject: Subject,
    fixtures: Sequence[Scenario],
    *,
    dialects: Sequence[str],
    examples: int = 0,
    rng_seed: int | None = None,
    expectations: Expectations | None = None,
    progress: Progress | None = None,
) -> CheckRun:
    """Every fixture, then ``examples`` generated scenarios, in each of ``dialects``."""
    total = (len(fixtures) + max(examples, 0)) * len(dialects)
    done = 0

    def tick(what: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(min(done, total), total, what)

    reports: list[ScenarioReport] = []
    failures: list[SubjectFailure] = []
    shrunk: list[ShrunkFailure] = []
    for dialect in dialects:
        for scenario in fixtures:
            report, crashed = _one(subject, scenario, dialect)
            reports.append(report)
            failures.extend(crashed)
            tick(f"{dialect} {scenario.id}")
        generated, minimal, crashed = _generated(subject, dialect, examples, rng_seed, tick)
        reports.extend(generated)
        failures.extend(crashed)
        if minimal is not None:
            shrunk.append(minimal)
    return CheckRun(
        subject=subject.name,
        dialects=tuple(dialects),
        reports=tuple(reports),
        generated=max(examples, 0) * len(dialects),
        shrunk=tuple(shrunk),
        failures=tuple(failures),
        expectations=expectations or Expectations(),
    )
