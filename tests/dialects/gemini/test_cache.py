"""Gemini's cache plan: implicit, any unit boundary, an explicit cache noted."""

from __future__ import annotations

from harness.dialects.gemini._cache import plan as gemini_plan
from tests.dialects.cache_support import blocks, facts


def test_any_unit_boundary_is_a_lookup_and_earlier_ones_are_assumed() -> None:
    plan = gemini_plan(blocks(3), {}, facts())
    assert plan.lookups == ((3, 2, 1),)
    assert plan.assumed == (2, 1)
    assert "no boundary is documented" in plan.notes[0]


def test_an_explicit_cache_is_noted() -> None:
    plan = gemini_plan(blocks(2), {"cachedContent": "cachedContents/abc"}, facts())
    assert "cachedContents/abc" in plan.notes[-1]
