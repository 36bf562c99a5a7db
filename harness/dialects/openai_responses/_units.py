"""A Responses body rendered into units (docs/cache-model.md): the instructions, tools, the
output format, then each input item (a message's header and parts, or the item whole)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .._openai_units import item_units, list_of, unit
from .._unit import Unit

__all__ = ["units"]


def units(body: Mapping[str, Any]) -> tuple[Unit, ...]:
    """The units of a Responses body the dialect has read."""
    out: list[Unit] = []
    if "instructions" in body:
        out.append(unit("instructions", "instructions", "system", body["instructions"]))
    for i, tool in enumerate(list_of(body.get("tools"))):
        out.append(unit(f"tools[{i}]", f"tools[{i}]", "tools", tool))
    text = body.get("text")
    if isinstance(text, dict) and "format" in text:
        out.append(unit("text.format", "text.format", "settings", text["format"]))
    items = body.get("input")
    if isinstance(items, str):
        out.append(unit("input", "input", "history", items, message=0, role="user"))
        out[-1] = replace(out[-1], ends_message=True, eligible=True)
    else:
        item_units(out, list_of(items), "input", ())
    return tuple(out)
