"""Anthropic's cache markers (``cache_control``): where a body carries them, read apart from
the prefix (segments hold the blocks without them), and where a request's breakpoints put
them back when it is rendered.

A breakpoint is named after its segment (``tools[2]``, ``system[0]``, ``messages[5]``) when
the marker is on the segment's last block, else after the block (``messages[5].content[0]``).
Blocks are counted in cache order as ``_facts`` says.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from ...model import FrozenDict, Request, join_path, json_kind, thaw
from .._base import DialectError

__all__ = [
    "EPHEMERAL",
    "MARKER",
    "Marks",
    "marked_blocks",
    "message_marks",
    "unmarked",
    "unmarked_items",
    "unmarked_message",
]

MARKER: Final = "cache_control"
EPHEMERAL: Final = FrozenDict({"type": "ephemeral"})
"""The plain marker: a breakpoint with any other marker object keeps it in
``Request.cache_control``."""


def unmarked(block: dict[str, Any]) -> dict[str, Any]:
    """The block without its cache marker (a copy only when it has one), key order kept."""
    if MARKER not in block:
        return block
    return {key: value for key, value in block.items() if key != MARKER}


def unmarked_items(items: list[Any], path: str, what: str) -> list[Any]:
    """Objects of an array with cache markers removed; the same list when none is marked."""
    out = items
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            reason = f"{what} must be an object, not {json_kind(item)}"
            raise DialectError(reason, path=join_path(path, i))
        if MARKER in item:
            out = out if out is not items else list(items)
            out[i] = unmarked(item)
    return out


def unmarked_message(message: dict[str, Any], content: str | list[Any], k: int) -> Any:
    """The message as sent, its content blocks without cache markers."""
    if isinstance(content, str):
        return message
    blocks = unmarked_items(content, f"messages[{k}].content", "a content block")
    return message if blocks is content else {**message, "content": blocks}


def marked_blocks(body: Mapping[str, Any]) -> Iterator[tuple[str, int, Any, str]]:
    """(segment, block index, marker, breakpoint name) of each marked block, in cache order.
    Never raises."""
    block = 0
    tools = body.get("tools")
    for i, tool in enumerate(tools if isinstance(tools, list) else ()):
        if isinstance(tool, dict) and MARKER in tool:
            name = join_path("tools", i)
            yield name, block, tool[MARKER], name
        block += 1
    system = body.get("system")
    if isinstance(system, str):
        block += 1
    for i, item in enumerate(system if isinstance(system, list) else ()):
        if isinstance(item, dict) and MARKER in item:
            name = join_path("system", i)
            yield name, block, item[MARKER], name
        block += 1
    messages = body.get("messages")
    for k, message in enumerate(messages if isinstance(messages, list) else ()):
        count, marked = message_marks(message)
        segment = f"messages[{k}]"
        for j, marker in marked:
            last = j == count - 1
            yield segment, block + j, marker, segment if last else f"{segment}.content[{j}]"
        block += count


def message_marks(message: Any) -> tuple[int, tuple[tuple[int, Any], ...]]:
    """The blocks a message counts in cache order, and (index, marker) of each of its
    marked blocks; never raises."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return 1, ()
    marked = tuple(
        (j, item[MARKER])
        for j, item in enumerate(content)
        if isinstance(item, dict) and MARKER in item
    )
    return len(content), marked


class Marks:
    """Where a request's cache markers go when it is rendered: by segment name (its last
    block) or block path."""

    def __init__(self, request: Request) -> None:
        self.names = frozenset(request.cache_breakpoints)
        self.controls = request.cache_control

    def marker(self, name: str) -> Any:
        """The marker object of breakpoint ``name``: its own, else the plain one."""
        return thaw(self.controls.get(name, EPHEMERAL))

    def apply(self, name: str, block: Mapping[str, Any]) -> Mapping[str, Any]:
        """``block`` with the marker of breakpoint ``name`` when there is one."""
        return {**block, MARKER: self.marker(name)} if name in self.names else block

    def touches(self, segment: str) -> bool:
        """Whether a breakpoint names the segment or one of its blocks."""
        block = segment + ".content["
        return any(name == segment or name.startswith(block) for name in self.names)

    def blocks(self, segment: str, count: int) -> dict[int, str]:
        """The marked blocks of a segment of ``count`` blocks, by index: breakpoint name."""
        out = {j: f"{segment}.content[{j}]" for j in range(count)}
        marked = {j: name for j, name in out.items() if name in self.names}
        if segment in self.names and count:
            marked[count - 1] = segment
        return marked
