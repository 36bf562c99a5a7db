"""One scenario in one dialect, judged as ``prefix-harness check`` judges it, for one item.

The scenario runs through ``run_check`` and its report is ``check_text``: a failing item
shows the very text the command prints for that failure. Known failures are those entries
of the expectations file that can match this item; an entry for every scenario (``"*"``)
counts only where its rule fails, as it is stale only when its rule fails nowhere, which
one item cannot tell.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from ..check import Expectations, KnownFailure, run_check
from ..protocol import Outcome, Subject
from ..reports import check_text
from ..scenarios import Lifecycle, Scenario

__all__ = ["Verdict", "judge"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """``fail`` (``text`` is the check report), ``skip`` or ``xfail`` (``text`` is why), or
    ``pass``."""

    status: Literal["pass", "fail", "skip", "xfail"]
    text: str = ""


class _Plain:
    """The subject without its ``finish()``: ``run_check`` would stop a process subject at
    the end of every one-scenario run; it runs on until the session ends."""

    def __init__(self, subject: Subject) -> None:
        self._subject = subject

    @property
    def name(self) -> str:
        return self._subject.name

    @property
    def dialects(self) -> tuple[str, ...]:
        return self._subject.dialects

    @property
    def lifecycles(self) -> tuple[Lifecycle, ...]:
        return self._subject.lifecycles

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        return self._subject.assemble(scenario, dialect)


def _matching(
    expectations: Expectations, subject: str, scenario: str, dialect: str
) -> tuple[KnownFailure, ...]:
    return tuple(
        e
        for e in expectations.entries
        if e.scenario in ("*", scenario)
        and e.subject in (None, subject)
        and e.dialect in (None, dialect)
    )


def judge(
    subject: Subject, scenario: Scenario, dialect: str, expectations: Expectations
) -> Verdict:
    """Run ``scenario`` in ``dialect`` through ``subject`` and every rule."""
    run = run_check(_Plain(subject), [scenario], dialects=[dialect], max_hangs=0)
    report = run.reports[0]
    failed = {f.rule for f in report.findings if f.status == "fail"}
    entries = _matching(expectations, run.subject, scenario.id, dialect)
    own = tuple(e for e in entries if e.scenario != "*" or e.rule in failed)
    run = replace(run, expectations=Expectations(own, expectations.source))
    if run.exit_code in (1, 3):
        return Verdict("fail", check_text(run))
    if run.exit_code == 4:
        return Verdict("skip", report.findings[0].message if report.findings else "not checked")
    expected = [e for e in own if e.rule in failed]
    if expected:
        reasons = "; ".join(dict.fromkeys(f"{e.rule}: {e.reason}" for e in expected))
        return Verdict("xfail", f"known failure ({reasons})")
    return Verdict("pass")
