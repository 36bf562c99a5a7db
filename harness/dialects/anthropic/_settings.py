"""The settings of an Anthropic body both ways: the fields outside the prefix that matter to
the cache (``ParsedBody.settings``), the neutral ``Settings`` read from them, and the body
fields rendered from those.

Unknown top-level fields (``output_config``, ``context_management``, ``container``,
``mcp_servers``, ``metadata``, ``service_tier``, a top-level ``cache_control``), and a named
setting whose value the neutral settings cannot say (a tool_choice with options), go to
``Settings.extra["anthropic"]`` in body order, and render as sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from ...model import (
    Json,
    OutputSchema,
    Settings,
    ThinkingConfig,
    ToolChoice,
    dumps,
    freeze,
    thaw,
)
from .._base import DialectError
from ._facts import NAME
from ._fields import compact, field, required_str, strings

__all__ = ["SETTING_KEYS", "cache_settings", "read_settings", "render_settings"]

SETTING_KEYS: Final = frozenset(
    {"model", "max_tokens", "temperature", "top_p", "top_k", "stop_sequences", "thinking"}
    | {"tool_choice", "output_format", "output_config"}
)
_KNOWN_KEYS: Final = (SETTING_KEYS - {"output_config"}) | {"system", "tools", "messages"}
"""Top-level fields the neutral model names; any other is kept in ``extra``."""
_THINKING_MODES: Final[dict[str, Literal["enabled", "disabled", "adaptive"]]] = {
    "enabled": "enabled",
    "disabled": "disabled",
    "adaptive": "adaptive",
}
_CHOICE_MODES: Final[dict[str, Literal["auto", "none", "required", "tool"]]] = {
    "auto": "auto",
    "any": "required",
    "tool": "tool",
    "none": "none",
}
_CHOICE_TYPES: Final = {"auto": "auto", "required": "any", "tool": "any", "none": "none"}


def cache_settings(body: Mapping[str, Any]) -> dict[str, Any]:
    """The fields outside the prefix that matter to the cache, as sent."""
    return {key: value for key, value in body.items() if key in SETTING_KEYS}


def read_settings(body: Mapping[str, Any]) -> Settings:
    """The neutral settings, with every field they cannot say in ``extra``."""
    number, integer = (int, float), (int,)
    stop = field(body, "stop_sequences", "", (list,), "an array of strings")
    named = Settings(
        model=field(body, "model", "", (str,), "a string"),
        temperature=field(body, "temperature", "", number, "a number"),
        top_p=field(body, "top_p", "", number, "a number"),
        top_k=field(body, "top_k", "", integer, "an integer"),
        max_output_tokens=field(body, "max_tokens", "", integer, "an integer"),
        stop=None if stop is None else strings(stop, "stop_sequences"),
        thinking=_thinking_config(body),
        tool_choice=_tool_choice(body),
        output_schema=_output_schema(body),
    )
    return named.with_extra(NAME, _extra(body, named))


def _thinking_config(body: Mapping[str, Any]) -> ThinkingConfig | None:
    thinking = field(body, "thinking", "", (dict,), "an object")
    if thinking is None:
        return None
    mode = _THINKING_MODES.get(required_str(thinking, "type", "thinking"))
    if mode is None:
        raise DialectError("must be enabled, disabled or adaptive", path="thinking.type")
    budget = field(thinking, "budget_tokens", "thinking", (int,), "an integer")
    return ThinkingConfig(mode=mode, budget_tokens=budget)


def _tool_choice(body: Mapping[str, Any]) -> ToolChoice | None:
    choice = field(body, "tool_choice", "", (dict,), "an object")
    if choice is None:
        return None
    mode = _CHOICE_MODES.get(required_str(choice, "type", "tool_choice"))
    if mode is None:
        raise DialectError("must be auto, any, tool or none", path="tool_choice.type")
    if mode == "tool":
        return ToolChoice(mode, (required_str(choice, "name", "tool_choice"),))
    return ToolChoice(mode)


def _output_schema(body: Mapping[str, Any]) -> OutputSchema | None:
    output = field(body, "output_format", "", (dict,), "an object")
    if output is None:
        return None
    if output.get("type") != "json_schema" or "schema" not in output:
        raise DialectError("must be a json_schema with a schema", path="output_format")
    return OutputSchema(freeze(output["schema"]))


def _extra(body: Mapping[str, Any], named: Settings) -> dict[str, Json]:
    """Unknown top-level fields in body order, and each named setting whose value renders
    back otherwise from the neutral settings (a tool_choice with options, a thinking object
    with fields of its own): render writes those as sent."""
    rendered = render_settings(named)
    return {
        key: freeze(value)
        for key, value in body.items()
        if key not in _KNOWN_KEYS
        or (key in SETTING_KEYS and dumps(rendered.get(key)) != dumps(value))
    }


def render_settings(settings: Settings) -> dict[str, Any]:
    """The named settings as body fields, in body order, those that are set."""
    output = settings.output_schema
    schema = None if output is None else thaw(output.schema)
    return compact(
        model=settings.model,
        max_tokens=settings.max_output_tokens,
        tool_choice=_render_tool_choice(settings.tool_choice),
        thinking=_render_thinking(settings.thinking),
        temperature=settings.temperature,
        top_p=settings.top_p,
        top_k=settings.top_k,
        stop_sequences=None if settings.stop is None else list(settings.stop),
        output_format=None if output is None else {"type": "json_schema", "schema": schema},
    )


def _render_tool_choice(choice: ToolChoice | None) -> dict[str, Any] | None:
    """The choice; a body's own tool_choice with options is kept in ``extra`` instead."""
    if choice is None:
        return None
    name = choice.names[0] if choice.mode == "tool" and choice.names else None
    return compact(type="tool" if name else _CHOICE_TYPES[choice.mode], name=name)


def _render_thinking(thinking: ThinkingConfig | None) -> dict[str, Any] | None:
    """A budget without a mode means enabled; effort has no Anthropic form here."""
    if thinking is None or (thinking.mode is None and thinking.budget_tokens is None):
        return None
    return compact(type=thinking.mode or "enabled", budget_tokens=thinking.budget_tokens)
