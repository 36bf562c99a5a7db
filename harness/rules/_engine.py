"""Running the rules: one scenario's outcome in one dialect, or a subject over many scenarios.

Every catalog rule yields exactly one finding per scenario and dialect, so reports line up.
A skipped outcome makes every rule not applicable; an errored one or a body that does not parse
runs only the rule that says so (subject-error, well-formed), never a cascade of failures.

Evaluation never lets an unexpected exception out: reading the bodies or running a rule that
raises (a body shaped in a way no check foresaw, nesting past a recursion limit) becomes one
``EvaluationError`` that names the step and the exception on one line. ``run_subject``
turns it into an errored outcome (rule subject-error); ``prefix-harness check`` into a
failure of the subject on that scenario (exit code 3).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import cache

from ..dialects import get_dialect
from ..protocol import Outcome, Subject
from ..scenarios import Lifecycle, Scenario
from ._catalog import catalog
from ._checks import CHECKS
from ._context import Context
from ._report import Finding, ScenarioReport, loses_cache

__all__ = ["EvaluationError", "evaluate", "run_subject"]


class EvaluationError(Exception):
    """An outcome the rules could not be evaluated on; ``str()`` is one line: the step
    (reading the bodies, or a rule) and what it raised."""

    def __init__(self, step: str, error: BaseException) -> None:
        text = " ".join(str(error).split())
        what = f"{type(error).__name__}: {text}" if text else type(error).__name__
        super().__init__(f"{step} raised {what}"[:500])
        self.step = step
        self.error = error


def _all_not_applicable(scenario: Scenario, dialect: str, subject: str, why: str) -> ScenarioReport:
    findings = tuple(Finding(r.id, "not-applicable", why) for r in catalog())
    return ScenarioReport(scenario.id, dialect, subject, findings)


def evaluate(
    scenario: Scenario,
    dialect: str,
    outcome: Outcome,
    *,
    subject: str = "subject",
    strict: bool = False,
) -> ScenarioReport:
    """Every catalog rule's finding for ``outcome``, what ``subject`` gave for ``scenario``,
    with each request's predicted cache usage. ``strict``: the prefix rules compare the
    bytes as sent (``--strict-bytes``), not the rendered prefix (docs/cache-model.md).

    ``EvaluationError`` when reading the bodies or a rule raised."""
    if outcome.status == "skipped":
        why = f"skipped by the subject: {outcome.message or 'no reason given'}"
        return _all_not_applicable(scenario, dialect, subject, why)
    d = get_dialect(dialect)
    only: tuple[str, str] | None = None
    if outcome.status == "errored":
        ctx = Context(scenario, d, outcome)
        only = ("subject-error", "the subject errored; see subject-error")
    else:
        try:
            ctx = Context.read(scenario, d, outcome, strict=strict)
        except Exception as e:  # a body no reader foresaw: the outcome cannot be judged
            raise EvaluationError("reading the bodies", e) from e
        if ctx.problems:
            only = ("well-formed", "a body does not parse; see well-formed")
    findings = []
    rules = catalog()
    for info, scope in zip(rules, _scopes(dialect, scenario.lifecycle), strict=True):
        if scope is not None:
            findings.append(Finding(info.id, "not-applicable", scope))
        elif only is not None and info.id != only[0]:
            findings.append(Finding(info.id, "not-applicable", only[1]))
        else:
            try:
                found = CHECKS[info.id](ctx)
                # the byte view pins byte identity: a difference is one, whatever it costs
                findings.append(found if strict else by_cost(found))
            except Exception as e:  # a check that tripped on what the subject sent
                raise EvaluationError(f"rule {info.id}", e) from e
    try:
        usage = () if only is not None else ctx.usage()
    except Exception as e:  # the same bodies the rules read: not expected to raise
        raise EvaluationError("predicting the cache usage", e) from e
    return ScenarioReport(scenario.id, dialect, subject, tuple(findings), usage)


@cache
def _scopes(dialect: str, lifecycle: Lifecycle) -> tuple[str | None, ...]:
    """Each catalog rule's ``scope_problem`` in ``dialect`` for ``lifecycle``: the same for
    every run."""
    return tuple(info.scope_problem(dialect, lifecycle) for info in catalog())


def by_cost(finding: Finding) -> Finding:
    """A finding that states a cache cost of nothing is no error: the bytes it points at
    cost the child no cached prefix (it is shorter than its parent, or the difference lies
    after everything the parent sent). It stays visible as a warning."""
    cost = finding.cost
    if finding.status != "fail" or cost is None or loses_cache(cost):
        return finding
    message = f"{finding.message} (no cached prefix is lost by it)"
    return replace(finding, status="warning", message=message, cost=None)


def _assemble(subject: Subject, scenario: Scenario, dialect: str) -> Outcome:
    """The subject's outcome; an exception it raises is an errored outcome, not a crash."""
    try:
        return subject.assemble(scenario, dialect)
    except Exception as e:  # a subject under test may fail in any way
        return Outcome("errored", message=f"{type(e).__name__}: {e}")


def run_subject(
    subject: Subject, scenarios: Iterable[Scenario], dialects: Sequence[str] | None = None
) -> tuple[ScenarioReport, ...]:
    """Reports of ``subject`` on each scenario in each dialect (default: the subject's own).

    A dialect the subject does not speak, or a scenario whose lifecycle it lacks, gives a
    report whose every rule is not applicable, saying why.
    """
    names = tuple(subject.dialects) if dialects is None else tuple(dialects)
    reports = []
    for scenario in scenarios:
        for dialect in names:
            if dialect not in subject.dialects:
                why = f"the subject {subject.name} does not speak {dialect}"
            elif scenario.lifecycle not in subject.lifecycles:
                why = f"the subject {subject.name} has no {scenario.lifecycle} lifecycle"
            else:
                outcome = _assemble(subject, scenario, dialect)
                try:
                    report = evaluate(scenario, dialect, outcome, subject=subject.name)
                except EvaluationError as e:
                    message = f"the harness cannot evaluate its bodies: {e}"
                    errored = Outcome("errored", message=message)
                    report = evaluate(scenario, dialect, errored, subject=subject.name)
                reports.append(report)
                continue
            reports.append(_all_not_applicable(scenario, dialect, subject.name, why))
    return tuple(reports)
