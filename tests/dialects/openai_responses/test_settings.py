"""OpenAI Responses settings both ways, and the fields kept in Settings.extra (_settings)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects.openai_responses import DIALECT
from harness.model import (
    ToolChoice,
)

from .support import codex_like, parse, render_dict


def test_settings_flatten_reasoning_and_text() -> None:
    assert DIALECT.settings(codex_like()) == {
        "model": "gpt-5.6",
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "prompt_cache_key": "conversation-1",
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "reasoning.effort": "high",
        "reasoning.summary": "auto",
        "text.verbosity": "low",
    }


@pytest.mark.parametrize(
    ("setting", "scope"),
    [
        ("model", "request"),
        ("prompt_cache_key", "request"),
        ("reasoning.effort", "request"),
        ("reasoning.summary", None),
        ("text.verbosity", None),
        ("store", None),
        ("temperature", None),
    ],
)
def test_cache_scope(setting: str, scope: str | None) -> None:
    assert DIALECT.cache_scope(setting) == scope


@pytest.mark.parametrize(
    ("wire", "choice"),
    [
        ("none", ToolChoice("none")),
        ("required", ToolChoice("required")),
        ({"type": "function", "name": "f"}, ToolChoice("tool", ("f",))),
        (
            {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "f"}]},
            ToolChoice("auto", ("f",)),
        ),
    ],
)
def test_tool_choice_both_ways(wire: Any, choice: ToolChoice) -> None:
    body = {"input": [], "tool_choice": wire}
    assert parse(body).preset.settings.tool_choice == choice
    assert render_dict(parse(body))["tool_choice"] == wire


def test_a_tool_choice_without_neutral_form_is_kept_as_sent() -> None:
    body = {"input": [], "tool_choice": {"type": "web_search"}}
    assert parse(body).preset.settings.tool_choice is None
    assert render_dict(parse(body))["tool_choice"] == {"type": "web_search"}


def test_a_format_that_does_not_render_back_stays_in_extra_and_in_the_prefix() -> None:
    fmt = {"type": "json_schema", "name": "a", "schema": {}, "description": "why"}
    body = {"input": [], "text": {"format": fmt}}
    parsed = DIALECT.parse(body)
    assert parsed.request.preset.settings.output_schema is None
    assert [s.name for s in parsed.segments] == ["text.format"]
    assert render_dict(parsed.request)["text"] == {"format": fmt}
