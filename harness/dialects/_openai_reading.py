"""Reading helpers the OpenAI dialects share (chat completions and Responses): typed fields
that name the path of a bad one, values shown as a body has them, call arguments decoded
only when that round-trips, and leading system messages folded into the system blocks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ..model import Json, Message, Text, freeze, join_path, json_kind, shown
from ._base import DialectError

__all__ = ["absorb_system", "arguments", "field", "obj", "show", "string"]


def field(
    obj: Mapping[str, Any],
    key: str,
    kinds: tuple[type, ...],
    what: str,
    base: str = "",
    *,
    required: bool = False,
) -> Any:
    """``obj[key]`` if of ``kinds`` (or absent/null when not required), else a DialectError."""
    value = obj.get(key)
    if value is None and required:
        raise DialectError(f'"{key}" is required and must be {what}', path=join_path(base, key))
    if value is None or (
        isinstance(value, kinds) and (bool in kinds or not isinstance(value, bool))
    ):
        return value
    raise DialectError(f'"{key}" must be {what}, not {json_kind(value)}', path=join_path(base, key))


def string(obj: Mapping[str, Any], key: str, base: str = "", *, required: bool = False) -> Any:
    """A string field of a nested object (see ``field``)."""
    return field(obj, key, (str,), "a string", base, required=required)


def obj(value: Any, path: str) -> dict[str, Any]:
    """``value`` if it is a JSON object, else a DialectError at ``path``."""
    if not isinstance(value, dict):
        raise DialectError(f"expected a JSON object, not {json_kind(value)}", path=path)
    return value


def arguments(raw: str) -> Json:
    """Decoded call arguments, or ``raw`` itself when decoding would not round-trip."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw
    return raw if isinstance(value, str) else freeze(value)


def absorb_system(
    system: tuple[str, ...], history: tuple[Message, ...]
) -> tuple[list[str], tuple[Message, ...]]:
    """Leading neutral system messages join the preset's blocks: a body cannot tell them apart."""
    blocks = list(system)
    k = 0
    while k < len(history) and history[k].role == "system":
        blocks.extend(p.text for p in history[k].parts if isinstance(p, Text))
        k += 1
    return blocks, history[k:]


def show(value: Any) -> str:
    """A JSON value as it appears in a body, for error messages (never raises)."""
    if value is None:
        return "missing"
    return shown(value, 200)
