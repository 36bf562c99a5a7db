"""The check report of a capture (harness/reports/_capture.py): text, JSON and JUnit XML, with the
grouping and what could not be checked."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import orjson

from harness.capture import CheckResult, GroupOptions, check_records
from harness.model import Text
from harness.reports import capture_json, capture_junit, capture_text, capture_verdict_line
from tests.capture.simulate import ASK, Runtime, call, calls, child_history, results, text, user


def result_with_everything() -> CheckResult:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive="A")), mark="parent")
    rt.send(child_history([ASK], turn, "A"), calls(call("fork", directive="nested")), mark="kid")
    rt.send((ASK, turn, results(turn, "started")), text("ok"), mark="parent")
    rt.send([user(Text("<fork-boilerplate> from nowhere"))], text("ok"))
    rt.send([user(Text("Unrelated."))], text("ok"))
    rt.send([ASK], text("x"), status=400)
    return check_records(rt.records, subject="agent")


def test_text_shows_grouping_checks_rules_and_what_was_not_checked() -> None:
    out = capture_text(result_with_everything())
    assert out.startswith("grouping: 5 requests in 4 conversations (openai)\n")
    assert "  conversation 1 (parent): requests 1, 3 · marks parent\n" in out
    assert (
        "  conversation 2 (fork child of conversation 1, request 1): request 2 · marks kid\n" in out
    )
    assert "  conversation 3 (not placed: it carries the fork tag): request 4\n" in out
    assert "  conversation 4 (other: no child message, no delegation prompt): request 5\n" in out
    assert "  left out: request 6: refused with status 400 (POST /v1/chat/completions)\n" in out
    assert "checks:\n  fork-1   fork at request 1: 1 fork call in conversation 1 -> " in out
    assert "\n  turns-1  turns of conversation 1 (parent): requests 1, 3\n" in out
    assert "agent · openai · fork-1: ok" in out
    assert "not checked:\n  recursion at request 2: 1 fork call in conversation 2" in out
    assert "\n  conversation 3 (requests 4)\n    not placed: it carries the fork tag" in out
    assert (
        "\ncheck INCONCLUSIVE: 1 group checked, 0 failed, 2 not checked"
        "; turns of 1 conversation checked, 0 not append-only\n"
        "  1 request was left out, so the groups checked may not be all there are\n"
        "  1 refused by the fake; first: request 6: refused with status 400"
        " (POST /v1/chat/completions)\n"
    ) in out
    assert "\n  not checked: recursion at request 2: 1 fork call in conversation 2: " in out
    assert "\n  not checked: conversation 3 (requests 4): not placed: it carries the" in out


def test_a_pass_without_anything_left_out_is_a_pass() -> None:
    rt = Runtime()
    turn = rt.send([ASK], calls(call("fork", directive="A")), mark="parent")
    rt.send(child_history([ASK], turn, "A"), text("done"), mark="kid")
    result = check_records(rt.records)
    assert result.inconclusive == ()
    assert capture_verdict_line(result) == "check passed: 1 group checked, 0 failed, 0 not checked"


def test_a_failure_is_a_verdict_even_with_requests_left_out() -> None:
    rt = Runtime()
    rt.send([ASK], calls(call("fork", directive="A")), mark="parent")
    rt.send([ASK], text("x"), status=404)
    # the fork call has no child: well-formed fails
    result = check_records(rt.records, options=GroupOptions(fork_tool="fork"))
    assert result.failed
    assert result.inconclusive == ()
    assert capture_verdict_line(result).startswith("check FAILED")


def test_nothing_to_check() -> None:
    rt = Runtime()
    rt.send([ASK], text("hello"))
    result = check_records(rt.records)
    assert capture_verdict_line(result) == (
        "check INCONCLUSIVE: 0 groups checked, 0 failed, 0 not checked\n"
        "  nothing was checked: no fork or spawn call among 1 usable model call"
    )
    assert orjson.loads(capture_json(result))["verdict"] == "inconclusive"
    root = ET.fromstring(capture_junit(result))
    (error,) = root.iter("error")
    assert error.get("message", "").startswith("nothing was checked")
    assert root.get("errors") == "1"


def test_json_adds_the_grouping_to_the_rules_report() -> None:
    document = orjson.loads(capture_json(result_with_everything()))
    assert document["summary"]["runs"] == 2
    assert [r["scenario"] for r in document["reports"]] == ["fork-1", "turns-1"]
    grouping = document["grouping"]
    assert grouping["requests"] == 5
    assert grouping["conversations"][0] == {
        "name": "conversation 1",
        "dialect": "openai",
        "role": "parent",
        "requests": [1, 3],
        "marks": ["parent", "parent"],
    }
    assert grouping["checks"][0]["scenario"] == "fork-1"
    assert grouping["checks"][0]["failed"] is False
    assert len(grouping["not_checked"]) == 2
    assert grouping["left_out"] == [
        {
            "request": 6,
            "kind": "refused",
            "reason": "refused with status 400 (POST /v1/chat/completions)",
        }
    ]
    assert document["verdict"] == "inconclusive"


def test_junit_has_a_skipped_case_per_group_not_checked() -> None:
    root = ET.fromstring(capture_junit(result_with_everything()))
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [
        "prefix-harness.openai.fork-1",
        "prefix-harness.openai.turns-1",
        "prefix-harness.verdict",
        "prefix-harness.grouping",
    ]
    (inconclusive,) = suites[2].findall("testcase/error")
    assert "left out" in inconclusive.get("message", "")
    skipped = suites[3].findall("testcase")
    assert len(skipped) == 2
    message = skipped[0].find("skipped")
    assert message is not None
    assert message.get("message", "").startswith("not checked: ")
    rules = int(suites[0].get("tests", "0")) + int(suites[1].get("tests", "0"))
    assert root.get("tests") == str(rules + 1 + 2)


def test_what_an_agent_wrote_is_escaped_in_text_and_junit() -> None:
    """A script mark and a directive are the agent's bytes: no terminal control sequence
    reaches the terminal raw, and the JUnit file still parses."""
    rt = Runtime()
    evil = "A\x1b[2J\x07"
    turn = rt.send([ASK], calls(call("fork", directive=evil)), mark="par\x1b]0;x\x07ent")
    rt.send(child_history([ASK], turn, evil), text("done"))
    result = check_records(rt.records, subject="agent")
    out = capture_text(result)
    assert "\x1b" not in out
    assert "\x07" not in out
    assert "\\x1b" in out
    ET.fromstring(capture_junit(result))
