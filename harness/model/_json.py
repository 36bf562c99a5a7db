"""Immutable JSON values whose object key order is part of their identity.

Key order reaches the model (tool schemas, call arguments), so two objects with the same
items in another order are *different* values here, unlike plain ``dict`` equality.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias

import orjson

__all__ = ["FrozenDict", "Json", "dumps", "freeze", "json_kind", "shown", "thaw"]

Json: TypeAlias = "bool | int | float | str | FrozenDict | tuple[Json, ...] | None"


class FrozenDict(dict[str, Any]):
    """An insertion-ordered, hashable, read-only JSON object.

    It subclasses ``dict`` so that orjson encodes it natively, keeping its key order.
    Equality with another mapping compares items *in order*.
    """

    __slots__ = ("_hash",)
    _hash: int
    """Set on the first ``hash()``: construction is ``dict``'s own, with no Python call (a
    body's neutral form builds tens of thousands of these)."""

    if TYPE_CHECKING:

        def __init__(self, items: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> None:
            """What ``dict`` accepts: a mapping or (key, value) pairs, in order."""

    def __eq__(self, other: object) -> bool:
        """Equal items in the same order: ``dict``'s own comparison (in C; nested frozen
        values compare by this one, in order), then the keys' order."""
        if self is other:
            return True
        if not isinstance(other, dict):
            return NotImplemented
        return dict.__eq__(self, other) is True and tuple(self) == tuple(other)

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:  # type: ignore[override]
        try:
            return self._hash
        except AttributeError:
            self._hash = hash(tuple(self.items()))
            return self._hash

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (tuple(self.items()),))

    def _readonly(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("FrozenDict is immutable")

    __setitem__ = _readonly
    __delitem__ = _readonly
    __ior__ = _readonly
    clear = _readonly
    pop = _readonly
    popitem = _readonly
    setdefault = _readonly
    update = _readonly


def freeze(value: Any) -> Json:
    """Return an immutable copy of a parsed JSON value (dicts and lists, any depth); an
    already frozen object is returned as it is."""
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, dict):
        return FrozenDict((k if type(k) is str else str(k), freeze(v)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return tuple([freeze(v) for v in value])
    if value is None or isinstance(value, bool | int | float | str):
        leaf: Json = value
        return leaf
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def thaw(value: Json) -> Any:
    """Return a plain ``dict``/``list`` copy of a frozen JSON value."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


_KINDS: dict[type, str] = {
    dict: "an object",
    FrozenDict: "an object",
    list: "an array",
    tuple: "an array",
    str: "a string",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    type(None): "null",
}


def json_kind(value: Any) -> str:
    """How a JSON value's type reads in a sentence: ``an object``, ``a string``, ``null``."""
    return _KINDS.get(type(value), type(value).__name__)


def dumps(value: Any) -> bytes:
    """The compact JSON of a decoded value, key order kept: orjson's bytes, at any depth.

    orjson refuses a value nested more than 254 levels deep and an integer beyond 64 bits;
    such a value is encoded here piece by piece, each piece by orjson, so the bytes are the
    ones orjson would give (an integer in its exact decimal digits). A value that is not
    JSON raises ``TypeError``, an integer too long to print (see
    ``sys.set_int_max_str_digits``) ``ValueError``.
    """
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return b"".join(_pieces(value))


def _pieces(value: Any) -> list[bytes]:
    """``value`` encoded without recursion: orjson for each subtree it accepts."""
    out: list[bytes] = []
    stack: list[tuple[bool, Any]] = [(False, value)]  # (literal bytes?, item)
    while stack:
        literal, item = stack.pop()
        if literal:
            out.append(item)
            continue
        if isinstance(item, int) and not isinstance(item, bool):
            out.append(str(item).encode())
            continue
        if isinstance(item, dict | list | tuple):
            try:
                out.append(orjson.dumps(item))
                continue
            except orjson.JSONEncodeError:
                pass
            todo: list[tuple[bool, Any]] = []
            if isinstance(item, dict):
                todo.append((True, b"{"))
                for i, (key, member) in enumerate(item.items()):
                    if not isinstance(key, str):
                        raise TypeError(f"not a JSON object key: {type(key).__name__}")
                    todo.append((True, (b"," if i else b"") + orjson.dumps(key) + b":"))
                    todo.append((False, member))
                todo.append((True, b"}"))
            else:
                todo.append((True, b"["))
                for i, member in enumerate(item):
                    if i:
                        todo.append((True, b","))
                    todo.append((False, member))
                todo.append((True, b"]"))
            stack.extend(reversed(todo))
            continue
        try:
            out.append(orjson.dumps(item))
        except orjson.JSONEncodeError as e:
            raise TypeError(f"not a JSON value: {type(item).__name__}") from e
    return out


def shown(value: Any, width: int = 60) -> str:
    """A JSON value as it reads in a message, cut to ``width`` characters; never raises.

    A value too deep or too long to encode is named by its kind only.
    """
    if value is None:
        return "null"
    try:
        text = dumps(value).decode()
    except (TypeError, ValueError):
        return json_kind(value)
    return text if len(text) <= width else text[: width - 1] + "…"
