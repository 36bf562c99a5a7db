"""Gemini generateContent content parts both ways (_parts)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects.gemini import DIALECT
from harness.model import (
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    Preset,
    Request,
    Settings,
    Text,
    Thinking,
    ThinkingConfig,
)

from .support import body_of, error_of, minimal, parts_body, roundtrip


@pytest.mark.parametrize(
    ("response", "value", "is_error"),
    [
        ({"output": "42"}, "42", False),
        ({"output": {"a": 1}}, FrozenDict({"output": FrozenDict({"a": 1})}), False),
        ({"error": {"code": 5}}, FrozenDict({"code": 5}), True),
        ({"output": 1, "error": 2}, FrozenDict({"output": 1, "error": 2}), False),
    ],
)
def test_function_response_conventions(
    response: dict[str, Any], value: Any, is_error: bool
) -> None:
    part = {"functionResponse": {"name": "f", "response": response}}
    body = {"contents": [{"role": "user", "parts": [part]}]}
    (parsed,) = DIALECT.parse(body).request.history[0].parts
    assert parsed == FunctionResponse("f", value, is_error=is_error)
    assert body_of(DIALECT.parse(body).request)["contents"][0]["parts"][0] == part


def test_parts_gemini_cannot_express_take_their_nearest_form() -> None:
    request = Request(
        Preset(settings=Settings(model="gemini-2.5-pro", thinking=ThinkingConfig(mode="disabled"))),
        (
            Message("system", (Text("be terse"),)),
            Message("model", (Thinking("opaque", redacted=True), FunctionCall("f", None))),
            Message(
                "user", (FunctionResponse("f", [1, 2]), Image(url="https://x/y.png", detail="high"))
            ),
        ),
    )
    body = body_of(request)
    assert "model" not in body
    assert body["generationConfig"] == {"thinkingConfig": {"thinkingBudget": 0}}
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "be terse"}]},
        {
            "role": "model",
            "parts": [{"text": "opaque", "thought": True}, {"functionCall": {"name": "f"}}],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "f", "response": {"output": [1, 2]}}},
                {
                    "fileData": {"fileUri": "https://x/y.png"},
                    "mediaResolution": {"level": "MEDIA_RESOLUTION_HIGH"},
                },
            ],
        },
    ]
    assert roundtrip(request).history[2].parts == (
        FunctionResponse("f", (1, 2)),
        Image(url="https://x/y.png", detail="high"),
    )


def test_call_argument_key_order_is_kept() -> None:
    call = {"functionCall": {"name": "f", "args": {"zeta": 1, "alpha": {"y": 2, "b": 3}}}}
    body = {"contents": [{"role": "model", "parts": [call]}]}
    assert b'"args":{"zeta":1,"alpha":{"y":2,"b":3}}' in DIALECT.render(DIALECT.parse(body).request)


@pytest.mark.parametrize(
    ("body", "path", "reason"),
    [
        (parts_body("hi"), "contents[0].parts[0]", "a part is an object, not a string"),
        (
            parts_body({"text": 3}),
            "contents[0].parts[0].text",
            "text must be a string, not a number",
        ),
        (
            parts_body({"functionCall": {"args": {}}}),
            "contents[0].parts[0].functionCall.name",
            "name is required",
        ),
        (
            parts_body({"functionCall": "f"}),
            "contents[0].parts[0].functionCall",
            "functionCall must be an object",
        ),
        (
            parts_body({"functionResponse": {"name": "f"}}),
            "contents[0].parts[0].functionResponse.response",
            "response is required",
        ),
        (
            parts_body({"inlineData": {"mimeType": "image/png"}}),
            "contents[0].parts[0].inlineData.data",
            "data is required",
        ),
        (
            parts_body({"text": "t", "thought": "yes"}),
            "contents[0].parts[0].thought",
            "thought must be a boolean",
        ),
        (
            minimal(systemInstruction={"parts": [{"inlineData": {"data": "x"}}]}),
            "systemInstruction.parts[0]",
            "a systemInstruction part must be plain text",
        ),
        (
            minimal(generationConfig={"temperature": "hot"}),
            "generationConfig.temperature",
            "temperature must be a number",
        ),
        (
            minimal(generationConfig={"topK": True}),
            "generationConfig.topK",
            "topK must be an integer, not a boolean",
        ),
        (
            minimal(toolConfig={"functionCallingConfig": {"mode": "SOMETIMES"}}),
            "toolConfig.functionCallingConfig.mode",
            "unknown function calling mode",
        ),
        (
            minimal(tools=[{"functionDeclarations": [{"description": "no name"}]}]),
            "tools[0].functionDeclarations[0].name",
            "name is required",
        ),
    ],
)
def test_malformed_parts_name_their_path(body: Any, path: str, reason: str) -> None:
    DIALECT.segments(body)  # the envelope itself is fine
    error = error_of(body)
    assert error.path == path
    assert error.reason.startswith(reason)
