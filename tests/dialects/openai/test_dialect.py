"""The OpenAI chat completions dialect as a whole: realistic bodies, round trips, any JSON
refused with a DialectError."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.dialects import DialectError
from harness.dialects.openai import DIALECT
from harness.model import (
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

from ..mutations import mutated_bodies, reads_or_refuses
from .support import (
    ANSWER_SCHEMA,
    SEARCH_SCHEMA,
    WEATHER_SCHEMA,
    frozen,
    parse,
    realistic_body,
    render_dict,
)


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
                    "system_messages": {
                        "system": ["You are a coding agent.", "Rules: ", "be terse."],
                        "messages": realistic_body()["messages"][:2],
                    },
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


def test_realistic_body_renders_its_nearest_form() -> None:
    """Every message renders back as sent (developer role, content arrays, key order kept)."""
    body = realistic_body()
    rendered = render_dict(parse(body))
    assert orjson.dumps(rendered["messages"]) == orjson.dumps(body["messages"])
    assert orjson.dumps(rendered) == orjson.dumps(body)


def test_realistic_body_render_is_stable() -> None:
    once = DIALECT.render(parse(realistic_body()))
    assert DIALECT.render(parse(orjson.loads(once))) == once


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


def test_body_that_is_not_an_object() -> None:
    with pytest.raises(DialectError) as caught:
        DIALECT.parse(["messages"])
    assert "an array" in caught.value.reason
    assert "JSON object" in caught.value.reason
    assert caught.value.path is None


@settings(max_examples=300, deadline=None)
@given(mutated_bodies("openai"))
def test_a_value_of_another_type_anywhere_is_a_dialect_error(body: Any) -> None:
    """A role that is a list, a content that is a number, a tool that is a string, a
    setting of the wrong type...: each reading method returns or raises DialectError."""
    reads_or_refuses(DIALECT, body)
