"""An Anthropic messages body rendered into units, as the provider documents its prompt.

- Cache order: tools, system, messages.
- A string ``system`` is one text block (inferred from the documented shorthand for
  content); a string ``content`` is one text block (documented).
- Consecutive messages of one role are combined into one turn (documented), so a turn split
  in two renders as the same prompt as the turn whole.
- ``cache_control`` markers are not content: they are kept on the unit (``marker``) for the
  cache model, never in its bytes.
- Envelope objects (a message, a block) compare with their keys in one order; a tool's
  declaration (its ``input_schema`` above all) and a ``tool_use`` block's ``input`` keep
  the order they were sent in (the model reads them as JSON).

Each unit that is a block counts one position for the cache's lookback: one per tool, one per
system block, one per top-level content block.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace as _replace
from typing import Any, Final

from ...model import dumps
from .._canonical import canonical, in_order, read_unit, without
from .._unit import Unit

__all__ = ["units"]

_MARKER: Final = "cache_control"
_KEEP: Final = frozenset({"input_schema", "input"})


def units(body: Mapping[str, Any]) -> tuple[Unit, ...]:
    """The units of a body the dialect has read (``segments`` validated its envelope)."""
    out: list[Unit] = []
    block = 0
    for i, tool in enumerate(_list(body.get("tools"))):
        out.append(_block(f"tools[{i}]", f"tools[{i}]", "tools", tool, block))
        block += 1
    system = body.get("system")
    if isinstance(system, str):
        text = {"type": "text", "text": system}
        out.append(_block("system[0]", "system", "system", text, block, ("string-system",)))
        block += 1
    else:
        for i, item in enumerate(_list(system)):
            out.append(_block(f"system[{i}]", f"system[{i}]", "system", item, block))
            block += 1
    k = -1
    role = None
    j = 0
    for m, message in enumerate(_list(body.get("messages"))):
        if not isinstance(message, dict):
            continue
        merged = message.get("role") == role and k >= 0
        if merged:
            out[-1] = _replace(out[-1], ends_message=False)
        else:
            k, role, j = k + 1, message.get("role"), 0
            header = canonical(without(message, "content"))
            unit = _unit(f"messages[{k}]", f"messages[{m}]", "history", header, k, role)
            if not in_order(message):
                unit = _replace(unit, applied=("envelope-key-order",))
            out.append(unit)
        content = message.get("content")
        applied = ("consecutive-turns",) if merged else ()
        if isinstance(content, str):
            text = {"type": "text", "text": content}
            path = f"messages[{m}].content"
            out.append(
                _block(
                    f"messages[{k}].content[{j}]",
                    path,
                    "history",
                    text,
                    block,
                    (*applied, "string-content"),
                    k,
                    role,
                )
            )
            block, j = block + 1, j + 1
        else:
            for b, item in enumerate(_list(content)):
                path = f"messages[{m}].content[{b}]"
                name = f"messages[{k}].content[{j}]"
                out.append(_block(name, path, "history", item, block, applied, k, role))
                block, j = block + 1, j + 1
        out[-1] = _replace(out[-1], ends_message=True, eligible=role == "user")
    return tuple(out)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _block(
    name: str,
    path: str,
    family: Any,
    item: Any,
    block: int,
    applied: tuple[str, ...] = (),
    message: int | None = None,
    role: Any = None,
) -> Unit:
    """A block: its marker taken off, its envelope in canonical order."""
    return read_unit(
        name,
        path,
        family,
        item,
        keep=_KEEP,
        marker=(_MARKER, "cache-control"),
        applied=applied,
        block=block,
        message=message,
        role=role if isinstance(role, str) else None,
    )


def _unit(name: str, path: str, family: Any, value: Any, message: int, role: Any) -> Unit:
    return Unit(
        name,
        path,
        family,
        value,
        dumps(value),
        message=message,
        role=role if isinstance(role, str) else None,
    )
