"""The readers' fast path for a plain text part gives what the full reading gives, and only
for parts that render back to their own bytes (key order and value types included)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from harness.dialects import anthropic, gemini, openai
from harness.dialects._base import DialectError
from harness.dialects._memo import forget

_TYPED = [
    {"type": "text", "text": "a"},
    {"type": "text", "text": ""},
    {"text": "a", "type": "text"},  # another key order: not the bytes Text renders
    {"type": "text", "text": "a", "x": 1},
    {"type": "text", "text": 1},
    {"type": "text", "text": None},
    {"type": "text", "text": True},
    {"type": "text"},
    {"type": "txt", "text": "a"},
    {"type": 1, "text": "a"},
]
_GEMINI = [
    {"text": "a"},
    {"text": ""},
    {"text": "a", "thought": False},
    {"text": "a", "thought": True},
    {"text": 1},
    {"text": None},
    {"text": ["a"]},
    {"thought": True, "text": "a"},
]
_CASES: list[tuple[Any, list[dict[str, Any]], Any]] = [
    (anthropic, _TYPED, lambda p: {"messages": [{"role": "user", "content": [p]}]}),
    (openai, _TYPED, lambda p: {"messages": [{"role": "user", "content": [p]}]}),
    (gemini, _GEMINI, lambda p: {"contents": [{"role": "user", "parts": [p]}]}),
]


def _read(module: Any, body: dict[str, Any]) -> object:
    forget()
    try:
        request = module.DIALECT.to_request(orjson.loads(orjson.dumps(body)))
    except DialectError as e:
        return str(e)
    return repr(request), [orjson.dumps(m.wire) for m in request.history]


@pytest.mark.parametrize(("module", "parts", "body"), _CASES)
def test_a_plain_text_part_reads_as_the_full_reading_reads_it(
    module: Any, parts: list[dict[str, Any]], body: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = [_read(module, body(part)) for part in parts]
    monkeypatch.setattr(module, "_plain_text", lambda part: False)
    assert fast == [_read(module, body(part)) for part in parts]
