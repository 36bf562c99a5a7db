"""The Gemini generateContent head both ways: system and tools (_head)."""

from __future__ import annotations

from harness.dialects.gemini import DIALECT

from .support import minimal


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
