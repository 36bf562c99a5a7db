"""OpenAI chat completions tool declarations both ways (_tools)."""

from __future__ import annotations

from harness.dialects.openai import DIALECT
from harness.dialects.openai._tools import TOOL_EXTRAS as _TOOL_EXTRAS
from harness.model import (
    FrozenDict,
)

from .support import parse, realistic_body


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


def test_the_unknown_fields_of_tools_of_one_name_are_those_of_the_last() -> None:
    def tool(name: str, **fields: object) -> dict[str, object]:
        return {"type": "function", "function": {"name": name, **fields}}

    body = {"messages": [], "tools": [tool("f", strict=True), tool("g", x=1), tool("f", strict=1)]}
    request = DIALECT.to_request(body)
    extras = request.preset.settings.extra["openai"][_TOOL_EXTRAS]
    assert repr(extras) == "FrozenDict({'f': FrozenDict({'strict': 1}), 'g': FrozenDict({'x': 1})})"
