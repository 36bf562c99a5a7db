"""What every dialect states about its provider's cache: the settings it is keyed on."""

import pytest

from harness.dialects import all_dialects, get_dialect


@pytest.mark.parametrize("dialect", all_dialects())
def test_every_dialect_names_its_provider_and_cache_guide(dialect: str) -> None:
    d = get_dialect(dialect)
    assert d.provider
    assert d.cache_guide.startswith("https://")
    assert d.cache_keys, "a provider's cache is keyed on something beyond the prefix"
    assert set(d.cache_keys.values()) <= {"request", "system", "tools", "history"}


@pytest.mark.parametrize(
    ("dialect", "setting", "scope"),
    [
        ("openai", "model", "request"),
        ("openai", "prompt_cache_key", "request"),
        ("openai", "temperature", None),
        ("openai", "reasoning_effort", "request"),
        ("openai", "tool_choice", None),
        ("anthropic", "model", "request"),
        ("anthropic", "tool_choice", "history"),
        ("anthropic", "thinking", "history"),
        ("anthropic", "max_tokens", None),
        ("anthropic", "temperature", None),
        ("gemini", "cachedContent", "request"),
        ("gemini", "generationConfig.temperature", None),
        ("gemini", "generationConfig.thinkingConfig", None),
    ],
)
def test_cache_scope_of_a_setting(dialect: str, setting: str, scope: str | None) -> None:
    assert get_dialect(dialect).cache_scope(setting) == scope


def test_a_dotted_setting_is_keyed_by_its_head() -> None:
    d = get_dialect("gemini")
    assert d.cache_scope("cachedContent.name") == "request"
    assert d.cache_scope("cached") is None
