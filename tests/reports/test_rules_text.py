from harness.check import CheckRun
from harness.prefix import Window
from harness.reports import check_outcomes, rules_text
from harness.reports._cost import lost_tokens
from harness.reports._rules_text import (
    ACCEPTED_MARK,
    MARKS,
    attention_lines,
    cost_text,
    failure_lines,
    finding_details,
    legend,
    status_cell,
    verdict_line,
)
from harness.rules import Cost, Evidence, Finding, ScenarioReport, catalog

from ..rules.bad_subjects import CASES
from ..rules.support import REFERENCE, report


def test_a_passing_report_is_one_line_and_verbose_lists_every_rule() -> None:
    reports = [report(REFERENCE, "degraded", "openai")]
    assert rules_text(reports) == (
        "1 scenario runs, 0 failed; findings: 1 note, 5 pass, 13 not-applicable"
        " (-v lists every rule)\n"
    )
    lines = rules_text(reports, verbose=True).splitlines()
    assert lines[0] == ("reference · openai · degraded: ok (1 note, 5 pass, 13 not-applicable)")
    rule_lines = lines[1 : 1 + len(catalog())]
    assert [line.split()[1] for line in rule_lines] == [r.id for r in catalog()]
    assert rule_lines[0].startswith(f"  {MARKS['pass']} well-formed ")
    assert any(line.startswith(f"  {MARKS['note']} degraded-fallback ") for line in rule_lines)
    assert lines[-1] == "1 scenario runs, 0 failed; findings: 1 note, 5 pass, 13 not-applicable"


def test_a_failure_is_rule_message_then_where_cost_and_evidence() -> None:
    result = report(CASES["timestamp"].subject, "fork-model-calls", "anthropic")
    lines = rules_text([result]).splitlines()
    assert lines[0].startswith(f"{MARKS['fail']} system-identical: children[0]'s system")
    assert lines[1] == (
        "    in     timestamp · anthropic · fork-model-calls · children[0] against parent"
    )
    assert lines[2] == "    where  byte 524, system[0], path system[0].text"
    assert lines[3].startswith("    cost   ~")
    assert "tokens of cached prefix lost to a divergence" in lines[3]
    parent = next(i for i, x in enumerate(lines) if x.startswith("    parent "))
    caret = lines[parent + 1].index("^")
    child = lines[parent + 2]
    assert child.startswith("    children[0] ")
    assert child[caret:].startswith(" Now: 2025")
    assert lines[parent - 1] == ""
    assert "    structure:" in lines
    assert lines[-1].startswith("1 scenario runs, 1 failed; findings: 2 fail,")


def test_a_second_rule_at_the_same_divergence_says_so_and_is_counted_once() -> None:
    result = report(CASES["timestamp"].subject, "fork-model-calls", "anthropic")
    lines = rules_text([result]).splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith(f"{MARKS['fail']} byte-prefix: "))
    assert lines[at + 1].startswith("    in     timestamp · anthropic · fork-model-calls")
    assert lines[at + 2] == (
        "    cost   the divergence system-identical found above (its tokens counted once)"
    )
    assert lines[at + 3] == "", "no evidence repeated"
    first = result.finding("system-identical").cost
    second = result.finding("byte-prefix").cost
    assert first is not None
    assert second is not None
    assert first.tokens == second.tokens
    assert lost_tokens((result, f) for f in result.findings) == first.tokens


def test_evidence_is_shown_once_per_rule_and_dialect_and_with_verbose_for_each() -> None:
    subject = CASES["timestamp"].subject
    reports = [report(subject, s, "anthropic") for s in ("fork-model-calls", "fork-model")]
    found = [(r, f) for r in reports for f in r.findings if f.status == "fail"]
    short = "\n".join(failure_lines(found))
    full = "\n".join(failure_lines(found, verbose=True))
    assert short.count("structure:") == 1
    assert full.count("structure:") == 2
    assert short.count("where  ") == full.count("where  ") == 2


def test_warnings_are_counted_not_listed() -> None:
    lines = rules_text([report(REFERENCE, "continuable-persona", "gemini")]).splitlines()
    assert len(lines) == 1
    assert "warning" in lines[0]
    verbose = rules_text([report(REFERENCE, "continuable-persona", "gemini")], verbose=True)
    assert any(x.startswith(f"  {MARKS['warning']} system") for x in verbose.splitlines())


def test_details_without_windows_or_cost() -> None:
    finding = Finding(
        "well-formed",
        "fail",
        "children[0] is not JSON",
        Evidence("children[0]", reason="children[0] is not JSON"),
    )
    assert finding_details(finding) == []
    assert cost_text(Cost(4000, 8000)) == (
        "~4,000 tokens of cached prefix lost to a divergence = 50.0% of the child's prefix "
        "(estimate)"
    )
    priced = Cost(
        100,
        400,
        cause="settings",
        exact=True,
        encoding="o200k_base",
        reference_tokens=12_500,
        reference_usd=0.0225,
        model="GPT-5.6 Terra",
        miss_reason="model_changed",
    )
    assert cost_text(priced) == (
        "100 tokens of cached prefix lost to a changed setting = 25.0% of the child's prefix "
        "(in o200k_base); at a 50,000-token parent ~12,500 tokens, $0.0225 a child "
        "(GPT-5.6 Terra prices); the provider calls it model_changed"
    )
    empty = rules_text([ScenarioReport("s", "openai", "x", ())])
    assert empty.endswith("1 scenario runs, 0 failed; findings: none (-v lists every rule)\n")


def test_control_characters_from_a_subject_are_escaped() -> None:
    window = Window("…\x1b[2Kab\u202ecd…", 7)
    evidence = Evidence(
        "children[0]\x1b]0;t\x07",
        against="parent",
        segment="messages[1]\r",
        path="messages[1].content",
        reason="text differs\x08\x08",
        window=window,
        against_window=Window("…\x1b[2Kab…", 6),
        diff=("changed  x: 'a' -> '\x1b[31mb'",),
    )
    finding = Finding("system-identical", "fail", "bad \x1b[31mred\x1b[0m\r\n✓ ok", evidence)
    report = ScenarioReport("sc\x1b[1men", "openai", "sub\x07", (finding,))
    for text in (rules_text([report]), rules_text([report], verbose=True)):
        assert not set("\x1b\r\x07\x08\u202e") & set(text)
    lines = rules_text([report]).splitlines()
    assert lines[0] == f"{MARKS['fail']} system-identical: bad \\x1b[31mred\\x1b[0m\\r\\n✓ ok"
    assert lines[1].startswith("    in     sub\\x07 · openai · sc\\x1b[1men · children[0]\\x1b")
    assert lines[2].endswith("path messages[1].content: text differs\\x08\\x08")
    child = next(i for i, x in enumerate(lines) if x.startswith("    children[0]\\x1b"))
    assert lines[child][lines[child + 1].index("^") :] == "\\u202ecd…"
    verbose = rules_text([report], verbose=True).splitlines()
    assert any(line.startswith("sub\\x07 · openai · sc\\x1b[1men: FAILED") for line in verbose)


def test_status_cell_counts_each_status_but_not_applicable() -> None:
    reports = [
        ScenarioReport("a", "openai", "s", (Finding("byte-prefix", "fail", "m"),)),
        ScenarioReport("b", "openai", "s", (Finding("byte-prefix", "pass", "m"),)),
        ScenarioReport("c", "openai", "s", (Finding("byte-prefix", "not-applicable", "m"),)),
    ]
    assert status_cell(reports, "byte-prefix") == "1✗ 1✓"
    assert status_cell(reports[2:], "byte-prefix") == "-"
    assert status_cell(reports, "tools-identical") == "-"


def test_accepted_divergences_have_a_mark_of_their_own_in_the_cell_and_the_legend() -> None:
    findings = [
        Finding("system-identical", "warning", "accepted divergence: a persona"),
        Finding("system-identical", "warning", "accepted divergence: a persona"),
        Finding("system-identical", "warning", "a tool_choice changed"),
        Finding("system-identical", "pass", "m"),
    ]
    reports = [ScenarioReport(str(i), "openai", "s", (f,)) for i, f in enumerate(findings)]
    assert status_cell(reports, "system-identical") == f"1{MARKS['warning']} 2{ACCEPTED_MARK} 1✓"
    assert f"! warning, {ACCEPTED_MARK} accepted divergence" in legend()


def test_attention_lines_count_and_verbose_lists_escaped() -> None:
    findings = (
        Finding("byte-prefix", "warning", "accepted divergence: a persona", cost=Cost(7, 70)),
        Finding("call-args-kept", "warning", "args \x1b[2J redacted"),
    )
    skipped = (Finding("byte-prefix", "not-applicable", "skipped by the subject"),)
    run = CheckRun(
        "s",
        ("openai",),
        (
            ScenarioReport("fork\u202e", "openai", "s", findings),
            ScenarioReport("spawn", "openai", "s", skipped),
        ),
        0,
        (),
        (),
    )
    outcomes = check_outcomes(run)
    assert attention_lines(outcomes) == [
        "also: 1 accepted divergence, 1 warning, 1 skipped scenario (-v lists them)"
    ]
    assert attention_lines(outcomes, verbose=True) == [
        "also: 1 accepted divergence, 1 warning, 1 skipped scenario",
        "accepted divergences (1):",
        f"  {ACCEPTED_MARK} openai · fork\\u202e · byte-prefix: accepted divergence: a persona"
        " — cost ~7 tokens of cached prefix lost to a divergence = 10.0% of the child's"
        " prefix (estimate)",
        "warnings (1):",
        "  ! openai · fork\\u202e · call-args-kept: args \\x1b[2J redacted",
        "skipped scenarios (1):",
        "  - openai · spawn: skipped by the subject",
    ]


def test_the_verdict_line_names_the_failing_rules_and_the_exit_code() -> None:
    failing = ScenarioReport(
        "fork",
        "openai",
        "s",
        (
            Finding("byte-prefix", "fail", "m"),
            Finding("tools-identical", "fail", "m"),
            Finding("well-formed", "pass", "m"),
        ),
    )
    run = CheckRun("s", ("openai",), (failing,), 0, (), ())
    assert verdict_line(check_outcomes(run)) == (
        "verdict: NOT conforming: tools-identical, byte-prefix failed — exit 1"
    )
    passing = CheckRun("s", ("openai",), (ScenarioReport("f", "openai", "s", ()),), 0, (), ())
    assert verdict_line(check_outcomes(passing), exit_code=0) == "verdict: conforming — exit 0"
    assert verdict_line(check_outcomes(run), subject_failures=2, exit_code=3) == (
        "verdict: subject failed (2 crash/hang/protocol errors); tools-identical, byte-prefix"
        " failed — exit 3"
    )
    assert verdict_line(check_outcomes(run), exit_code=3, problem="timed out") == (
        "verdict: timed out; tools-identical, byte-prefix failed — exit 3"
    )
