"""The prefix segments of an Anthropic body, in cache order: each tool, the system (one
segment for a string, one per block), then each message, all without cache markers. Reading
them validates the envelope: the types of the top-level fields, that messages are objects
with a known role and a content."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ...model import Role, join_path, json_kind, shown
from .._base import DialectError, Segment
from ._fields import field
from ._markers import unmarked, unmarked_items, unmarked_message

__all__ = ["ROLES", "message", "messages", "segments"]

ROLES: Final[dict[str, Role]] = {"user": "user", "assistant": "model", "system": "system"}
"""The body's roles and the neutral role of each (current programs send ``role: "system"``
messages inside the conversation)."""


def segments(body: Mapping[str, Any]) -> tuple[Segment, ...]:
    """Tools, system, messages: the prefix in cache order, markers removed."""
    found = messages(body)
    tools = field(body, "tools", "", (list,), "an array") or []
    out = [_tool_segment(i, tool) for i, tool in enumerate(tools)]
    system = field(body, "system", "", (str, list), "a string or an array of text blocks")
    if isinstance(system, str):
        out.append(Segment("system", system))
    elif system is not None:
        blocks = unmarked_items(system, "system", "a system block")
        out.extend(Segment(join_path("system", i), block) for i, block in enumerate(blocks))
    out.extend(_message_segment(k, item) for k, item in enumerate(found))
    return tuple(out)


def messages(body: Mapping[str, Any]) -> list[Any]:
    """The history array, which every Anthropic body has."""
    if "messages" not in body:
        raise DialectError("the messages array is missing", path="messages")
    found: list[Any] = field(body, "messages", "", (list,), "an array")
    return found


def message(item: Any, k: int) -> tuple[str, str | list[Any]]:
    """The role and content of ``messages[k]``, checked."""
    path = f"messages[{k}]"
    if not isinstance(item, dict):
        raise DialectError(f"a message must be an object, not {json_kind(item)}", path=path)
    role = item.get("role")
    if not isinstance(role, str) or role not in ROLES:
        raise DialectError(
            f"unknown role {repr(role) if isinstance(role, str) else shown(role)}:"
            " Anthropic messages are user, assistant or system",
            path=join_path(path, "role"),
        )
    if "content" not in item:
        raise DialectError("the content field is missing", path=join_path(path, "content"))
    content = field(item, "content", path, (str, list), "a string or an array of blocks")
    return role, content


def _tool_segment(i: int, tool: Any) -> Segment:
    """The segment of ``tools[i]``: the declaration as sent, without its cache marker."""
    if not isinstance(tool, dict):
        raise DialectError(f"a tool must be an object, not {json_kind(tool)}", path=f"tools[{i}]")
    return Segment(f"tools[{i}]", unmarked(tool))


def _message_segment(k: int, item: Any) -> Segment:
    """The segment of ``messages[k]``: the message as sent, its blocks unmarked."""
    _, content = message(item, k)
    return Segment(f"messages[{k}]", unmarked_message(item, content, k))
