"""A Gemini generateContent body read into the neutral model (_read)."""

from __future__ import annotations

from harness.dialects.gemini import DIALECT


def test_a_missing_role_is_user() -> None:
    body = {"contents": [{"parts": [{"text": "hi"}]}, {"role": "", "parts": []}]}
    assert [m.role for m in DIALECT.parse(body).request.history] == ["user", "user"]
