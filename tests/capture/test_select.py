"""Values a scripted reply takes from the run (harness/capture/_select.py): a minted agent id
from a tool result, an argument of an earlier call, a path and a pattern into them, and a
rule that waits until its value is there."""

from __future__ import annotations

from typing import Any

import pytest

from harness.capture import Matcher, ScriptError, parse_script
from harness.capture._select import UNRESOLVED, Seen, parse_selector
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Message,
    Preset,
    Request,
    Text,
    freeze,
)

SPAWNED = '{"agent_id": "agent-42", "status": "running"}'


def request(*messages: Message) -> Request:
    return Request(Preset(), messages)


ASK = Message("user", (Text("Split the work."),))
CALL = Message("model", (FunctionCall("spawn_agent", freeze({"task": "Audit the parser."}), "c1"),))
RESULT = Message("user", (FunctionResponse("spawn_agent", SPAWNED, "c1"),))


def test_a_minted_agent_id_is_taken_from_the_spawn_result() -> None:
    seen = Seen()
    selector = freeze({"$from": "result", "tool": "spawn_agent", "path": "agent_id"})
    assert seen.resolve(selector, request(ASK, CALL, RESULT)) == "agent-42"
    assert seen.resolve(selector, request(ASK)) is UNRESOLVED  # not there yet
    seen.note(request(ASK, CALL, RESULT))
    assert seen.resolve(selector, request(ASK)) == "agent-42"  # seen earlier in the run


@pytest.mark.parametrize(
    ("selector", "value"),
    [
        ({"$from": "call", "tool": "spawn_agent", "path": "task"}, "Audit the parser."),
        ({"$from": "result", "pattern": r"agent-(\d+)"}, "42"),
        (
            {"$from": "result", "tool": "spawn_agent"},
            freeze({"agent_id": "agent-42", "status": "running"}),
        ),
        ({"$from": "result", "tool": "read_file"}, UNRESOLVED),
        ({"$from": "result", "path": "missing"}, UNRESOLVED),
    ],
)
def test_selectors_take_paths_and_patterns(selector: dict[str, Any], value: object) -> None:
    found = Seen().resolve(freeze(selector), request(ASK, CALL, RESULT))
    assert found == value


def test_a_result_sent_as_text_blocks_of_json_is_read_by_value() -> None:
    blocks = freeze([{"type": "text", "text": '{"agent_id": '}, {"type": "text", "text": '"a-7"}'}])
    history = request(ASK, CALL, Message("user", (FunctionResponse("spawn_agent", blocks, "c1"),)))
    selector = freeze({"$from": "result", "tool": "spawn_agent", "path": "agent_id"})
    assert Seen().resolve(selector, history) == "a-7"


SCRIPT = {
    "rules": [
        {
            "when": {"has_tool_result_for": "spawn_agent"},
            "reply": {
                "call": {
                    "name": "send_message",
                    "args": {
                        "agent_id": {"$from": "result", "tool": "spawn_agent", "path": "agent_id"},
                        "message": "Also check the lexer.",
                    },
                }
            },
            "mark": "follow-up",
        },
        {
            "when": {"first": True},
            "reply": {"call": {"name": "spawn_agent", "args": {"task": "x"}}},
        },
        {"reply": {"text": {"$from": "call", "tool": "send_message", "path": "message"}}},
    ],
}


def test_a_follow_up_to_a_continuable_child_is_scripted_with_its_minted_id() -> None:
    matcher = Matcher(parse_script(SCRIPT))
    first = matcher.answer(request(ASK))
    assert first.reply.calls[0].name == "spawn_agent"
    answer = matcher.answer(request(ASK, CALL, RESULT))
    assert answer.mark == "follow-up"
    (call,) = answer.reply.calls
    assert dict(call.args) == {"agent_id": "agent-42", "message": "Also check the lexer."}
    sent = Message("model", (FunctionCall("send_message", call.args, "c2"),))
    delivered = Message("user", (FunctionResponse("send_message", "delivered", "c2"),))
    said = matcher.answer(request(ASK, CALL, RESULT, sent, delivered))
    assert said.reply.text == "Also check the lexer."


def test_a_rule_waits_until_its_value_is_there() -> None:
    script = {
        "rules": [
            {"reply": {"text": {"$from": "result", "tool": "spawn_agent", "path": "agent_id"}}},
        ],
        "default": {"text": "nothing yet"},
    }
    matcher = Matcher(parse_script(script))
    assert matcher.answer(request(ASK)).reply.text == "nothing yet"
    assert matcher.answer(request(ASK, CALL, RESULT)).reply.text == "agent-42"
    assert matcher.fired == (1,)


@pytest.mark.parametrize(
    ("selector", "problem"),
    [
        ({"$from": "reply"}, "$from must be one of result, call"),
        ({"$from": "result", "tol": "x"}, "unknown field 'tol'"),
        ({"$from": "result", "pattern": "("}, "pattern is not a regular expression"),
        ({"$from": "call", "path": ""}, "path must be a non-empty string"),
    ],
)
def test_a_bad_selector_is_refused_with_its_path(selector: dict[str, Any], problem: str) -> None:
    script = {"rules": [{"reply": {"call": {"name": "f", "args": {"deep": [selector]}}}}]}
    with pytest.raises(ScriptError) as info:
        parse_script(script)
    assert info.value.path == "rules[0].reply.call[0].args.deep[0]"
    assert problem in info.value.problem
    with pytest.raises(ValueError, match="must be one of"):
        parse_selector({"$from": "x"})
