"""The canonical form of an envelope object: its keys in one order, whatever order they were
sent in, except inside the content the model reads as JSON (a tool's schema, a call's
arguments), which keeps the order it was sent in."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

__all__ = ["canonical", "in_order", "without"]


_FIRST = {"type": 0, "role": 1, "name": 2, "id": 3}
"""Keys that come first, in this order, so that a difference reads as a report would say
it (a tool's name before its description); every other key after them, sorted."""


def _order(key: str) -> tuple[int, str]:
    return (_FIRST.get(key, len(_FIRST)), key)


def canonical(value: Any, keep: Collection[str] = ()) -> Any:
    """``value`` with every object's keys in one order (``_FIRST``, then sorted), except the
    values of keys named in ``keep`` (at any depth), which are kept as sent."""
    if isinstance(value, dict):
        return {
            key: value[key] if key in keep else canonical(value[key], keep)
            for key in sorted(value, key=_order)
        }
    if isinstance(value, list):
        return [canonical(item, keep) for item in value]
    return value


def in_order(value: dict[str, Any]) -> bool:
    """Whether ``value``'s keys were sent in the canonical order (a header whose were not
    applied the envelope key order equivalence, though its unit lists fewer keys)."""
    keys = list(value)
    return keys == sorted(keys, key=_order)


def without(value: dict[str, Any], *keys: str) -> dict[str, Any]:
    """``value`` less ``keys`` (a copy only when it has one of them)."""
    if not any(key in value for key in keys):
        return value
    return {key: item for key, item in value.items() if key not in keys}
