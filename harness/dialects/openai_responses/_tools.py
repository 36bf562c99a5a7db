"""Tool declarations both ways: a flat ``function`` tool is a neutral Tool, its unknown
fields kept in ``Settings.extra["openai-responses"]["tools"]`` by tool name; a tool of
another type (custom, namespace, built-in, MCP) keeps its whole declaration as
``parameters``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ...model import FrozenDict, Tool, freeze, join_path, thaw
from .._base import DialectError
from .._openai_reading import show, string

__all__ = ["TOOL_EXTRAS", "read_tools", "render_tool"]

TOOL_EXTRAS: Final = "tools"
"""Reserved ``extra`` key: the unknown fields of each function tool, by tool name."""
_FUNCTION_KEYS: Final = ("type", "name", "description", "parameters")
_SCHEMA_TYPES: Final = frozenset(
    {"object", "array", "string", "number", "integer", "boolean", "null"}
)


def read_tools(entries: Sequence[Any]) -> tuple[tuple[Tool, ...], FrozenDict]:
    """Neutral tools, and the unknown fields of each function tool by name."""
    read = [_declared(i, entry) for i, entry in enumerate(entries)]
    extras = {name: extra for _, name, extra in read if extra is not None}
    return tuple(tool for tool, _, _ in read), FrozenDict(extras)


def _declared(i: int, entry: Any) -> tuple[Tool, str, FrozenDict | None]:
    """``tools[i]`` as a neutral tool, its name, and its unknown fields (if any)."""
    path = join_path("tools", i)
    kind = entry.get("type")
    if not isinstance(kind, str):
        raise DialectError(f"a tool's type must be a string, not {show(kind)}", path=path)
    if kind != "function":
        label = entry.get("name", entry.get("server_label", kind))
        tool = Tool(label if isinstance(label, str) else kind, parameters=freeze(entry))
        return tool, "", None
    name = str(string(entry, "name", path, required=True))
    description = string(entry, "description", path)
    unknown = {k: v for k, v in entry.items() if k not in _FUNCTION_KEYS}
    extra = FrozenDict((k, freeze(v)) for k, v in unknown.items()) if unknown else None
    return Tool(name, description, freeze(entry.get("parameters"))), name, extra


def render_tool(tool: Tool, extras: Any) -> dict[str, Any]:
    """A flat function tool with its kept unknown fields, or a kept declaration."""
    params = tool.parameters
    kind = params.get("type") if isinstance(params, FrozenDict) else None
    if isinstance(kind, str) and kind not in _SCHEMA_TYPES:
        declaration: dict[str, Any] = thaw(params)
        return declaration
    out: dict[str, Any] = {"type": "function", "name": tool.name}
    if tool.description is not None:
        out["description"] = tool.description
    if tool.parameters is not None:
        out["parameters"] = thaw(tool.parameters)
    kept = extras.get(tool.name) if isinstance(extras, dict) else None
    if isinstance(kept, dict):
        out.update((k, thaw(v)) for k, v in kept.items() if k not in _FUNCTION_KEYS)
    return out
