"""The Markdown summary (harness/reports/_markdown.py): the verdict line, the rules × dialects
table and the failures, parsed back as tables whatever text the subject sent."""

from __future__ import annotations

import re

from hypothesis import example, given, settings

from harness.check import CheckRun, Expectations, bundled_fixtures, run_check
from harness.reports import check_outcomes, outcomes_markdown
from harness.reports._escape import printable
from harness.reports._markdown import _SHOWN, md_text
from harness.rules import Finding, ScenarioReport, catalog
from harness.scenarios import load_fixtures
from tests.rules.bad_subjects import CASES

from .strategies import RULES, runs

CELL = re.compile(r"(?<!\\)\|")


def tables(text: str) -> list[list[list[str]]]:
    """The tables of ``text``, rows of cells unescaped, the separator row dropped."""
    found: list[list[list[str]]] = []
    inside = False
    for line in text.splitlines():
        if not line.startswith("|"):
            inside = False
            continue
        assert line.endswith(" |"), line
        cells = [re.sub(r"\\(.)", r"\1", c.strip()) for c in CELL.split(line[1:-1])]
        if not inside:
            found.append([])
            inside = True
        if set(cells) != {"---"}:
            found[-1].append(cells)
    return found


def test_md_text_makes_markdown_inert() -> None:
    assert md_text("a|b") == "a\\|b"
    assert md_text("[x](javascript:1) <b>&amp; `c` *d*") == (
        "\\[x\\](javascript:1) \\<b\\>\\&amp; \\`c\\` \\*d\\*"
    )
    assert md_text("_e_ ~f~ $g$ !h @i #j") == "\\_e\\_ \\~f\\~ \\$g\\$ \\!h \\@i \\#j"
    assert md_text("line\nbreak\x1b[2J\u202e") == "line\\\\nbreak\\\\x1b\\[2J\\\\u202e"


def one_failure(scenario: str, message: str) -> CheckRun:
    findings = tuple(
        Finding(r, "fail" if r == "byte-prefix" else "pass", message if r == "byte-prefix" else "")
        for r in RULES
    )
    report = ScenarioReport(scenario, "openai", "subject", findings)
    return CheckRun("subject", ("openai",), (report,), 0, (), ())


def test_the_summary_of_a_failing_run() -> None:
    text = outcomes_markdown(check_outcomes(one_failure("fork-a", "leaves at byte 48")))
    assert text.splitlines()[0] == (
        "## ❌ prefix-harness check: not conforming: byte-prefix failed (exit 1)"
    )
    rules, failures = tables(text)
    assert rules[0] == ["rule", "openai"]
    assert [row[0] for row in rules[1:]] == [f"`{info.id}`" for info in catalog()]
    assert failures == [
        ["rule", "dialect", "scenario", "reason", "bytes lost (share)"],
        ["`byte-prefix`", "openai", "fork-a", "leaves at byte 48", ""],
    ]


def test_the_tokens_lost_are_counted_once_per_divergence() -> None:
    """A reordered tool list fails tools-identical and byte-prefix at one byte: the summary
    counts its cached tokens once, and the second row names the first."""
    run = run_check(
        CASES["tool-order"].subject,
        [s for s in load_fixtures(bundled_fixtures()) if s.id == "fork-ends-model-calls"],
        dialects=["openai"],
    )
    report = run.reports[0]
    lost = report.finding("tools-identical").cost
    assert lost is not None
    assert lost == report.finding("byte-prefix").cost
    text = outcomes_markdown(check_outcomes(run))
    assert f" · {lost.tokens:,} tokens of cached prefix lost (each divergence counted once)" in text
    _, failures = tables(text)
    assert [row[0] for row in failures[1:]] == ["`tools-identical`", "`byte-prefix`"]
    tokens = f"{lost.tokens:,}" if lost.exact else f"~{lost.tokens:,}"
    assert failures[1][-1] == f"{tokens} tokens ({lost.share:.1%})"
    assert failures[2][-1] == "as `tools-identical`"


@settings(max_examples=30)
@given(runs())
@example(((one_failure("a|b\n", "x | y ` [z](u) <i>").reports), Expectations()))
def test_no_text_of_a_subject_breaks_a_table(
    run_of: tuple[tuple[ScenarioReport, ...], Expectations],
) -> None:
    """Every row has its header's cells, and a scenario cell reads back as the scenario id
    (printable: controls escaped)."""
    reports, expect = run_of
    dialects = tuple(dict.fromkeys(r.dialect for r in reports))
    outcomes = check_outcomes(CheckRun("s", dialects, reports, 0, (), (), expect))
    text = outcomes_markdown(outcomes)
    found = tables(text)
    for table in found:
        assert all(len(row) == len(table[0]) for row in table)
    sections = re.findall(r"^### (\w[\w ]*) \((\d+)\)$", text, re.MULTILINE)
    shown = dict(zip([s for s, _ in sections], found[1 if dialects else 0 :], strict=True))
    expected = {
        "Failures": outcomes.unexpected_failures,
        "Expected failures": outcomes.expected_failures,
        "Unexpected passes": outcomes.unexpected_passes,
    }
    for title, table in shown.items():
        # a summary shows the first _SHOWN entries of a list; a cell's outer blanks are
        # the table's own padding (GFM trims them), so they are compared trimmed
        shown_ids = [printable(e.scenario).strip() for e in expected[title][:_SHOWN]]
        assert [row[2] for row in table[1:]] == shown_ids
