"""OpenAI's cache plan: lookup boundaries for GPT-5.6 and later, whole 128-token blocks
before, DeepSeek's prefix units."""

from __future__ import annotations

import pytest

from harness.dialects._openai_cache import deepseek_plan, legacy_model, openai_plan
from tests.dialects.cache_support import blocks, facts


def test_openai_explicit_only_without_breakpoints_does_not_cache() -> None:
    units = blocks(3)
    plan = openai_plan(units, {"prompt_cache_options": {"mode": "explicit"}}, facts())
    assert not plan.caching
    assert plan.notes


@pytest.mark.parametrize(
    ("name", "legacy"),
    [("gpt-4o", True), ("gpt-5.5", True), ("o3-mini", True), ("gpt-5.6-sol", False), ("x", False)],
)
def test_legacy_models(name: str, legacy: bool) -> None:
    assert legacy_model(name) is legacy


def test_the_implicit_breakpoint_is_the_latest_eligible_end() -> None:
    plan = openai_plan(blocks(4), {"model": "gpt-5.6-terra"}, facts())
    assert [w.position for w in plan.writes] == [4]
    assert plan.lookups == ((4, 3, 2, 1),)
    assert plan.assumed == (1, 2, 3)


def test_deepseek_persists_the_whole_input_and_knows_earlier_message_ends() -> None:
    plan = deepseek_plan(blocks(3), {"model": "deepseek-chat"}, facts())
    assert [w.position for w in plan.writes] == [3]
    assert plan.assumed == (1, 2)
