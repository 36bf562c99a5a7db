"""Gemini generateContent settings both ways, and the fields kept in Settings.extra
(_settings)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.dialects.gemini import DIALECT
from harness.model import (
    FrozenDict,
    OutputSchema,
    ThinkingConfig,
    ToolChoice,
)

from .support import body_of, frozen, minimal, realistic_body


@pytest.mark.parametrize(
    ("config", "choice"),
    [
        ({"mode": "AUTO"}, ToolChoice("auto")),
        ({"mode": "VALIDATED"}, ToolChoice("auto")),
        ({"mode": "NONE"}, ToolChoice("none")),
        ({"mode": "ANY"}, ToolChoice("required")),
        ({"mode": "ANY", "allowedFunctionNames": ["a"]}, ToolChoice("tool", ("a",))),
        ({"mode": "ANY", "allowedFunctionNames": ["a", "b"]}, ToolChoice("required", ("a", "b"))),
    ],
)
def test_function_calling_modes(config: dict[str, Any], choice: ToolChoice) -> None:
    body = minimal(toolConfig={"functionCallingConfig": config})
    assert DIALECT.parse(body).request.preset.settings.tool_choice == choice


def test_json_schema_variants_and_thinking_level() -> None:
    body = minimal(
        generationConfig={
            "responseMimeType": "application/json",
            "responseJsonSchema": {"type": "string"},
            "thinkingConfig": {"thinkingLevel": "low"},
        }
    )
    parsed = DIALECT.parse(body).request.preset.settings
    assert parsed.output_schema == OutputSchema(FrozenDict({"type": "string"}))
    assert parsed.thinking == ThinkingConfig(effort="low")
    assert parsed.extra == FrozenDict()
    assert body_of(DIALECT.parse(body).request)["generationConfig"] == {
        "responseMimeType": "application/json",
        "responseSchema": {"type": "string"},
        "thinkingConfig": {"thinkingLevel": "low"},
    }


def test_settings_lists_generation_config_fields_and_cached_content() -> None:
    parsed = DIALECT.parse(realistic_body())
    assert parsed.settings == {
        "generationConfig.temperature": 0.4,
        "generationConfig.topP": 0.95,
        "generationConfig.topK": 40,
        "generationConfig.maxOutputTokens": 2048,
        "generationConfig.stopSequences": ["END"],
        "generationConfig.candidateCount": 1,
        "generationConfig.responseMimeType": "application/json",
        "generationConfig.responseSchema": {
            "type": "object",
            "properties": {"answer": {"type": "string"}},
        },
        "generationConfig.thinkingConfig": {"thinkingBudget": 1024, "includeThoughts": True},
        "cachedContent": "cachedContents/abc123",
    }
    assert DIALECT.parse(minimal(toolConfig={})).settings == {}


def test_unknown_fields_round_trip_through_extra() -> None:
    body = minimal(
        labels={"team": "x"},
        toolConfig={"retrievalConfig": {"languageCode": "en"}},
        generationConfig={"seed": 7, "responseMimeType": "text/plain", "temperature": 0},
    )
    request = DIALECT.parse(body).request
    assert request.preset.settings.extra == frozen(
        {
            "gemini": {
                "labels": {"team": "x"},
                "toolConfig": {"retrievalConfig": {"languageCode": "en"}},
                "generationConfig": {"seed": 7, "responseMimeType": "text/plain"},
            }
        }
    )
    rendered = body_of(request)
    assert rendered["labels"] == {"team": "x"}
    assert rendered["toolConfig"] == {"retrievalConfig": {"languageCode": "en"}}
    assert rendered["generationConfig"] == {
        "temperature": 0,
        "seed": 7,
        "responseMimeType": "text/plain",
    }
    assert DIALECT.parse(minimal()).request.preset.settings.extra == FrozenDict()
