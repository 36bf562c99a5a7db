"""What every dialect states about its provider's cache (``Facts``), each from a dated link."""

from datetime import date

import pytest

from harness.dialects import Facts, Link, Markers, all_dialects, get_dialect


@pytest.mark.parametrize("dialect", all_dialects())
def test_every_dialect_names_its_provider_and_cache_guide(dialect: str) -> None:
    facts = get_dialect(dialect).facts
    assert facts.name == dialect
    assert facts.title
    assert facts.provider
    assert facts.cache_guide.startswith("https://")
    assert facts.cache_keys, "a provider's cache is keyed on something beyond the prefix"
    assert set(facts.cache_keys.values()) <= {"request", "system", "tools", "history"}
    assert set(facts.segments.values()) <= {"system", "tools", "settings", "history"}
    assert facts.link("request") is not None
    for link in facts.links:
        assert link.url.startswith("https://")
        assert date.fromisoformat(link.read) <= date.today()


def test_a_link_is_found_by_its_topic() -> None:
    facts = Facts(
        name="x",
        title="X",
        provider="X",
        segments={"messages": "history"},
        links=(Link("request", "https://x.test/a", "2026-01-01"),),
    )
    assert facts.link("request") == Link("request", "https://x.test/a", "2026-01-01")
    assert facts.link("caching") is None
    assert facts.cache_guide == ""
    assert facts.markers is None
    assert facts.tokenizer is None


def test_the_marker_facts_of_the_dialects_with_markers() -> None:
    with_markers = {n: d.facts.markers for n, d in all_dialects().items() if d.facts.markers}
    assert with_markers == {
        "anthropic": Markers(limit=4, lookback=20, default_ttl="5m"),
        "openai-responses": Markers(limit=4, lookback=None, default_ttl="30m"),
    }


def test_miss_reasons_by_family_and_by_setting() -> None:
    from harness.dialects import get_dialect

    anthropic = get_dialect("anthropic").facts
    assert anthropic.miss_reason("tools") == "tools_changed"
    assert anthropic.miss_reason("history") == "messages_changed"
    assert anthropic.miss_reason("model") == "model_changed"
    assert anthropic.miss_reason("tool_choice") == "unavailable"
    responses = get_dialect("openai-responses").facts
    assert responses.miss_reason("reasoning.effort") == "reasoning_effort_changed"
    assert responses.miss_reason("text.format") == "text_format_changed"
    assert responses.miss_reason("system") == "input_changed"
    assert get_dialect("gemini").facts.miss_reason("tools") is None
