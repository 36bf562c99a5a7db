"""Gemini generateContent prefix segments in cache order, and the envelope they validate
(_prefix)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects import DialectError
from harness.dialects.gemini import DIALECT
from harness.model import (
    Tool,
)

from .support import body_of, minimal


def test_segment_order_follows_cache_order_not_body_order() -> None:
    body = {
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "generationConfig": {"temperature": 1},
        "tools": [{"functionDeclarations": [{"name": "a"}, {"name": "b"}]}],
        "systemInstruction": {"role": "system", "parts": [{"text": "s"}]},
    }
    assert [s.name for s in DIALECT.parse(body).segments] == [
        "systemInstruction",
        "tools[0].functionDeclarations[0]",
        "tools[0].functionDeclarations[1]",
        "toolConfig",
        "contents[0]",
    ]


def test_a_mixed_tool_entry_is_one_segment() -> None:
    body = minimal(tools=[{"functionDeclarations": [{"name": "a"}], "codeExecution": {}}])
    parsed = DIALECT.parse(body)
    assert [s.name for s in parsed.segments] == ["tools[0]", "contents[0]"]
    assert parsed.request.preset.tools == (Tool("a"),)
    assert body_of(parsed.request)["tools"] == [
        {"functionDeclarations": [{"name": "a"}]},
        {"codeExecution": {}},
    ]


@pytest.mark.parametrize(
    ("body", "path", "reason"),
    [
        ({"messages": []}, "contents", "contents is required"),
        ({"contents": {}}, "contents", "contents must be an array, not an object"),
        ({"contents": ["hi"]}, "contents[0]", "a content is an object, not a string"),
        (
            {"contents": [{"role": "assistant", "parts": []}]},
            "contents[0].role",
            "unknown role 'assistant'",
        ),
        (
            {"contents": [{"role": "user", "parts": "hi"}]},
            "contents[0].parts",
            "parts must be an array, not a string",
        ),
        ({"contents": [{"role": "user"}]}, "contents[0].parts", "parts is required"),
        (
            minimal(systemInstruction="be nice"),
            "systemInstruction",
            "systemInstruction must be an object",
        ),
        (minimal(tools={"functionDeclarations": []}), "tools", "tools must be an array"),
        (
            minimal(tools=[{"functionDeclarations": ["f"]}]),
            "tools[0].functionDeclarations[0]",
            "a function declaration is an object",
        ),
        (minimal(generationConfig=[]), "generationConfig", "generationConfig must be an object"),
    ],
)
def test_envelope_errors_are_raised_by_segments(body: Any, path: str, reason: str) -> None:
    with pytest.raises(DialectError) as info:
        DIALECT.segments(body)
    assert info.value.path == path
    assert info.value.reason.startswith(reason)
