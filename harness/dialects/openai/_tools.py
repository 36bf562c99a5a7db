"""Tool declarations both ways: a ``function`` tool is a neutral Tool, its unknown function
fields (``strict``) kept in ``Settings.extra["openai"]["tools"]`` by tool name; a tool of
another type (``custom``) keeps its whole declaration as ``parameters``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ...model import FrozenDict, Tool, freeze, join_path, thaw
from .._base import DialectError
from .._openai_reading import obj, show, string

__all__ = ["TOOL_EXTRAS", "read_tools", "render_tool"]

TOOL_EXTRAS: Final = "tools"
"""Reserved ``extra`` key: the unknown function fields of each tool, by tool name."""
_FUNCTION_KEYS: Final = ("name", "description", "parameters")
_SCHEMA_TYPES: Final = frozenset(
    {"object", "array", "string", "number", "integer", "boolean", "null"}
)


def read_tools(entries: Sequence[Any]) -> tuple[tuple[Tool, ...], FrozenDict]:
    """Neutral tools, and the unknown function fields of each tool by name."""
    read = [_declared(i, entry) for i, entry in enumerate(entries)]
    extras = {name: extra for _, name, extra in read if extra is not None}
    return tuple(tool for tool, _, _ in read), FrozenDict(extras)


def _declared(i: int, entry: Any) -> tuple[Tool, str, FrozenDict | None]:
    """``tools[i]`` as a neutral tool, its name, and its unknown function fields (if any)."""
    path = join_path("tools", i)
    if entry.get("type") != "function":
        kind = entry.get("type")
        if not isinstance(kind, str):
            raise DialectError(f"a tool's type must be a string, not {show(kind)}", path=path)
        spec = entry.get(kind)
        name = spec.get("name") if isinstance(spec, dict) else None
        return Tool(name if isinstance(name, str) else "", parameters=freeze(entry)), "", None
    function = obj(entry.get("function"), f"{path}.function")
    name = str(string(function, "name", f"{path}.function", required=True))
    description = string(function, "description", f"{path}.function")
    tool = Tool(name, description, freeze(function.get("parameters")))
    unknown = {k: v for k, v in function.items() if k not in _FUNCTION_KEYS}
    extra = FrozenDict((k, freeze(v)) for k, v in unknown.items()) if unknown else None
    return tool, name, extra


def render_tool(tool: Tool, extras: Any) -> dict[str, Any]:
    """A function tool, followed by the tool's unknown function fields kept in ``extra``; a
    tool of another type (``custom``) from its kept declaration."""
    params = tool.parameters
    kind = params.get("type") if isinstance(params, FrozenDict) else None
    if isinstance(kind, str) and kind not in _SCHEMA_TYPES:
        declaration: dict[str, Any] = thaw(params)
        return declaration
    function: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        function["description"] = tool.description
    if tool.parameters is not None:
        function["parameters"] = tool.parameters
    kept = extras.get(tool.name) if isinstance(extras, dict) else None
    if isinstance(kept, dict):
        function.update((k, v) for k, v in kept.items() if k not in _FUNCTION_KEYS)
    return {"type": "function", "function": function}
