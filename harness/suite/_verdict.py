"""One scenario in one dialect, judged as ``prefix-harness check`` judges it, for one item.

The scenario runs through ``run_check`` and its report is ``check_item_text``: a failing
item's report starts with ``rule: message``, then how to run that one item again and, for a
generated scenario, the scenario shrunk by Hypothesis as a fixture to commit; then the
failures as ``check`` prints them. Known failures are those entries of the expectations
file that can match this item; an entry for every scenario (``"*"``) counts only where its
rule fails, as it is stale only when its rule fails nowhere, which one item cannot tell.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from ..check import Expectations, Found, KnownFailure, run_check, shrink
from ..protocol import Outcome, Subject
from ..reports import check_item_text
from ..scenarios import Action, Lifecycle, Scenario

__all__ = ["Generated", "Rerun", "Verdict", "judge"]

Generated = tuple[int, Sequence[Action], int, int | None]
"""A generated item's place in the draw, the actions drawn from, the count and the seed: what
its shrinking draws again."""


@dataclass(frozen=True, slots=True)
class Rerun:
    """The options a run of the suite was given that decide its items, for the command that
    runs one item again."""

    subject: str
    fixtures: Path | None = None
    examples: int = 25
    seed: int | None = None
    expect: Path | None = None

    def of(self, group: str, item: str) -> str:
        """``pytest --pyargs harness.suite ... -k '<group> and <item>'``."""
        words = ["pytest", "--pyargs", "harness.suite"]
        if self.subject != "reference":
            words += ["--prefix-subject", self.subject]
        if self.fixtures is not None:
            words += ["--prefix-fixtures", str(self.fixtures)]
        if self.examples != 25:
            words += ["--prefix-examples", str(self.examples)]
        if self.seed is not None:
            words += ["--prefix-seed", str(self.seed)]
        if self.expect is not None:
            words += ["--prefix-expect", str(self.expect)]
        words += ["-k", f"{group} and {item}"]
        return shlex.join(words)


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
    subject: Subject,
    scenario: Scenario,
    dialect: str,
    expectations: Expectations,
    *,
    rerun: str | None = None,
    generated: Generated | None = None,
) -> Verdict:
    """Run ``scenario`` in ``dialect`` through ``subject`` and every rule. A failure's report
    says ``rerun`` (the command that runs this item again); a ``generated`` scenario that
    fails unexpectedly is shrunk, as ``check`` shrinks it."""
    plain = _Plain(subject)
    run = run_check(plain, [scenario], dialects=[dialect], max_hangs=0)
    report = run.reports[0]
    failed = {f.rule for f in report.findings if f.status == "fail"}
    entries = _matching(expectations, run.subject, scenario.id, dialect)
    own = tuple(e for e in entries if e.scenario != "*" or e.rule in failed)
    run = replace(run, expectations=Expectations(own, expectations.source))
    if run.exit_code in (1, 3):
        shrunk = None
        if generated is not None and (run.unexpected_failures or run.failures):
            index, actions, examples, seed = generated
            found = Found(index, scenario, report, run.failures)
            shrunk = shrink(plain, dialect, actions, examples, seed, found)
        return Verdict("fail", check_item_text(run, rerun=rerun, shrunk=shrunk))
    if run.exit_code == 4:
        return Verdict("skip", report.findings[0].message if report.findings else "not checked")
    expected = [e for e in own if e.rule in failed]
    if expected:
        reasons = "; ".join(dict.fromkeys(f"{e.rule}: {e.reason}" for e in expected))
        return Verdict("xfail", f"known failure ({reasons})")
    return Verdict("pass")
