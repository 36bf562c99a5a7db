"""OpenAI chat completions prefix segments in cache order, and the envelope they validate
(_prefix)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects import DialectError
from harness.dialects.openai import DIALECT

from .support import ENVELOPE_ERRORS


def test_segments_without_tools_or_format_are_just_messages() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "response_format": None}
    assert [s.name for s in DIALECT.segments(body)] == ["messages[0]"]


@pytest.mark.parametrize(("body", "path", "reason"), ENVELOPE_ERRORS)
def test_envelope_errors_raise_from_segments_and_parse(body: Any, path: str, reason: str) -> None:
    for call in (DIALECT.segments, DIALECT.parse, DIALECT.to_request):
        with pytest.raises(DialectError) as caught:
            call(body)
        assert caught.value.path == path
        assert caught.value.reason.startswith(reason)
