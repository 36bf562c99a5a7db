"""What every report shares (harness/reports/_outcomes.py): failures expected or not,
expectations that did not hold, warnings apart from accepted divergences, skipped scenarios,
and ``--fail-on``."""

from __future__ import annotations

from harness.check import CheckRun, Expectations, KnownFailure
from harness.reports import check_outcomes, log_outcomes
from harness.reports._outcomes import Entry, Skipped
from harness.rules import Cost, Finding, ScenarioReport

from .strategies import RULES


def scenario(scenario_id: str, dialect: str = "openai", **statuses: str) -> ScenarioReport:
    """A report of every rule: ``not-applicable`` unless ``statuses`` says otherwise."""
    findings = []
    for rule in RULES:
        status = statuses.get(rule.replace("-", "_"), "not-applicable")
        message = "accepted divergence: a persona" if status == "accepted" else f"{rule} {status}"
        cost = Cost(10, 100) if status in ("fail", "accepted") else None
        findings.append(
            Finding(rule, "warning" if status == "accepted" else status, message, cost=cost)
        )  # type: ignore[arg-type]
    return ScenarioReport(scenario_id, dialect, "s", tuple(findings))


REPORTS = (
    scenario("fork-a", byte_prefix="fail", tools_identical="fail", well_formed="pass"),
    scenario("fork-b", byte_prefix="accepted", call_args_kept="warning"),
    scenario("fork-c"),
)
KNOWN = KnownFailure("fork-a", "tools-identical", "issue 1")
PASSED = KnownFailure("*", "well-formed", "issue 2")
NEVER = KnownFailure("fork-z", "byte-prefix", "issue 3")


def test_failures_expectations_warnings_and_skips() -> None:
    expect = Expectations((KNOWN, PASSED, NEVER), "known.toml")
    stale = [(PASSED, "fork-a/openai"), (NEVER, "no scenario 'fork-z' in this run")]
    outcomes = log_outcomes(
        "check-log", "s", REPORTS, [("spawn at 3", "no request")], expect, stale, 1
    )
    assert outcomes.unexpected_failures == (
        Entry("openai", "fork-a", "byte-prefix", "byte-prefix fail"),
    )
    assert outcomes.expected_failures == (
        Entry("openai", "fork-a", "tools-identical", "tools-identical fail", "issue 1"),
    )
    assert outcomes.unexpected_passes == (
        Entry(
            "openai",
            "fork-a",
            "well-formed",
            "expected to fail (an entry for every scenario), passed",
            "issue 2",
        ),
        Entry(
            None,
            "fork-z",
            "byte-prefix",
            "never matched: no scenario 'fork-z' in this run",
            "issue 3",
        ),
    )
    assert [(r.scenario_id, f.rule) for r, f in outcomes.accepted] == [("fork-b", "byte-prefix")]
    assert [(r.scenario_id, f.rule) for r, f in outcomes.warnings] == [("fork-b", "call-args-kept")]
    assert outcomes.skipped == (
        Skipped("openai", "fork-c", f"{RULES[0]} not-applicable"),
        Skipped(None, "spawn at 3", "no request"),
    )
    assert outcomes.lost_tokens == 30
    assert (outcomes.exit_code, outcomes.verdict, outcomes.expectations) == (
        1,
        "not conforming",
        "known.toml",
    )


def test_fail_on_warning() -> None:
    passing = (REPORTS[1],)
    quiet = log_outcomes("capture", "s", passing, [], Expectations(), [], 0, fail_on="warning")
    assert quiet.exit_code == 1
    assert quiet.verdict == "failed on warnings"
    assert quiet.failed_on_warning == (
        "--fail-on warning: 1 warning (first: openai · fork-b · call-args-kept:"
        " call-args-kept warning) — exit 1"
    )
    accepted_only = (scenario("fork-d", byte_prefix="accepted"),)
    for reports, code in ((accepted_only, 0), (passing, 4), (passing, 3)):
        outcomes = log_outcomes(
            "capture", "s", reports, [], Expectations(), [], code, fail_on="warning"
        )
        assert outcomes.exit_code == code
        assert outcomes.failed_on_warning is None
    assert log_outcomes("capture", "s", passing, [], Expectations(), [], 0).exit_code == 0


def test_a_check_run_and_its_stale_expectations() -> None:
    expect = Expectations((KNOWN, NEVER), "known.toml")
    run = CheckRun("s", ("openai",), REPORTS, 0, (), (), expect)
    outcomes = check_outcomes(run)
    assert [e.rule for e in outcomes.expected_failures] == ["tools-identical"]
    assert outcomes.unexpected_passes == (
        Entry(
            None,
            "fork-z",
            "byte-prefix",
            "never matched: no scenario 'fork-z' in this run",
            "issue 3",
        ),
    )
    assert outcomes.exit_code == run.exit_code == 1
