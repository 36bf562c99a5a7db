"""Gemini's rendered prefix: envelope key order drops out; undocumented spellings stay apart."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects.gemini._units import units as gemini_units


def data(units: Any) -> list[tuple[str, bytes]]:
    return [(u.name, u.data) for u in units]


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ({"functionCall": {"name": "f"}}, {"functionCall": {"name": "f", "args": {}}}),
        ({"text": "x"}, {"text": "y"}),
    ],
)
def test_gemini_undocumented_spellings_stay_apart(one: Any, other: Any) -> None:
    def body(part: Any) -> Any:
        return {"contents": [{"role": "model", "parts": [part]}]}

    assert data(gemini_units(body(one))) != data(gemini_units(body(other)))


def test_gemini_envelope_key_order_does_not_count() -> None:
    a = {"inlineData": {"mimeType": "image/png", "data": "AA=="}}
    b = {"inlineData": {"data": "AA==", "mimeType": "image/png"}}
    body = lambda p: {"contents": [{"role": "user", "parts": [p]}]}  # noqa: E731
    assert data(gemini_units(body(a))) == data(gemini_units(body(b)))
