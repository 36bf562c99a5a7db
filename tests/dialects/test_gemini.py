"""The gemini dialect: parsing real generateContent bodies, segments, settings, rendering."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
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
from harness.strategies import json_values, requests

from .mutations import mutated_bodies, reads_or_refuses

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


# --- 1. hand-written bodies -------------------------------------------------------------------


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


# --- mapping decisions --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "choice"),
    [
        ({"mode": "AUTO"}, ToolChoice("auto")),
        ({"mode": "VALIDATED"}, ToolChoice("auto")),
        ({"mode": "NONE"}, ToolChoice("none")),
        ({"mode": "ANY"}, ToolChoice("required")),
        ({"mode": "ANY", "allowedFunctionNames": ["a"]}, ToolChoice("tool", ("a",))),
        ({"mode": "ANY", "allowedFunctionNames": ["a", "b"]}, ToolChoice("required", ("a", "b"))),
    ],
)
def test_function_calling_modes(config: dict[str, Any], choice: ToolChoice) -> None:
    body = minimal(toolConfig={"functionCallingConfig": config})
    assert DIALECT.parse(body).request.preset.settings.tool_choice == choice


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


def test_json_schema_variants_and_thinking_level() -> None:
    body = minimal(
        generationConfig={
            "responseMimeType": "application/json",
            "responseJsonSchema": {"type": "string"},
            "thinkingConfig": {"thinkingLevel": "low"},
        }
    )
    parsed = DIALECT.parse(body).request.preset.settings
    assert parsed.output_schema == OutputSchema(FrozenDict({"type": "string"}))
    assert parsed.thinking == ThinkingConfig(effort="low")
    assert parsed.extra == FrozenDict()
    assert body_of(DIALECT.parse(body).request)["generationConfig"] == {
        "responseMimeType": "application/json",
        "responseSchema": {"type": "string"},
        "thinkingConfig": {"thinkingLevel": "low"},
    }


def test_a_missing_role_is_user() -> None:
    body = {"contents": [{"parts": [{"text": "hi"}]}, {"role": "", "parts": []}]}
    assert [m.role for m in DIALECT.parse(body).request.history] == ["user", "user"]


# --- 2. property round-trips --------------------------------------------------------------


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


# --- 3. key order -------------------------------------------------------------------------


def test_tool_schema_key_order_is_kept_in_segments_and_render() -> None:
    schema = {
        "type": "object",
        "required": ["z"],
        "properties": {"z": {"type": "string"}, "a": {"type": "integer"}},
    }
    body = minimal(tools=[{"functionDeclarations": [{"parameters": schema, "name": "f"}]}])
    parsed = DIALECT.parse(body)
    (segment,) = (s for s in parsed.segments if s.name.startswith("tools"))
    assert list(segment.value) == ["parameters", "name"]
    assert list(segment.value["parameters"]) == ["type", "required", "properties"]
    assert list(segment.value["parameters"]["properties"]) == ["z", "a"]
    rendered = DIALECT.render(parsed.request)
    assert (
        b'"parameters":{"type":"object","required":["z"],"properties":{"z":{"type":"string"},"a":'
        in rendered
    )


def test_call_argument_key_order_is_kept() -> None:
    call = {"functionCall": {"name": "f", "args": {"zeta": 1, "alpha": {"y": 2, "b": 3}}}}
    body = {"contents": [{"role": "model", "parts": [call]}]}
    assert b'"args":{"zeta":1,"alpha":{"y":2,"b":3}}' in DIALECT.render(DIALECT.parse(body).request)


# --- 4. cache order, settings, extra ------------------------------------------------------


def test_segment_order_follows_cache_order_not_body_order() -> None:
    body = {
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "generationConfig": {"temperature": 1},
        "tools": [{"functionDeclarations": [{"name": "a"}, {"name": "b"}]}],
        "systemInstruction": {"role": "system", "parts": [{"text": "s"}]},
    }
    assert [s.name for s in DIALECT.parse(body).segments] == [
        "systemInstruction",
        "tools[0].functionDeclarations[0]",
        "tools[0].functionDeclarations[1]",
        "toolConfig",
        "contents[0]",
    ]


def test_a_mixed_tool_entry_is_one_segment() -> None:
    body = minimal(tools=[{"functionDeclarations": [{"name": "a"}], "codeExecution": {}}])
    parsed = DIALECT.parse(body)
    assert [s.name for s in parsed.segments] == ["tools[0]", "contents[0]"]
    assert parsed.request.preset.tools == (Tool("a"),)
    assert body_of(parsed.request)["tools"] == [
        {"functionDeclarations": [{"name": "a"}]},
        {"codeExecution": {}},
    ]


def test_settings_lists_generation_config_fields_and_cached_content() -> None:
    parsed = DIALECT.parse(realistic_body())
    assert parsed.settings == {
        "generationConfig.temperature": 0.4,
        "generationConfig.topP": 0.95,
        "generationConfig.topK": 40,
        "generationConfig.maxOutputTokens": 2048,
        "generationConfig.stopSequences": ["END"],
        "generationConfig.candidateCount": 1,
        "generationConfig.responseMimeType": "application/json",
        "generationConfig.responseSchema": {
            "type": "object",
            "properties": {"answer": {"type": "string"}},
        },
        "generationConfig.thinkingConfig": {"thinkingBudget": 1024, "includeThoughts": True},
        "cachedContent": "cachedContents/abc123",
    }
    assert DIALECT.parse(minimal(toolConfig={})).settings == {}


def test_unknown_fields_round_trip_through_extra() -> None:
    body = minimal(
        labels={"team": "x"},
        toolConfig={"retrievalConfig": {"languageCode": "en"}},
        generationConfig={"seed": 7, "responseMimeType": "text/plain", "temperature": 0},
    )
    request = DIALECT.parse(body).request
    assert request.preset.settings.extra == frozen(
        {
            "gemini": {
                "labels": {"team": "x"},
                "toolConfig": {"retrievalConfig": {"languageCode": "en"}},
                "generationConfig": {"seed": 7, "responseMimeType": "text/plain"},
            }
        }
    )
    rendered = body_of(request)
    assert rendered["labels"] == {"team": "x"}
    assert rendered["toolConfig"] == {"retrievalConfig": {"languageCode": "en"}}
    assert rendered["generationConfig"] == {
        "temperature": 0,
        "seed": 7,
        "responseMimeType": "text/plain",
    }
    assert DIALECT.parse(minimal()).request.preset.settings.extra == FrozenDict()


def test_other_dialects_extra_is_not_rendered() -> None:
    request = Request(Preset(settings=Settings(extra=frozen({"openai": {"user": "u"}}))))
    assert DIALECT.render(request) == b'{"contents":[]}'


# --- 5. errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "path", "reason"),
    [
        ({"messages": []}, "contents", "contents is required"),
        ({"contents": {}}, "contents", "contents must be an array, not an object"),
        ({"contents": ["hi"]}, "contents[0]", "a content is an object, not a string"),
        (
            {"contents": [{"role": "assistant", "parts": []}]},
            "contents[0].role",
            "unknown role 'assistant'",
        ),
        (
            {"contents": [{"role": "user", "parts": "hi"}]},
            "contents[0].parts",
            "parts must be an array, not a string",
        ),
        ({"contents": [{"role": "user"}]}, "contents[0].parts", "parts is required"),
        (
            minimal(systemInstruction="be nice"),
            "systemInstruction",
            "systemInstruction must be an object",
        ),
        (minimal(tools={"functionDeclarations": []}), "tools", "tools must be an array"),
        (
            minimal(tools=[{"functionDeclarations": ["f"]}]),
            "tools[0].functionDeclarations[0]",
            "a function declaration is an object",
        ),
        (minimal(generationConfig=[]), "generationConfig", "generationConfig must be an object"),
    ],
)
def test_envelope_errors_are_raised_by_segments(body: Any, path: str, reason: str) -> None:
    with pytest.raises(DialectError) as info:
        DIALECT.segments(body)
    assert info.value.path == path
    assert info.value.reason.startswith(reason)


def test_a_body_that_is_not_an_object() -> None:
    error = error_of([{"role": "user"}])
    assert error.path is None
    assert "array" in error.reason
    assert "JSON object" in error.reason


def parts_body(*parts: Any) -> dict[str, Any]:
    return {"contents": [{"role": "model", "parts": list(parts)}]}


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


# --- 6. detect ----------------------------------------------------------------------------


def test_detect_scores_gemini_features() -> None:
    assert DIALECT.detect({"contents": []}) == 1
    assert DIALECT.detect(minimal(generationConfig={})) == 2
    # contents, systemInstruction, toolConfig, generationConfig, 2 calls, 2 responses, role model
    assert DIALECT.detect(realistic_body()) == 1 + 3 + 2 + 2 + 1


@pytest.mark.parametrize(
    "body",
    [
        {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "tools": []},
        {"model": "claude", "system": "s", "messages": [{"role": "assistant", "content": []}]},
        {"contents": "not a list", "generationConfig": {}},
    ],
)
def test_detect_is_zero_for_other_shapes(body: dict[str, Any]) -> None:
    assert DIALECT.detect(body) == 0


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


@settings(max_examples=200, deadline=None)
@given(_junk_bodies)
def test_detect_never_raises(body: Any) -> None:
    assert DIALECT.detect(body) >= 0


@settings(max_examples=300, deadline=None)
@given(mutated_bodies("gemini"))
def test_a_value_of_another_type_anywhere_is_a_dialect_error(body: Any) -> None:
    """A role that is a list, a content that is a number, a tool that is a string, a
    setting of the wrong type...: each reading method returns or raises DialectError."""
    reads_or_refuses(DIALECT, body)
