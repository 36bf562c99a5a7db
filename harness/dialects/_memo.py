"""Body parts already read, by their compact JSON: a fork's bodies repeat their parent's
messages, and a message reads the same wherever it is (its path names only a problem).

Only plain decoded JSON is keyed (``dict``, as ``orjson.loads`` gives it): a frozen or
hand-built value may hold tuples, which encode as arrays but do not read as them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from operator import is_
from typing import Any, Generic, TypeVar

import orjson

from ..model import FrozenDict, FunctionCall, Json, Message, Part, Role, freeze
from ..model._messages import forget_memos
from ._rendered import RENDERED

__all__ = [
    "Leading",
    "Memo",
    "PerBody",
    "call_names",
    "each",
    "forget",
    "frozen_each",
    "message_once",
    "on_forget",
    "resume_taken",
    "taken_runs",
    "vouched",
]

V = TypeVar("V")


_ALL: list[Memo[Any] | Leading[Any] | PerBody[Any]] = []
_HOOKS: list[Callable[[], None]] = []


def forget() -> None:
    """Empty every memo (the messages' own too), and the bodies rendered (and read) lately:
    a benchmark times a reading (or a rendering) as a check of new scenarios sees it."""
    for memo in _ALL:
        memo.clear()
    RENDERED.clear()
    forget_memos()
    for hook in _HOOKS:
        hook()


def on_forget(hook: Callable[[], None]) -> None:
    """Have ``forget`` call ``hook`` too (a store of bodies read lately outside this package)."""
    _HOOKS.append(hook)


_VOUCHED: list[list[Any]] = []
"""The arrays whose items are known unchanged since any reading of them (see ``vouched``)."""


@contextmanager
def vouched(arrays: Iterable[list[Any]]) -> Iterator[None]:
    """While it lasts, ``Leading`` may take readings again for the items of ``arrays``.

    ``harness.rules._body`` reads a body in one go (no other code runs between its readers)
    and decodes a fork's body against the last one read, sharing that body's items where
    its bytes are theirs; decoded bodies are not changed once read. Only then does an item
    that is the very object read before read as it did: an array handed to a reader from
    elsewhere may have been changed in place since, and is read anew."""
    _VOUCHED[:] = arrays
    _READING[:] = [object()]
    try:
        yield
    finally:
        _VOUCHED.clear()
        _READING.clear()


_READING: list[object] = []
"""A token of the reading under way (``vouched``): one body, read by several readers."""


class PerBody(Generic[V]):
    """What a reader gave for a body, given again for that very body object in the same
    reading (``vouched``): its segments, its markers and its request each walk the body,
    which is not changed meanwhile. Outside such a reading the body is read anew."""

    def __init__(self) -> None:
        self._held: tuple[object, object, V] | None = None
        _ALL.append(self)

    def clear(self) -> None:
        self._held = None

    def once(self, body: object, read: Callable[[], V]) -> V:
        """``read()``, or what it gave for ``body`` earlier in this reading."""
        if not _READING:
            return read()
        held = self._held
        if held is not None and held[0] is body and held[1] is _READING[0]:
            return held[2]
        value = read()
        self._held = (body, _READING[0], value)
        return value


class Leading(Generic[V]):
    """The items of the array read last and what reading them gave, held by object.

    A fork's body decoded against its parent's (``harness.rules._body``) holds the parent's
    item objects where its bytes are the parent's: ``shared`` counts the leading items that
    are those very objects (held here, so no other object can take their place), whose
    reading is then the one kept; only for an array ``vouched`` for. Only one array is
    held: memory stays that of one body."""

    def __init__(self) -> None:
        self.items: tuple[Any, ...] = ()
        self.values: V | None = None
        _ALL.append(self)

    def clear(self) -> None:
        self.items, self.values = (), None

    def shared(self, items: Sequence[Any]) -> int:
        """How many leading ``items`` are the objects read last, at the same indexes (none
        unless ``items`` is an array ``vouched`` for)."""
        if not any(items is array for array in _VOUCHED):
            return 0
        same = list(map(is_, items, self.items))  # to the shorter's end, in C
        try:
            return same.index(False)
        except ValueError:
            return len(same)

    def keep(self, items: Sequence[Any], values: V) -> None:
        self.items, self.values = tuple(items), values


def each(leading: Leading[list[V]], items: Sequence[Any], read: Callable[[int, Any], V]) -> list[V]:
    """``[read(k, item) for k, item in enumerate(items)]``, where ``read`` gives what it
    gave for the same item at the same index when ``leading`` held that item: ``read``
    must depend on the item and its index alone."""
    if len(items) < _FEW or not any(items is array for array in _VOUCHED):
        return [read(k, item) for k, item in enumerate(items)]  # nothing worth keeping
    shared = leading.shared(items)
    values = list(leading.values[:shared]) if leading.values is not None else []
    values.extend([read(k, items[k]) for k in range(shared, len(items))])
    leading.keep(items, values)
    return values


_FEW = 8
"""Arrays shorter than this are read afresh: keeping them would cost what it saves."""


def taken_runs(
    leading: Leading[tuple[tuple[Message, ...], tuple[int, ...]]], items: Sequence[Any]
) -> tuple[tuple[Message, ...], tuple[int, ...]]:
    """The neutral messages ``leading`` holds (with where each one's run of items ends, past
    its last item) whose runs end before the last item ``items`` shares with it by object:
    such a run, and whether it ended there, are settled by those items alone."""
    if leading.values is None:
        return (), ()
    before, ends = leading.values
    taken = bisect_left(ends, leading.shared(items))
    return before[:taken], ends[:taken]


def resume_taken(
    leading: Leading[tuple[tuple[Message, ...], tuple[int, ...]]],
    items: Sequence[Any],
    history: list[Message],
    ends: list[int],
    names: dict[str, str],
) -> int:
    """Take the runs ``taken_runs`` gives as read: their messages and ends appended to
    ``history`` and ``ends``, their calls' names learnt into ``names``; the index of the item
    reading goes on from (0 with none taken)."""
    taken, taken_ends = taken_runs(leading, items)
    history.extend(taken)
    ends.extend(taken_ends)
    names.update(call_names(taken))
    return taken_ends[-1] if taken_ends else 0


def call_names(history: Iterable[Message]) -> dict[str, str]:
    """Call id -> function name of the calls with an id in ``history``, as reading it learns."""
    return {
        c.id: c.name
        for message in history
        for c in message.parts
        if isinstance(c, FunctionCall) and c.id is not None
    }


class Memo(Generic[V]):
    """Values read from JSON objects, keyed by the object's bytes; cleared when it holds
    ``limit`` values or keys of ``max_bytes`` in all (memory stays bounded)."""

    get: Callable[[bytes | None], V | None]
    """The value kept for a key; None for the key None, which ``put`` never keeps (the
    dictionary's own ``get``: a reader looks up every item of a long history)."""

    def __init__(self, limit: int = 4096, max_bytes: int = 4 << 20) -> None:
        self._values: dict[bytes, V] = {}
        self.get = self._values.get  # type: ignore[assignment]  # cleared in place, never replaced
        self._limit = limit
        self._max_bytes = max_bytes
        self._bytes = 0
        _ALL.append(self)

    def clear(self) -> None:
        self._values.clear()
        self._bytes = 0

    @staticmethod
    def key(value: Any) -> bytes | None:
        """The key of ``value``; None for one that is not a plain object, or that orjson
        cannot encode (past its depth or integer range): such a value is read anew."""
        if type(value) is not dict:
            return None
        try:
            return orjson.dumps(value)
        except orjson.JSONEncodeError:
            return None

    def once(self, value: Any, read: Callable[[], V]) -> V:
        """What ``read()`` gave for a value of the same bytes as ``value`` before, else what
        it gives now (kept)."""
        key = self.key(value)
        got = self.get(key)
        return self.put(key, read()) if got is None else got

    def put(self, key: bytes | None, value: V) -> V:
        if key is not None:
            if len(self._values) >= self._limit or self._bytes + len(key) > self._max_bytes:
                self.clear()
            self._values[key] = value
            self._bytes += len(key)
        return value


def frozen_each(
    memo: Memo[Json], items: Iterable[Any], keys: Iterable[bytes | None] | None = None
) -> tuple[Json, ...]:
    """``freeze(list(items))``, each item frozen once (a message's wire form of a run);
    ``keys`` are the items' ``Memo.key``s when the caller has them already."""
    frozen = []
    pairs = (
        ((item, memo.key(item)) for item in items)
        if keys is None
        else zip(items, keys, strict=True)
    )
    for item, key in pairs:
        value = memo.get(key)
        frozen.append(memo.put(key, freeze(item)) if value is None else value)
    return tuple(frozen)


def message_once(
    memo: Memo[Message],
    frozen: Memo[Json],
    dialect: str,
    role: Role,
    parts: tuple[Part, ...],
    run: Sequence[Any],
    keys: Sequence[bytes | None],
) -> Message:
    """``Message(role, parts, {dialect: frozen_each(frozen, run, keys)})``: the message read
    before from a run of the same bytes (``keys``, the items' ``Memo.key``s) when it has
    this role and these very part objects, so a fork's bodies hold their parent's message
    objects (and what those keep: ``Message.memo``). The run's compact JSON, item after
    item, keys it: each item is one whole object, so the joined bytes name the run."""
    key = None if None in keys else b"".join(keys)  # type: ignore[arg-type]
    held = memo.get(key)
    if (
        held is not None
        and held.role == role
        and len(held.parts) == len(parts)
        and all(map(is_, held.parts, parts))
    ):
        return held
    message = Message(role, parts, FrozenDict({dialect: frozen_each(frozen, run, keys)}))
    return memo.put(key, message)
