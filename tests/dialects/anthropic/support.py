"""Bodies and helpers the Anthropic messages dialect's tests share."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson
from hypothesis import strategies as st

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
