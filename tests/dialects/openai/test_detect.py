"""How strongly a body looks like a OpenAI chat completions one (_detect)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings

from harness.dialects.openai import DIALECT

from .support import JUNK, realistic_body


def test_detect_counts_openai_features() -> None:
    # roles system/developer/tool, tool_calls, tool_call_id, function tools, image_url,
    # response_format, max_completion_tokens, reasoning_effort, stream_options
    assert DIALECT.detect(realistic_body()) == 11
    assert DIALECT.detect({"model": "m", "messages": [{"role": "developer", "content": "x"}]}) == 1


@pytest.mark.parametrize(
    "body",
    [
        {
            "systemInstruction": {"parts": [{"text": "be brief"}]},
            "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "tools": [{"functionDeclarations": [{"name": "f"}]}],
        },
        {
            "model": "claude",
            "system": [{"type": "text", "text": "be brief"}],
            "max_tokens": 1024,
            "tools": [{"name": "f", "input_schema": {"type": "object"}}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}],
                },
            ],
        },
    ],
    ids=["gemini", "anthropic"],
)
def test_detect_is_zero_on_other_dialects(body: dict[str, Any]) -> None:
    assert DIALECT.detect(body) == 0


@settings(max_examples=200, deadline=None)
@given(JUNK)
def test_detect_never_raises(value: Any) -> None:
    score = DIALECT.detect(value)
    assert isinstance(score, int)
    assert score >= 0
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        assert score == 0


@settings(max_examples=100, deadline=None)
@given(JUNK.map(lambda v: {"messages": v if isinstance(v, list) else [v]}))
def test_detect_never_raises_on_junk_messages(body: dict[str, Any]) -> None:
    before = copy.deepcopy(body)
    assert DIALECT.detect(body) >= 0
    assert body == before
