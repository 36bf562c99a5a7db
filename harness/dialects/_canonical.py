"""The canonical form of an envelope object: its keys in one order, whatever order they were
sent in, except inside the content the model reads as JSON (a tool's schema, a call's
arguments), which keeps the order it was sent in."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..model import dumps
from ._unit import Unit

__all__ = ["canonical", "in_order", "read_unit", "without"]


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


def read_unit(
    name: str,
    path: str,
    family: Any,
    item: Any,
    *,
    keep: Collection[str],
    marker: tuple[str, str] | None = None,
    applied: tuple[str, ...] = (),
    **where: Any,
) -> Unit:
    """The unit of a body ``item``: its cache marker taken off (``marker``: the key it is
    sent under and the id of the equivalence saying it is not content), its envelope in
    canonical order (a tool declaration, which no provider documents as read by field, kept
    as sent; ``keep`` as for ``canonical``), the equivalences that made it so in
    ``applied``. ``where`` places it (``block``, ``message``, ``role``)."""
    found = None
    bare = item
    if marker is not None and isinstance(item, dict):
        found = item.get(marker[0])
        bare = without(item, marker[0])
        if found is not None:
            applied = (*applied, marker[1])
    value = bare if family == "tools" else canonical(bare, keep)
    if dumps(value) != dumps(bare):
        applied = (*applied, "envelope-key-order")
    return Unit(name, path, family, value, dumps(value), marker=found, applied=applied, **where)
