"""The rendered prefix: spellings a provider documents as one prompt render to the same units,
byte for byte, and what reaches the model as JSON keeps its key order."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects._units_anthropic import anthropic_units
from harness.dialects._units_gemini import gemini_units
from harness.dialects._units_openai import openai_units, responses_units

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


def test_openai_string_content_and_one_text_part_stay_apart() -> None:
    a = data(openai_units({"messages": [{"role": "user", "content": "x"}]}))
    b = data(
        openai_units({"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}]})
    )
    assert a != b


def test_openai_envelope_key_order_and_breakpoints_do_not_count() -> None:
    a = openai_units({"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}]})
    b = openai_units(
        {
            "messages": [
                {
                    "content": [
                        {
                            "text": "x",
                            "type": "text",
                            "prompt_cache_breakpoint": {"mode": "explicit"},
                        }
                    ],
                    "role": "user",
                }
            ]
        }
    )
    assert data(a) == data(b)
    assert b[-1].marker == {"mode": "explicit"}


def test_openai_arguments_are_compared_as_sent() -> None:
    def body(arguments: str) -> Any:
        call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}
        return {"messages": [{"role": "assistant", "tool_calls": [call]}]}

    assert data(openai_units(body('{"a":1,"b":2}'))) != data(openai_units(body('{"b":2,"a":1}')))


def test_openai_eligible_message_ends() -> None:
    units = openai_units(
        {
            "messages": [
                {"role": "developer", "content": "d1"},
                {"role": "developer", "content": "d2"},
                {"role": "user", "content": "u"},
                {"role": "assistant", "content": "a"},
                {"role": "tool", "tool_call_id": "1", "content": "r1"},
                {"role": "tool", "tool_call_id": "2", "content": "r2"},
                {"role": "developer", "content": "late"},
            ]
        }
    )
    ends = [(u.name, u.eligible) for u in units if u.ends_message]
    assert ends == [
        ("messages[0].content", False),
        ("messages[1].content", True),
        ("messages[2].content", True),
        ("messages[3].content", False),
        ("messages[4].content", False),
        ("messages[5].content", True),
        ("messages[6].content", False),
    ]


def test_responses_items_ids_and_status_do_not_count_phase_does() -> None:
    item = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "hi"}],
    }
    a = data(responses_units({"input": [item]}))
    b = data(responses_units({"input": [{**item, "id": "msg_1", "status": "completed"}]}))
    assert a == b
    assert a != data(responses_units({"input": [{**item, "phase": "final_answer"}]}))


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ({"functionCall": {"name": "f"}}, {"functionCall": {"name": "f", "args": {}}}),
        ({"text": "x"}, {"text": "y"}),
    ],
)
def test_gemini_undocumented_spellings_stay_apart(one: Any, other: Any) -> None:
    def body(part: Any) -> Any:
        return {"contents": [{"role": "model", "parts": [part]}]}

    assert data(gemini_units(body(one))) != data(gemini_units(body(other)))


def test_gemini_envelope_key_order_does_not_count() -> None:
    a = {"inlineData": {"mimeType": "image/png", "data": "AA=="}}
    b = {"inlineData": {"data": "AA==", "mimeType": "image/png"}}
    body = lambda p: {"contents": [{"role": "user", "parts": [p]}]}  # noqa: E731
    assert data(gemini_units(body(a))) == data(gemini_units(body(b)))
