"""The Anthropic messages dialect: parsing, segments, settings, markers, rendering, detection."""

from __future__ import annotations

import contextlib
import copy
from dataclasses import replace
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.dialects import DialectError
from harness.dialects.anthropic import DIALECT
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
    join_path,
)
from harness.strategies import json_objects, requests

from .mutations import mutated_bodies, reads_or_refuses

READ_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Absolute path"},
        "range": {
            "type": "object",
            "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}},
            "required": ["start"],
        },
    },
    "required": ["path"],
}
SEARCH_SCHEMA = {
    "required": ["query"],
    "type": "object",
    "properties": {"query": {"type": "string"}},
}
ANSWER_SCHEMA = {"type": "object", "properties": {"bug": {"type": "string"}}, "required": ["bug"]}
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}
EPHEMERAL = {"type": "ephemeral"}

# A body as a coding agent sends it: every block kind, markers on a tool, a system block and the
# last message, a server tool, tool_choice options and fields with no neutral home.
BODY: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 32000,
    "system": [
        {"type": "text", "text": "You are a coding agent."},
        {"type": "text", "text": "Use the tools.", "cache_control": EPHEMERAL},
    ],
    "tools": [
        {"name": "read_file", "description": "Read a file", "input_schema": READ_SCHEMA},
        {
            "name": "search",
            "description": "Search the repo",
            "input_schema": SEARCH_SCHEMA,
            "cache_control": {"type": "ephemeral", "ttl": "1h"},
        },
        WEB_SEARCH,
    ],
    "tool_choice": {"type": "auto", "disable_parallel_tool_use": True},
    "thinking": {"type": "enabled", "budget_tokens": 10000},
    "metadata": {"user_id": "user_42"},
    "temperature": 1.0,
    "top_k": 40,
    "stop_sequences": ["</answer>"],
    "output_format": {"type": "json_schema", "schema": ANSWER_SCHEMA},
    "stream": True,
    "messages": [
        {"role": "user", "content": "Find the bug in main.py"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Read it first.", "signature": "EqQBCkYI"},
                {"type": "text", "text": "Reading the file."},
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": "read_file",
                    "input": {"path": "/src/main.py", "range": {"start": 1}},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01", "content": "print('hi')"},
                {"type": "text", "text": "And this screenshot:"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
                },
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "redacted_thinking", "data": "EmwKAhgB"},
                {"type": "tool_use", "id": "toolu_02", "name": "search", "input": {"query": "bug"}},
                {"type": "tool_use", "id": "toolu_03", "name": "read_file", "input": {"path": "b"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_02",
                    "content": [
                        {"type": "text", "text": "2 hits"},
                        {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}},
                    ],
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_03",
                    "content": "no file",
                    "is_error": True,
                },
                {"type": "image", "source": {"type": "url", "url": "https://x.test/b.png"}},
                {"type": "text", "text": "Continue.", "cache_control": EPHEMERAL},
            ],
        },
    ],
}

EXPECTED = Request(
    preset=Preset(
        system=("You are a coding agent.", "Use the tools."),
        tools=(
            Tool("read_file", "Read a file", freeze(READ_SCHEMA)),
            Tool("search", "Search the repo", freeze(SEARCH_SCHEMA)),
            Tool("web_search", None, freeze(WEB_SEARCH)),
        ),
        settings=Settings(
            model="claude-sonnet-4-5",
            temperature=1.0,
            top_k=40,
            max_output_tokens=32000,
            stop=("</answer>",),
            thinking=ThinkingConfig(mode="enabled", budget_tokens=10000),
            tool_choice=ToolChoice("auto"),
            output_schema=OutputSchema(freeze(ANSWER_SCHEMA)),
            extra=FrozenDict(
                {
                    "anthropic": FrozenDict(
                        {
                            "tool_choice": freeze(BODY["tool_choice"]),
                            "metadata": FrozenDict({"user_id": "user_42"}),
                            "stream": True,
                        }
                    )
                }
            ),
        ),
    ),
    history=(
        Message("user", (Text("Find the bug in main.py"),)),
        Message(
            "model",
            (
                Thinking("Read it first.", signature="EqQBCkYI"),
                Text("Reading the file."),
                FunctionCall(
                    "read_file", freeze({"path": "/src/main.py", "range": {"start": 1}}), "toolu_01"
                ),
            ),
        ),
        Message(
            "user",
            (
                FunctionResponse("read_file", "print('hi')", "toolu_01"),
                Text("And this screenshot:"),
                Image(mime_type="image/png", data="iVBORw0KGgo="),
            ),
        ),
        Message(
            "model",
            (
                Thinking("EmwKAhgB", redacted=True),
                FunctionCall("search", FrozenDict({"query": "bug"}), "toolu_02"),
                FunctionCall("read_file", FrozenDict({"path": "b"}), "toolu_03"),
            ),
        ),
        Message(
            "user",
            (
                FunctionResponse(
                    "search", freeze(BODY["messages"][4]["content"][0]["content"]), "toolu_02"
                ),
                FunctionResponse("read_file", "no file", "toolu_03", is_error=True),
                Image(url="https://x.test/b.png"),
                Text("Continue."),
            ),
        ),
    ),
    cache_breakpoints=("tools[1]", "system[1]", "messages[4]"),
    cache_control=freeze({"tools[1]": {"type": "ephemeral", "ttl": "1h"}}),
)

SEGMENT_NAMES = [
    "tools[0]",
    "tools[1]",
    "tools[2]",
    "system[0]",
    "system[1]",
    *(f"messages[{k}]" for k in range(5)),
]


def parse(body: Any) -> Request:
    return DIALECT.parse(body).request


def render_dict(request: Request) -> dict[str, Any]:
    result: dict[str, Any] = orjson.loads(DIALECT.render(request))
    return result


def minimal(*messages: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"model": "claude-haiku-4-5", "max_tokens": 1024, **fields, "messages": list(messages)}


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


# --- 1. a realistic body -------------------------------------------------------------------------


def test_realistic_body_gives_the_exact_neutral_request() -> None:
    assert parse(copy.deepcopy(BODY)) == EXPECTED


def test_realistic_body_segments_in_cache_order_without_markers() -> None:
    body = copy.deepcopy(BODY)
    segments = DIALECT.segments(body)
    assert [s.name for s in segments] == SEGMENT_NAMES
    values = {s.name: s.value for s in segments}
    assert values["tools[1]"] == {k: v for k, v in BODY["tools"][1].items() if k != "cache_control"}
    assert values["system[1]"] == {"type": "text", "text": "Use the tools."}
    assert values["messages[4]"]["content"][-1] == {"type": "text", "text": "Continue."}
    assert "cache_control" not in orjson.dumps([s.value for s in segments]).decode()
    # unmarked pieces are the body's own objects, and the body itself is left untouched
    assert values["tools[0]"] is body["tools"][0]
    assert values["messages[1]"] is body["messages"][1]
    assert body == BODY


def test_realistic_body_markers_and_settings() -> None:
    parsed = DIALECT.parse(copy.deepcopy(BODY))
    assert parsed.cache_markers == ("tools[1]", "system[1]", "messages[4]")
    assert list(parsed.settings.items()) == [
        ("model", "claude-sonnet-4-5"),
        ("max_tokens", 32000),
        ("tool_choice", {"type": "auto", "disable_parallel_tool_use": True}),
        ("thinking", {"type": "enabled", "budget_tokens": 10000}),
        ("temperature", 1.0),
        ("top_k", 40),
        ("stop_sequences", ["</answer>"]),
        ("output_format", {"type": "json_schema", "schema": ANSWER_SCHEMA}),
    ]


def test_realistic_body_renders_stably() -> None:
    once = DIALECT.render(parse(copy.deepcopy(BODY)))
    assert DIALECT.render(parse(orjson.loads(once))) == once
    rendered = orjson.loads(once)
    assert rendered["tools"][2] == WEB_SEARCH
    assert rendered["tools"][1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert rendered["tool_choice"] == BODY["tool_choice"]
    assert rendered["metadata"] == {"user_id": "user_42"}
    assert rendered["stream"] is True
    assert [s.name for s in DIALECT.segments(rendered)] == SEGMENT_NAMES


# --- 2. round-trip properties --------------------------------------------------------------------


@st.composite
def marked_requests(draw: st.DrawFn) -> Request:
    """Generated requests with cache breakpoints (some naming nothing) and unknown fields."""
    request = draw(requests())
    preset = request.preset
    names = [
        "system",
        "tools[9]",
        "messages[99]",
        *(join_path("system", i) for i in range(len(preset.system))),
        *(join_path("tools", i) for i in range(len(preset.tools))),
        *(join_path("messages", k) for k in range(len(request.history))),
    ]
    marks = draw(st.lists(st.sampled_from(names), max_size=4, unique=True))
    extra = draw(
        st.one_of(st.just(FrozenDict()), json_objects().map(lambda o: FrozenDict({"anthropic": o})))
    )
    preset = replace(preset, settings=replace(preset.settings, extra=extra))
    return replace(request, preset=preset, cache_breakpoints=tuple(marks))


@settings(max_examples=200, deadline=None)
@given(st.one_of(requests(), marked_requests()))
def test_render_parse_render_is_byte_stable(request: Request) -> None:
    first = DIALECT.render(request)
    parsed = parse(orjson.loads(first))
    assert DIALECT.render(parsed) == first
    assert parse(orjson.loads(DIALECT.render(parsed))) == parsed
    DIALECT.segments(orjson.loads(first))


@settings(max_examples=50, deadline=None)
@given(requests())
def test_parse_keeps_what_anthropic_can_express(request: Request) -> None:
    parsed = parse(orjson.loads(DIALECT.render(request)))
    assert parsed.preset.system == request.preset.system
    assert [t.name for t in parsed.preset.tools] == [t.name for t in request.preset.tools]
    assert [m.role for m in parsed.history] == [m.role for m in request.history]
    for before, after in zip(request.history, parsed.history, strict=True):
        assert after.function_calls == before.function_calls
        assert [(r.id, r.name) for r in after.function_responses] == [
            (r.id, r.name) for r in before.function_responses
        ]


# --- 3. key order --------------------------------------------------------------------------------


def test_tool_schema_key_order_is_kept_in_segments_and_render() -> None:
    schema = {"type": "object", "required": ["z"], "properties": {"z": {"type": "string"}, "a": {}}}
    tool = {"name": "t", "input_schema": schema, "description": "d", "cache_control": EPHEMERAL}
    body = minimal(user("hi"), tools=[tool])
    (segment, _) = DIALECT.segments(body)
    assert list(segment.value) == ["name", "input_schema", "description"]
    assert list(segment.value["input_schema"]) == ["type", "required", "properties"]
    assert list(segment.value["input_schema"]["properties"]) == ["z", "a"]
    rendered = DIALECT.render(parse(body))
    assert orjson.dumps(schema) in rendered
    assert parse(body).preset.tools[0].parameters == freeze(schema)  # FrozenDict: order matters


# --- 4. cache order, settings, markers, extra ----------------------------------------------------


def test_string_system_is_one_segment_after_tools() -> None:
    body = minimal(user("a"), {"role": "assistant", "content": "b"}, system="S", tools=[WEB_SEARCH])
    assert [s.name for s in DIALECT.segments(body)] == [
        "tools[0]",
        "system",
        "messages[0]",
        "messages[1]",
    ]
    assert DIALECT.segments(body)[1].value == "S"


def test_settings_lists_only_present_cache_relevant_fields() -> None:
    body = minimal(user("a"), stream=True, metadata={}, output_config={"effort": "high"}, top_p=0.9)
    assert DIALECT.settings(body) == {
        "model": "claude-haiku-4-5",
        "max_tokens": 1024,
        "output_config": {"effort": "high"},
        "top_p": 0.9,
    }


def test_unknown_fields_round_trip_through_extra_in_body_order() -> None:
    body = minimal(user("a"), service_tier="auto", metadata={"user_id": "u"}, stream=False)
    request = parse(body)
    assert request.preset.settings.extra == FrozenDict(
        {
            "anthropic": FrozenDict(
                {"service_tier": "auto", "metadata": FrozenDict({"user_id": "u"}), "stream": False}
            )
        }
    )
    assert orjson.loads(DIALECT.render(request)) == body
    assert parse(minimal(user("a"))).preset.settings.extra == FrozenDict()


def test_other_dialects_extra_is_not_rendered() -> None:
    extra = FrozenDict(
        {"openai": FrozenDict({"seed": 1}), "anthropic": FrozenDict({"stream": True})}
    )
    request = Request(Preset(settings=Settings(extra=extra)), (Message("user", (Text("a"),)),))
    assert render_dict(request) == {"stream": True, "messages": [user("a")]}


def test_markers_are_rendered_on_the_last_block_of_each_named_segment() -> None:
    request = Request(
        Preset(system=("only",), tools=(Tool("t"),)),
        (Message("user", (Text("a"),)), Message("model", (Text("b"), Text("c")))),
        cache_breakpoints=("tools[0]", "system[0]", "messages[0]", "messages[1]"),
    )
    body = render_dict(request)
    assert body["system"] == [{"type": "text", "text": "only", "cache_control": EPHEMERAL}]
    assert body["tools"][0]["cache_control"] == EPHEMERAL
    assert body["messages"][0]["content"] == [
        {"type": "text", "text": "a", "cache_control": EPHEMERAL}
    ]
    assert "cache_control" not in body["messages"][1]["content"][0]
    assert body["messages"][1]["content"][1]["cache_control"] == EPHEMERAL
    assert parse(body).cache_breakpoints == request.cache_breakpoints


def test_whole_system_marker_lands_on_its_last_block() -> None:
    request = Request(Preset(system=("a", "b")), (), cache_breakpoints=("system",))
    body = render_dict(request)
    assert body["system"][1]["cache_control"] == EPHEMERAL
    assert DIALECT.parse(body).cache_markers == ("system[1]",)


def test_single_system_block_renders_as_a_string() -> None:
    assert render_dict(Request(Preset(system=("s",))))["system"] == "s"
    assert "system" not in render_dict(Request(Preset()))


# --- mapping decisions ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wire", "neutral"),
    [
        ({"type": "auto"}, ToolChoice("auto")),
        ({"type": "any"}, ToolChoice("required")),
        ({"type": "tool", "name": "search"}, ToolChoice("tool", ("search",))),
        ({"type": "none"}, ToolChoice("none")),
    ],
)
def test_tool_choice_maps_both_ways(wire: dict[str, Any], neutral: ToolChoice) -> None:
    request = parse(minimal(user("a"), tool_choice=wire))
    assert request.preset.settings.tool_choice == neutral
    assert request.preset.settings.extra == FrozenDict()
    assert render_dict(request)["tool_choice"] == wire


def test_thinking_without_mode_renders_enabled_and_effort_alone_is_dropped() -> None:
    budget_only = Settings(thinking=ThinkingConfig(budget_tokens=2048, effort="high"))
    assert render_dict(Request(Preset(settings=budget_only)))["thinking"] == {
        "type": "enabled",
        "budget_tokens": 2048,
    }
    effort_only = Settings(thinking=ThinkingConfig(effort="high"))
    assert "thinking" not in render_dict(Request(Preset(settings=effort_only)))
    adaptive = parse(minimal(user("a"), thinking={"type": "adaptive"}))
    assert adaptive.preset.settings.thinking == ThinkingConfig(mode="adaptive")


def test_function_responses_render_first_and_non_string_results_as_json_text() -> None:
    message = Message(
        "user",
        (
            Text("see"),
            FunctionResponse("f", FrozenDict({"b": 1, "a": [2]}), "c1"),
            FunctionResponse(
                "g", (FrozenDict({"type": "text", "text": "x"}),), "c2", is_error=True
            ),
        ),
    )
    (rendered,) = render_dict(Request(Preset(), (message,)))["messages"]
    assert rendered["content"] == [
        {"type": "tool_result", "tool_use_id": "c1", "content": '{"b":1,"a":[2]}'},
        {
            "type": "tool_result",
            "tool_use_id": "c2",
            "content": [{"type": "text", "text": "x"}],
            "is_error": True,
        },
        {"type": "text", "text": "see"},
    ]


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


# --- 5. errors -----------------------------------------------------------------------------------


def test_parse_rejects_a_body_that_is_not_an_object() -> None:
    with pytest.raises(DialectError) as info:
        DIALECT.parse([])
    assert "array" in info.value.reason
    assert "JSON object" in info.value.reason
    assert info.value.path is None


@pytest.mark.parametrize(
    ("body", "path", "reason"),
    [
        ({"model": "m", "max_tokens": 1}, "messages", "the messages array is missing"),
        ({"messages": {}}, "messages", "messages must be an array, not an object"),
        ({"messages": ["hi"]}, "messages[0]", "a message must be an object, not a string"),
        (
            {"messages": [{"role": "critic", "content": "x"}]},
            "messages[0].role",
            "unknown role 'critic'",
        ),
        (
            {"messages": [{"role": ["user"], "content": "x"}]},
            "messages[0].role",
            'unknown role ["user"]',
        ),
        ({"messages": [{"role": "user"}]}, "messages[0].content", "the content field is missing"),
        (
            {"messages": [user(5)]},
            "messages[0].content",
            "content must be a string or an array of blocks, not a number",
        ),
        (
            {"messages": [user(["x"])]},
            "messages[0].content[0]",
            "a content block must be an object, not a string",
        ),
        ({"messages": [], "tools": {}}, "tools", "tools must be an array"),
        ({"messages": [], "tools": [1]}, "tools[0]", "a tool must be an object, not a number"),
        (
            {"messages": [], "system": 3},
            "system",
            "system must be a string or an array of text blocks",
        ),
        (
            {"messages": [], "system": [None]},
            "system[0]",
            "a system block must be an object, not null",
        ),
    ],
)
def test_segments_reject_a_malformed_envelope(body: dict[str, Any], path: str, reason: str) -> None:
    with pytest.raises(DialectError) as info:
        DIALECT.parse(body)
    assert info.value.path == path
    assert info.value.reason.startswith(reason)


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


@pytest.mark.parametrize(
    ("fields", "path"),
    [
        ({"system": [{"type": "image"}]}, "system[0]"),
        ({"tools": [{"name": "t"}]}, "tools[0].input_schema"),
        ({"tools": [{"name": "t", "input_schema": []}]}, "tools[0].input_schema"),
        ({"temperature": "hot"}, "temperature"),
        ({"max_tokens": True}, "max_tokens"),
        ({"stop_sequences": ["a", 1]}, "stop_sequences[1]"),
        ({"thinking": {"type": "maximal"}}, "thinking.type"),
        ({"tool_choice": {"type": "tool"}}, "tool_choice.name"),
        ({"output_format": {"type": "text"}}, "output_format"),
    ],
)
def test_to_request_rejects_malformed_preset_fields(fields: dict[str, Any], path: str) -> None:
    with pytest.raises(DialectError) as info:
        DIALECT.to_request(minimal(user("a"), **fields))
    assert info.value.path == path


# --- 6. detect -----------------------------------------------------------------------------------


def test_detect_counts_anthropic_only_features() -> None:
    assert DIALECT.detect(BODY) == 11
    assert DIALECT.detect(minimal(user("a"), system="s")) == 1
    assert DIALECT.detect(minimal(user("a"))) == 0


@pytest.mark.parametrize(
    "body",
    [
        {  # openai chat completions
            "model": "gpt-4o",
            "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}],
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
        },
        {  # openai, history of user/assistant/tool only
            "messages": [
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "1", "type": "function"}],
                    "content": None,
                },
                {"role": "tool", "tool_call_id": "1", "content": "x"},
            ],
            "top_k": 3,
        },
        {  # gemini generateContent
            "systemInstruction": {"parts": [{"text": "s"}]},
            "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        },
    ],
)
def test_detect_is_zero_on_other_dialects(body: dict[str, Any]) -> None:
    assert DIALECT.detect(body) == 0


_junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)
_words = st.sampled_from(
    [
        "messages",
        "role",
        "content",
        "type",
        "user",
        "assistant",
        "tools",
        "system",
        "source",
        "cache_control",
        "input_schema",
        "tool_use",
        "image",
        "thinking",
        "text",
        "name",
        "input",
    ]
)
_junk_bodies = st.recursive(
    _junk | _words,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_words, inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(_junk_bodies)
def test_detect_never_raises_and_parse_raises_only_dialect_errors(body: Any) -> None:
    assert DIALECT.detect(body) >= 0
    with contextlib.suppress(DialectError):
        _ = DIALECT.parse(body).request


@settings(max_examples=300, deadline=None)
@given(mutated_bodies("anthropic"))
def test_a_value_of_another_type_anywhere_is_a_dialect_error(body: Any) -> None:
    """A role that is a list, a content that is a number, a tool that is a string, a
    setting of the wrong type...: each reading method returns or raises DialectError."""
    reads_or_refuses(DIALECT, body)


def test_tools_that_render_otherwise_are_kept_as_sent_and_render_back() -> None:
    plain = {"name": "h", "input_schema": {"type": "object"}}
    for tools, kept in [
        ([plain, {"input_schema": {"type": "object"}, "name": "f"}], True),  # key order
        ([plain, {"name": "g", "input_schema": {"type": "object"}, "strict": True}], True),
        ([plain, {**plain, "cache_control": {"type": "ephemeral"}}], False),  # a marker
        ([plain], False),
    ]:
        raw = orjson.dumps({"model": "m", "max_tokens": 1, "tools": tools, "messages": []})
        request = DIALECT.to_request(orjson.loads(raw))
        assert ("tools" in request.preset.settings.extra.get("anthropic", {})) is kept
        assert DIALECT.render(request) == raw
