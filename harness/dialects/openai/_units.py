"""A chat-completions body rendered into units (docs/cache-model.md): tools, the output
format, then each message's header and its parts and calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._openai_units import item_units, list_of, unit
from .._unit import Unit

__all__ = ["units"]


def units(body: Mapping[str, Any]) -> tuple[Unit, ...]:
    """The units of a chat-completions body the dialect has read."""
    out: list[Unit] = []
    for i, tool in enumerate(list_of(body.get("tools"))):
        out.append(unit(f"tools[{i}]", f"tools[{i}]", "tools", tool))
    if "response_format" in body:
        out.append(unit("response_format", "response_format", "settings", body["response_format"]))
    item_units(out, list_of(body.get("messages")), "messages", ("tool_calls",))
    return tuple(out)
