"""The neutral model rendered as an Anthropic body: tools, system and messages in cache
order, the settings around them, markers where the request's breakpoints put them.

A message renders from its source (the body message it was read from) while its role and
parts are those it was read as, else from its parts: a single text as a string, tool results
first in user turns (the API's rule). What the dialect cannot express is dropped or mapped
to its nearest form (another dialect's opaque block as a text block of its JSON).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson

from ...model import (
    FrozenDict,
    FunctionResponse,
    Json,
    Message,
    Request,
    Text,
    dumps,
    join_path,
    thaw,
)
from ._facts import NAME
from ._head import HEAD_KEYS, kept_tools, render_system, render_tool
from ._markers import MARKER, Marks
from ._parts import render_part
from ._settings import render_settings

__all__ = ["render"]

_WIRE_ROLES: Final = {"user": "user", "model": "assistant", "system": "system"}
_FIRST: Final = ("model", "max_tokens")
"""The settings a body states before its system and tools."""


def render(request: Request) -> bytes:
    """The compact body an implementation would POST for ``request``."""
    preset, settings = request.preset, request.preset.settings
    marks = Marks(request)
    own = settings.extra.get(NAME)
    extra: Mapping[str, Json] = own if isinstance(own, dict) else FrozenDict()
    kept = kept_tools(extra.get("tools"))
    tools = [
        marks.apply(join_path("tools", i), kept.get(t) or render_tool(t))
        for i, t in enumerate(preset.tools)
    ]
    named = render_settings(settings)
    body: dict[str, Any] = {key: named[key] for key in _FIRST if key in named}
    head = render_system(preset.system, marks, extra.get("system"))
    if head is not None:
        body["system"] = head
    if tools:
        body["tools"] = tools
    body.update((key, value) for key, value in named.items() if key not in _FIRST)
    body.update((key, thaw(value)) for key, value in extra.items() if key not in HEAD_KEYS)
    body["messages"] = [
        _render_at(message, f"messages[{k}]", marks) for k, message in enumerate(request.history)
    ]
    return dumps(body)


def _render_at(message: Message, segment: str, marks: Marks) -> Any:
    """The message as body message ``segment``: the one it was read from while it is what
    that was read as (``Message.kept``), else from its parts; then its markers."""
    kept = message.kept(NAME)
    if kept is not None and not marks.touches(segment):
        return orjson.Fragment(kept[0])  # as it was read: no marker to put in
    read = orjson.loads(kept[0]) if kept is not None else _render_message(message)
    return _mark_message(read, segment, marks)


def _mark_message(body: Mapping[str, Any], segment: str, marks: Marks) -> Mapping[str, Any]:
    content = body["content"]
    count = 1 if isinstance(content, str) else len(content)
    marked = marks.blocks(segment, count)
    if not marked:
        return body
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    for j, name in marked.items():
        blocks[j] = {**blocks[j], MARKER: marks.marker(name)}
    return {**body, "content": blocks}


def _render_message(message: Message) -> dict[str, Any]:
    """A single text as a string; tool results first in user turns (the API's rule)."""
    role = _WIRE_ROLES[message.role]
    parts = message.parts
    if role == "user":
        parts = message.function_responses + tuple(
            p for p in parts if not isinstance(p, FunctionResponse)
        )
    if len(parts) == 1 and isinstance(parts[0], Text):
        return {"role": role, "content": parts[0].text}
    return {"role": role, "content": [render_part(part) for part in parts]}
