"""The head of an Anthropic body both ways: the system (a string, or text blocks) and the
tools (client tools with an ``input_schema``; a server tool, ``{"type":
"web_search_20250305", ...}``, is a Tool whose ``parameters`` is its whole declaration).

A system or tools that would render back otherwise (a one-block system array, blocks or
declarations with fields of their own, another key order) are kept as sent in
``Settings.extra["anthropic"]`` (``"system"``, ``"tools"``) and rendered from there while
they still read as the preset's system and tools.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ...model import FrozenDict, Json, Preset, Request, Tool, freeze, join_path, json_kind, thaw
from .._base import DialectError
from ._fields import compact, field, required_str, same
from ._markers import MARKER, Marks, unmarked

__all__ = [
    "HEAD_KEYS",
    "kept_head",
    "kept_tools",
    "read_tools",
    "render_system",
    "render_tool",
    "system",
]

HEAD_KEYS: Final = frozenset({"system", "tools"})
"""Keys of our ``Settings.extra`` entry holding the head as sent, not top-level fields."""
_SCHEMA_TYPES: Final = frozenset(
    {"object", "array", "string", "number", "integer", "boolean", "null"}
)
"""JSON Schema type names: a tool whose parameters' ``type`` is another string is a server tool."""
_EMPTY_SCHEMA: Final = FrozenDict({"type": "object", "properties": FrozenDict()})


def system(body: Mapping[str, Any]) -> tuple[str, ...]:
    """The system's texts: a string is one block."""
    found = field(body, "system", "", (str, list), "a string or an array of text blocks")
    if found is None:
        return ()
    if isinstance(found, str):
        return (found,)
    return tuple(_system_text(block, join_path("system", i)) for i, block in enumerate(found))


def _system_text(block: Any, path: str) -> str:
    if not isinstance(block, dict) or block.get("type") != "text":
        raise DialectError("a system block must be a text block", path=path)
    return required_str(block, "text", path)


def read_tools(body: Mapping[str, Any]) -> list[tuple[Tool, bool]]:
    """Each tool, and whether it renders back to its declaration as sent (unmarked)."""
    tools = field(body, "tools", "", (list,), "an array") or []
    out = []
    for i, entry in enumerate(tools):
        tool = _tool(entry, join_path("tools", i))
        out.append((tool, same(render_tool(tool), unmarked(entry))))
    return out


def _tool(entry: Any, path: str) -> Tool:
    """A client tool; a server tool keeps its whole declaration as ``parameters``."""
    if not isinstance(entry, dict):
        raise DialectError(f"a tool must be an object, not {json_kind(entry)}", path=path)
    kind = field(entry, "type", path, (str,), "a string")
    if kind not in (None, "custom"):
        name: str = field(entry, "name", path, (str,), "a string") or ""
        return Tool(name, parameters=freeze(unmarked(entry)))
    if "input_schema" not in entry:
        raise DialectError(
            "a client tool needs an input_schema", path=join_path(path, "input_schema")
        )
    return Tool(
        required_str(entry, "name", path),
        field(entry, "description", path, (str,), "a string"),
        freeze(field(entry, "input_schema", path, (dict,), "an object")),
    )


def kept_head(
    body: Mapping[str, Any], texts: tuple[str, ...], tools: list[tuple[Tool, bool]]
) -> dict[str, Json]:
    """The system and tools as sent (unmarked) when they render back otherwise: a one-block
    system array, system blocks or tools with fields of their own. Kept in ``extra``."""
    out: dict[str, Json] = {}
    raw_system = body.get("system")
    if isinstance(raw_system, list):
        blocks = [unmarked(block) for block in raw_system]
        if not same(render_system(texts, Marks(Request(Preset())), None), blocks):
            out["system"] = freeze(blocks)
    if not all(renders_back for _, renders_back in tools):
        out["tools"] = freeze([unmarked(tool) for tool in body.get("tools") or ()])
    return out


def kept_tools(kept: Json) -> dict[Tool, Any]:
    """Each kept tool declaration by the Tool it reads as (a kept entry that no longer
    reads as a tool is passed over)."""
    out: dict[Tool, Any] = {}
    for i, raw in enumerate(kept if isinstance(kept, tuple) else ()):
        try:
            out.setdefault(_tool(thaw(raw), join_path("tools", i)), raw)
        except DialectError:
            continue
    return out


def render_system(texts: tuple[str, ...], marks: Marks, kept: Json) -> Any:
    """None when empty; one unmarked block as a plain string; otherwise text blocks. The
    system as sent (``kept``) while its texts are still ``texts``."""
    if not texts:
        return None
    marked = {i: join_path("system", i) for i in range(len(texts))}
    marked = {i: name for i, name in marked.items() if name in marks.names}
    if "system" in marks.names:
        marked[len(texts) - 1] = "system"
    blocks: list[Any] = [{"type": "text", "text": text} for text in texts]
    if isinstance(kept, tuple) and len(kept) == len(texts):
        try:
            read = tuple(_system_text(b, join_path("system", i)) for i, b in enumerate(kept))
        except DialectError:
            read = ()
        if read == texts:
            blocks = list(kept)
    elif len(texts) == 1 and not marked:
        return texts[0]
    for i, name in marked.items():
        blocks[i] = {**blocks[i], MARKER: marks.marker(name)}
    return blocks


def render_tool(tool: Tool) -> dict[str, Any]:
    """A server tool from its kept declaration; a client tool with an object input_schema."""
    params = tool.parameters
    kind = params.get("type") if isinstance(params, dict) else None
    if isinstance(kind, str) and kind not in _SCHEMA_TYPES:
        out: dict[str, Any] = thaw(params)
        return out
    schema = thaw(params if isinstance(params, dict) else _EMPTY_SCHEMA)
    return compact(name=tool.name, description=tool.description, input_schema=schema)
