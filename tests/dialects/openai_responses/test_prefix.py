"""OpenAI Responses prefix segments in cache order, and the envelope they validate (_prefix)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects import DialectError
from harness.dialects.openai_responses import DIALECT
from harness.model import (
    Message,
    Text,
)


def test_a_string_input_is_one_user_message() -> None:
    body = {"model": "m", "input": "hello"}
    parsed = DIALECT.parse(body)
    assert (
        parsed.segments == DIALECT.parse({"input": [{"role": "user", "content": "hello"}]}).segments
    )
    assert [s.name for s in parsed.segments] == ["input[0]"]
    assert parsed.request.history == (Message("user", (Text("hello"),)),)


@pytest.mark.parametrize(
    ("body", "path", "reason"),
    [
        ({}, "input", "is required"),
        ({"input": 3}, "input", "must be an array of input items or a string"),
        ({"input": [], "instructions": ["x"]}, "instructions", "must be a string"),
        ({"input": [], "tools": {}}, "tools", "must be an array"),
        ({"input": [], "tools": [1]}, "tools[0]", "expected a JSON object"),
        ({"input": [], "text": {"format": "json"}}, "text.format", "must be an object"),
        ({"input": [], "reasoning": "high"}, "reasoning", "must be an object"),
        ({"input": [7]}, "input[0]", "must be a JSON object"),
        ({"input": [{"content": "x"}]}, "input[0]", "type must be a string"),
        ({"input": [{"role": "robot", "content": "x"}]}, "input[0].role", "expected one of"),
        ({"input": [{"role": ["user"], "content": "x"}]}, "input[0].role", "expected one of"),
        ({"input": [{"role": "user"}]}, "input[0].content", "it is missing"),
        ({"input": [{"role": "user", "content": 5}]}, "input[0].content", "it is a number"),
    ],
)
def test_envelope_errors_raise_from_parse(body: Any, path: str, reason: str) -> None:
    with pytest.raises(DialectError) as caught:
        DIALECT.parse(body)
    assert caught.value.path == path
    assert reason in caught.value.reason
