"""Bodies and helpers the OpenAI chat completions dialect's tests share."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import strategies as st

from harness.dialects.openai import DIALECT
from harness.model import (
    FrozenDict,
    Request,
    freeze,
)

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
