"""Bodies rendered lately, by the identity of what was rendered: the reference subject
renders a scenario's parent, and ``parent-faithful`` renders the same scenario messages
again to compare them with it.

The key is the dialect object, the preset object and each history message object (and the
breakpoints and markers, by value). The memo holds those very objects, so while an entry
lives no other object can have its ids: a hit is the same immutable request, and rendering
is a pure function of it. A ``Message``'s equality ignores its ``wire`` form, which
renders, so equal requests are never taken for the same one.
"""

from __future__ import annotations

from typing import Any

from ..model import Request

__all__ = ["RENDERED", "Rendered"]


class Rendered:
    """Up to ``limit`` bodies or ``max_bytes`` in all, the oldest dropped first."""

    def __init__(self, limit: int = 1024, max_bytes: int = 8 << 20) -> None:
        self._items: dict[tuple[Any, ...], tuple[object, Request, bytes]] = {}
        self._limit = limit
        self._max_bytes = max_bytes
        self._bytes = 0

    @staticmethod
    def _key(dialect: object, request: Request) -> tuple[Any, ...]:
        return (
            id(dialect),
            id(request.preset),
            request.cache_breakpoints,
            tuple(map(id, request.history)),
        )

    def clear(self) -> None:
        self._items.clear()
        self._bytes = 0

    def get(self, dialect: object, request: Request) -> bytes | None:
        """The body rendered for this very request by this dialect, if still held."""
        hit = self._items.get(self._key(dialect, request))
        if hit is None:
            return None
        held = hit[1].cache_control
        if held is not request.cache_control and repr(held) != repr(request.cache_control):
            return None  # by repr: equality takes 1, 1.0 and true for one value
        return hit[2]

    def put(self, dialect: object, request: Request, body: bytes) -> bytes:
        if len(body) > self._max_bytes:
            return body
        items = self._items
        while items and (len(items) >= self._limit or self._bytes + len(body) > self._max_bytes):
            oldest = next(iter(items))
            self._bytes -= len(items.pop(oldest)[2])
        key = self._key(dialect, request)
        old = items.pop(key, None)
        if old is not None:
            self._bytes -= len(old[2])
        items[key] = (dialect, request, body)
        self._bytes += len(body)
        return body


RENDERED = Rendered()
"""The bodies every dialect's ``render`` gives again (``harness.dialects._base``)."""
