"""Reports of a check run: the rules × dialects table, what needs attention, the shrunk scenario
as a fixture to commit and the verdict (text); the same as JSON; JUnit XML for CI."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from harness.check import CheckRun, Expectations, KnownFailure, bundled_fixtures, run_check
from harness.reports import check_json, check_junit, check_outcomes, check_text
from harness.reports._cost import per_divergence
from harness.rules import Finding, ScenarioReport, catalog
from harness.scenarios import Lifecycle, Scenario, load_fixtures, scenario_from_json
from harness.subjects import InProcessSubject, Outcome, ReferenceSubject, SubjectFailure
from tests.rules.bad_subjects import CASES

from .formats import assert_valid_junit

REFERENCE = ReferenceSubject()
KNOWN = KnownFailure("*", "settings-identical", "the model is pinned: https://example.org/i/7")
STALE = KnownFailure("fork-ends-user", "tools-identical", "tools are sorted by name")


@cache
def oneshot() -> tuple[Scenario, ...]:
    return tuple(load_fixtures(bundled_fixtures() / "oneshot.json"))


@cache
def broken() -> CheckRun:
    """Tool order not fixed: fixtures fail and a generated scenario is shrunk, per dialect."""
    subject = CASES["tool-order"].subject
    return run_check(subject, oneshot(), dialects=["anthropic", "openai"], examples=5)


@cache
def expected() -> CheckRun:
    """A model switch that is a known failure, and an entry that no longer fails."""
    expect = Expectations((KNOWN, STALE), "known.toml")
    subject = CASES["model-switched"].subject
    return run_check(subject, oneshot(), dialects=["openai"], expectations=expect)


@cache
def clean() -> CheckRun:
    return run_check(REFERENCE, oneshot(), dialects=["openai"], examples=2)


def test_the_generated_runs_of_each_dialect_are_counted() -> None:
    """Every generated scenario runs in each dialect the subject speaks: the second line says
    how many ran where, and a dialect the subject does not speak shows its 0."""
    assert check_text(clean()).splitlines()[1] == (
        f"{len(clean().reports)} scenario runs (2 generated: 2 in openai)"
    )
    mute = replace(clean(), dialects=("gemini", "openai"), generated_by_dialect={"openai": 2})
    assert check_text(mute).splitlines()[1].endswith(" (2 generated: gemini 0, openai 2)")
    assert json.loads(check_json(mute))["generated_by_dialect"] == {"gemini": 0, "openai": 2}
    none = replace(clean(), generated=0, generated_by_dialect={"openai": 0})
    assert check_text(none).splitlines()[1].endswith(" (0 generated)")


class Raising:
    name = "raising"
    dialects: tuple[str, ...] = ("openai",)
    lifecycles: tuple[Lifecycle, ...] = ("one-shot",)

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        raise RuntimeError("cannot fork yet")


@cache
def crashed() -> CheckRun:
    return run_check(InProcessSubject(Raising()), oneshot()[:1], dialects=["openai"])


def fixture_blocks(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Each printed fixture: the line that introduces it, and its JSON."""
    blocks = []
    decoder = json.JSONDecoder()
    marker = ", ready to commit as a fixture:\n"
    at = text.find(marker)
    while at >= 0:
        heading = text[text.rfind("\n", 0, at) + 1 : at]
        start = at + len(marker)
        assert text[start] == "{", "the fixture follows on the next line"
        document, end = decoder.raw_decode(text, start)
        blocks.append((heading, document))
        at = text.find(marker, end)
    return blocks


# --- text -------------------------------------------------------------------------------------


def test_the_table_has_a_column_per_dialect_and_a_row_per_rule() -> None:
    run = broken()
    lines = check_text(run).splitlines()
    assert lines[0] == "subject: tool-order    dialects: anthropic, openai"
    assert lines[1] == f"{len(run.reports)} scenario runs (10 generated: 5 in each dialect)"
    at = lines.index(next(line for line in lines if line.startswith("rule ")))
    assert lines[at].split() == ["rule", "anthropic", "openai"]
    rows = lines[at + 1 : at + 1 + len(catalog())]
    assert [row.split()[0] for row in rows] == [info.id for info in catalog()]
    columns = [lines[at].index(d) for d in ("anthropic", "openai")]
    for row in rows:  # every cell starts under its dialect
        assert all(row[c - 1] == " " and row[c] != " " for c in columns), row
    tools = next(row for row in rows if row.startswith("tools-identical "))
    assert all("✗" in cell for cell in (tools[columns[0] : columns[1]], tools[columns[1] :]))
    assert lines[at + 1 + len(catalog())].startswith("(✗ failed, ! warning, ~ accepted divergence")


def test_the_table_counts_scenario_runs_per_dialect() -> None:
    run = clean()
    text = check_text(run)
    row = next(line for line in text.splitlines() if line.startswith("well-formed "))
    assert row.split()[1] == f"{len(run.reports)}✓"


def test_failures_come_first_each_rule_message_where_cost_and_evidence() -> None:
    run = broken()
    text = check_text(run)
    lines = text.splitlines()
    count = len(run.unexpected_failures)
    at = next(i for i, line in enumerate(lines) if line.startswith(f"FAILURES ({count}; "))
    assert at == 3, "the failures come right after the run's size, before the table"
    assert lines.index(next(x for x in lines if x.startswith("rule "))) > at
    head = next(
        i
        for i, line in enumerate(lines)
        if line.startswith("✗ tools-identical: ")
        and lines[i + 1].startswith("    in     anthropic · fork-ends-model-calls · ")
    )
    assert lines[head + 1] == (
        "    in     anthropic · fork-ends-model-calls · children[0] against parent"
    )
    assert lines[head + 2].startswith("    where  byte ")
    assert ", tools[0], path tools[0]." in lines[head + 2]
    assert lines[head + 3].startswith("    cost   ")
    assert "expected failures" not in text
    assert "UNEXPECTED PASSES" not in text


def test_every_failure_is_listed_with_evidence_once_per_rule_and_dialect() -> None:
    run = broken()
    lines = check_text(run).splitlines()
    heads = [x for x in lines if x.startswith("✗ ")]
    assert len(heads) == len(run.unexpected_failures)
    shown = check_text(run).count("structure:")
    found = list(per_divergence(run.unexpected_failures))
    first = {(r.dialect, f.rule) for r, f, same in found if same is None}
    divergences = [f for _, f, same in found if same is None]
    assert shown == len(first) < len(divergences)
    assert check_text(run, verbose=True).count("structure:") == len(divergences)


def test_expected_failures_and_unexpected_passes_have_their_sections() -> None:
    text = check_text(expected())
    lines = text.splitlines()
    assert "\nFAILURES (" not in text
    failed = [r for r in expected().reports if r.failed]
    heading = f"expected failures ({len(failed)}, from known.toml):"
    at = lines.index(heading)
    assert (
        lines[at + 1] == f"  settings-identical · openai · {failed[0].scenario_id}: {KNOWN.reason}"
    )
    at = lines.index("UNEXPECTED PASSES (1): remove these from known.toml")
    assert (
        lines[at + 1]
        == f"  tools-identical · fork-ends-user/openai: expected to fail ({STALE.reason})"
    )
    assert lines[-1] == (
        "verdict: NOT conforming: 1 expected failure did not happen (passed or never matched)"
        " — exit 1"
    )


def test_expectations_made_in_code_have_no_file_to_name() -> None:
    run = expected()
    text = check_text(replace(run, expectations=replace(run.expectations, source=None)))
    assert "None" not in text
    assert "UNEXPECTED PASSES (1): remove these from the expectations" in text
    assert any(
        line.startswith("expected failures (") and line.endswith("):") for line in text.splitlines()
    )


def test_the_shrunk_scenario_is_printed_as_a_fixture_to_commit(tmp_path: Path) -> None:
    run = broken()
    blocks = fixture_blocks(check_text(run))
    assert len(blocks) == len(run.shrunk) == 2
    for (heading, document), shrunk in zip(blocks, run.shrunk, strict=True):
        failed = ", ".join(f.rule for f in shrunk.report.findings if f.status == "fail")
        assert heading == f"minimal failing generated scenario ({shrunk.dialect}; fails {failed})"
        (scenario,) = document["scenarios"]
        assert scenario_from_json(scenario) == shrunk.scenario
        path = tmp_path / f"found-{shrunk.dialect}.json"
        path.write_text(json.dumps(document))
        assert load_fixtures(path) == [shrunk.scenario]


def test_a_scenario_that_is_not_shrunk_says_why() -> None:
    run = broken()
    first = replace(run.shrunk[0], unshrunk="the subject hung")
    text = check_text(replace(run, shrunk=(first,)))
    ((heading, _),) = fixture_blocks(text)
    assert heading.startswith("failing generated scenario (anthropic; fails ")
    assert heading.endswith("; not shrunk: the subject hung)")


def test_the_verdict_line_names_the_failing_rules_and_the_exit_code() -> None:
    assert check_text(clean()).splitlines()[-1] == "verdict: conforming — exit 0"
    run = broken()
    rules = [
        info.id for info in catalog() if info.id in {f.rule for _, f in run.unexpected_failures}
    ]
    assert rules[:2] == ["tools-identical", "byte-prefix"]
    assert check_text(run).splitlines()[-1] == (
        f"verdict: NOT conforming: {', '.join(rules)} failed — exit 1"
    )
    text = check_text(crashed())
    assert text.splitlines()[-1] == "verdict: subject failed (1 crash/hang/protocol error) — exit 3"
    assert "SUBJECT FAILURES (1): crashed, hung or broke the protocol" in text
    assert (
        "  subject crashed in scenario 'fork-ends-model-text': assemble raised RuntimeError" in text
    )
    assert "  | RuntimeError: cannot fork yet" in text


# --- JSON -------------------------------------------------------------------------------------


def test_json_has_the_check_findings_beside_the_reports() -> None:
    run = broken()
    document = json.loads(check_json(run))
    assert {"exit_code", "unexpected_failures", "shrunk", "subject_failures", "reports"} <= set(
        document
    )
    assert document["exit_code"] == run.exit_code == 1
    assert document["subject"] == "tool-order"
    assert document["dialects"] == ["anthropic", "openai"]
    assert document["generated"] == run.generated
    assert document["generated_by_dialect"] == {"anthropic": 5, "openai": 5}
    assert len(document["reports"]) == len(run.reports)
    assert [(u["dialect"], u["scenario"], u["rule"]) for u in document["unexpected_failures"]] == [
        (r.dialect, r.scenario_id, f.rule) for r, f in run.unexpected_failures
    ]
    assert [scenario_from_json(s["scenario"]) for s in document["shrunk"]] == [
        s.scenario for s in run.shrunk
    ]
    assert [s["unshrunk"] for s in document["shrunk"]] == [None, None]
    assert document["subject_failures"] == []


def test_json_of_expectations_and_subject_failures() -> None:
    document = json.loads(check_json(expected()))
    assert document["exit_code"] == 1
    assert document["unexpected_failures"] == []
    assert document["unexpected_passes"] == [
        {
            "dialect": "openai",
            "scenario": STALE.scenario,
            "rule": "tools-identical",
            "message": "expected to fail, passed",
            "reason": STALE.reason,
        }
    ]
    assert document["expectations"] == "known.toml"
    entries = ("unexpected_failures", "expected_failures", "unexpected_passes")
    assert document["expected_failures"]
    for key in entries:
        for entry in document[key]:
            assert list(entry) == ["dialect", "scenario", "rule", "message", "reason"]
    for entry in document["expected_failures"]:
        assert entry["rule"] == KNOWN.rule
        assert entry["reason"] == KNOWN.reason
    marked = [
        (r["scenario"], f["rule"], f["expected_reason"])
        for r in document["reports"]
        for f in r["findings"]
        if f["expected"]
    ]
    assert marked == [
        (e["scenario"], e["rule"], e["reason"]) for e in document["expected_failures"]
    ]
    document = json.loads(check_json(crashed()))
    assert document["exit_code"] == 3
    (failure,) = document["subject_failures"]
    assert failure["kind"] == "crash"
    assert failure["scenario"] == "fork-ends-model-text"
    assert "RuntimeError: cannot fork yet" in failure["stderr_tail"]


# --- JUnit ------------------------------------------------------------------------------------


def cases(run: CheckRun) -> dict[tuple[str, str], ET.Element]:
    root = ET.fromstring(check_junit(run))
    assert root.tag == "testsuites"
    return {(case.attrib["classname"], case.attrib["name"]): case for case in root.iter("testcase")}


def test_junit_makes_an_expected_failure_a_skipped_case() -> None:
    run = expected()
    found = cases(run)
    assert len(found) == len(run.reports) * len(catalog())
    failed = [r.scenario_id for r in run.reports if r.failed]
    assert failed
    for scenario in failed:
        case = found[(f"prefix-harness.openai.{scenario}", "settings-identical")]
        assert case.find("failure") is None
        skipped = case.find("skipped")
        assert skipped is not None
        assert skipped.attrib["message"] == f"expected failure: {KNOWN.reason}"
    root = ET.fromstring(check_junit(run))
    assert int(root.attrib["failures"]) == len(list(root.iter("failure")))


def test_junit_fails_an_unexpected_pass() -> None:
    # the run exits 1 for it, so CI reading the XML must see a failure too
    found = cases(expected())
    case = found[("prefix-harness.openai.fork-ends-user", "tools-identical")]
    failure = case.find("failure")
    assert failure is not None
    assert failure.attrib["message"].startswith("unexpected pass: expected to fail")
    assert "known.toml" in failure.attrib["message"]


def test_junit_keeps_unexpected_failures() -> None:
    found = cases(broken())
    case = found[("prefix-harness.openai.fork-ends-model-calls", "tools-identical")]
    failure = case.find("failure")
    assert failure is not None
    assert failure.attrib["type"] == "error"
    assert "path tools[0].function.name" in (failure.text or "")


def test_text_escapes_what_the_subject_wrote() -> None:
    # a subject's stderr and messages cannot recolour, overwrite or retitle the terminal
    hostile = "\x1b]0;pwned\x07\x1b[2K\rverdict: conforming \u202e\x08"
    failure = SubjectFailure(
        status="errored",
        message=f"subject crashed in scenario 'x': {hostile}",
        kind="crash",
        scenario="x",
        stderr_tail=f"Traceback\n{hostile}\n",
    )
    finding = Finding("system-identical", "fail", hostile)
    report = ScenarioReport(f"sc{hostile}", "openai", "sub", (finding,))
    run = CheckRun(
        subject=f"sub{hostile}",
        dialects=("openai",),
        reports=(report,),
        generated=0,
        shrunk=(),
        failures=(failure,),
    )
    text = check_text(run)
    assert not set("\x1b\x07\r\x08\u202e") & set(text)
    shown = "\\x1b]0;pwned\\x07\\x1b[2K\\rverdict: conforming \\u202e\\x08"
    assert f"  | {shown}" in text.splitlines()
    assert f"subject: sub{shown}    dialects: openai" in text


def test_junit_of_every_kind_of_run_is_valid_against_the_xsd() -> None:
    for run in (broken(), expected(), clean(), crashed()):
        assert_valid_junit(check_junit(run))


@cache
def continuable() -> CheckRun:
    """The reference on the continuable fixtures: accepted divergences, nothing else."""
    fixtures = load_fixtures(bundled_fixtures() / "continuable.json")
    return run_check(REFERENCE, fixtures, dialects=["openai"], examples=0)


def test_the_text_counts_what_it_does_not_list() -> None:
    run = continuable()
    accepted = len(check_outcomes(run).accepted)
    assert accepted > 0
    line = f"also: {accepted} accepted divergences, 0 warnings, 0 skipped scenarios"
    text = check_text(run)
    assert f"\n{line} (-v lists them)\nverdict: conforming — exit 0\n" in text
    verbose = check_text(run, verbose=True)
    listed = verbose[verbose.index(line) :].splitlines()
    assert listed[1] == f"accepted divergences ({accepted}):"
    assert all(" · " in entry and entry.startswith("  ~ openai · ") for entry in listed[2:-1])
    assert len(listed) == accepted + 3
    # the one-shot fixtures alone: what generation draws may bring accepted divergences
    fixtures_only = run_check(REFERENCE, oneshot(), dialects=["openai"], examples=0)
    assert not check_outcomes(fixtures_only).accepted
    assert check_text(fixtures_only).count("also: 0 accepted divergences, 0 warnings") == 1


def test_fail_on_warning_fails_only_a_run_that_would_pass_with_warnings() -> None:
    subject = CASES["tool-choice"].subject
    run = run_check(subject, oneshot(), dialects=["openai"], examples=0)
    assert check_outcomes(run).exit_code == 0
    gated = check_outcomes(run, fail_on="warning")
    assert gated.exit_code == 1
    assert gated.verdict == "failed on warnings"
    assert (gated.failed_on_warning or "").startswith("--fail-on warning: 7 warnings (first: ")
    text = check_text(run, fail_on="warning")
    assert text.splitlines()[-1].startswith("verdict: NOT conforming, --fail-on warning: ")
    assert json.loads(check_json(run, fail_on="warning"))["exit_code"] == 1
    for other in (continuable(), broken(), crashed()):
        assert check_outcomes(other, fail_on="warning").exit_code == other.exit_code
