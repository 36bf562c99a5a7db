"""Anthropic messages content parts both ways (_parts)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects import DialectError
from harness.dialects.anthropic import DIALECT
from harness.model import (
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    Preset,
    Request,
    Text,
    Thinking,
    Tool,
)

from .support import minimal, parse, render_dict, user


def test_tool_result_name_comes_from_the_earlier_call_or_is_empty() -> None:
    body = minimal(
        user("go"),
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}],
        },
        user(
            [
                {"type": "tool_result", "tool_use_id": "a"},
                {"type": "tool_result", "tool_use_id": "zz"},
            ]
        ),
    )
    responses = parse(body).history[2].function_responses
    assert responses == (FunctionResponse("f", "", "a"), FunctionResponse("", "", "zz"))


def test_neutral_forms_anthropic_lacks_map_to_nearest_form() -> None:
    request = Request(
        Preset(tools=(Tool("bare"),)),
        (
            Message("system", (Text("be brief"),)),
            Message("model", (FunctionCall("f", None), Thinking("t"))),
            Message(
                "user", (Image(url="https://x.test/i.png", mime_type="image/png", detail="high"),)
            ),
        ),
    )
    body = render_dict(request)
    assert body["tools"] == [{"name": "bare", "input_schema": {"type": "object", "properties": {}}}]
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "name": "f", "input": {}},
                {"type": "thinking", "thinking": "t"},
            ],
        },
        user([{"type": "image", "source": {"type": "url", "url": "https://x.test/i.png"}}]),
    ]


@pytest.mark.parametrize(
    ("block", "where", "reason"),
    [
        ({"type": 3}, ".type", "a content block's type must be a string, not a number"),
        ({"type": "text"}, ".text", "the text field is missing"),
        ({"type": "text", "text": 1}, ".text", "text must be a string, not a number"),
        ({"type": "tool_use", "id": "a", "input": {}}, ".name", "the name field is missing"),
        ({"type": "tool_use", "name": "f"}, ".input", "the input field is missing"),
        ({"type": "tool_result", "content": 3}, ".content", "content must be a string or an array"),
        ({"type": "tool_result", "is_error": "yes"}, ".is_error", "is_error must be a boolean"),
        ({"type": "thinking", "signature": "s"}, ".thinking", "the thinking field is missing"),
    ],
)
def test_to_request_rejects_a_malformed_part(
    block: dict[str, Any], where: str, reason: str
) -> None:
    parsed = DIALECT.parse(minimal(user([block])))  # segments do not look inside blocks
    with pytest.raises(DialectError) as info:
        _ = parsed.request
    assert info.value.path == "messages[0].content[0]" + where
    assert info.value.reason.startswith(reason)


def test_a_result_after_its_own_call_in_one_message_takes_that_calls_name() -> None:
    body = minimal(
        user("go"),
        user(
            [
                {"type": "tool_use", "id": "c1", "name": "inner", "input": {}},
                {"type": "tool_result", "tool_use_id": "c1"},
            ]
        ),
    )
    assert parse(body).history[1].parts[1] == FunctionResponse("inner", "", "c1")
