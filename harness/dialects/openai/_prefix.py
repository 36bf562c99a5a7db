"""The prefix segments of a chat completions body, in cache order: each tool, the
``response_format``, then every message, as sent. Reading them validates the envelope: the
types of the top-level fields, that messages are objects with a known role and a content of
the right type."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import json_kind
from .._base import DialectError, Segment
from .._openai_reading import field, obj, show, string

__all__ = ["ROLES", "checked_role", "envelope", "segments"]

ROLES = ("system", "developer", "user", "assistant", "tool", "function")


def segments(body: Mapping[str, Any]) -> tuple[Segment, ...]:
    """Tools, then ``response_format``, then every message, as sent."""
    messages = envelope(body)
    out = [Segment(f"tools[{i}]", t) for i, t in enumerate(body.get("tools") or ())]
    if body.get("response_format") is not None:
        out.append(Segment("response_format", body["response_format"]))
    for k, message in enumerate(messages):
        checked_role(message, k)
        out.append(Segment(f"messages[{k}]", message))
    return tuple(out)


def envelope(body: Mapping[str, Any]) -> list[Any]:
    """Check the top-level fields' types and return the ``messages`` array."""
    messages: list[Any] = field(body, "messages", (list,), "an array of messages", required=True)
    string(body, "model")
    for i, tool in enumerate(field(body, "tools", (list,), "an array of tools") or ()):
        obj(tool, f"tools[{i}]")
    field(body, "response_format", (dict,), "an object")
    return messages


def checked_role(message: Any, k: int) -> str:
    """Validate one message's shape (object, known role, content type) and return its role."""
    if not isinstance(message, dict):
        raise DialectError(
            f"a message must be a JSON object, not {json_kind(message)}", path=f"messages[{k}]"
        )
    role = message.get("role")
    if role not in ROLES:
        expected = ", ".join(ROLES)
        raise DialectError(
            f"role is {show(role)}; expected one of {expected}", path=f"messages[{k}].role"
        )
    content = message.get("content")
    if not (isinstance(content, str | list) or (content is None and role == "assistant")):
        raise DialectError(
            f"{role} content must be a string or an array of parts; it is "
            + ("missing" if "content" not in message else json_kind(content)),
            path=f"messages[{k}].content",
        )
    return str(role)
