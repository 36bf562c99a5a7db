"""OpenAI's explicit cache breakpoints (``prompt_cache_breakpoint`` on a content part or an
item): where a body carries them, read apart from the prefix (segments hold the items without
them, and without the ``id`` and ``status`` the API keeps for its own bookkeeping)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

__all__ = ["BREAKPOINT", "marked_blocks", "prompted", "unmarked", "unmarked_part"]

BREAKPOINT: Final = "prompt_cache_breakpoint"
_BOOKKEEPING: Final = ("id", "status")


def prompted(item: dict[str, Any]) -> dict[str, Any]:
    """The item as it reaches the model: without breakpoints, and without the ``id`` and
    ``status`` the API keeps for its own bookkeeping (an ``item_reference``'s id is its
    content, and stays). A runtime that gives its copy of an item a fresh id keeps the
    prefix."""
    item = unmarked(item)
    if item.get("type") == "item_reference" or not ("id" in item or "status" in item):
        return item
    return {k: v for k, v in item.items() if k not in _BOOKKEEPING}


def unmarked(item: dict[str, Any]) -> dict[str, Any]:
    """The item without ``prompt_cache_breakpoint`` on itself or its content parts (a copy
    only when it has one)."""
    if BREAKPOINT not in item and not _has_marked_part(item):
        return item
    out = {k: v for k, v in item.items() if k != BREAKPOINT}
    for key in ("content", "output"):
        parts = out.get(key)
        if isinstance(parts, list):
            out[key] = [
                {k: v for k, v in p.items() if k != BREAKPOINT} if isinstance(p, dict) else p
                for p in parts
            ]
    return out


def unmarked_part(part: dict[str, Any]) -> dict[str, Any]:
    """A content part without its breakpoint."""
    return {k: v for k, v in part.items() if k != BREAKPOINT} if BREAKPOINT in part else part


def _has_marked_part(item: dict[str, Any]) -> bool:
    """Whether a part of the item's ``content`` or ``output`` holds a breakpoint."""
    for key in ("content", "output"):
        parts = item.get(key)
        if isinstance(parts, list):
            for part in parts:
                if isinstance(part, dict) and BREAKPOINT in part:
                    return True
    return False


def marked_blocks(body: Mapping[str, Any]) -> Iterator[tuple[str, int, Any]]:
    """(segment, block index, marker) of each breakpoint, in cache order (blocks counted as
    ``_facts`` says). Never raises."""
    block = 1 if isinstance(body.get("instructions"), str) else 0
    tools = body.get("tools")
    block += len(tools) if isinstance(tools, list) else 0
    text = body.get("text")
    block += 1 if isinstance(text, dict) and text.get("format") is not None else 0
    items = body.get("input")
    if not isinstance(items, list):
        return
    for k, item in enumerate(items):
        count, marks = _item_marks(item)
        for at, marker in marks:
            yield f"input[{k}]", block + at, marker
        block += count


def _item_marks(item: Any) -> tuple[int, tuple[tuple[int, Any], ...]]:
    """The blocks an item counts, and (block within it, marker) of each breakpoint it holds
    in cache order: its parts', then its own on its last block. Never raises."""
    if not isinstance(item, dict):
        return 1, ()
    parts = item.get("content", item.get("output"))
    marks: list[tuple[int, Any]] = []
    count = 1
    if isinstance(parts, list) and parts:
        count = len(parts)
        marks = [
            (j, part[BREAKPOINT])
            for j, part in enumerate(parts)
            if isinstance(part, dict) and BREAKPOINT in part
        ]
    if BREAKPOINT in item:
        marks.append((count - 1, item[BREAKPOINT]))
    return count, tuple(marks)
