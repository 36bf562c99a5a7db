"""The registry: every list of dialects derives from it, and code outside adds to it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

import pytest

from harness.dialects import (
    Dialect,
    all_dialects,
    detect_dialect,
    get_dialect,
    providers,
    register,
    unregister,
    wires,
)
from harness.dialects.gemini import GeminiDialect


class Mirror(GeminiDialect):
    """Gemini's wire format under another name, with no capture wire."""

    facts = replace(GeminiDialect.facts, name="mirror", title="Mirror", provider="Mirror")
    wire = None

    def detect(self, body: Mapping[str, Any]) -> int:
        return 0


@pytest.fixture
def mirror() -> Iterator[Dialect]:
    dialect = register(Mirror())
    yield dialect
    unregister("mirror")


def test_the_built_in_dialects_in_name_order() -> None:
    assert list(all_dialects()) == ["anthropic", "gemini", "openai", "openai-responses"]
    assert get_dialect("gemini").name == "gemini"
    with pytest.raises(KeyError, match="known dialects: anthropic, gemini"):
        get_dialect("cohere")


def test_a_registered_dialect_is_listed_until_it_is_taken_away(mirror: Dialect) -> None:
    assert list(all_dialects()) == ["anthropic", "gemini", "mirror", "openai", "openai-responses"]
    assert get_dialect("mirror") is mirror
    assert register(mirror) is mirror  # the same object again: nothing changes
    assert "mirror" not in wires()  # it has no capture side
    assert "mirror" not in providers()
    unregister("mirror")
    assert "mirror" not in all_dialects()
    unregister("mirror")  # nothing to take away


def test_a_name_is_registered_once(mirror: Dialect) -> None:
    with pytest.raises(ValueError, match="a dialect named 'mirror' is registered already"):
        register(Mirror())
    with pytest.raises(TypeError, match="expected a Dialect"):
        register("gemini")  # type: ignore[arg-type]


def test_a_dialect_and_its_wire_have_one_name() -> None:
    class Crossed(Mirror):
        facts = replace(Mirror.facts, name="crossed")
        wire = get_dialect("gemini").wire

    with pytest.raises(ValueError, match="the crossed dialect's wire is the gemini wire"):
        register(Crossed())
    assert "crossed" not in all_dialects()


def test_the_fake_providers_serve_the_wires_of_one_provider_together() -> None:
    served = {name: [w.dialect for w in found] for name, found in providers().items()}
    assert served == {
        "anthropic": ["anthropic"],
        "gemini": ["gemini"],
        "openai": ["openai", "openai-responses"],
        "openai-responses": ["openai-responses", "openai"],
    }
    assert {name: w.dialect for name, w in wires().items()} == {n: n for n in served}


def test_detection_asks_every_registered_dialect(mirror: Dialect) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    assert detect_dialect(body) == (get_dialect("gemini"), True)
    assert detect_dialect({"nothing": 1}) == (None, False)
