"""Anthropic's rendered prefix: the documented spellings of one prompt render to the same
units; key order inside a schema or a tool_use input stays."""

from __future__ import annotations

from typing import Any

from harness.dialects.anthropic._units import units as anthropic_units

TOOL = {
    "name": "read",
    "description": "Read a file",
    "input_schema": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
    },
}


def data(units: Any) -> list[tuple[str, bytes]]:
    return [(u.name, u.data) for u in units]


def anthropic(**body: Any) -> list[tuple[str, bytes]]:
    return data(anthropic_units(body))


def test_string_content_is_one_text_block() -> None:
    plain = anthropic(messages=[{"role": "user", "content": "Hello, Claude"}])
    block = anthropic(
        messages=[{"role": "user", "content": [{"type": "text", "text": "Hello, Claude"}]}]
    )
    assert plain == block
    units = anthropic_units({"messages": [{"role": "user", "content": "Hello, Claude"}]})
    assert "string-content" in units[1].applied
    assert units[1].path == "messages[0].content"


def test_string_system_is_one_text_block() -> None:
    assert anthropic(system="Be brief.") == anthropic(
        system=[{"type": "text", "text": "Be brief."}]
    )


def test_consecutive_turns_of_one_role_are_one_turn() -> None:
    split = anthropic(messages=[{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    whole = anthropic(
        messages=[
            {
                "role": "user",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            }
        ]
    )
    assert split == whole


def test_markers_are_not_content_and_stay_on_the_unit() -> None:
    marked = {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}
    moved = anthropic_units({"messages": [{"role": "user", "content": [marked]}]})
    assert data(moved) == anthropic(messages=[{"role": "user", "content": "a"}])
    assert moved[1].marker == {"type": "ephemeral"}
    assert "cache-control" in moved[1].applied


def test_envelope_key_order_does_not_count() -> None:
    a = anthropic(messages=[{"role": "user", "content": [{"type": "text", "text": "x"}]}])
    b = anthropic(messages=[{"content": [{"text": "x", "type": "text"}], "role": "user"}])
    assert a == b


def test_key_order_inside_a_schema_or_an_input_counts() -> None:
    reordered = {
        **TOOL,
        "input_schema": {"properties": TOOL["input_schema"]["properties"], "type": "object"},
    }
    assert anthropic(tools=[TOOL]) != anthropic(tools=[reordered])
    call = {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a", "limit": 2}}
    swapped = {**call, "input": {"limit": 2, "path": "a"}}
    assert anthropic(messages=[{"role": "assistant", "content": [call]}]) != anthropic(
        messages=[{"role": "assistant", "content": [swapped]}]
    )


def test_blocks_count_positions_and_headers_do_not() -> None:
    units = anthropic_units(
        {
            "tools": [TOOL],
            "system": "s",
            "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}],
        }
    )
    assert [u.block for u in units] == [0, 1, None, 2, None, 3]
    assert [u.ends_message for u in units] == [False, False, False, True, False, True]
