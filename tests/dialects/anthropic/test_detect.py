"""How strongly a body looks like a Anthropic messages one (_detect)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects.anthropic import DIALECT

from .support import BODY, minimal, user


def test_detect_counts_anthropic_only_features() -> None:
    assert DIALECT.detect(BODY) == 11
    assert DIALECT.detect(minimal(user("a"), system="s")) == 1
    assert DIALECT.detect(minimal(user("a"))) == 0


@pytest.mark.parametrize(
    "body",
    [
        {  # openai chat completions
            "model": "gpt-4o",
            "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}],
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
        },
        {  # openai, history of user/assistant/tool only
            "messages": [
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "1", "type": "function"}],
                    "content": None,
                },
                {"role": "tool", "tool_call_id": "1", "content": "x"},
            ],
            "top_k": 3,
        },
        {  # gemini generateContent
            "systemInstruction": {"parts": [{"text": "s"}]},
            "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        },
    ],
)
def test_detect_is_zero_on_other_dialects(body: dict[str, Any]) -> None:
    assert DIALECT.detect(body) == 0
