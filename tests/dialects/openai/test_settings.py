"""OpenAI chat completions settings both ways, and the fields kept in Settings.extra
(_settings)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects.openai import DIALECT
from harness.model import (
    FrozenDict,
    OutputSchema,
    Preset,
    Request,
    Settings,
    ToolChoice,
    freeze,
)

from .support import parse, realistic_body, render_dict


def test_settings_lists_only_present_cache_relevant_fields() -> None:
    assert DIALECT.settings(realistic_body()) == {
        "model": "gpt-4.1",
        "temperature": 0.2,
        "top_p": 0.9,
        "max_completion_tokens": 1024,
        "stop": ["END"],
        "reasoning_effort": "high",
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "parallel_tool_calls": False,
        "seed": 7,
    }
    body = {"messages": [], "max_tokens": 5, "n": 2, "presence_penalty": 0.1, "stream": True}
    assert DIALECT.settings(body) == {"max_tokens": 5, "n": 2, "presence_penalty": 0.1}


def test_unknown_fields_round_trip_through_extra() -> None:
    body = {
        "messages": [{"role": "user", "content": "hi"}],
        "user": "u-1",
        "response_format": {"type": "json_object"},
        "max_completion_tokens": 10,
        "max_tokens": 20,
        "logit_bias": {"50256": -100},
        "n": 1,
    }
    request = parse(body)
    assert request.preset.settings.output_schema is None
    assert request.preset.settings.max_output_tokens == 10
    assert request.preset.settings.extra == freeze(
        {
            "openai": {
                "user": "u-1",
                "response_format": {"type": "json_object"},
                "max_tokens": 20,
                "logit_bias": {"50256": -100},
                "n": 1,
            }
        }
    )
    assert render_dict(request) == {
        "messages": [{"role": "user", "content": "hi"}],
        "max_completion_tokens": 10,
        "user": "u-1",
        "response_format": {"type": "json_object"},
        "max_tokens": 20,
        "logit_bias": {"50256": -100},
        "n": 1,
    }
    assert parse(render_dict(request)) == request


def test_no_unknown_fields_means_empty_extra() -> None:
    request = parse({"model": "m", "messages": [], "temperature": None})
    assert request.preset.settings == Settings(model="m")
    assert request.preset.settings.extra == FrozenDict()


def test_max_tokens_alone_renders_as_max_completion_tokens() -> None:
    request = parse({"messages": [], "max_tokens": 64, "stop": "\n\n"})
    assert request.preset.settings.max_output_tokens == 64
    assert request.preset.settings.stop == ("\n\n",)
    assert render_dict(request) == {"messages": [], "max_completion_tokens": 64, "stop": ["\n\n"]}


@pytest.mark.parametrize(
    ("wire", "choice"),
    [
        ("auto", ToolChoice("auto")),
        ("none", ToolChoice("none")),
        ("required", ToolChoice("required")),
        ({"type": "function", "function": {"name": "f"}}, ToolChoice("tool", ("f",))),
        (
            {
                "type": "allowed_tools",
                "allowed_tools": {
                    "mode": "required",
                    "tools": [
                        {"type": "function", "function": {"name": "a"}},
                        {"type": "function", "function": {"name": "b"}},
                    ],
                },
            },
            ToolChoice("required", ("a", "b")),
        ),
    ],
)
def test_tool_choice_both_ways(wire: Any, choice: ToolChoice) -> None:
    request = parse({"messages": [], "tool_choice": wire})
    assert request.preset.settings.tool_choice == choice
    assert render_dict(request)["tool_choice"] == wire


def test_output_schema_without_name_renders_a_default_name() -> None:
    request = Request(
        Preset(settings=Settings(output_schema=OutputSchema(freeze({"type": "object"}))))
    )
    assert render_dict(request)["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "output", "schema": {"type": "object"}},
    }
