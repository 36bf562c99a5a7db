"""Shared helpers of the rule tests: outcomes and reports computed once per subject and case."""

from __future__ import annotations

from functools import cache

from harness.dialects import get_dialect
from harness.rules import Finding, ScenarioReport, run_subject
from harness.rules._context import Context
from harness.subjects import Outcome, ReferenceSubject

from .bad_subjects import DIALECTS, Mutant
from .scenarios import BY_ID

__all__ = ["DIALECTS", "REFERENCE", "context", "edited", "finding", "outcome", "report"]

REFERENCE = ReferenceSubject()


Known = Mutant | ReferenceSubject
"""The subjects of these tests: hashable, so their results can be cached."""


@cache
def outcome(subject: Known, scenario: str, dialect: str) -> Outcome:
    return subject.assemble(BY_ID[scenario], dialect)


@cache
def report(subject: Known, scenario: str, dialect: str) -> ScenarioReport:
    """The subject's report, run as a user would (an exception is an errored outcome)."""
    (found,) = run_subject(subject, [BY_ID[scenario]], [dialect])
    return found


def finding(subject: Known, scenario: str, dialect: str, rule: str) -> Finding:
    return report(subject, scenario, dialect).finding(rule)


def context(subject: Known, scenario: str, dialect: str) -> Context:
    result = outcome(subject, scenario, dialect)
    return Context.read(BY_ID[scenario], get_dialect(dialect), result)


def edited(name: str, **edits: object) -> Mutant:
    """A one-off bad subject for a test (see ``Mutant``)."""
    return Mutant(name, **edits)  # type: ignore[arg-type]
