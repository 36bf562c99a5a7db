"""Dialect facts the rules need and the dialects do not state yet, in one small table.

Which part of the request head each prefix segment belongs to (system instruction, tool
declarations, a setting kept in the prefix, or the history), and how many cache markers a
dialect allows. Meant to move onto ``Dialect`` as attributes; until then it is read only here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

from ..dialects import Segment

__all__ = ["Family", "families", "marker_limit"]

Family: TypeAlias = Literal["system", "tools", "settings", "history"]

_ROOTS: dict[str, dict[str, Family]] = {
    "openai": {"tools": "tools", "response_format": "settings", "messages": "history"},
    "anthropic": {"tools": "tools", "system": "system", "messages": "history"},
    "gemini": {
        "systemInstruction": "system",
        "tools": "tools",
        "toolConfig": "settings",
        "contents": "history",
    },
}
"""Family of a segment by the root of its name (``tools[3]`` -> ``tools``)."""

_SYSTEM_ROLES: dict[str, tuple[str, ...]] = {"openai": ("system", "developer")}
"""Dialects whose system instruction is the leading run of history messages with these roles."""

_MARKER_LIMITS: dict[str, int] = {"anthropic": 4}
"""Dialects with cache markers, and how many one request may carry."""


def _root(name: str) -> str:
    return name.split("[", 1)[0].split(".", 1)[0]


def _guess(root: str) -> Family:
    """The family of a segment of a dialect missing from the table, by its name."""
    lowered = root.lower()
    if "system" in lowered:
        return "system"
    if "tool" in lowered and "config" not in lowered:
        return "tools"
    if lowered in ("messages", "contents", "input"):
        return "history"
    return "settings"


def families(dialect: str, segments: Sequence[Segment]) -> tuple[Family, ...]:
    """The family of each segment, in order."""
    roots = _ROOTS.get(dialect, {})
    system_roles = _SYSTEM_ROLES.get(dialect, ())
    out: list[Family] = []
    leading = True
    for segment in segments:
        family = roots.get(_root(segment.name)) or _guess(_root(segment.name))
        if family == "history" and leading and _role(segment.value) in system_roles:
            family = "system"
        elif family == "history":
            leading = False
        out.append(family)
    return tuple(out)


def _role(value: Any) -> Any:
    return value.get("role") if isinstance(value, dict) else None


def marker_limit(dialect: str) -> int | None:
    """How many cache markers a request of ``dialect`` may carry; None without markers."""
    return _MARKER_LIMITS.get(dialect)
