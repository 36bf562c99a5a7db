"""The settings of a Gemini body both ways: the fields that matter to the cache
(``ParsedBody.settings``: every ``generationConfig.<field>`` as sent, and
``cachedContent``), the neutral ``Settings`` read from ``generationConfig`` and
``toolConfig``, and those rendered back. The model name travels in the URL, not the body,
so ``Settings.model`` stays unset.

Unknown top-level fields (``cachedContent``, ``labels``, ``safetySettings``), non-function
tools and unknown ``toolConfig`` / ``generationConfig`` fields are kept in
``Settings.extra["gemini"]`` (the leftovers of a known container under its name).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from ...model import (
    FrozenDict,
    Json,
    OutputSchema,
    Settings,
    ThinkingConfig,
    ToolChoice,
    freeze,
    join_path,
)
from .._base import DialectError
from ._facts import NAME
from ._fields import NUMBER, field, strings

__all__ = [
    "MERGED",
    "cache_settings",
    "read_settings",
    "render_config",
    "render_tool_config",
]

_KNOWN_TOP: Final = frozenset(
    ["contents", "systemInstruction", "tools", "toolConfig", "generationConfig"]
)
_KNOWN_CONFIG: Final = frozenset(
    ["temperature", "topP", "topK", "maxOutputTokens", "stopSequences", "thinkingConfig"]
) | {"responseSchema", "responseJsonSchema"}
MERGED: Final = ("tools", "toolConfig", "generationConfig", "declarations", "systemInstruction")
"""Keys of our ``Settings.extra`` entry that hold leftovers of known containers, not fields."""
_JSON_MIME: Final = "application/json"
_PARSE_MODES: Final[dict[str, Literal["auto", "none", "required"]]] = {
    "AUTO": "auto",
    "MODE_UNSPECIFIED": "auto",
    "VALIDATED": "auto",
    "NONE": "none",
    "ANY": "required",
}
_RENDER_MODES: Final = {"auto": "AUTO", "none": "NONE", "required": "ANY", "tool": "ANY"}
_MODE_BUDGETS: Final = {"disabled": 0, "adaptive": -1}
"""Neutral thinking modes as gemini budgets: 0 turns thinking off, -1 is dynamic thinking."""


def cache_settings(body: Mapping[str, Any]) -> dict[str, Any]:
    """Every ``generationConfig.<field>`` as sent, plus ``cachedContent``."""
    out: dict[str, Any] = {}
    config = body.get("generationConfig")
    if isinstance(config, dict):
        out.update((join_path("generationConfig", k), v) for k, v in config.items())
    if "cachedContent" in body:
        out["cachedContent"] = body["cachedContent"]
    return out


def read_settings(body: Mapping[str, Any], other_tools: tuple[Json, ...]) -> Settings:
    """Named generationConfig fields, the tool choice, and everything else in ``extra``."""
    config = body.get("generationConfig") or {}
    path = "generationConfig"
    schema = _output_schema(config, path)
    return Settings(
        temperature=field(config, "temperature", NUMBER, path),
        top_p=field(config, "topP", NUMBER, path),
        top_k=field(config, "topK", int, path),
        max_output_tokens=field(config, "maxOutputTokens", int, path),
        stop=strings(config, "stopSequences", path),
        thinking=_thinking(config, path),
        tool_choice=_tool_choice(body.get("toolConfig") or {}),
        output_schema=schema,
        extra=_extra(body, config, other_tools, schema),
    )


def _thinking(config: Mapping[str, Any], base: str) -> ThinkingConfig | None:
    """thinkingConfig: budget, includeThoughts and thinkingLevel (as the neutral effort)."""
    thinking = field(config, "thinkingConfig", dict, base)
    if thinking is None:
        return None
    path = join_path(base, "thinkingConfig")
    return ThinkingConfig(
        budget_tokens=field(thinking, "thinkingBudget", int, path),
        effort=field(thinking, "thinkingLevel", str, path),
        include_thoughts=field(thinking, "includeThoughts", bool, path),
    )


def _tool_choice(tool_config: Mapping[str, Any]) -> ToolChoice | None:
    """functionCallingConfig: ANY with one allowed name forces that tool; VALIDATED reads as
    auto, its nearest neutral mode."""
    calling = field(tool_config, "functionCallingConfig", dict, "toolConfig")
    if calling is None:
        return None
    path = join_path("toolConfig", "functionCallingConfig")
    mode = field(calling, "mode", str, path) or "AUTO"
    names = strings(calling, "allowedFunctionNames", path) or ()
    if mode not in _PARSE_MODES:
        raise DialectError(f"unknown function calling mode {mode!r}", path=join_path(path, "mode"))
    if _PARSE_MODES[mode] == "required" and len(names) == 1:
        return ToolChoice("tool", names)
    return ToolChoice(_PARSE_MODES[mode], names)


def _output_schema(config: Mapping[str, Any], path: str) -> OutputSchema | None:
    """responseSchema or responseJsonSchema; Gemini has no schema name or strict flag."""
    keys = [k for k in ("responseSchema", "responseJsonSchema") if k in config]
    if len(keys) > 1:
        raise DialectError("use responseSchema or responseJsonSchema, not both", path=path)
    return OutputSchema(freeze(config[keys[0]])) if keys else None


def _extra(
    body: Mapping[str, Any],
    config: Mapping[str, Any],
    other_tools: tuple[Json, ...],
    schema: OutputSchema | None,
) -> FrozenDict:
    """Unknown top-level fields in body order, then the leftovers of known containers:
    non-function ``tools``, unknown ``toolConfig`` and ``generationConfig`` keys."""
    own: dict[str, Any] = {k: freeze(v) for k, v in body.items() if k not in _KNOWN_TOP}
    tool_config = body.get("toolConfig") or {}
    leftovers: dict[str, Any] = {
        "tools": other_tools,
        "toolConfig": {k: v for k, v in tool_config.items() if k != "functionCallingConfig"},
        "generationConfig": {k: v for k, v in config.items() if k not in _KNOWN_CONFIG},
    }
    if schema is not None and config.get("responseMimeType") == _JSON_MIME:
        del leftovers["generationConfig"]["responseMimeType"]  # render_config emits it anyway
    own.update((k, freeze(v)) for k, v in leftovers.items() if v)
    return FrozenDict({NAME: FrozenDict(own)}) if own else FrozenDict()


def render_tool_config(choice: ToolChoice | None, rest: Mapping[str, Any]) -> dict[str, Any]:
    """functionCallingConfig from the tool choice, then the kept unknown toolConfig keys."""
    tool_config: dict[str, Any] = {}
    if choice is not None:
        calling: dict[str, Any] = {"mode": _RENDER_MODES[choice.mode]}
        if choice.names:
            calling["allowedFunctionNames"] = list(choice.names)
        tool_config["functionCallingConfig"] = calling
    tool_config.update(rest)
    return tool_config


def render_config(settings: Settings, rest: Mapping[str, Any]) -> dict[str, Any]:
    """generationConfig: sampling, limits, kept unknown keys, the output schema, thinking."""
    config: dict[str, Any] = {}
    named = (
        ("temperature", settings.temperature),
        ("topP", settings.top_p),
        ("topK", settings.top_k),
        ("maxOutputTokens", settings.max_output_tokens),
        ("stopSequences", None if settings.stop is None else list(settings.stop)),
    )
    config.update((key, value) for key, value in named if value is not None)
    config.update(rest)
    if settings.output_schema is not None:
        config.setdefault("responseMimeType", _JSON_MIME)
        config["responseSchema"] = settings.output_schema.schema
    if settings.thinking is not None:
        config["thinkingConfig"] = _render_thinking(settings.thinking)
    return config


def _render_thinking(thinking: ThinkingConfig) -> dict[str, Any]:
    """thinkingConfig; a neutral mode without a budget maps to budget 0 (off) or -1 (dynamic)."""
    budget = thinking.budget_tokens
    if budget is None and thinking.mode is not None:
        budget = _MODE_BUDGETS.get(thinking.mode)
    named = (
        ("includeThoughts", thinking.include_thoughts),
        ("thinkingBudget", budget),
        ("thinkingLevel", thinking.effort),
    )
    return {key: value for key, value in named if value is not None}
