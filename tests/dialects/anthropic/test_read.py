"""A Anthropic messages body read into the neutral model (_read)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects import DialectError
from harness.dialects.anthropic import DIALECT

from .support import minimal, user


@pytest.mark.parametrize(
    ("fields", "path"),
    [
        ({"system": [{"type": "image"}]}, "system[0]"),
        ({"tools": [{"name": "t"}]}, "tools[0].input_schema"),
        ({"tools": [{"name": "t", "input_schema": []}]}, "tools[0].input_schema"),
        ({"temperature": "hot"}, "temperature"),
        ({"max_tokens": True}, "max_tokens"),
        ({"stop_sequences": ["a", 1]}, "stop_sequences[1]"),
        ({"thinking": {"type": "maximal"}}, "thinking.type"),
        ({"tool_choice": {"type": "tool"}}, "tool_choice.name"),
        ({"output_format": {"type": "text"}}, "output_format"),
    ],
)
def test_to_request_rejects_malformed_preset_fields(fields: dict[str, Any], path: str) -> None:
    with pytest.raises(DialectError) as info:
        DIALECT.to_request(minimal(user("a"), **fields))
    assert info.value.path == path
