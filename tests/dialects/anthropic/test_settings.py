"""Anthropic messages settings both ways, and the fields kept in Settings.extra (_settings)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from harness.dialects.anthropic import DIALECT
from harness.model import (
    FrozenDict,
    Preset,
    Request,
    Settings,
    ThinkingConfig,
    ToolChoice,
)

from .support import minimal, parse, render_dict, user


def test_settings_lists_only_present_cache_relevant_fields() -> None:
    body = minimal(user("a"), stream=True, metadata={}, output_config={"effort": "high"}, top_p=0.9)
    assert DIALECT.settings(body) == {
        "model": "claude-haiku-4-5",
        "max_tokens": 1024,
        "output_config": {"effort": "high"},
        "top_p": 0.9,
    }


def test_unknown_fields_round_trip_through_extra_in_body_order() -> None:
    body = minimal(user("a"), service_tier="auto", metadata={"user_id": "u"}, stream=False)
    request = parse(body)
    assert request.preset.settings.extra == FrozenDict(
        {
            "anthropic": FrozenDict(
                {"service_tier": "auto", "metadata": FrozenDict({"user_id": "u"}), "stream": False}
            )
        }
    )
    assert orjson.loads(DIALECT.render(request)) == body
    assert parse(minimal(user("a"))).preset.settings.extra == FrozenDict()


@pytest.mark.parametrize(
    ("wire", "neutral"),
    [
        ({"type": "auto"}, ToolChoice("auto")),
        ({"type": "any"}, ToolChoice("required")),
        ({"type": "tool", "name": "search"}, ToolChoice("tool", ("search",))),
        ({"type": "none"}, ToolChoice("none")),
    ],
)
def test_tool_choice_maps_both_ways(wire: dict[str, Any], neutral: ToolChoice) -> None:
    request = parse(minimal(user("a"), tool_choice=wire))
    assert request.preset.settings.tool_choice == neutral
    assert request.preset.settings.extra == FrozenDict()
    assert render_dict(request)["tool_choice"] == wire


def test_thinking_without_mode_renders_enabled_and_effort_alone_is_dropped() -> None:
    budget_only = Settings(thinking=ThinkingConfig(budget_tokens=2048, effort="high"))
    assert render_dict(Request(Preset(settings=budget_only)))["thinking"] == {
        "type": "enabled",
        "budget_tokens": 2048,
    }
    effort_only = Settings(thinking=ThinkingConfig(effort="high"))
    assert "thinking" not in render_dict(Request(Preset(settings=effort_only)))
    adaptive = parse(minimal(user("a"), thinking={"type": "adaptive"}))
    assert adaptive.preset.settings.thinking == ThinkingConfig(mode="adaptive")
