"""The prefix segments of a Gemini body, in cache order: the ``systemInstruction``, each
function declaration (any other tool entry whole), the ``toolConfig``, then each content.
Reading them validates the envelope: the types of the top-level fields, that contents are
objects with a known role and a ``parts`` array."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ...model import Role, join_path, json_kind, shown
from .._base import DialectError, Segment
from ._fields import field, required

__all__ = ["check_declaration", "role", "segments"]

_ROLES: Final[frozenset[str]] = frozenset({"user", "model"})


def segments(body: Mapping[str, Any]) -> tuple[Segment, ...]:
    """systemInstruction, each function declaration, toolConfig, then each content."""
    contents: list[Any] = required(body, "contents", list, "")
    out: list[Segment] = []
    system = field(body, "systemInstruction", dict, "")
    if system is not None:
        required(system, "parts", list, "systemInstruction")
        out.append(Segment("systemInstruction", system))
    out.extend(_tool_segments(field(body, "tools", list, "")))
    tool_config = field(body, "toolConfig", dict, "")
    if tool_config is not None:
        out.append(Segment("toolConfig", tool_config))
    field(body, "generationConfig", dict, "")
    out.extend(_content_segment(k, content) for k, content in enumerate(contents))
    return tuple(out)


def role(content: Mapping[str, Any], path: str) -> Role:
    """The content's role; a blank or missing role means ``user`` in Gemini."""
    found = content.get("role") or "user"
    if not isinstance(found, str) or found not in _ROLES:
        said = repr(found) if isinstance(found, str) else shown(found)
        reason = f"unknown role {said}; Gemini roles are user and model"
        raise DialectError(reason, path=join_path(path, "role"))
    return "user" if found == "user" else "model"


def _tool_segments(tools: list[Any] | None) -> list[Segment]:
    """One segment per function declaration; any other tool entry is one whole segment."""
    out: list[Segment] = []
    for i, entry in enumerate(tools or ()):
        path = f"tools[{i}]"
        if not isinstance(entry, dict):
            raise DialectError(f"a tool is an object, not {json_kind(entry)}", path=path)
        decls = field(entry, "functionDeclarations", list, path)
        if decls is None or len(entry) > 1:
            out.append(Segment(path, entry))
            continue
        for j, decl in enumerate(decls):
            decl_path = join_path(path, "functionDeclarations", j)
            check_declaration(decl, decl_path)
            out.append(Segment(decl_path, decl))
    return out


def check_declaration(decl: Any, path: str) -> None:
    """A function declaration is an object."""
    if not isinstance(decl, dict):
        reason = f"a function declaration is an object, not {json_kind(decl)}"
        raise DialectError(reason, path=path)


def _content_segment(k: int, content: Any) -> Segment:
    """The segment of ``contents[k]``, its envelope checked."""
    path = f"contents[{k}]"
    if not isinstance(content, dict):
        raise DialectError(f"a content is an object, not {json_kind(content)}", path=path)
    role(content, path)
    required(content, "parts", list, path)
    return Segment(path, content)
