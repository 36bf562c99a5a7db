"""The Markdown summary (harness/reports/_markdown.py): the verdict line, the rules × dialects
table and the failures, parsed back as tables whatever text the subject sent."""

from __future__ import annotations

import re

from hypothesis import example, given, settings

from harness.check import CheckRun, Expectations
from harness.reports import check_outcomes, outcomes_markdown
from harness.reports._escape import printable
from harness.reports._markdown import _SHOWN, md_text
from harness.rules import Finding, ScenarioReport, catalog

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
    assert text.splitlines()[0] == "## ❌ prefix-harness check: not conforming (exit 1)"
    rules, failures = tables(text)
    assert rules[0] == ["rule", "openai"]
    assert [row[0] for row in rules[1:]] == [f"`{info.id}`" for info in catalog()]
    assert failures == [
        ["rule", "dialect", "scenario", "reason", "bytes lost"],
        ["`byte-prefix`", "openai", "fork-a", "leaves at byte 48", ""],
    ]


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
