"""One scenario run (harness/check/_one.py): what a subject raises or returns that the rules
cannot evaluate is its failure on that scenario, and a scenario it cannot run is reported
with every rule not applicable, without asking it."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

import pytest

from harness.check import run_check
from harness.check._one import not_run, run_one, subject_name
from harness.rules._checks import CHECKS
from harness.subjects import (
    InProcessSubject,
    SubprocessOptions,
    SubprocessSubject,
)

from .support import (
    FAKES,
    REFERENCE,
    Raising,
    Recording,
    corpus,
    fixture,
    oneshot,
)


def test_a_subject_that_raises_exits_3_over_failed_rules() -> None:
    run = run_check(InProcessSubject(Raising()), corpus(), dialects=["openai"])
    assert run.exit_code == 3
    assert {f.kind for f in run.failures} == {"crash"}
    assert {f.scenario for f in run.failures} == {s.id for s in corpus() if s.action == "spawn"}
    assert all(
        "RuntimeError: spawn is not implemented yet" in (f.message or "") for f in run.failures
    )


def test_a_bare_subject_that_raises_is_a_crash_not_an_exception() -> None:
    run = run_check(Raising(), [fixture("spawn-delegation-prompt")], dialects=["openai"])
    assert run.exit_code == 3
    (failure,) = run.failures
    assert failure.kind == "crash"
    assert "RuntimeError" in (failure.message or "")


def test_an_outcome_the_rules_cannot_evaluate_is_that_scenarios_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a check that trips on what a subject sent (here: recursion on a 500-deep body)
    real = CHECKS["well-formed"]

    def tripping(ctx: Any) -> Any:
        if ctx.scenario.id.startswith("bad"):
            raise RecursionError("maximum recursion depth exceeded")
        return real(ctx)

    monkeypatch.setitem(CHECKS, "well-formed", tripping)
    fork = fixture("fork-ends-user")
    scenarios = [replace(fork, id="bad-deep"), fork]
    argv = [sys.executable, str(FAKES / "deep.py")]
    with SubprocessSubject(argv, SubprocessOptions(timeout=5)) as subject:
        run = run_check(subject, scenarios, dialects=["openai"])
    assert run.exit_code == 3
    (failure,) = run.failures
    assert (failure.kind, failure.scenario) == ("protocol", "bad-deep")
    assert failure.detail == (
        "the harness cannot evaluate the bodies it returned: rule well-formed raised "
        "RecursionError: maximum recursion depth exceeded"
    )
    assert [r.scenario_id for r in run.reports] == ["bad-deep", "fork-ends-user"]
    assert run.reports[0].finding("subject-error").status == "fail"
    assert run.reports[1].finding("byte-prefix").status == "pass"  # the run went on


def test_fixtures_of_a_lifecycle_the_subject_lacks_are_not_applicable() -> None:
    subject = Recording(name="one-shot-only", lifecycles=("one-shot",))
    run = run_check(subject, corpus(), dialects=["openai"], examples=4)
    assert run.exit_code == 0
    assert {s.lifecycle for s in subject.asked} == {"one-shot"}
    lacking = [s for s in corpus() if s.lifecycle != "one-shot"]
    assert lacking
    by_id = {r.scenario_id: r for r in run.reports}
    for scenario in lacking:
        report = by_id[scenario.id]
        assert {f.status for f in report.findings} == {"not-applicable"}
        assert f"has no {scenario.lifecycle} lifecycle" in report.findings[0].message
    generated = run.reports[len(corpus()) :]
    assert len(generated) == 4
    assert all(r.scenario_id.startswith(("fork-", "siblings-")) for r in generated)


def test_a_dialect_the_subject_lacks_is_not_applicable() -> None:
    subject = Recording(name="openai-only", dialects=("openai",))
    run = run_check(subject, oneshot(), dialects=["gemini", "openai"], examples=3)
    assert run.exit_code == 0
    assert run.generated == 3
    gemini = [r for r in run.reports if r.dialect == "gemini"]
    assert len(gemini) == len(oneshot())
    assert all(f.status == "not-applicable" for r in gemini for f in r.findings)
    assert "does not speak gemini" in gemini[0].findings[0].message
    assert len(subject.asked) == len(oneshot()) + 3


def test_a_run_of_the_reference_is_a_report_without_failures() -> None:
    scenario = fixture("fork-ends-user")
    report, crashed = run_one(REFERENCE, scenario, "openai")
    assert (report.scenario_id, report.dialect, report.subject) == (
        scenario.id,
        "openai",
        "reference",
    )
    assert not report.failed
    assert list(crashed) == []
    assert not_run(REFERENCE, scenario, "openai") is None


class _Nameless:
    @property
    def name(self) -> str:
        raise RuntimeError("no name")


def test_a_subject_whose_name_raises_is_still_named() -> None:
    assert subject_name(REFERENCE) == "reference"
    assert subject_name(_Nameless()) == "subject"  # type: ignore[arg-type]
