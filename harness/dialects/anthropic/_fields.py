"""Typed access to the fields of an Anthropic body, each refusal naming its path, and the
small JSON helpers the other modules share."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ...model import dumps, join_path, json_kind
from .._base import DialectError

__all__ = ["compact", "dicts", "field", "indexed_dicts", "required_str", "same", "strings"]


def field(obj: Mapping[str, Any], key: str, path: str, types: tuple[type, ...], what: str) -> Any:
    """``obj[key]`` when present and of one of ``types`` (a boolean is no number); else None."""
    if key not in obj:
        return None
    value = obj[key]
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        raise DialectError(
            f"{key} must be {what}, not {json_kind(value)}", path=join_path(path, key)
        )
    return value


def required_str(obj: Mapping[str, Any], key: str, path: str) -> str:
    """A string field the API requires."""
    value: str | None = field(obj, key, path, (str,), "a string")
    if value is None:
        raise DialectError(f"the {key} field is missing", path=join_path(path, key))
    return value


def strings(values: list[Any], path: str) -> tuple[str, ...]:
    """An array of strings, each checked."""
    for i, value in enumerate(values):
        if not isinstance(value, str):
            raise DialectError(f"must be a string, not {json_kind(value)}", path=join_path(path, i))
    return tuple(values)


def dicts(value: Any) -> Iterator[dict[str, Any]]:
    """The objects of ``value`` when it is an array; nothing otherwise (never raises)."""
    return (item for _, item in indexed_dicts(value))


def indexed_dicts(value: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """The objects of ``value`` with their indexes when it is an array (never raises)."""
    if isinstance(value, list):
        yield from ((i, item) for i, item in enumerate(value) if isinstance(item, dict))


def compact(**fields: Any) -> dict[str, Any]:
    """An object of the fields that are set, in argument order."""
    return {key: value for key, value in fields.items() if value is not None}


def same(a: Any, b: Any) -> bool:
    """Whether two JSON values encode to the same bytes (key order included)."""
    return dumps(a) == dumps(b)
