"""Bodies and helpers the Gemini generateContent dialect's tests share."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import strategies as st

from harness.dialects import DialectError
from harness.dialects.gemini import DIALECT
from harness.model import (
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    OutputSchema,
    Preset,
    Request,
    Settings,
    Text,
    Thinking,
    ThinkingConfig,
    Tool,
    ToolChoice,
    freeze,
    thaw,
)
from harness.strategies import json_values

WEATHER_SCHEMA = {
    "type": "object",
    "required": ["city"],
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "days": {"type": "array", "items": {"type": "integer"}},
        "options": {"type": "object", "properties": {"units": {"type": "string"}}},
    },
}


def frozen(obj: dict[str, Any]) -> FrozenDict:
    value = freeze(obj)
    assert isinstance(value, FrozenDict)
    return value


def realistic_body() -> dict[str, Any]:
    """A generateContent body as a real client sends it, with every part kind."""
    return {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "What is in this picture, and the weather in Paris?"},
                    {"inlineData": {"mimeType": "image/jpeg", "data": "/9j/4AAQSkZJRg=="}},
                    {"fileData": {"mimeType": "image/png", "fileUri": "gs://bucket/map.png"}},
                ],
            },
            {
                "role": "model",
                "parts": [
                    {
                        "text": "The user wants two things.",
                        "thought": True,
                        "thoughtSignature": "c2ln",
                    },
                    {
                        "functionCall": {
                            "id": "call_1",
                            "name": "get_weather",
                            "args": {"days": [1], "city": "Paris"},
                        },
                        "thoughtSignature": "Y2FsbA==",
                    },
                    {"functionCall": {"name": "lookup", "args": {"q": "map"}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "call_1",
                            "name": "get_weather",
                            "response": {"temp": 21, "sky": "clear"},
                        }
                    },
                    {"functionResponse": {"name": "lookup", "response": {"error": "not found"}}},
                ],
            },
            {"role": "model", "parts": [{"text": "It is a map; Paris is 21°C and clear."}]},
            {"role": "user", "parts": [{"text": "Thanks!"}]},
        ],
        "systemInstruction": {
            "parts": [{"text": "You are a travel helper."}, {"text": "Be brief."}]
        },
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "get_weather",
                        "description": "Weather forecast",
                        "parameters": WEATHER_SCHEMA,
                    },
                    {
                        "name": "lookup",
                        "parametersJsonSchema": {
                            "type": "object",
                            "properties": {"q": {"type": "string"}},
                        },
                    },
                ]
            },
            {"googleSearch": {}},
        ],
        "toolConfig": {
            "functionCallingConfig": {
                "mode": "ANY",
                "allowedFunctionNames": ["get_weather", "lookup"],
            }
        },
        "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
        "generationConfig": {
            "temperature": 0.4,
            "topP": 0.95,
            "topK": 40,
            "maxOutputTokens": 2048,
            "stopSequences": ["END"],
            "candidateCount": 1,
            "responseMimeType": "application/json",
            "responseSchema": {"type": "object", "properties": {"answer": {"type": "string"}}},
            "thinkingConfig": {"thinkingBudget": 1024, "includeThoughts": True},
        },
        "cachedContent": "cachedContents/abc123",
    }


REALISTIC_REQUEST = Request(
    preset=Preset(
        system=("You are a travel helper.", "Be brief."),
        tools=(
            Tool("get_weather", "Weather forecast", freeze(WEATHER_SCHEMA)),
            Tool(
                "lookup", None, freeze({"type": "object", "properties": {"q": {"type": "string"}}})
            ),
        ),
        settings=Settings(
            temperature=0.4,
            top_p=0.95,
            top_k=40,
            max_output_tokens=2048,
            stop=("END",),
            thinking=ThinkingConfig(budget_tokens=1024, include_thoughts=True),
            tool_choice=ToolChoice("required", ("get_weather", "lookup")),
            output_schema=OutputSchema(
                freeze({"type": "object", "properties": {"answer": {"type": "string"}}})
            ),
            extra=frozen(
                {
                    "gemini": {
                        "safetySettings": [
                            {"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}
                        ],
                        "cachedContent": "cachedContents/abc123",
                        "tools": [{"googleSearch": {}}],
                        "generationConfig": {"candidateCount": 1},
                    }
                }
            ),
        ),
    ),
    history=(
        Message(
            "user",
            (
                Text("What is in this picture, and the weather in Paris?"),
                Image(mime_type="image/jpeg", data="/9j/4AAQSkZJRg=="),
                Image(mime_type="image/png", url="gs://bucket/map.png"),
            ),
        ),
        Message(
            "model",
            (
                Thinking("The user wants two things.", signature="c2ln"),
                FunctionCall(
                    "get_weather",
                    freeze({"days": [1], "city": "Paris"}),
                    id="call_1",
                    signature="Y2FsbA==",
                ),
                FunctionCall("lookup", freeze({"q": "map"})),
            ),
        ),
        Message(
            "user",
            (
                FunctionResponse("get_weather", freeze({"temp": 21, "sky": "clear"}), id="call_1"),
                FunctionResponse("lookup", "not found", is_error=True),
            ),
        ),
        Message("model", (Text("It is a map; Paris is 21°C and clear."),)),
        Message("user", (Text("Thanks!"),)),
    ),
)


def roundtrip(request: Request) -> Request:
    return DIALECT.parse(orjson.loads(DIALECT.render(request))).request


def body_of(request: Request) -> dict[str, Any]:
    result: dict[str, Any] = orjson.loads(DIALECT.render(request))
    return result


def error_of(body: Any) -> DialectError:
    with pytest.raises(DialectError) as info:
        DIALECT.parse(body).request  # noqa: B018 - the request is built lazily
    return info.value


def minimal(**fields: Any) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], **fields}


def parts_body(*parts: Any) -> dict[str, Any]:
    return {"contents": [{"role": "model", "parts": list(parts)}]}


_junk = json_values().map(thaw)


_junk_parts = st.lists(
    st.one_of(_junk, st.dictionaries(st.sampled_from(["functionCall", "text"]), _junk)),
    max_size=3,
)


_junk_content = st.fixed_dictionaries({"role": _junk, "parts": st.one_of(_junk, _junk_parts)})


_junk_bodies = st.one_of(
    _junk,
    st.fixed_dictionaries(
        {"contents": st.one_of(_junk, st.lists(st.one_of(_junk, _junk_content), max_size=4))}
    ),
)
