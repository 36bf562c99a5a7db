"""A OpenAI chat completions body read into the neutral model (_read)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects import DialectError
from harness.dialects.openai import DIALECT
from harness.model import (
    FunctionResponse,
    Message,
    Text,
)

from .support import PART_ERRORS, message_body, parse, render_dict


def test_json_string_arguments_stay_raw() -> None:
    body = {
        "messages": [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "a", "function": {"name": "f", "arguments": '"quoted"'}},
                    {"id": "b", "function": {"name": "f", "arguments": "[1, 2]"}},
                ],
            }
        ]
    }
    calls = parse(body).history[0].function_calls
    assert [c.args for c in calls] == ['"quoted"', (1, 2)]
    rendered = render_dict(parse(body))["messages"][0]["tool_calls"]
    assert [c["function"]["arguments"] for c in rendered] == ['"quoted"', "[1, 2]"]  # as sent


def test_system_message_after_a_tool_message_stays_in_history() -> None:
    body = message_body(
        {"role": "tool", "tool_call_id": "c", "content": "r"},
        {"role": "system", "content": "late"},
    )
    request = parse(body)
    assert request.preset.system == ()
    assert request.history == (
        Message("user", (FunctionResponse("", "r", id="c"),)),
        Message("system", (Text("late"),)),
    )


@pytest.mark.parametrize(("body", "path", "reason"), PART_ERRORS)
def test_malformed_parts_raise_from_to_request(body: Any, path: str, reason: str) -> None:
    DIALECT.segments(body)  # the envelope itself is fine: segments stays cheap
    with pytest.raises(DialectError) as caught:
        DIALECT.to_request(body)
    assert caught.value.path == path
    assert caught.value.reason.startswith(reason)


def test_tool_messages_take_the_names_of_the_calls_before_them() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "done"},
            {"role": "tool", "tool_call_id": "c9", "content": "lost"},
            {"role": "user", "content": "next"},
        ],
    }
    answer = parse(body).history[-1]
    assert [p.name for p in answer.function_responses] == ["search", ""]
    assert DIALECT.read_segments(answer) == 3  # two tool messages and the user's
