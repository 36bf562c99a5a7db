"""Anthropic messages prefix segments in cache order, and the envelope they validate (_prefix)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects import DialectError
from harness.dialects.anthropic import DIALECT

from .support import WEB_SEARCH, minimal, user


def test_string_system_is_one_segment_after_tools() -> None:
    body = minimal(user("a"), {"role": "assistant", "content": "b"}, system="S", tools=[WEB_SEARCH])
    assert [s.name for s in DIALECT.segments(body)] == [
        "tools[0]",
        "system",
        "messages[0]",
        "messages[1]",
    ]
    assert DIALECT.segments(body)[1].value == "S"


@pytest.mark.parametrize(
    ("body", "path", "reason"),
    [
        ({"model": "m", "max_tokens": 1}, "messages", "the messages array is missing"),
        ({"messages": {}}, "messages", "messages must be an array, not an object"),
        ({"messages": ["hi"]}, "messages[0]", "a message must be an object, not a string"),
        (
            {"messages": [{"role": "critic", "content": "x"}]},
            "messages[0].role",
            "unknown role 'critic'",
        ),
        (
            {"messages": [{"role": ["user"], "content": "x"}]},
            "messages[0].role",
            'unknown role ["user"]',
        ),
        ({"messages": [{"role": "user"}]}, "messages[0].content", "the content field is missing"),
        (
            {"messages": [user(5)]},
            "messages[0].content",
            "content must be a string or an array of blocks, not a number",
        ),
        (
            {"messages": [user(["x"])]},
            "messages[0].content[0]",
            "a content block must be an object, not a string",
        ),
        ({"messages": [], "tools": {}}, "tools", "tools must be an array"),
        ({"messages": [], "tools": [1]}, "tools[0]", "a tool must be an object, not a number"),
        (
            {"messages": [], "system": 3},
            "system",
            "system must be a string or an array of text blocks",
        ),
        (
            {"messages": [], "system": [None]},
            "system[0]",
            "a system block must be an object, not null",
        ),
    ],
)
def test_segments_reject_a_malformed_envelope(body: dict[str, Any], path: str, reason: str) -> None:
    with pytest.raises(DialectError) as info:
        DIALECT.parse(body)
    assert info.value.path == path
    assert info.value.reason.startswith(reason)
