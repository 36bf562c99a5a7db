"""The Anthropic messages dialect as a whole: realistic bodies, round trips, any JSON refused
with a DialectError."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.dialects import DialectError
from harness.dialects.anthropic import DIALECT
from harness.model import (
    Request,
)
from harness.strategies import requests

from ..mutations import mutated_bodies, reads_or_refuses
from .support import (
    ANSWER_SCHEMA,
    BODY,
    EXPECTED,
    SEGMENT_NAMES,
    WEB_SEARCH,
    _junk_bodies,
    marked_requests,
    parse,
)


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


def test_parse_rejects_a_body_that_is_not_an_object() -> None:
    with pytest.raises(DialectError) as info:
        DIALECT.parse([])
    assert "array" in info.value.reason
    assert "JSON object" in info.value.reason
    assert info.value.path is None


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
