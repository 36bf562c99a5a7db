import io
import xml.etree.ElementTree as ET
from datetime import UTC, datetime

from hypothesis import given, settings

from harness.reports import rules_junit
from harness.reports._rules_junit import finish_junit
from harness.rules import Evidence, Finding, ScenarioReport, catalog

from ..rules.bad_subjects import CASES
from ..rules.support import REFERENCE, report
from .formats import assert_valid_junit, junit_problems
from .strategies import scenario_reports


def test_one_testcase_per_rule_per_scenario_and_dialect() -> None:
    reports = [
        report(CASES["memory"].subject, "fork-model-calls", "gemini"),
        report(REFERENCE, "degraded", "anthropic"),
    ]
    root = ET.fromstring(rules_junit(reports))
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [
        "prefix-harness.gemini.fork-model-calls",
        "prefix-harness.anthropic.degraded",
    ]
    for suite, result in zip(suites, reports, strict=True):
        cases = suite.findall("testcase")
        assert [c.get("name") for c in cases] == [r.id for r in catalog()]
        assert {c.get("classname") for c in cases} == {suite.get("name")}
        assert suite.get("tests") == str(len(cases))
        prop = suite.find("properties/property")
        assert prop is not None
        assert prop.attrib == {"name": "subject", "value": result.subject}
    assert root.get("tests") == str(2 * len(catalog()))
    assert root.get("failures") == "2"


def test_failures_skips_and_notes() -> None:
    memory = report(CASES["memory"].subject, "fork-model-calls", "gemini")
    degraded = report(REFERENCE, "degraded", "anthropic")
    root = ET.fromstring(rules_junit([memory, degraded]))
    first, second = root.findall("testsuite")
    system = first.find("testcase[@name='system-identical']")
    assert system is not None
    failure = system.find("failure")
    assert failure is not None
    assert failure.get("type") == "error"
    assert failure.get("message") == memory.finding("system-identical").message
    assert "where  byte 154, systemInstruction.parts[2], path systemInstruction.parts[2]" in (
        failure.text or ""
    )
    skipped = first.find("testcase[@name='spawn-isolated']/skipped")
    assert skipped is not None
    assert skipped.get("message") == "applies to spawn children, not one-shot"
    passing = first.find("testcase[@name='alternation']")
    assert passing is not None
    assert list(passing) == []
    note = second.find("testcase[@name='degraded-fallback']")
    assert note is not None
    assert note.find("failure") is None
    out = note.find("system-out")
    assert out is not None
    assert (out.text or "").startswith("note: the fork ran without cache-safe parameters")


def test_warnings_pass_with_their_cost_in_system_out() -> None:
    root = ET.fromstring(rules_junit([report(REFERENCE, "continuable-persona", "openai")]))
    case = root.find("testsuite/testcase[@name='byte-prefix']")
    assert case is not None
    assert case.find("failure") is None
    out = case.find("system-out")
    assert out is not None
    text = out.text or ""
    assert text.startswith("warning: children[0] leaves the parent's prefix")
    assert "\ncost: " in text


def test_control_characters_and_surrogates_still_parse() -> None:
    hostile = "nul \x00 esc \x1b[31m bel \x07 lone \ud800 ff \ufffe"
    findings = (
        Finding(
            "system-identical",
            "fail",
            hostile,
            Evidence("children[0]", reason=f"because {hostile}"),
        ),
        Finding("call-args-kept", "warning", hostile),
        Finding("spawn-isolated", "not-applicable", hostile),
    )
    document = rules_junit([ScenarioReport("scenario\x1b", "openai", "subject\x00", findings)])
    root = ET.parse(io.BytesIO(document)).getroot()
    shown = "nul \\x00 esc \\x1b[31m bel \\x07 lone \\ud800 ff \\ufffe"
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("name") == "prefix-harness.openai.scenario\\x1b"
    prop = suite.find("properties/property")
    assert prop is not None
    assert prop.get("value") == "subject\\x00"
    failure = root.find(".//testcase[@name='system-identical']/failure")
    assert failure is not None
    assert failure.get("message") == shown
    assert f"where  because {shown}" in (failure.text or "")
    skipped = root.find(".//testcase[@name='spawn-isolated']/skipped")
    assert skipped is not None
    assert skipped.get("message") == shown
    out = root.find(".//testcase[@name='call-args-kept']/system-out")
    assert out is not None
    assert out.text == f"warning: {shown}"


def test_the_common_format_counts_times_and_stamps() -> None:
    reports = [
        report(CASES["memory"].subject, "fork-model-calls", "gemini"),
        report(REFERENCE, "degraded", "anthropic"),
    ]
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    root = ET.fromstring(finish_junit(ET.fromstring(rules_junit(reports)), timestamp=when))
    assert set(root.attrib) == {"name", "tests", "failures", "errors", "time"}
    for suite, one in zip(root.findall("testsuite"), reports, strict=True):
        assert suite.get("skipped") == str(one.counts["not-applicable"])
        assert suite.get("failures") == str(one.counts["fail"])
        assert suite.get("timestamp") == "2026-01-02T03:04:05"
        assert suite.get("hostname")
        assert suite.get("time") == "0"
        assert all(case.get("time") == "0" for case in suite.iter("testcase"))


@settings(max_examples=25)
@given(scenario_reports())
def test_every_document_is_valid_against_the_xsd(reports: tuple[ScenarioReport, ...]) -> None:
    """Any reports, whatever their text: valid by the common format's XSD (junit.xsd), and
    the totals on <testsuites> are the sums of the suites'."""
    document = rules_junit(reports)
    assert_valid_junit(document)
    root = ET.fromstring(document)
    for key in ("tests", "failures", "errors"):
        assert root.get(key) == str(sum(int(s.get(key, "")) for s in root.iter("testsuite")))


def test_the_xsd_refuses_what_the_format_does_not_have() -> None:
    document = rules_junit([report(REFERENCE, "degraded", "anthropic")])
    root = ET.fromstring(document)
    root.set("skipped", "1")
    timeless = ET.fromstring(document)
    case = timeless.find("testsuite/testcase")
    assert case is not None
    del case.attrib["time"]
    assert junit_problems(ET.tostring(root)) == ["'skipped' attribute not allowed for element"]
    assert junit_problems(ET.tostring(timeless)) == ["missing required attribute 'time'"]
