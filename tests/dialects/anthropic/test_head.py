"""The Anthropic messages head both ways: system and tools (_head)."""

from __future__ import annotations

import orjson

from harness.dialects.anthropic import DIALECT
from harness.model import (
    Preset,
    Request,
    freeze,
)

from .support import EPHEMERAL, minimal, parse, render_dict, user


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


def test_single_system_block_renders_as_a_string() -> None:
    assert render_dict(Request(Preset(system=("s",))))["system"] == "s"
    assert "system" not in render_dict(Request(Preset()))


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
