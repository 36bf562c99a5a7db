"""The chat-completions rendered prefix: envelope key order and breakpoints drop out; a string
content and one text part stay apart; a call's arguments compare as sent."""

from __future__ import annotations

from typing import Any

from harness.dialects.openai._units import units as openai_units


def data(units: Any) -> list[tuple[str, bytes]]:
    return [(u.name, u.data) for u in units]


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
