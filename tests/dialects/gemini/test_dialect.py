"""The Gemini generateContent dialect as a whole: realistic bodies, round trips, any JSON
refused with a DialectError."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import orjson
from hypothesis import given, settings

from harness.dialects.gemini import DIALECT
from harness.model import (
    FrozenDict,
    Request,
)
from harness.strategies import requests

from ..mutations import mutated_bodies, reads_or_refuses
from .support import REALISTIC_REQUEST, error_of, realistic_body, roundtrip


def test_realistic_body_gives_the_exact_neutral_request() -> None:
    request = DIALECT.parse(realistic_body()).request
    own = dict(request.preset.settings.extra["gemini"])
    assert "declarations" in own  # kept: one declaration uses parametersJsonSchema
    del own["declarations"]
    settings = replace(request.preset.settings, extra=FrozenDict({"gemini": FrozenDict(own)}))
    assert replace(request, preset=replace(request.preset, settings=settings)) == REALISTIC_REQUEST


def test_realistic_body_segments_in_cache_order() -> None:
    body = realistic_body()
    segments = DIALECT.parse(body).segments
    assert [s.name for s in segments] == [
        "systemInstruction",
        "tools[0].functionDeclarations[0]",
        "tools[0].functionDeclarations[1]",
        "tools[1]",
        "toolConfig",
        "contents[0]",
        "contents[1]",
        "contents[2]",
        "contents[3]",
        "contents[4]",
    ]
    assert segments[0].value is body["systemInstruction"]
    assert segments[3].value == {"googleSearch": {}}
    assert segments[6].value is body["contents"][1]


def test_realistic_body_renders_stably() -> None:
    once = DIALECT.render(DIALECT.parse(realistic_body()).request)
    assert DIALECT.render(DIALECT.parse(orjson.loads(once)).request) == once


def test_realistic_body_renders_in_wire_form() -> None:
    body = orjson.loads(DIALECT.render(REALISTIC_REQUEST))
    assert list(body) == [
        "systemInstruction",
        "tools",
        "toolConfig",
        "contents",
        "generationConfig",
        "safetySettings",
        "cachedContent",
    ]
    assert body["systemInstruction"] == {
        "parts": [{"text": "You are a travel helper."}, {"text": "Be brief."}]
    }
    assert body["tools"][0]["functionDeclarations"][1] == {
        "name": "lookup",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
    }
    assert body["tools"][1] == {"googleSearch": {}}
    assert body["contents"][1]["parts"][1] == {
        "functionCall": {
            "id": "call_1",
            "name": "get_weather",
            "args": {"days": [1], "city": "Paris"},
        },
        "thoughtSignature": "Y2FsbA==",
    }
    assert body["contents"][2]["parts"][1] == {
        "functionResponse": {"name": "lookup", "response": {"error": "not found"}}
    }
    assert body["generationConfig"] == {
        "temperature": 0.4,
        "topP": 0.95,
        "topK": 40,
        "maxOutputTokens": 2048,
        "stopSequences": ["END"],
        "candidateCount": 1,
        "responseMimeType": "application/json",
        "responseSchema": {"type": "object", "properties": {"answer": {"type": "string"}}},
        "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 1024},
    }


def test_parse_does_not_touch_the_body() -> None:
    body = realistic_body()
    before = copy.deepcopy(body)
    DIALECT.parse(body).request  # noqa: B018
    assert body == before


@settings(max_examples=200, deadline=None)
@given(requests())
def test_render_parse_render_is_byte_identical(request: Request) -> None:
    first = DIALECT.render(request)
    parsed = DIALECT.parse(orjson.loads(first))
    assert DIALECT.render(parsed.request) == first
    assert roundtrip(parsed.request) == parsed.request
    preset = request.preset
    expected = ["systemInstruction"] if preset.system else []
    expected += [f"tools[0].functionDeclarations[{j}]" for j in range(len(preset.tools))]
    expected += ["toolConfig"] if preset.settings.tool_choice else []
    expected += [f"contents[{k}]" for k in range(len(request.history))]
    assert [s.name for s in parsed.segments] == expected


def test_a_body_that_is_not_an_object() -> None:
    error = error_of([{"role": "user"}])
    assert error.path is None
    assert "array" in error.reason
    assert "JSON object" in error.reason


@settings(max_examples=300, deadline=None)
@given(mutated_bodies("gemini"))
def test_a_value_of_another_type_anywhere_is_a_dialect_error(body: Any) -> None:
    """A role that is a list, a content that is a number, a tool that is a string, a
    setting of the wrong type...: each reading method returns or raises DialectError."""
    reads_or_refuses(DIALECT, body)
