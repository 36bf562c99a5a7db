"""What a finding costs in every form (harness/reports/_cost.py), and costs summed once per
divergence."""

from __future__ import annotations

from harness.reports._cost import (
    cost_html,
    cost_json,
    cost_markdown,
    cost_text,
    divergence_key,
    lost_bytes,
    per_divergence,
)
from harness.rules import Cost, Evidence, Finding, ScenarioReport
from tests.reports.browser import parse

from ..rules.bad_subjects import CASES
from ..rules.support import report


def _finding(
    rule: str, offset: int | None, cost: Cost | None, body: str = "children[0]"
) -> Finding:
    evidence = Evidence(body, against="parent", offset=offset)
    return Finding(rule, "fail", f"{rule} said so", evidence, cost)


def test_the_bar_shares_up_to_the_divergence_then_loses_then_the_childs_own() -> None:
    # a child leaving its parent at byte 48: 1,074 bytes of the parent's prefix are lost,
    # and the child's own 1,040 bytes after them were never cached
    finding = _finding("byte-prefix", 48, Cost(1074, 2162))
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
    assert "48 of 2,162 bytes of prefix shared (2.2%), 1,074 lost (~269 tokens" in bar.text()
    assert "1,040 the child's own" in bar.text()


def test_a_bar_without_a_divergence_offset_shows_what_was_lost_alone() -> None:
    finding = Finding("settings-identical", "fail", "m", Evidence("children[0]"), Cost(10, 40))
    bar = parse(cost_html("children[0]", finding)).find("div", class_="cost")
    (lost,) = bar.find("div", class_="bar").find_all("span")
    assert int(lost.attrs["data-bytes"]) == 10
    assert "of 40 bytes of prefix (25.0%)" in bar.text()
    lost_from = Finding("settings-identical", "fail", "m", None, Cost(10, 40, lost_from=30))
    assert 'data-shared="30"' in cost_html("child", lost_from)
    assert cost_html("child", Finding("x", "fail", "m")) == ""


def test_each_form_reads_the_same_cost() -> None:
    cost = Cost(1074, 2162, real_tokens=235, encoding="o200k_base")
    assert cost_text(cost) == (
        "1,074 bytes of inherited prefix lost = 49.7% of the child's prefix"
        " (~269 tokens at ~4 bytes/token; 235 tokens in o200k_base)"
    )
    assert cost_markdown(cost) == "1,074 (49.7%)"
    assert cost_json(cost) == {
        "lost_bytes": 1074,
        "child_bytes": 2162,
        "share_of_child": round(1074 / 2162, 6),
        "tokens_estimate": 269,
        "bytes_per_token": 4,
        "tokens_real": 235,
        "tokens_encoding": "o200k_base",
    }
    assert cost_json(None) is None


def test_findings_of_one_divergence_are_counted_once() -> None:
    r = ScenarioReport("fork", "openai", "s", ())
    tools = _finding("tools-identical", 48, Cost(1074, 2162))
    prefix = _finding("byte-prefix", 48, Cost(1074, 2162))
    other_child = _finding("byte-prefix", 48, Cost(1074, 2163), body="children[1]")
    later = _finding("append-only", 900, Cost(300, 2500), body="follow_ups[0]")
    found = [(r, f) for f in (tools, prefix, other_child, later)]
    assert [e for _, _, e in per_divergence(found)] == [None, tools, None, None]
    assert lost_bytes(found) == 1074 + 1074 + 300
    assert divergence_key(r, tools) == ("s", "openai", "fork", "children[0]", 48)
    no_offset = Finding("call-args-kept", "warning", "m", Evidence("children[0]"), Cost(5, 9))
    assert divergence_key(r, no_offset) is None
    assert lost_bytes([(r, no_offset), (r, no_offset)]) == 10, "no divergence named: each counts"
    other_run = ScenarioReport("fork", "gemini", "s", ())
    assert lost_bytes([(r, tools), (other_run, prefix)]) == 2 * 1074


def test_a_real_reordered_tool_list_loses_its_bytes_once() -> None:
    # tools-identical and byte-prefix find the one divergence of a reordered tool list
    result = report(CASES["tool-order"].subject, "fork-model-calls", "openai")
    failed = [(result, f) for f in result.findings if f.status == "fail"]
    assert {f.rule for _, f in failed} == {"tools-identical", "byte-prefix"}
    costs = {f.cost.lost_bytes for _, f in failed if f.cost is not None}
    (one,) = costs
    assert lost_bytes(failed) == one
