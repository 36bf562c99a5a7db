"""The prefix segments of a Responses body, in cache order: ``instructions``, each tool,
``text.format``, then every input item, breakpoints and bookkeeping removed. Reading them
validates the envelope: the types of the top-level fields, that items are objects with a
string type, and that a message has a known role and a content."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import json_kind
from .._base import DialectError, Segment
from .._openai_reading import field, obj, show, string
from ._markers import prompted

__all__ = ["checked_kind", "envelope", "items", "kind", "kinded", "segments"]

_ROLES = ("user", "assistant", "system", "developer")


def segments(body: Mapping[str, Any]) -> tuple[Segment, ...]:
    """``instructions``, tools, ``text.format``, then every input item, markers removed."""
    found = envelope(body)
    out = []
    if body.get("instructions") is not None:
        out.append(Segment("instructions", body["instructions"]))
    for i, tool in enumerate(body.get("tools") or ()):
        out.append(Segment(f"tools[{i}]", tool))
    text = body.get("text")
    if isinstance(text, dict) and text.get("format") is not None:
        out.append(Segment("text.format", text["format"]))
    if isinstance(found, str):  # the same prompt as one user message: the same segment
        out.append(Segment("input[0]", {"role": "user", "content": found}))
        return tuple(out)
    for k, item in enumerate(found):
        checked_kind(item, k)
        out.append(Segment(f"input[{k}]", prompted(item)))
    return tuple(out)


def envelope(body: Mapping[str, Any]) -> list[Any] | str:
    """Check the top-level fields' types and return ``input`` (an array or a string)."""
    found: list[Any] | str = field(
        body, "input", (list, str), "an array of input items or a string", required=True
    )
    string(body, "model")
    string(body, "instructions")
    string(body, "previous_response_id")
    for i, tool in enumerate(field(body, "tools", (list,), "an array of tools") or ()):
        obj(tool, f"tools[{i}]")
    field(body, "text", (dict,), "an object")
    field(body, "reasoning", (dict,), "an object")
    text = body.get("text")
    if isinstance(text, dict):
        field(text, "format", (dict,), "an object", "text")
    return found


def kind(item: dict[str, Any]) -> Any:
    """An item's type; a message may leave it out (the API's easy input form)."""
    return item.get("type", "message" if "role" in item else None)


def checked_kind(item: Any, k: int) -> str:
    """Validate one item's shape (object, string type, a message's role and content) and
    return its type."""
    if not isinstance(item, dict):
        raise DialectError(
            f"an input item must be a JSON object, not {json_kind(item)}", path=f"input[{k}]"
        )
    found = kind(item)
    if not isinstance(found, str):
        raise DialectError(
            f"an item's type must be a string; it is {show(found)}", path=f"input[{k}]"
        )
    if found == "message":
        role = item.get("role")
        if role not in _ROLES:
            expected = ", ".join(_ROLES)
            raise DialectError(
                f"role is {show(role)}; expected one of {expected}", path=f"input[{k}].role"
            )
        if not isinstance(item.get("content"), str | list):
            content = item.get("content")
            raise DialectError(
                f"{role} content must be a string or an array of parts; it is "
                + ("missing" if "content" not in item else json_kind(content)),
                path=f"input[{k}].content",
            )
    return found


def items(found: list[Any] | str) -> list[Any]:
    """``input`` as a list of items: a string is one user message."""
    return kinded(found)[0]


def kinded(found: list[Any] | str) -> tuple[list[Any], list[str]]:
    """``input`` as a list of items (``items``) and the type of each, checked."""
    listed = [{"role": "user", "content": found}] if isinstance(found, str) else found
    return listed, [checked_kind(item, k) for k, item in enumerate(listed)]
