"""The OpenAI chat completions dialect: parsing, segments, settings, rendering, detection."""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.dialects import DialectError
from harness.dialects.openai import DIALECT
from harness.dialects.openai._tools import TOOL_EXTRAS as _TOOL_EXTRAS
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
)
from harness.strategies import requests

from .mutations import mutated_bodies, reads_or_refuses

WEATHER_SCHEMA = {
    "type": "object",
    "required": ["city"],
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "units": {"enum": ["c", "f"], "type": "string"},
    },
    "additionalProperties": False,
}
SEARCH_SCHEMA = {
    "type": "object",
    "properties": {"q": {"type": "array", "items": {"type": "string"}}},
}
ANSWER_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}}


def realistic_body() -> dict[str, Any]:
    """A body as an agent would POST it, with every part kind the dialect has."""
    return {
        "model": "gpt-4.1",
        "messages": [
            {"role": "developer", "content": "You are a coding agent."},
            {
                "role": "system",
                "content": [
                    {"type": "text", "text": "Rules: "},
                    {"type": "text", "text": "be terse."},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What's in these?"},
                    {
                        "type": "image_url",
                        "image_url": {
                            "url": "data:image/png;base64,iVBORw0KGgo=",
                            "detail": "high",
                        },
                    },
                    {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "reasoning_content": "Need the weather.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {
                            "name": "get_weather",
                            "arguments": '{"city":"Paris","units":"c"}',
                        },
                    },
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "search", "arguments": "not json"},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": '{"temp":21}'},
            {
                "role": "tool",
                "tool_call_id": "call_2",
                "content": [{"type": "text", "text": "no "}, {"type": "text", "text": "results"}],
            },
            {"role": "user", "content": "Thanks. Summarize."},
            {"role": "assistant", "content": "Paris is 21°C."},
            {"role": "system", "content": "Reminder: stay on task."},
            {"role": "tool", "tool_call_id": "call_unknown", "content": "orphan"},
            {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Weather for a city",
                    "parameters": WEATHER_SCHEMA,
                    "strict": True,
                },
            },
            {"type": "function", "function": {"name": "search", "parameters": SEARCH_SCHEMA}},
        ],
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": ANSWER_SCHEMA, "strict": True},
        },
        "temperature": 0.2,
        "top_p": 0.9,
        "max_completion_tokens": 1024,
        "stop": ["END"],
        "reasoning_effort": "high",
        "seed": 7,
        "stream": True,
        "stream_options": {"include_usage": True},
        "parallel_tool_calls": False,
    }


def parse(body: Any) -> Request:
    return DIALECT.parse(body).request


def message_body(*messages: Any, **fields: Any) -> dict[str, Any]:
    return {"model": "m", "messages": list(messages), **fields}


def frozen(value: dict[str, Any]) -> FrozenDict:
    result = freeze(value)
    assert isinstance(result, FrozenDict)
    return result


def render_dict(request: Request) -> dict[str, Any]:
    result: dict[str, Any] = orjson.loads(DIALECT.render(request))
    return result


# 1. hand-written bodies -> exact neutral request and segment names -------------------


def test_realistic_body_to_exact_request() -> None:
    expected_settings = Settings(
        model="gpt-4.1",
        temperature=0.2,
        top_p=0.9,
        max_output_tokens=1024,
        stop=("END",),
        thinking=ThinkingConfig(effort="high"),
        tool_choice=ToolChoice("tool", ("get_weather",)),
        output_schema=OutputSchema(freeze(ANSWER_SCHEMA), name="answer", strict=True),
        extra=frozen(
            {
                "openai": {
                    "seed": 7,
                    "stream": True,
                    "stream_options": {"include_usage": True},
                    "parallel_tool_calls": False,
                    "tools": {"get_weather": {"strict": True}},
                    "system_messages": realistic_body()["messages"][:2],
                }
            }
        ),
    )
    expected = Request(
        preset=Preset(
            system=("You are a coding agent.", "Rules: ", "be terse."),
            tools=(
                Tool("get_weather", "Weather for a city", freeze(WEATHER_SCHEMA)),
                Tool("search", None, freeze(SEARCH_SCHEMA)),
            ),
            settings=expected_settings,
        ),
        history=(
            Message(
                "user",
                (
                    Text("What's in these?"),
                    Image(mime_type="image/png", data="iVBORw0KGgo=", detail="high"),
                    Image(url="https://example.com/cat.jpg"),
                ),
            ),
            Message(
                "model",
                (
                    Thinking("Need the weather."),
                    FunctionCall(
                        "get_weather", freeze({"city": "Paris", "units": "c"}), id="call_1"
                    ),
                    FunctionCall("search", "not json", id="call_2"),
                ),
            ),
            Message(
                "user",
                (
                    FunctionResponse("get_weather", '{"temp":21}', id="call_1"),
                    FunctionResponse("search", "no results", id="call_2"),
                    Text("Thanks. Summarize."),
                ),
            ),
            Message("model", (Text("Paris is 21°C."),)),
            Message("system", (Text("Reminder: stay on task."),)),
            Message("user", (FunctionResponse("", "orphan", id="call_unknown"),)),
            Message("model", (Text("Done."),)),
        ),
    )
    assert parse(realistic_body()) == expected


def test_realistic_body_segments_in_cache_order() -> None:
    body = realistic_body()
    segments = DIALECT.segments(body)
    assert [s.name for s in segments] == [
        "tools[0]",
        "tools[1]",
        "response_format",
        *(f"messages[{k}]" for k in range(11)),
    ]
    # values are the body's own objects, not copies
    assert segments[0].value is body["tools"][0]
    assert segments[2].value is body["response_format"]
    assert all(s.value is m for s, m in zip(segments[3:], body["messages"], strict=True))


def test_segments_without_tools_or_format_are_just_messages() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "response_format": None}
    assert [s.name for s in DIALECT.segments(body)] == ["messages[0]"]


def test_realistic_body_renders_its_nearest_form() -> None:
    """Every message renders back as sent (developer role, content arrays, key order kept)."""
    body = realistic_body()
    rendered = render_dict(parse(body))
    assert orjson.dumps(rendered["messages"]) == orjson.dumps(body["messages"])
    assert orjson.dumps(rendered) == orjson.dumps(body)


def test_realistic_body_render_is_stable() -> None:
    once = DIALECT.render(parse(realistic_body()))
    assert DIALECT.render(parse(orjson.loads(once))) == once


def test_render_maps_what_openai_cannot_express() -> None:
    request = Request(
        preset=Preset(settings=Settings(top_k=40, thinking=ThinkingConfig(budget_tokens=2048))),
        history=(
            Message("user", (Image(mime_type="image/jpeg", data="AAAA"), Text("look"))),
            Message(
                "model",
                (
                    Thinking("opaque", redacted=True),
                    Thinking("plan", signature="sig"),
                    FunctionCall("f", freeze({"z": 1, "a": [2]})),
                ),
            ),
            Message("user", (FunctionResponse("f", freeze({"ok": True}), is_error=True),)),
        ),
    )
    assert DIALECT.render(request) == orjson.dumps(
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}},
                        {"type": "text", "text": "look"},
                    ],
                },
                {
                    "role": "assistant",
                    "content": None,
                    "reasoning_content": "plan",
                    "tool_calls": [
                        {
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"z":1,"a":[2]}'},
                        }
                    ],
                },
                {"role": "tool", "content": '{"ok":true}'},
            ]
        }
    )


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


# 2. property round-trips --------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(requests())
def test_render_parse_render_is_byte_identical(request: Request) -> None:
    first = DIALECT.render(request)
    parsed = DIALECT.parse(orjson.loads(first))
    again = DIALECT.render(parsed.request)
    assert again == first
    assert DIALECT.parse(orjson.loads(again)).request == parsed.request
    assert len(parsed.segments) == len(request.preset.tools) + len(orjson.loads(first)["messages"])


@settings(max_examples=100, deadline=None)
@given(requests(), st.lists(st.text(max_size=10), max_size=2))
def test_in_history_system_messages_round_trip(request: Request, notes: list[str]) -> None:
    """Leading neutral system messages fold into the system blocks; later ones stay."""
    extra = tuple(Message("system", (Text(n),)) for n in notes)
    shifted = Request(request.preset, (*extra, *request.history, *extra))
    first = DIALECT.render(shifted)
    parsed = parse(orjson.loads(first))
    assert parsed.preset.system == (*request.preset.system, *notes)
    assert DIALECT.render(parsed) == first


# 3. key order ---------------------------------------------------------------------------


def test_key_order_is_kept_in_segments_and_render() -> None:
    body = realistic_body()
    params = DIALECT.segments(body)[0].value["function"]["parameters"]
    assert list(params) == ["type", "required", "properties", "additionalProperties"]
    assert list(params["properties"]["units"]) == ["enum", "type"]
    tool = parse(body).preset.tools[0]
    assert isinstance(tool.parameters, FrozenDict)
    assert list(tool.parameters) == ["type", "required", "properties", "additionalProperties"]
    rendered = DIALECT.render(parse(body))
    assert b'"parameters":{"type":"object","required":["city"],"properties":{"city"' in rendered
    assert b'"units":{"enum":["c","f"],"type":"string"}' in rendered
    assert b'"arguments":"{\\"city\\":\\"Paris\\",\\"units\\":\\"c\\"}"' in rendered


def test_reordered_schema_is_a_different_tool() -> None:
    body, swapped = realistic_body(), realistic_body()
    params = swapped["tools"][0]["function"]["parameters"]
    swapped["tools"][0]["function"]["parameters"] = dict(reversed(params.items()))
    assert parse(body).preset.tools != parse(swapped).preset.tools
    assert DIALECT.render(parse(body)) != DIALECT.render(parse(swapped))


# 4. settings and extras -------------------------------------------------------------------


def test_settings_lists_only_present_cache_relevant_fields() -> None:
    assert DIALECT.settings(realistic_body()) == {
        "model": "gpt-4.1",
        "temperature": 0.2,
        "top_p": 0.9,
        "max_completion_tokens": 1024,
        "stop": ["END"],
        "reasoning_effort": "high",
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "parallel_tool_calls": False,
        "seed": 7,
    }
    body = {"messages": [], "max_tokens": 5, "n": 2, "presence_penalty": 0.1, "stream": True}
    assert DIALECT.settings(body) == {"max_tokens": 5, "n": 2, "presence_penalty": 0.1}


def test_unknown_fields_round_trip_through_extra() -> None:
    body = {
        "messages": [{"role": "user", "content": "hi"}],
        "user": "u-1",
        "response_format": {"type": "json_object"},
        "max_completion_tokens": 10,
        "max_tokens": 20,
        "logit_bias": {"50256": -100},
        "n": 1,
    }
    request = parse(body)
    assert request.preset.settings.output_schema is None
    assert request.preset.settings.max_output_tokens == 10
    assert request.preset.settings.extra == freeze(
        {
            "openai": {
                "user": "u-1",
                "response_format": {"type": "json_object"},
                "max_tokens": 20,
                "logit_bias": {"50256": -100},
                "n": 1,
            }
        }
    )
    assert render_dict(request) == {
        "messages": [{"role": "user", "content": "hi"}],
        "max_completion_tokens": 10,
        "user": "u-1",
        "response_format": {"type": "json_object"},
        "max_tokens": 20,
        "logit_bias": {"50256": -100},
        "n": 1,
    }
    assert parse(render_dict(request)) == request


def test_extra_never_overrides_or_leaks_fields_render_owns() -> None:
    extra = frozen(
        {"openai": {"model": "x", "temperature": 1, "tools": {"f": {"strict": True}}, "seed": 1}}
    )
    request = Request(Preset(settings=Settings(model="m", extra=extra)))
    assert render_dict(request) == {"model": "m", "messages": [], "seed": 1}


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


def test_no_unknown_fields_means_empty_extra() -> None:
    request = parse({"model": "m", "messages": [], "temperature": None})
    assert request.preset.settings == Settings(model="m")
    assert request.preset.settings.extra == FrozenDict()


def test_max_tokens_alone_renders_as_max_completion_tokens() -> None:
    request = parse({"messages": [], "max_tokens": 64, "stop": "\n\n"})
    assert request.preset.settings.max_output_tokens == 64
    assert request.preset.settings.stop == ("\n\n",)
    assert render_dict(request) == {"messages": [], "max_completion_tokens": 64, "stop": ["\n\n"]}


@pytest.mark.parametrize(
    ("wire", "choice"),
    [
        ("auto", ToolChoice("auto")),
        ("none", ToolChoice("none")),
        ("required", ToolChoice("required")),
        ({"type": "function", "function": {"name": "f"}}, ToolChoice("tool", ("f",))),
        (
            {
                "type": "allowed_tools",
                "allowed_tools": {
                    "mode": "required",
                    "tools": [
                        {"type": "function", "function": {"name": "a"}},
                        {"type": "function", "function": {"name": "b"}},
                    ],
                },
            },
            ToolChoice("required", ("a", "b")),
        ),
    ],
)
def test_tool_choice_both_ways(wire: Any, choice: ToolChoice) -> None:
    request = parse({"messages": [], "tool_choice": wire})
    assert request.preset.settings.tool_choice == choice
    assert render_dict(request)["tool_choice"] == wire


def test_output_schema_without_name_renders_a_default_name() -> None:
    request = Request(
        Preset(settings=Settings(output_schema=OutputSchema(freeze({"type": "object"}))))
    )
    assert render_dict(request)["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "output", "schema": {"type": "object"}},
    }


# 5. errors ----------------------------------------------------------------------------------


def test_body_that_is_not_an_object() -> None:
    with pytest.raises(DialectError) as caught:
        DIALECT.parse(["messages"])
    assert "an array" in caught.value.reason
    assert "JSON object" in caught.value.reason
    assert caught.value.path is None


ENVELOPE_ERRORS = [
    ({"model": "m"}, "messages", '"messages" is required and must be an array of messages'),
    ({"messages": "hi"}, "messages", '"messages" must be an array of messages, not a string'),
    (message_body(model=4), "model", '"model" must be a string, not a number'),
    (message_body(tools={}), "tools", '"tools" must be an array of tools, not an object'),
    (message_body(tools=["f"]), "tools[0]", "expected a JSON object, not a string"),
    (
        message_body(response_format="json"),
        "response_format",
        '"response_format" must be an object, not a string',
    ),
    (message_body(1), "messages[0]", "a message must be a JSON object, not a number"),
    (
        message_body({"role": "bot", "content": "x"}),
        "messages[0].role",
        'role is "bot"; expected one of system, developer, user, assistant, tool',
    ),
    (message_body({"content": "x"}), "messages[0].role", "role is missing; expected one of"),
    (message_body({"role": ["user"], "content": "x"}), "messages[0].role", 'role is ["user"]'),
    (message_body({"role": "user", "content": None}), "messages[0].content", "user content"),
    (
        message_body({"role": "user", "content": "a"}, {"role": "user", "content": 5}),
        "messages[1].content",
        "user content must be a string or an array of parts; it is a number",
    ),
    (
        message_body({"role": "tool", "tool_call_id": "x"}),
        "messages[0].content",
        "tool content must be a string or an array of parts; it is missing",
    ),
]


@pytest.mark.parametrize(("body", "path", "reason"), ENVELOPE_ERRORS)
def test_envelope_errors_raise_from_segments_and_parse(body: Any, path: str, reason: str) -> None:
    for call in (DIALECT.segments, DIALECT.parse, DIALECT.to_request):
        with pytest.raises(DialectError) as caught:
            call(body)
        assert caught.value.path == path
        assert caught.value.reason.startswith(reason)


def call_message(function: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "tool_calls": [{"id": "c", "type": "function", "function": function}],
    }


PART_ERRORS = [
    (
        message_body({"role": "user", "content": [{"type": 7}]}),
        "messages[0].content[0]",
        "a content part's type must be a string, not 7",
    ),
    (
        message_body(
            {"role": "user", "content": [{"type": "image_url", "image_url": {"detail": "low"}}]}
        ),
        "messages[0].content[0].image_url.url",
        '"url" is required and must be a string',
    ),
    (
        message_body({"role": "system", "content": [{"type": "text", "text": 3}]}),
        "messages[0].content[0].text",
        '"text" must be a string, not a number',
    ),
    (
        message_body({"role": "assistant", "content": ["hi"]}),
        "messages[0].content[0]",
        "expected a JSON object, not a string",
    ),
    (
        message_body(call_message({"name": "f", "arguments": {"a": 1}})),
        "messages[0].tool_calls[0].function.arguments",
        '"arguments" must be a JSON string, not an object',
    ),
    (
        message_body(call_message({"arguments": "{}"})),
        "messages[0].tool_calls[0].function.name",
        '"name" is required and must be a string',
    ),
    (
        message_body({"role": "assistant", "tool_calls": {"id": "c"}}),
        "messages[0].tool_calls",
        '"tool_calls" must be an array, not an object',
    ),
    (
        message_body({"role": "tool", "tool_call_id": 7, "content": "x"}),
        "messages[0].tool_call_id",
        '"tool_call_id" must be a string, not a number',
    ),
    (
        message_body(tools=[{"type": "function", "function": {"description": "d"}}]),
        "tools[0].function.name",
        '"name" is required',
    ),
    (
        message_body(tool_choice="always"),
        "tool_choice",
        'tool_choice must be "auto", "none", "required"',
    ),
    (
        message_body(temperature="hot"),
        "temperature",
        '"temperature" must be a number, not a string',
    ),
    (message_body(max_tokens=True), "max_tokens", '"max_tokens" must be an integer, not a boolean'),
    (message_body(stop=["a", 1]), "stop[1]", "a stop sequence must be a string, not a number"),
    (
        message_body(
            response_format={"type": "json_schema", "json_schema": {"name": "x", "strict": "yes"}}
        ),
        "response_format.json_schema.strict",
        '"strict" must be a boolean, not a string',
    ),
]


@pytest.mark.parametrize(("body", "path", "reason"), PART_ERRORS)
def test_malformed_parts_raise_from_to_request(body: Any, path: str, reason: str) -> None:
    DIALECT.segments(body)  # the envelope itself is fine: segments stays cheap
    with pytest.raises(DialectError) as caught:
        DIALECT.to_request(body)
    assert caught.value.path == path
    assert caught.value.reason.startswith(reason)


# 6. detect --------------------------------------------------------------------------------


def test_detect_counts_openai_features() -> None:
    # roles system/developer/tool, tool_calls, tool_call_id, function tools, image_url,
    # response_format, max_completion_tokens, reasoning_effort, stream_options
    assert DIALECT.detect(realistic_body()) == 11
    assert DIALECT.detect({"model": "m", "messages": [{"role": "developer", "content": "x"}]}) == 1


@pytest.mark.parametrize(
    "body",
    [
        {
            "systemInstruction": {"parts": [{"text": "be brief"}]},
            "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "tools": [{"functionDeclarations": [{"name": "f"}]}],
        },
        {
            "model": "claude",
            "system": [{"type": "text", "text": "be brief"}],
            "max_tokens": 1024,
            "tools": [{"name": "f", "input_schema": {"type": "object"}}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}],
                },
            ],
        },
    ],
    ids=["gemini", "anthropic"],
)
def test_detect_is_zero_on_other_dialects(body: dict[str, Any]) -> None:
    assert DIALECT.detect(body) == 0


JUNK_KEYS = st.sampled_from(
    ["messages", "role", "content", "tools", "type", "function", "tool_calls", "tool_call_id"]
)
JUNK = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=12)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(JUNK_KEYS, st.text(max_size=5)), inner, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(JUNK)
def test_detect_never_raises(value: Any) -> None:
    score = DIALECT.detect(value)
    assert isinstance(score, int)
    assert score >= 0
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        assert score == 0


@settings(max_examples=100, deadline=None)
@given(JUNK.map(lambda v: {"messages": v if isinstance(v, list) else [v]}))
def test_detect_never_raises_on_junk_messages(body: dict[str, Any]) -> None:
    before = copy.deepcopy(body)
    assert DIALECT.detect(body) >= 0
    assert body == before


@settings(max_examples=300, deadline=None)
@given(mutated_bodies("openai"))
def test_a_value_of_another_type_anywhere_is_a_dialect_error(body: Any) -> None:
    """A role that is a list, a content that is a number, a tool that is a string, a
    setting of the wrong type...: each reading method returns or raises DialectError."""
    reads_or_refuses(DIALECT, body)


def test_the_unknown_fields_of_tools_of_one_name_are_those_of_the_last() -> None:
    def tool(name: str, **fields: object) -> dict[str, object]:
        return {"type": "function", "function": {"name": name, **fields}}

    body = {"messages": [], "tools": [tool("f", strict=True), tool("g", x=1), tool("f", strict=1)]}
    request = DIALECT.to_request(body)
    extras = request.preset.settings.extra["openai"][_TOOL_EXTRAS]
    assert repr(extras) == "FrozenDict({'f': FrozenDict({'strict': 1}), 'g': FrozenDict({'x': 1})})"
