"""A message's rendering, kept by the message (``Message.memo``): a fork's bodies repeat
their parent's messages, and a message renders to the same wire items wherever it is.

Some dialects read a message's kept wire form back with the names of the calls before it
(a tool result takes its function's name from its call): that rendering depends on the
message and on what it read of those names. ``Names`` records every such read, and a kept
rendering is given again only where the names read the same, so a hit is what rendering
afresh would give.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ..model import Message

__all__ = ["Names", "alone", "once"]

V = TypeVar("V")

_MISSING = object()
_IN = object()
"""The default of a read that was an ``in``."""


class Names(dict[str, str]):
    """A copy of the call names, recording what is read of it: ``(key, default, value)``
    per ``get`` and ``[]``, ``(key, _IN, found)`` per ``in``, but for a key set here first
    (what it reads is then settled by the rendering itself). A read it does not record
    (iteration, its length, a comparison) still works, and marks it ``opaque``: what was
    rendered with it is not kept."""

    def __init__(self, names: Mapping[str, str]) -> None:
        super().__init__(names)
        self.reads: list[tuple[Any, Any, Any]] = []
        self.written: set[Any] = set()
        self.opaque = False

    def get(self, key: Any, default: Any = None) -> Any:
        value = dict.get(self, key, default)
        if key not in self.written:
            self.reads.append((key, default, value))
        return value

    def __getitem__(self, key: str) -> str:
        value: Any = dict.get(self, key, _MISSING)
        if key not in self.written:
            self.reads.append((key, _MISSING, value))
        if value is _MISSING:
            raise KeyError(key)
        result: str = value
        return result

    def __contains__(self, key: object) -> bool:
        found = dict.__contains__(self, key)
        if key not in self.written:
            self.reads.append((key, _IN, found))
        return found

    def __setitem__(self, key: str, value: str) -> None:
        dict.__setitem__(self, key, value)
        self.written.add(key)


def _opaque(name: str) -> Callable[..., Any]:
    method = getattr(dict, name)

    def read(self: Names, *args: Any, **kwargs: Any) -> Any:
        self.opaque = True
        return method(self, *args, **kwargs)

    return read


for _name in (
    *("__iter__", "__len__", "__eq__", "__ne__", "__or__", "__reversed__", "__reduce_ex__"),
    *("keys", "items", "values", "copy", "pop", "popitem", "setdefault", "__delitem__"),
):
    setattr(Names, _name, _opaque(_name))


def _same(names: Mapping[str, str], reads: tuple[tuple[Any, Any, Any], ...]) -> bool:
    """Whether each read gives now what it gave then (by type and value: exact for
    strings, and a name is one)."""
    for key, default, value in reads:
        now: Any = (key in names) if default is _IN else names.get(key, default)
        if now is not value and (type(now) is not type(value) or now != value):
            return False
    return True


def once(
    message: Message,
    render: Callable[[Message, dict[str, str]], V],
    names: Mapping[str, str] | None = None,
) -> V:
    """``render(message, names)``, given again while ``message`` holds it from a rendering
    that read the same of ``names`` (``render`` itself is the key: one per dialect).

    ``render`` must depend on the message and the names alone, and its result must not be
    changed by the caller (it is shared by every body that holds the message)."""
    memo = message.memo()
    held = memo.get(render)
    if held is not None:
        reads, value = held
        if not reads or _same(names or {}, reads):
            kept: V = value
            return kept
    seen = Names(names or {})
    value = render(message, seen)
    if not seen.opaque:
        memo[render] = (tuple(seen.reads), value)
    return value


def alone(message: Message, render: Callable[[Message], V]) -> V:
    """``render(message)``, given again while ``message`` holds it (``render`` is the key).

    ``render`` must depend on the message alone and never give None; its result must not
    be changed by the caller."""
    memo = message.memo()
    value: V | None = memo.get(render)
    if value is None:
        value = memo[render] = render(message)
    return value
