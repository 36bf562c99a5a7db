"""What a finding costs in every form (harness/reports/_cost.py), and costs summed once per
divergence."""

from __future__ import annotations

from harness.reports._cost import (
    cost_html,
    cost_json,
    cost_markdown,
    cost_text,
    divergence_key,
    lost_tokens,
    per_divergence,
)
from harness.rules import Cost, Evidence, Finding, ScenarioReport
from tests.reports.browser import parse

from ..rules.bad_subjects import CASES
from ..rules.support import report

# a child leaving its parent at byte 48: 1,074 bytes (~269 tokens) of the parent's prefix are
# lost, and the child's own 1,040 bytes after them were never cached
LOST = Cost(269, 540, lost_bytes=1074, child_bytes=2162)


def _finding(
    rule: str, offset: int | None, cost: Cost | None, body: str = "children[0]"
) -> Finding:
    evidence = Evidence(body, against="parent", offset=offset)
    return Finding(rule, "fail", f"{rule} said so", evidence, cost)


def test_the_bar_shares_up_to_the_divergence_then_loses_then_the_childs_own() -> None:
    finding = _finding("byte-prefix", 48, LOST)
    bar = parse(cost_html("children[0]", finding)).find("div", class_="cost")
    assert bar.attrs["data-body"] == "children[0]"
    assert (bar.attrs["data-shared"], bar.attrs["data-lost"], bar.attrs["data-whole"]) == (
        "48",
        "1074",
        "2162",
    )
    kept, lost, new = bar.find("div", class_="bar").find_all("span")
    assert [s.attrs["class"] for s in (kept, lost, new)] == ["kept", "lost", "new"]
    assert [int(s.attrs["data-bytes"]) for s in (kept, lost, new)] == [48, 1074, 1040]
    assert kept.style("width") == "2.22%"
    assert "48 of 2,162 bytes of prefix shared (2.2%), 1,074 lost (~269 cached tokens" in bar.text()
    assert "1,040 the child's own" in bar.text()


def test_a_bar_without_a_divergence_offset_shows_what_was_lost_alone() -> None:
    cost = Cost(3, 12, cause="settings", lost_bytes=10, child_bytes=40)
    finding = Finding("settings-identical", "fail", "m", Evidence("children[0]"), cost)
    bar = parse(cost_html("children[0]", finding)).find("div", class_="cost")
    (lost,) = bar.find("div", class_="bar").find_all("span")
    assert int(lost.attrs["data-bytes"]) == 10
    assert "of 40 bytes of prefix (25.0% of its tokens)" in bar.text()
    assert "to a changed setting" in bar.text()
    assert cost_html("child", Finding("x", "fail", "m")) == ""


def test_each_form_reads_the_same_cost() -> None:
    cost = Cost(
        235,
        470,
        exact=True,
        encoding="o200k_base",
        lost_bytes=1074,
        child_bytes=2162,
        reference_tokens=25000,
        reference_usd=0.045,
        model="GPT-5.6 Terra",
        miss_reason="tools_changed",
    )
    assert cost_text(cost) == (
        "235 tokens of cached prefix lost to a divergence = 50.0% of the child's prefix"
        " (in o200k_base); at a 50,000-token parent ~25,000 tokens, $0.0450 a child"
        " (GPT-5.6 Terra prices); the provider calls it tools_changed"
    )
    assert cost_markdown(cost) == "235 tokens (50.0%)"
    assert cost_markdown(LOST) == "~269 tokens (49.8%)"
    assert cost_json(cost) == {
        "cause": "divergence",
        "tokens": 235,
        "tokens_exact": True,
        "tokens_encoding": "o200k_base",
        "prefix_tokens": 470,
        "share_of_child": 0.5,
        "lost_bytes": 1074,
        "child_bytes": 2162,
        "reference_parent_tokens": 50000,
        "reference_tokens": 25000,
        "reference_usd": 0.045,
        "model": "GPT-5.6 Terra",
        "miss_reason": "tools_changed",
    }
    assert cost_json(None) is None


def test_findings_of_one_divergence_are_counted_once() -> None:
    r = ScenarioReport("fork", "openai", "s", ())
    tools = _finding("tools-identical", 48, LOST)
    prefix = _finding("byte-prefix", 48, LOST)
    other_child = _finding("byte-prefix", 48, Cost(270, 541), body="children[1]")
    later = _finding("append-only", 900, Cost(75, 625), body="follow_ups[0]")
    found = [(r, f) for f in (tools, prefix, other_child, later)]
    assert [e for _, _, e in per_divergence(found)] == [None, tools, None, None]
    assert lost_tokens(found) == 269 + 270 + 75
    assert divergence_key(r, tools) == ("s", "openai", "fork", "children[0]", 48)
    no_offset = Finding("call-args-kept", "warning", "m", Evidence("children[0]"), Cost(5, 9))
    assert divergence_key(r, no_offset) is None
    assert lost_tokens([(r, no_offset), (r, no_offset)]) == 10, "no divergence named: each counts"
    other_run = ScenarioReport("fork", "gemini", "s", ())
    assert lost_tokens([(r, tools), (other_run, prefix)]) == 2 * 269


def test_a_real_reordered_tool_list_loses_its_tokens_once() -> None:
    # tools-identical and byte-prefix find the one divergence of a reordered tool list
    result = report(CASES["tool-order"].subject, "fork-model-calls", "openai")
    failed = [(result, f) for f in result.findings if f.status == "fail"]
    assert {f.rule for _, f in failed} == {"tools-identical", "byte-prefix"}
    costs = {f.cost.tokens for _, f in failed if f.cost is not None}
    (one,) = costs
    assert lost_tokens(failed) == one
