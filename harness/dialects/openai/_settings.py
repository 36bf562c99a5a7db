"""The settings of a chat completions body both ways: the cache-relevant fields outside the
prefix (``ParsedBody.settings``), the neutral ``Settings`` read from the body, and the body
fields rendered from them. Fields with no neutral home go to ``Settings.extra["openai"]``
in body order."""

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
)
from .._base import DialectError
from .._openai_reading import field, obj, string
from ._facts import NAME
from ._tools import TOOL_EXTRAS

__all__ = [
    "OWN_FIELDS",
    "cache_settings",
    "read_settings",
    "render_output_schema",
    "render_sampling",
    "render_tool_choice",
]

_MODES: Final[tuple[Literal["auto", "none", "required"], ...]] = ("auto", "none", "required")
_SETTING_KEYS: Final = (
    *("model", "temperature", "top_p", "max_tokens", "max_completion_tokens", "stop"),
    *("reasoning_effort", "tool_choice", "parallel_tool_calls", "seed", "n"),
    *("presence_penalty", "frequency_penalty", "prompt_cache_key", "prompt_cache_retention"),
)
OWN_FIELDS: Final = frozenset(
    {"model", "messages", "tools", "tool_choice", "temperature", "top_p", "stop"}
    | {"max_completion_tokens", "reasoning_effort"}
)
"""Top-level fields that render always writes from the neutral model, never from ``extra``."""


def cache_settings(body: Mapping[str, Any]) -> dict[str, Any]:
    """The cache-relevant fields outside the prefix, raw, under their body names."""
    return {key: body[key] for key in _SETTING_KEYS if key in body}


def read_settings(body: Mapping[str, Any], tool_extras: FrozenDict) -> Settings:
    """Named settings from the body; every other top-level field goes to ``extra``."""
    max_key = "max_tokens" if body.get("max_completion_tokens") is None else "max_completion_tokens"
    stop = field(body, "stop", (str, list), "a string or an array of strings")
    effort = string(body, "reasoning_effort")
    schema = _output_schema(body.get("response_format"))
    extra = _extra_fields(body, schema)
    if tool_extras:
        extra[TOOL_EXTRAS] = tool_extras
    return Settings(
        model=body.get("model"),
        temperature=field(body, "temperature", (int, float), "a number"),
        top_p=field(body, "top_p", (int, float), "a number"),
        max_output_tokens=field(body, max_key, (int,), "an integer"),
        stop=None if stop is None else _stop(stop),
        thinking=None if effort is None else ThinkingConfig(effort=effort),
        tool_choice=_tool_choice(body.get("tool_choice")),
        output_schema=schema,
        extra=FrozenDict({NAME: FrozenDict(extra)}) if extra else FrozenDict(),
    )


def _stop(stop: str | list[Any]) -> tuple[str, ...]:
    """Stop sequences as a tuple: one string or an array of strings."""
    if isinstance(stop, str):
        return (stop,)
    for i, item in enumerate(stop):
        if not isinstance(item, str):
            raise DialectError(
                f"a stop sequence must be a string, not {json_kind(item)}", path=f"stop[{i}]"
            )
    return tuple(stop)


def _extra_fields(body: Mapping[str, Any], schema: OutputSchema | None) -> dict[str, Json]:
    """Top-level fields with no neutral home, frozen, in body order."""
    skip = set(OWN_FIELDS)
    if body.get("max_completion_tokens") is None or body.get("max_tokens") is None:
        skip.add("max_tokens")
    if schema is not None or body.get("response_format") is None:
        skip.add("response_format")
    return {key: freeze(value) for key, value in body.items() if key not in skip}


def _output_schema(fmt: Any) -> OutputSchema | None:
    """A ``json_schema`` response format; other formats are not a neutral schema."""
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        return None
    path = "response_format.json_schema"
    spec = obj(fmt.get("json_schema"), path)
    return OutputSchema(
        schema=freeze(spec.get("schema")),
        name=string(spec, "name", path),
        strict=field(spec, "strict", (bool,), "a boolean", path),
    )


def _tool_choice(value: Any) -> ToolChoice | None:
    """A mode string, a forced function, or an ``allowed_tools`` restriction."""
    if value is None:
        return None
    for mode in _MODES:
        if value == mode:
            return ToolChoice(mode)
    kind = value.get("type") if isinstance(value, dict) else None
    if kind == "function":
        function = obj(value.get("function"), "tool_choice.function")
        return ToolChoice(
            "tool", (string(function, "name", "tool_choice.function", required=True),)
        )
    if kind == "allowed_tools":
        allowed = obj(value.get("allowed_tools"), "tool_choice.allowed_tools")
        if (allowed_mode := allowed.get("mode")) in ("auto", "required"):
            path = "tool_choice.allowed_tools"
            tools = field(allowed, "tools", (list,), "an array", path, required=True)
            return ToolChoice(allowed_mode, tuple(_choice_name(t, i) for i, t in enumerate(tools)))
    raise DialectError(
        'tool_choice must be "auto", "none", "required", a function or an allowed_tools object',
        path="tool_choice",
    )


def _choice_name(tool: Any, i: int) -> str:
    """The function name of one ``allowed_tools`` entry."""
    path = f"tool_choice.allowed_tools.tools[{i}]"
    function = obj(obj(tool, path).get("function"), f"{path}.function")
    return str(string(function, "name", f"{path}.function", required=True))


def render_tool_choice(choice: ToolChoice) -> Any:
    """Mode string, forced function, or ``allowed_tools`` when a mode names tools."""
    if choice.mode == "tool" and len(choice.names) == 1:
        return {"type": "function", "function": {"name": choice.names[0]}}
    mode = "required" if choice.mode == "tool" else choice.mode
    if not choice.names or mode == "none":
        return mode
    tools = [{"type": "function", "function": {"name": n}} for n in choice.names]
    return {"type": "allowed_tools", "allowed_tools": {"mode": mode, "tools": tools}}


def render_output_schema(schema: OutputSchema) -> dict[str, Any]:
    """A ``json_schema`` response format; the name is required, so it defaults to "output"."""
    spec: dict[str, Any] = {"name": schema.name or "output"}
    if schema.schema is not None:
        spec["schema"] = schema.schema
    if schema.strict is not None:
        spec["strict"] = schema.strict
    return {"type": "json_schema", "json_schema": spec}


def render_sampling(settings: Settings) -> dict[str, Any]:
    """Sampling, length, stop and effort fields that are set (top_k has no form here)."""
    thinking = settings.thinking
    fields = {
        "temperature": settings.temperature,
        "top_p": settings.top_p,
        "max_completion_tokens": settings.max_output_tokens,
        "stop": None if settings.stop is None else list(settings.stop),
        "reasoning_effort": None if thinking is None else thinking.effort,
    }
    return {key: value for key, value in fields.items() if value is not None}
