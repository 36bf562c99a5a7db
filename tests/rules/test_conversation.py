"""evaluate_conversation (harness/rules/_conversation.py): a conversation's turns, each
extending the one before, judged by append-only alone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from harness.dialects import get_dialect
from harness.rules import catalog, evaluate_conversation
from harness.rules._body import Body, read_body

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


def turns(count: int) -> list[dict[str, Any]]:
    """A conversation of ``count`` turns, each the one before plus two messages."""
    messages: list[dict[str, str]] = [{"role": "user", "content": "Hi."}]
    out: list[dict[str, Any]] = []
    for k in range(count):
        out.append({"model": "m", "messages": list(messages)})
        messages += [
            {"role": "assistant", "content": f"Step {k}."},
            {"role": "user", "content": "Go on."},
        ]
    return out


def test_a_long_conversation_is_compared_turn_by_turn() -> None:
    report = evaluate_conversation("t", "openai", bodies(*turns(150)))
    assert report.finding("well-formed").message == "150 bodies read as openai requests"
    finding = report.finding("append-only")
    assert finding.status == "pass"
    first = _read(turns(1)[0]).priced
    kept = f"{first.total:,}" if first.exact else f"~{first.total:,}"
    assert finding.message == f"request 2 extends request 1 ({kept} tokens kept) (all 149 bodies)"


def test_the_bodies_are_read_once_in_order_and_not_past_one_that_does_not_parse() -> None:
    read: list[str] = []

    def lazily() -> Iterator[tuple[str, bytes]]:
        for label, raw in [*bodies(*turns(3)), ("request 4", b"{"), *bodies(*turns(6))[4:]]:
            read.append(label)
            yield label, raw

    report = evaluate_conversation("t", "openai", lazily())
    assert read == ["request 1", "request 2", "request 3", "request 4"]
    assert report.finding("well-formed").message.startswith("request 4: request 4 is not JSON")
    assert report.finding("append-only").status == "not-applicable"


def test_one_rewritten_turn_among_many_is_the_one_reported() -> None:
    values = turns(40)
    changed = [{"role": "user", "content": "Hi!"}, *values[25]["messages"][1:]]
    values[25] = {**values[25], "messages": changed}
    finding = evaluate_conversation("t", "openai", bodies(*values)).finding("append-only")
    assert finding.status == "fail"
    assert finding.message.startswith("request 26 rewrites request 25 at byte ")
    assert finding.message.endswith("(2 of 39 bodies)")


# --- a parent's turns around an MCP reconnect (can1357/oh-my-pi#890, Hmbown/Codewhale#1120) ----

_TOOLS = [
    {"type": "function", "function": {"name": "mcp_query", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}},
]


def _read(body: dict[str, object]) -> Body:
    found = read_body("turn", orjson.dumps(body), get_dialect("openai"))
    assert isinstance(found, Body)
    return found


def test_tools_reordered_between_turns_lose_the_whole_prefix() -> None:
    """A server's tools removed and pushed back at the end on reconnect: the next turn parts
    from the one before at the first tool, so none of its prefix is read from the cache."""
    before = {**TURN1, "tools": _TOOLS}
    after = {**TURN2, "tools": _TOOLS[::-1]}
    finding = evaluate_conversation("t", "openai", bodies(before, after)).finding("append-only")
    assert finding.status == "fail"
    assert finding.evidence is not None
    assert finding.evidence.segment == "tools[0]"
    assert finding.cost is not None
    first_tool = _read(before).frames_of("tools")[0]
    assert finding.evidence.offset is not None
    assert first_tool.start <= finding.evidence.offset < first_tool.end
    # every unit from the first tool on is lost: the whole prefix
    assert finding.cost.lost_bytes == _read(before).stream.length
    assert finding.cost.tokens == _read(before).priced.total


def test_a_tool_added_mid_session_loses_every_message_after_the_tools() -> None:
    """A deferred tool declared on its first use: the tools come first, so the next turn
    repeats only the tools before it; OpenAI looks up message endings only, so none of the
    earlier turn's prefix is read (the tools alone end no message)."""
    added = {"type": "function", "function": {"name": "edit_file"}}
    before = {**TURN1, "tools": _TOOLS}
    after = {**TURN2, "tools": [*_TOOLS, added]}
    finding = evaluate_conversation("t", "openai", bodies(before, after)).finding("append-only")
    assert finding.status == "fail"
    assert finding.evidence is not None
    assert finding.evidence.segment == "tools[2]"
    assert finding.cost is not None
    assert finding.cost.lost_bytes == _read(before).stream.length
    assert finding.cost.tokens == _read(before).priced.total > 0
