"""The head of a Gemini body both ways: the ``systemInstruction`` (its parts' texts) and the
tools (each function declaration a Tool; other tool entries, ``googleSearch``,
``codeExecution``, ``urlContext``, are kept as sent in ``Settings.extra``).

A system instruction or declarations that would render back otherwise (a ``role`` on the
instruction, ``parametersJsonSchema``, fields of their own) are kept as sent in
``Settings.extra["gemini"]`` (``"systemInstruction"``, ``"declarations"``) and rendered from
there while they still read as the preset's system and tools.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import FrozenDict, Json, Text, Tool, freeze, join_path, thaw
from .._base import DialectError
from ._fields import field, required, same
from ._parts import part
from ._prefix import check_declaration

__all__ = [
    "kept_declarations",
    "kept_head",
    "read_tools",
    "render_system",
    "render_tool",
    "system_blocks",
]


def system_blocks(system: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The texts of the system instruction's parts; its role, if any, is not kept."""
    if system is None:
        return ()
    blocks: list[str] = []
    for i, raw in enumerate(system["parts"]):
        path = join_path("systemInstruction", "parts", i)
        read = part(raw, path)
        if not isinstance(read, Text):
            raise DialectError("a systemInstruction part must be plain text", path=path)
        blocks.append(read.text)
    return tuple(blocks)


def read_tools(tools: list[Any] | None) -> tuple[tuple[Tool, ...], tuple[Json, ...]]:
    """Every function declaration as a Tool, and the other tool entries (googleSearch, ...)
    frozen as sent, minus their ``functionDeclarations``."""
    declared: list[Tool] = []
    others: list[Json] = []
    for i, entry in enumerate(tools or ()):
        path = f"tools[{i}]"
        for j, decl in enumerate(field(entry, "functionDeclarations", list, path) or ()):
            declared.append(_tool(decl, join_path(path, "functionDeclarations", j)))
        rest = {k: v for k, v in entry.items() if k != "functionDeclarations"}
        if rest:
            others.append(freeze(rest))
    return tuple(declared), tuple(others)


def _tool(decl: Any, path: str) -> Tool:
    """A declaration; ``parametersJsonSchema`` is read like ``parameters``."""
    check_declaration(decl, path)
    if "parameters" in decl and "parametersJsonSchema" in decl:
        raise DialectError(
            "a declaration has parameters or parametersJsonSchema, not both", path=path
        )
    schema = decl.get("parameters", decl.get("parametersJsonSchema"))
    return Tool(
        name=required(decl, "name", str, path),
        description=field(decl, "description", str, path),
        parameters=freeze(schema),
    )


def kept_head(
    body: Mapping[str, Any], system: tuple[str, ...], tools: tuple[Tool, ...]
) -> dict[str, Json]:
    """The system instruction and function declarations as sent, when they would render back
    otherwise (a ``role`` on the instruction, ``parametersJsonSchema``, fields of their own)."""
    out: dict[str, Json] = {}
    raw_system = body.get("systemInstruction")
    if raw_system is not None and not same(render_system(system), raw_system):
        out["systemInstruction"] = freeze(raw_system)
    decls = [
        d
        for entry in body.get("tools") or ()
        for d in (entry.get("functionDeclarations") or () if isinstance(entry, dict) else ())
    ]
    if any(not same(render_tool(t), d) for t, d in zip(tools, decls, strict=False)):
        out["declarations"] = freeze(decls)
    return out


def render_system(system: tuple[str, ...], kept: Any = None) -> Any:
    """The system instruction: the one kept as sent while it still reads as ``system``,
    else one text part per block."""
    if isinstance(kept, FrozenDict) and _kept_system(kept) == system:
        return kept
    return {"parts": [{"text": block} for block in system]}


def _kept_system(kept: Mapping[str, Any]) -> tuple[str, ...] | None:
    try:
        return system_blocks(thaw(FrozenDict(kept)))
    except (DialectError, KeyError, TypeError):
        return None


def kept_declarations(kept: Json) -> dict[Tool, Any]:
    """Each kept declaration by the Tool it reads as."""
    out: dict[Tool, Any] = {}
    for decl in kept if isinstance(kept, tuple) else ():
        try:
            out.setdefault(_tool(thaw(decl), "tools"), decl)
        except DialectError:
            continue
    return out


def render_tool(tool: Tool) -> dict[str, Any]:
    """A function declaration: name, description, parameters (omitted when None)."""
    decl: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        decl["description"] = tool.description
    if tool.parameters is not None:
        decl["parameters"] = tool.parameters
    return decl
