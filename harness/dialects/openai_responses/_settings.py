"""The settings of a Responses body both ways: the cache-relevant fields outside the prefix
(``ParsedBody.settings``: each field of ``reasoning`` and of ``text``, but its format, by its
own dotted name), the neutral ``Settings`` (``reasoning.effort`` is the thinking effort,
``text.format`` the output schema when it renders back as sent), and those rendered back.
Other fields go to ``Settings.extra["openai-responses"]`` in body order."""

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
    json_kind,
    thaw,
)
from .._base import DialectError
from .._openai_reading import field, string
from ._facts import NAME
from ._tools import TOOL_EXTRAS

__all__ = [
    "CHOICE_KEPT",
    "OWN_FIELDS",
    "cache_settings",
    "read_settings",
    "render_reasoning",
    "render_sampling",
    "render_text",
    "render_tool_choice",
]

_MODES: Final[tuple[Literal["auto", "none", "required"], ...]] = ("auto", "none", "required")
_SETTING_KEYS: Final = (
    *("model", "temperature", "top_p", "max_output_tokens", "tool_choice"),
    *("parallel_tool_calls", "prompt_cache_key", "prompt_cache_retention"),
    *("prompt_cache_options", "previous_response_id", "conversation", "store", "include"),
    *("truncation", "service_tier", "max_tool_calls", "top_logprobs", "background"),
)
OWN_FIELDS: Final = frozenset(
    {"model", "instructions", "input", "tools", "tool_choice", "text", "reasoning"}
    | {"temperature", "top_p", "max_output_tokens"}
)
"""Top-level fields that render always writes from the neutral model, never from ``extra``."""
CHOICE_KEPT: Final = "tool_choice"
"""Reserved ``extra`` key: a tool choice the neutral model has no name for, as sent."""


def cache_settings(body: Mapping[str, Any]) -> dict[str, Any]:
    """The cache-relevant fields outside the prefix, raw; each field of ``reasoning`` and of
    ``text`` (but its format, a prefix segment) by its own dotted name."""
    out = {key: body[key] for key in _SETTING_KEYS if key in body}
    for nested in ("reasoning", "text"):
        value = body.get(nested)
        if isinstance(value, dict):
            out.update((f"{nested}.{k}", v) for k, v in value.items() if k != "format")
        elif value is not None:
            out[nested] = value
    return out


def read_settings(body: Mapping[str, Any], tool_extras: FrozenDict) -> Settings:
    """Named settings from the body; every other top-level field goes to ``extra``."""
    reasoning = body.get("reasoning") or {}
    effort = string(reasoning, "effort", "reasoning")
    text = body.get("text") or {}
    schema = _output_schema(text.get("format"))
    choice = _tool_choice(body.get("tool_choice"))
    extra: dict[str, Json] = {k: freeze(v) for k, v in body.items() if k not in OWN_FIELDS}
    rest_text = {k: v for k, v in text.items() if not (k == "format" and schema is not None)}
    if rest_text:
        extra["text"] = freeze(rest_text)
    rest_reasoning = {k: v for k, v in reasoning.items() if k != "effort"}
    if rest_reasoning:
        extra["reasoning"] = freeze(rest_reasoning)
    if choice is None and body.get("tool_choice") is not None:
        extra[CHOICE_KEPT] = freeze(body["tool_choice"])
    if tool_extras:
        extra[TOOL_EXTRAS] = tool_extras
    return Settings(
        model=body.get("model"),
        temperature=field(body, "temperature", (int, float), "a number"),
        top_p=field(body, "top_p", (int, float), "a number"),
        max_output_tokens=field(body, "max_output_tokens", (int,), "an integer"),
        thinking=None if effort is None else ThinkingConfig(effort=effort),
        tool_choice=choice,
        output_schema=schema,
        extra=FrozenDict({NAME: FrozenDict(extra)}) if extra else FrozenDict(),
    )


def _output_schema(fmt: Any) -> OutputSchema | None:
    """A ``json_schema`` format that renders back as sent; others stay in ``extra``."""
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        return None
    schema = OutputSchema(
        schema=freeze(fmt.get("schema")),
        name=string(fmt, "name", "text.format"),
        strict=field(fmt, "strict", (bool,), "a boolean", "text.format"),
    )
    return schema if _render_format(schema) == fmt else None


def _tool_choice(value: Any) -> ToolChoice | None:
    """A mode, a forced function, or an ``allowed_tools`` restriction; None for forms the
    neutral model has no name for (a built-in tool, a custom tool, an MCP server)."""
    if value is None:
        return None
    for mode in _MODES:
        if value == mode:
            return ToolChoice(mode)
    if not isinstance(value, dict):
        raise DialectError(
            f"tool_choice must be a mode string or an object, not {json_kind(value)}",
            path="tool_choice",
        )
    if value.get("type") == "function" and set(value) == {"type", "name"}:
        return ToolChoice("tool", (str(string(value, "name", "tool_choice", required=True)),))
    if value.get("type") == "allowed_tools" and value.get("mode") in ("auto", "required"):
        tools = field(value, "tools", (list,), "an array", "tool_choice", required=True)
        if all(isinstance(t, dict) and set(t) == {"type", "name"} for t in tools) and all(
            t["type"] == "function" and isinstance(t["name"], str) for t in tools
        ):
            allowed: Literal["auto", "required"] = value["mode"]
            return ToolChoice(allowed, tuple(t["name"] for t in tools))
    return None


def render_tool_choice(choice: ToolChoice | None, kept: Any) -> Any:
    """The tool choice; the one kept as sent when the neutral model has no name for it."""
    if choice is None:
        return None if kept is None else thaw(kept)
    if choice.mode == "tool" and len(choice.names) == 1:
        return {"type": "function", "name": choice.names[0]}
    mode = "required" if choice.mode == "tool" else choice.mode
    if not choice.names or mode == "none":
        return mode
    tools = [{"type": "function", "name": n} for n in choice.names]
    return {"type": "allowed_tools", "mode": mode, "tools": tools}


def _render_format(schema: OutputSchema) -> dict[str, Any]:
    """A ``json_schema`` format; the name is required, so it defaults to "output"."""
    out: dict[str, Any] = {"type": "json_schema", "name": schema.name or "output"}
    if schema.schema is not None:
        out["schema"] = thaw(schema.schema)
    if schema.strict is not None:
        out["strict"] = schema.strict
    return out


def render_text(schema: OutputSchema | None, kept: Any) -> dict[str, Any]:
    """The ``text`` object: the format, then the kept fields."""
    out: dict[str, Any] = {} if schema is None else {"format": _render_format(schema)}
    if isinstance(kept, dict):
        out.update((k, thaw(v)) for k, v in kept.items() if k not in out)
    return out


def render_reasoning(thinking: ThinkingConfig | None, kept: Any) -> dict[str, Any]:
    """The ``reasoning`` object: the effort, then the kept fields."""
    out: dict[str, Any] = {}
    if thinking is not None and thinking.effort is not None:
        out["effort"] = thinking.effort
    if isinstance(kept, dict):
        out.update((k, thaw(v)) for k, v in kept.items() if k != "effort")
    return out


def render_sampling(settings: Settings) -> dict[str, Any]:
    """Sampling and length fields that are set (stop and top_k have no form here)."""
    fields = {
        "temperature": settings.temperature,
        "top_p": settings.top_p,
        "max_output_tokens": settings.max_output_tokens,
    }
    return {key: value for key, value in fields.items() if value is not None}
