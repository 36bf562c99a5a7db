"""Typed access to the fields of a Gemini body, each refusal naming its path."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ...model import dumps, join_path, json_kind
from .._base import DialectError

__all__ = ["NUMBER", "field", "required", "same", "strings"]

_TYPE_NAMES: Final[dict[type, str]] = {
    dict: "an object",
    list: "an array",
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}
NUMBER: Final = (int, float)


def field(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], base: str) -> Any:
    """``obj[key]`` checked against ``kind`` (a bool is never a number); None when absent or
    null. ``base`` is the path of ``obj``, for the error."""
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, kind) and (kind is bool or not isinstance(value, bool)):
        return value
    expected = "a number" if isinstance(kind, tuple) else _TYPE_NAMES[kind]
    raise DialectError(
        f"{key} must be {expected}, not {json_kind(value)}", path=join_path(base, key)
    )


def required(obj: Mapping[str, Any], key: str, kind: type, base: str) -> Any:
    """Like ``field`` but the key must be there."""
    value = field(obj, key, kind, base)
    if value is None:
        raise DialectError(f"{key} is required", path=join_path(base, key))
    return value


def strings(obj: Mapping[str, Any], key: str, base: str) -> tuple[str, ...] | None:
    """An optional array of strings."""
    values = field(obj, key, list, base)
    for i, value in enumerate(values or ()):
        if not isinstance(value, str):
            path = join_path(base, key, i)
            raise DialectError(f"expected a string, not {json_kind(value)}", path=path)
    return None if values is None else tuple(values)


def same(a: Any, b: Any) -> bool:
    """Whether two JSON values encode to the same bytes (key order included)."""
    return dumps(a) == dumps(b)
