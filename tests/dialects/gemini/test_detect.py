"""How strongly a body looks like a Gemini generateContent one (_detect)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from harness.dialects.gemini import DIALECT

from .support import _junk_bodies, minimal, realistic_body


def test_detect_scores_gemini_features() -> None:
    assert DIALECT.detect({"contents": []}) == 1
    assert DIALECT.detect(minimal(generationConfig={})) == 2
    # contents, systemInstruction, toolConfig, generationConfig, 2 calls, 2 responses, role model
    assert DIALECT.detect(realistic_body()) == 1 + 3 + 2 + 2 + 1


@pytest.mark.parametrize(
    "body",
    [
        {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "tools": []},
        {"model": "claude", "system": "s", "messages": [{"role": "assistant", "content": []}]},
        {"contents": "not a list", "generationConfig": {}},
    ],
)
def test_detect_is_zero_for_other_shapes(body: dict[str, Any]) -> None:
    assert DIALECT.detect(body) == 0


@settings(max_examples=200, deadline=None)
@given(_junk_bodies)
def test_detect_never_raises(body: Any) -> None:
    assert DIALECT.detect(body) >= 0
