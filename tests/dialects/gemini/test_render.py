"""The neutral model rendered as a Gemini generateContent body (_render)."""

from __future__ import annotations

from harness.dialects.gemini import DIALECT
from harness.model import (
    Preset,
    Request,
    Settings,
)

from .support import frozen


def test_other_dialects_extra_is_not_rendered() -> None:
    request = Request(Preset(settings=Settings(extra=frozen({"openai": {"user": "u"}}))))
    assert DIALECT.render(request) == b'{"contents":[]}'
