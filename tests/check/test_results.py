"""What a check found (harness/check/_results.py): the exit code of the README's table, why a
run is inconclusive, and known failures against the reports."""

from __future__ import annotations

from dataclasses import dataclass, replace

from harness.check import CheckRun, Expectations, KnownFailure, ShrunkFailure, run_check
from harness.protocol import Outcome
from harness.rules import Finding, ScenarioReport, Status
from harness.scenarios import Lifecycle, Scenario
from harness.subjects import SubjectFailure
from tests.rules.bad_subjects import CASES

from .support import DIALECTS, REFERENCE, corpus, fixture, oneshot


def _report(scenario: str, *statuses: Status) -> ScenarioReport:
    findings = tuple(Finding(f"rule-{i}", s, f"{s} {i}") for i, s in enumerate(statuses))
    return ScenarioReport(scenario, "openai", "subject", findings)


def _run(*reports: ScenarioReport, failures: tuple[SubjectFailure, ...] = ()) -> CheckRun:
    return CheckRun("subject", ("openai",), reports, 0, (), failures)


def test_the_exit_code_is_3_for_a_subject_failure_before_1_for_a_failed_rule() -> None:
    crash = SubjectFailure.of("crash", "a", "exited")
    assert _run(_report("a", "fail"), failures=(crash,)).exit_code == 3
    assert _run(_report("a", "fail", "pass")).exit_code == 1
    assert _run(_report("a", "warning", "pass", "note")).exit_code == 0


def test_a_run_where_every_finding_is_not_applicable_is_inconclusive_saying_why() -> None:
    reports = [
        ScenarioReport(f"s{i}", "openai", "subject", (Finding("r", "not-applicable", why),))
        for i, why in enumerate(["skipped: a", "skipped: a", "b", "c", "d", "e"])
    ]
    run = _run(*reports)
    assert run.exit_code == 4
    assert run.inconclusive == (
        "none of the 6 scenario runs was checked by any rule",
        "2 × skipped: a",
        "1 × b",
        "1 × c",
        "and 2 more reasons",
    )
    assert _run().inconclusive == ("no scenario was run",)
    assert _run(*reports, _report("z", "pass")).inconclusive == ()


def test_a_shrunk_failure_says_why_it_was_not_shrunk_or_nothing() -> None:
    scenario = fixture("fork-ends-user")
    report = _report(scenario.id, "fail")
    assert ShrunkFailure("openai", scenario, report).unshrunk is None
    assert ShrunkFailure("openai", scenario, report, "hung").unshrunk == "hung"


@dataclass
class Skipping:
    """Skips every scenario but spawns, which it leaves to the reference."""

    name: str = "skipping"
    lifecycles: tuple[Lifecycle, ...] = ("one-shot", "continuable", "spawn")
    dialects: tuple[str, ...] = DIALECTS
    spawn: bool = False

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        if self.spawn and scenario.action == "spawn":
            return REFERENCE.assemble(scenario, dialect)
        return Outcome("skipped", message="not yet")


def test_a_run_in_which_no_rule_saw_a_body_is_inconclusive() -> None:
    run = run_check(Skipping(), corpus(), dialects=["openai"])
    assert run.exit_code == 4
    head = f"none of the {len(corpus())} scenario runs was checked by any rule"
    assert run.inconclusive[0] == head
    assert run.inconclusive[1] == f"{len(corpus())} × skipped by the subject: not yet"


def test_one_scenario_checked_is_evidence() -> None:
    run = run_check(Skipping(spawn=True), corpus(), dialects=["openai"])
    assert run.inconclusive == ()
    assert run.exit_code == 0


def test_an_expected_failure_does_not_count() -> None:
    entry = KnownFailure("*", "settings-identical", "model pinned: https://example.org/i/7")
    expect = Expectations((entry,), "expect.toml")
    subject = CASES["model-switched"].subject
    run = run_check(subject, oneshot(), dialects=["openai"], expectations=expect)
    assert run.exit_code == 0
    assert run.unexpected_failures == []
    assert run.unexpected_passes == []
    shown = [(r, f) for r in run.reports for f in r.findings if f.status == "fail"]
    assert shown, "an expected failure is still reported"
    assert all(run.expected_failure(r, f) is entry for r, f in shown)
    # scoped to another subject it does not apply
    other = Expectations((replace(entry, subject="someone-else"),), "expect.toml")
    assert run_check(subject, oneshot(), dialects=["openai"], expectations=other).exit_code == 1


def test_a_stale_expectation_is_an_unexpected_pass() -> None:
    entry = KnownFailure("fork-ends-user", "tools-identical", "tools sorted (fixed since?)")
    expect = Expectations((entry,), "expect.toml")
    run = run_check(REFERENCE, oneshot(), dialects=["openai"], expectations=expect)
    assert run.unexpected_failures == []
    assert run.unexpected_passes == [(entry, "fork-ends-user/openai")]
    assert run.exit_code == 1


def test_an_expectation_for_a_rule_that_does_not_apply_is_not_a_pass() -> None:
    entry = KnownFailure("*", "siblings-shared", "placeholders differ")
    expect = Expectations((entry,), "expect.toml")
    run = run_check(REFERENCE, oneshot(), dialects=["openai"], expectations=expect)
    assert run.unexpected_passes == []
    assert run.exit_code == 0


def test_expectations_that_can_never_match_are_stale() -> None:
    entries = (
        KnownFailure("no-such-scenario", "tools-identical", "typo"),
        KnownFailure("fork-ends-user", "tools-identical", "not checked", dialect="gemini"),
        KnownFailure("*", "no-such-rule", "renamed"),
        KnownFailure("no-such-scenario", "tools-identical", "another's", subject="other"),
        KnownFailure("*", "spawn-isolated", "fine: not applicable here"),
    )
    run = run_check(
        REFERENCE,
        [fixture("fork-ends-user")],
        dialects=["openai"],
        expectations=Expectations(entries, "expect.toml"),
    )
    assert run.stale_expectations == [
        (entries[0], "stale, never matches: no scenario 'no-such-scenario' in this run"),
        (
            entries[1],
            "stale, never matches: dialect 'gemini' is not checked (checked: openai)",
        ),
        (entries[2], "stale, never matches: no rule 'no-such-rule' exists"),
    ]
    assert run.unexpected_passes == run.stale_expectations
    assert run.exit_code == 1
