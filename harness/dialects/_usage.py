"""A provider's reported cache usage, read back from its response's usage object.

``Dialect.usage_fields`` writes a predicted usage in the provider's own field names;
``Dialect.reported_usage`` reads the same names back from what a provider answered (a
proxy's log of real traffic), so that the two can be held side by side. A value that is
not a token count (a string, a negative or fractional number) is a ``UsageError`` naming
the field: the usage is then not compared, never guessed at.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ReportedUsage", "UsageError", "count_field", "reported_fields", "required_field"]


class UsageError(ValueError):
    """A usage object the provider could not have sent; ``str()`` is one sentence."""


@dataclass(frozen=True, slots=True)
class ReportedUsage:
    """What a provider reported of one request's prompt, in tokens: ``total`` the whole
    prompt (None when the usage does not say), ``read`` the part served from its cache,
    ``written`` the part written to it (None for a provider that does not report writes).
    ``fields`` are the reported values in the provider's own names (dotted for nested)."""

    total: int | None
    read: int
    written: int | None
    fields: Mapping[str, int]


def count_field(usage: Mapping[str, Any], name: str) -> int | None:
    """The token count at ``name`` (dotted for nested objects) of ``usage``; None when it
    is absent or null; ``UsageError`` when it is there but no count."""
    value: Any = usage
    for part in name.split("."):
        if not isinstance(value, Mapping):
            raise UsageError(f'"{name}" is not readable: its parent is {_kind(value)}')
        value = value.get(part)
        if value is None:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UsageError(f'"{name}" is {_kind(value)}, not a token count')
    if isinstance(value, float):
        if not value.is_integer():
            raise UsageError(f'"{name}" is {value!r}, not a whole number of tokens')
        value = int(value)
    if value < 0:
        raise UsageError(f'"{name}" is {value}, a negative token count')
    return int(value)


def required_field(usage: Mapping[str, Any], name: str) -> int:
    """``count_field``, with a usage that lacks the field a ``UsageError``."""
    found = count_field(usage, name)
    if found is None:
        raise UsageError(f'the usage has no "{name}": it reports no cached tokens')
    return found


def reported_fields(usage: Mapping[str, Any], names: Sequence[str]) -> dict[str, int]:
    """The counts of ``names`` that ``usage`` holds (``UsageError`` for one that is no count)."""
    return {n: v for n in names if (v := count_field(usage, n)) is not None}


def _kind(value: Any) -> str:
    if isinstance(value, str):
        shown = value if len(value) <= 20 else value[:17] + "..."
        return f"a string ({shown!r})"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__
