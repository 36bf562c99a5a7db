"""A Gemini generateContent body rendered into units, as the provider documents its prompt.

- Cache order: the system instruction, the function declarations, the tool configuration,
  the contents.
- Envelope objects (a content, a part) compare with their keys in one order (inferred); a
  function declaration, a call's ``args`` and a response's ``response`` keep the order they
  were sent in.
- A call without ``args`` and one with empty ``args``, a content without ``role`` and one
  with ``"user"``, stay apart: Gemini documents neither as the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from .._canonical import in_order, read_unit, without
from .._unit import Unit

__all__ = ["units"]

_KEEP: Final = frozenset({"parameters", "parametersJsonSchema", "args", "response"})


def units(body: Mapping[str, Any]) -> tuple[Unit, ...]:
    """The units of a body the dialect has read."""
    out: list[Unit] = []
    system = body.get("systemInstruction")
    if isinstance(system, dict):
        for j, part in enumerate(_list(system.get("parts"))):
            name = f"systemInstruction.parts[{j}]"
            out.append(_unit(name, name, "system", part))
    for i, tool in enumerate(_list(body.get("tools"))):
        declarations = tool.get("functionDeclarations") if isinstance(tool, dict) else None
        if isinstance(declarations, list):
            rest = without(tool, "functionDeclarations")
            if rest:
                out.append(_unit(f"tools[{i}]", f"tools[{i}]", "tools", rest))
            for j, declaration in enumerate(declarations):
                name = f"tools[{i}].functionDeclarations[{j}]"
                out.append(_unit(name, name, "tools", declaration))
        else:
            out.append(_unit(f"tools[{i}]", f"tools[{i}]", "tools", tool))
    if "toolConfig" in body:
        out.append(_unit("toolConfig", "toolConfig", "settings", body["toolConfig"]))
    for k, content in enumerate(_list(body.get("contents"))):
        if not isinstance(content, dict):
            continue
        role = content.get("role") if isinstance(content.get("role"), str) else None
        header = _unit(
            f"contents[{k}]", f"contents[{k}]", "history", without(content, "parts"), k, role
        )
        if not in_order(content):
            header = replace(header, applied=("envelope-key-order",))
        out.append(header)
        for j, part in enumerate(_list(content.get("parts"))):
            name = f"contents[{k}].parts[{j}]"
            out.append(_unit(name, name, "history", part, k, role))
        out[-1] = replace(out[-1], ends_message=True, eligible=role != "model")
    return tuple(out)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _unit(
    name: str,
    path: str,
    family: Any,
    item: Any,
    message: int | None = None,
    role: str | None = None,
) -> Unit:
    return read_unit(name, path, family, item, keep=_KEEP, message=message, role=role)
