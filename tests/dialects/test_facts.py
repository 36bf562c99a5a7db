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
