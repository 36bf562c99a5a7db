"""The HTML report's rules part (harness/reports/_html_check.py): each state of a matrix
cell and its link, failures in catalog order, and what a card shows."""

from __future__ import annotations

from harness.prefix import Window
from harness.reports._html_check import cost_bar, failure_cards, failures_of, matrix
from harness.rules import Cost, Evidence, Finding, ScenarioReport, Status, catalog
from tests.reports.browser import Node, parse

RULES = [info.id for info in catalog()]


def _report(scenario: str, dialect: str, **statuses: Status) -> ScenarioReport:
    """A report with ``statuses`` by rule (``_`` for ``-``), every other rule not applicable."""
    given = {rule.replace("_", "-"): status for rule, status in statuses.items()}
    findings = tuple(
        Finding(rule, given.get(rule, "not-applicable"), f"{rule} said so") for rule in RULES
    )
    return ScenarioReport(scenario, dialect, "s", findings)


REPORTS = [
    _report("a", "openai", tools_identical="fail", byte_prefix="fail", well_formed="pass"),
    _report("b", "openai", tools_identical="pass", byte_prefix="fail", system_identical="warning"),
    _report("a", "gemini", tools_identical="pass"),
]


def _known(report: ScenarioReport, finding: Finding) -> str | None:
    return "known" if finding.rule == "byte-prefix" else None


def _cells() -> dict[tuple[str, str], Node]:
    failures = failures_of(REPORTS, _known)
    dom = parse(matrix(REPORTS, ["openai", "gemini"], failures))
    return {(c.attrs["data-rule"], c.attrs["data-dialect"]): c for c in dom.find_all("td")}


def test_a_cell_is_failed_expected_passed_or_not_applicable() -> None:
    cells = _cells()
    assert len(cells) == 2 * len(RULES)
    status = {key: cell.attrs["data-status"] for key, cell in cells.items()}
    assert status[("tools-identical", "openai")] == "fail"
    assert status[("byte-prefix", "openai")] == "expected"
    assert status[("system-identical", "openai")] == "pass"  # a warning is no failure
    assert status[("tools-identical", "gemini")] == "pass"
    assert status[("byte-prefix", "gemini")] == "na"
    assert cells[("tools-identical", "openai")].text() == "1✗ 1✓"
    assert cells[("system-identical", "openai")].text() == "1!"
    assert cells[("byte-prefix", "gemini")].text() == "-"


def test_failed_and_expected_cells_link_to_their_group() -> None:
    cells = _cells()
    assert cells[("tools-identical", "openai")].find("a").attrs["href"] == (
        "#fail-tools-identical-openai"
    )
    assert cells[("byte-prefix", "openai")].find("a").attrs["href"] == (
        "#expected-byte-prefix-openai"
    )
    assert not cells[("tools-identical", "gemini")].find_all("a")
    cards = parse(failure_cards(failures_of(REPORTS, _known)))
    group = cards.find("details", id="expected-byte-prefix-openai")
    assert [a.attrs["data-scenario"] for a in group.find_all("article")] == ["a", "b"]
    assert "expected failure: known" in group.text()
    index = [a.attrs["href"] for a in cards.find("ul", class_="index").find_all("a")]
    assert index == ["#fail-tools-identical-openai", "#expected-byte-prefix-openai"]


def test_failures_come_in_catalog_order_with_what_is_known() -> None:
    failures = failures_of(REPORTS, _known)
    assert [(f.finding.rule, f.report.scenario_id, f.known) for f in failures] == [
        ("tools-identical", "a", None),
        ("byte-prefix", "a", "known"),
        ("byte-prefix", "b", "known"),
    ]


def _card(finding: Finding) -> Node:
    report = ScenarioReport("fork-1", "openai", "s", (finding,))
    return parse(failure_cards(failures_of([report], lambda r, f: None))).find("article")


def test_a_card_shows_the_rule_the_reason_both_sides_and_the_structure() -> None:
    evidence = Evidence(
        body="children[0]",
        against="parent",
        offset=610,
        segment="messages[0]",
        path="messages[0].content",
        reason="text differs from byte 59 of the string on",
        window=Window('…repository. Today is"}', 12),
        against_window=Window('…repository."}', 12),
        diff=("changed  messages[0].content: a -> b",),
    )
    finding = Finding("system-identical", "fail", "the system prompt differs", evidence)
    card = _card(finding)
    assert card.find("h3").text().startswith("system-identical — ")
    assert card.find("p", class_="reason").text() == "the system prompt differs"
    facts = card.find("dl", class_="facts").text()
    assert "byte 610 of the body's prefix stream" in facts
    assert "messages[0].content" in facts
    parent, child = card.find_all("div", class_="side")
    assert parent.find("pre").text() == '…repository."}'
    assert parent.find("span", class_="caret").text() == '"'
    assert child.find("span", class_="after").text() == ' Today is"}'
    assert "changed  messages[0].content: a -> b" in card.find_all("pre")[-1].text()
    assert not card.find_all("div", class_="cost")  # no cost, no bar


def test_a_side_that_ended_says_so() -> None:
    evidence = Evidence(
        body="children[0]",
        against="parent",
        window=Window("(the prefix ends here)", 0),
        against_window=Window("abc", 1),
    )
    card = _card(Finding("byte-prefix", "fail", "shorter", evidence, Cost(3, 3)))
    child = card.find_all("div", class_="side")[1]
    assert not child.find_all("span", class_="caret")
    assert child.find("span", class_="muted").text() == "(the prefix ends here)"


def test_the_cost_bar_is_shared_then_lost() -> None:
    bar = parse(cost_bar("children[1]", Cost(1106, 1716))).find("div", class_="cost")
    assert bar.attrs["data-body"] == "children[1]"
    kept, lost = bar.find("div", class_="bar").find_all("span")
    assert (kept.attrs["class"], kept.style("width")) == ("kept", "35.55%")
    assert (lost.attrs["class"], lost.style("width")) == ("lost", "64.45%")
    assert (kept.attrs["data-tokens"], lost.attrs["data-tokens"]) == ("610", "1106")
    assert "~610 of ~1,716 tokens of prefix kept (35.5%), ~1,106 lost (estimate)" in bar.text()
    exact = parse(cost_bar("c", Cost(10, 40, exact=True, encoding="o200k_base"))).text()
    assert "30 of 40 tokens of prefix kept (75.0%), 10 lost" in exact
    assert "estimate" not in exact
