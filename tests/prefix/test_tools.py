"""Tools matched by name between two bodies (harness/prefix/_tools.py)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects import get_dialect
from harness.prefix import prefix_stream, tool_changes
from harness.prefix._tools import is_tool_frame, tool_name


def _tool(name: str, description: str = "d") -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description}}


def _changes(parent: list[dict[str, Any]], fork: list[dict[str, Any]]) -> list[str] | None:
    d = get_dialect("openai")
    streams = [
        prefix_stream(d.parse({"tools": tools, "messages": [{"role": "user", "content": "hi"}]}))
        for tools in (parent, fork)
    ]
    frames = [[f for f in s.frames if is_tool_frame(f)] for s in streams]
    found = tool_changes(*frames)
    return None if found is None else [c.sentence for c in found]


A, B, C, D = (_tool(n) for n in "abcd")


@pytest.mark.parametrize(
    ("parent", "fork", "said"),
    [
        ([A, B, C], [A, B, C], []),
        ([A, B, C], [B, C], ["tool `a` removed"]),
        ([A, B], [A, B, C], ["tool `c` added at 2"]),
        ([A, B, C, D], [B, C, D, A], ["tool `a` moved from 0 to 3"]),
        ([A, B, C], [C, B, A], ["tool `c` moved from 2 to 0", "tool `a` moved from 0 to 2"]),
        ([A, B], [B, A], ["tool `a` moved from 0 to 1"]),
        (
            [A, B, C],
            [_tool("x"), C, B],
            ["tool `a` removed", "tool `x` added at 0", "tool `b` moved from 1 to 2"],
        ),
        (
            [A, B],
            [A, _tool("b", "other")],
            ["tool `b` changed: function.description: text differs from byte 0 of the string on"],
        ),
        (
            [A, B],
            [A, {"function": B["function"], "type": "function"}],
            ["only the key order of tool `b` changed"],
        ),
        # a key reordered and a value changed: the value change is what is said
        (
            [A, B],
            [A, {"function": {"name": "b", "description": "e"}, "type": "function"}],
            ["tool `b` changed: function.description: text differs from byte 0 of the string on"],
        ),
        ([A, A], [A], None),  # a name declared twice: only positions can be compared
    ],
)
def test_tool_changes_by_name(
    parent: list[dict[str, Any]], fork: list[dict[str, Any]], said: list[str] | None
) -> None:
    assert _changes(parent, fork) == said


def test_a_change_from_true_to_1_is_not_a_key_order_change() -> None:
    """Python holds True == 1; the comparison is of JSON, where they differ."""
    one = {"type": "function", "function": {"name": "a", "strict": 1}}
    true = {"function": {"name": "a", "strict": True}, "type": "function"}
    (said,) = _changes([one], [true]) or [""]
    assert said.startswith("tool `a` changed: function.strict: ")


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ({"name": "read"}, "read"),  # anthropic, gemini, openai responses
        ({"type": "function", "function": {"name": "read"}}, "read"),  # openai chat
        ({"type": "web_search_preview"}, "web_search_preview"),  # a built-in tool
        ({"googleSearch": {}}, "googleSearch"),
        ({"a": 1, "b": 2}, None),
        ([1], None),
    ],
)
def test_tool_name(value: Any, name: str | None) -> None:
    assert tool_name(value) == name
