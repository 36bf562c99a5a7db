"""Presets and settings (harness/model/_preset.py): dialect-own extra fields."""

from __future__ import annotations

from harness.model import FrozenDict, Settings


def test_with_extra_adds_to_one_dialects_own_entry() -> None:
    settings = Settings(extra=FrozenDict({"openai": FrozenDict({"store": True})}))
    assert settings.with_extra("openai", {}) is settings
    merged = settings.with_extra("openai", {"metadata": "m"})
    assert merged.extra == {"openai": {"store": True, "metadata": "m"}}
    assert settings.with_extra("gemini", {"labels": "x"}).extra["openai"] == {"store": True}
