"""One scenario run of a check: the subject assembles, the rules judge.

Nothing a subject returns or raises ends the run: an exception of the subject (``sys.exit()``
included) is its crash on that scenario, and an outcome the rules cannot be evaluated on is
its failure on that scenario too (a protocol error naming what raised). A fixture whose
lifecycle the subject lacks, or a dialect it does not speak, gives a report whose every rule
is not applicable, as ``harness.rules.run_subject`` does; the subject is not asked.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..protocol import Outcome, Subject
from ..rules import EvaluationError, Finding, ScenarioReport, catalog, evaluate
from ..scenarios import Scenario
from ..subjects import SubjectFailure, guarded_assemble

__all__ = ["not_run", "run_one", "subject_name"]


def run_one(
    subject: Subject, scenario: Scenario, dialect: str, *, strict: bool = False
) -> tuple[ScenarioReport, Sequence[SubjectFailure]]:
    """The subject assembles ``scenario`` in ``dialect`` and the rules judge it (``strict``:
    the prefix rules on the bytes as sent, ``--strict-bytes``)."""
    outcome: Outcome = guarded_assemble(subject, scenario, dialect)
    try:
        report = evaluate(scenario, dialect, outcome, subject=subject.name, strict=strict)
    except Exception as e:  # an EvaluationError, or a bare Subject's name that raised
        what = str(e) if isinstance(e, EvaluationError) else f"{type(e).__name__}: {e}"
        detail = f"the harness cannot evaluate the bodies it returned: {what}"
        outcome = SubjectFailure.of("protocol", scenario.id, detail)
        report = evaluate(scenario, dialect, outcome, subject=subject_name(subject))
    return report, [outcome] if isinstance(outcome, SubjectFailure) else []


def subject_name(subject: Subject) -> str:
    try:
        return str(subject.name)
    except Exception:
        return "subject"


def not_run(subject: Subject, scenario: Scenario, dialect: str) -> ScenarioReport | None:
    """A report of every rule not applicable when the subject cannot run ``scenario``."""
    if dialect not in subject.dialects:
        why = f"the subject {subject.name} does not speak {dialect}"
    elif scenario.lifecycle not in subject.lifecycles:
        why = f"the subject {subject.name} has no {scenario.lifecycle} lifecycle"
    else:
        return None
    findings = tuple(Finding(info.id, "not-applicable", why) for info in catalog())
    return ScenarioReport(scenario.id, dialect, subject.name, findings)
