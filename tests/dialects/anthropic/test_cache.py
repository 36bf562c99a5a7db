"""Anthropic's cache plan: breakpoints from markers or automatic caching, none without
either."""

from __future__ import annotations

from harness.dialects.anthropic._cache import plan as anthropic_plan
from harness.prefix._simulate import CacheSimulator
from tests.dialects.cache_support import blocks, facts, send


def test_without_a_marker_anthropic_caches_nothing_and_says_so() -> None:
    units = blocks(5)
    plan = anthropic_plan(units, {}, facts())
    assert not plan.caching
    assert "caches nothing" in plan.notes[0]
    sim = CacheSimulator()
    assert send(sim, units, plan).written == 0
    assert len(sim) == 0


def test_automatic_caching_marks_the_last_cacheable_block() -> None:
    units = blocks(5)
    plan = anthropic_plan(units, {"cache_control": {"type": "ephemeral"}}, facts())
    assert [w.position for w in plan.writes] == [5]
    assert "automatic caching" in plan.notes[0]


def test_a_breakpoint_checks_itself_and_the_19_blocks_before_it() -> None:
    units = blocks(30, marked=(29,))
    (walk,) = anthropic_plan(units, {}, facts()).lookups
    assert walk == tuple(range(30, 10, -1))
