"""evaluate_conversation (harness/rules/_conversation.py): a conversation's turns, each
extending the one before, judged by append-only alone."""

from __future__ import annotations

import orjson

from harness.rules import catalog, evaluate_conversation

TURN1 = {"model": "m", "messages": [{"role": "user", "content": "Hi."}]}
TURN2 = {
    "model": "m",
    "messages": [
        {"role": "user", "content": "Hi."},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "Bye."},
    ],
}


def bodies(*values: object) -> list[tuple[str, bytes]]:
    return [(f"request {i + 1}", orjson.dumps(v)) for i, v in enumerate(values)]


def test_turns_that_extend_each_other_pass_and_every_rule_has_a_finding() -> None:
    report = evaluate_conversation("turns-1", "openai", bodies(TURN1, TURN2))
    assert [f.rule for f in report.findings] == [info.id for info in catalog()]
    assert report.finding("append-only").status == "pass"
    assert report.finding("well-formed").status == "pass"
    assert not report.failed


def test_an_old_turn_rewritten_fails_with_offset_and_cost() -> None:
    changed = {**TURN2, "messages": [{"role": "user", "content": "Hi!"}, *TURN2["messages"][1:]]}
    finding = evaluate_conversation("t", "openai", bodies(TURN1, changed)).finding("append-only")
    assert finding.status == "fail"
    assert finding.evidence is not None
    assert finding.evidence.path == "messages[0].content"
    assert finding.cost is not None
    assert finding.cost.lost_bytes > 0


def test_a_changed_setting_alone_is_a_warning() -> None:
    finding = evaluate_conversation(
        "t", "openai", bodies(TURN1, {**TURN2, "temperature": 0.5})
    ).finding("append-only")
    assert finding.status == "warning"
    assert "temperature" in finding.message


def test_a_body_that_does_not_parse_fails_well_formed() -> None:
    report = evaluate_conversation("t", "openai", [("request 1", b"{"), *bodies(TURN1)])
    assert report.finding("well-formed").status == "fail"
    assert report.finding("append-only").status == "not-applicable"


def test_a_body_that_does_not_parse_between_two_turns_blames_no_turn() -> None:
    raw = [*bodies(TURN1), ("request 2", b"{"), *bodies(TURN2)]
    report = evaluate_conversation("t", "openai", raw)
    assert report.finding("well-formed").status == "fail"
    assert report.finding("append-only").status == "not-applicable"
