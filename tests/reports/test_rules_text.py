from harness.check import CheckRun
from harness.prefix import Window
from harness.reports import check_outcomes, rules_text
from harness.reports._rules_text import (
    MARKS,
    attention_lines,
    cost_text,
    finding_details,
    status_cell,
)
from harness.rules import Cost, Evidence, Finding, ScenarioReport, catalog

from ..rules.bad_subjects import CASES
from ..rules.support import REFERENCE, report


def test_one_line_per_rule_with_a_status_mark() -> None:
    text = rules_text([report(REFERENCE, "degraded", "openai")])
    lines = text.splitlines()
    assert lines[0] == ("reference · openai · degraded: ok (1 note, 5 pass, 13 not-applicable)")
    rule_lines = lines[1 : 1 + len(catalog())]
    assert [line.split()[1] for line in rule_lines] == [r.id for r in catalog()]
    assert rule_lines[0].startswith(f"  {MARKS['pass']} well-formed ")
    assert any(line.startswith(f"  {MARKS['note']} degraded-fallback ") for line in rule_lines)
    assert lines[-1] == "1 scenario runs, 0 failed; findings: 1 note, 5 pass, 13 not-applicable"


def test_failures_are_expanded_with_windows_and_structure() -> None:
    result = report(CASES["timestamp"].subject, "fork-model-calls", "anthropic")
    lines = rules_text([result]).splitlines()
    assert lines[0].startswith("timestamp · anthropic · fork-model-calls: FAILED (2 fail,")
    start = next(
        i for i, x in enumerate(lines) if x.startswith(f"  {MARKS['fail']} system-identical")
    )
    block = lines[start + 1 : start + 16]
    assert "      body     children[0] (against parent)" in block
    assert "      segment  system[0]" in block
    assert "      path     system[0].text" in block
    assert any(x.startswith("      cost     ") and "% of the child's prefix" in x for x in block)
    parent = next(i for i, x in enumerate(block) if x.startswith("      parent "))
    caret = block[parent + 1].index("^")
    child = block[parent + 2]
    assert child.startswith("      children[0] ")
    assert child[caret:].startswith(" Now: 2025")
    assert block[parent - 1] == ""
    assert "      structure:" in block


def test_warnings_show_their_cost_only() -> None:
    lines = rules_text([report(REFERENCE, "continuable-persona", "gemini")]).splitlines()
    warning = next(i for i, x in enumerate(lines) if x.startswith(f"  {MARKS['warning']} system"))
    assert lines[warning + 1].startswith("      cost     ")
    assert lines[warning + 2].startswith("  ")
    assert not lines[warning + 2].startswith("      ")


def test_details_without_windows_or_cost() -> None:
    finding = Finding(
        "well-formed",
        "fail",
        "children[0] is not JSON",
        Evidence("children[0]", reason="children[0] is not JSON"),
    )
    assert finding_details(finding) == ["body     children[0]"]
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
    assert empty.endswith("1 scenario runs, 0 failed; findings: none\n")


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
    text = rules_text([report])
    assert not set("\x1b\r\x07\x08\u202e") & set(text)
    lines = text.splitlines()
    assert lines[0].startswith("sub\\x07 · openai · sc\\x1b[1men: FAILED")
    assert lines[1].endswith("bad \\x1b[31mred\\x1b[0m\\r\\n✓ ok")
    assert "      why      text differs\\x08\\x08" in lines
    child = next(i for i, x in enumerate(lines) if x.startswith("      children[0]\\x1b"))
    assert lines[child][lines[child + 1].index("^") :] == "\\u202ecd…"


def test_status_cell_counts_each_status_but_not_applicable() -> None:
    reports = [
        ScenarioReport("a", "openai", "s", (Finding("byte-prefix", "fail", "m"),)),
        ScenarioReport("b", "openai", "s", (Finding("byte-prefix", "pass", "m"),)),
        ScenarioReport("c", "openai", "s", (Finding("byte-prefix", "not-applicable", "m"),)),
    ]
    assert status_cell(reports, "byte-prefix") == "1✗ 1✓"
    assert status_cell(reports[2:], "byte-prefix") == "-"
    assert status_cell(reports, "tools-identical") == "-"


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
        "  ! openai · fork\\u202e · byte-prefix: accepted divergence: a persona — cost 7 tokens",
        "warnings (1):",
        "  ! openai · fork\\u202e · call-args-kept: args \\x1b[2J redacted",
        "skipped scenarios (1):",
        "  - openai · spawn: skipped by the subject",
    ]
