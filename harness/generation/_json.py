"""Frozen JSON values decoded from two draws: a byte string (the shape and the numbers) and
a text (the strings, cut from it in order).

Each node is one byte, its kind in the high bits and a small payload (a size, a small
integer, a string's length) in the low ones; large numbers read more bytes. Every byte string
decodes to a valid value, zeros to ``null`` and ``{}``, so a value shrinks node by node as
Hypothesis deletes and lowers its bytes, for two draws instead of several per node.
"""

from __future__ import annotations

from functools import cache, partial

from hypothesis import strategies as st

from ..model import FrozenDict, Json
from ._checks import check_at_least, check_sizes
from ._sources import ByteReader, TextPool, blobs, texts

__all__ = [
    "JsonSource",
    "json_blobs",
    "json_objects",
    "json_values",
    "pools",
    "unique_keys",
]

_DEPTH = 5
_CONTAINER_SIZE = 4
_OBJECT_LEAVES = 6
"""The most scalars in a call's arguments or a function's response."""


def pools() -> st.SearchStrategy[str]:
    """The text a value's strings and keys are cut from."""
    return texts(0, 40)


_KEY_LETTERS = "abcdefghijklmnopqrstuvwxyz"

# JSON does not tell 2.0 from 2 and other languages' encoders write it as 2, so a
# language-neutral value never holds a float with an integral value: these are all fractional.
_FLOATS = (
    0.5,
    -0.5,
    0.1,
    -2.5,
    1 / 3,
    1e-7,
    2.5e-5,
    123.456,
    0.30000000000000004,
    1e-300,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    4503599627370495.5,
    -1234567.890625,
    9007199254740.993,
)
_BIG = 2**53
_INTS = (_BIG, -_BIG, 2**31, -(2**31) - 1, 2**32, _BIG - 1)


def _non_integral(x: float) -> float:
    """``x``, or a float near it with a fractional part (every float from 2**52 up is integral)."""
    if not x.is_integer():
        return x
    return x + 0.5 if abs(x) < 2**52 else 0.5


def unique_keys(keys: list[str]) -> list[str]:
    """``keys`` made unique by suffixing repeats with ``_`` (no draw is thrown away)."""
    seen: set[str] = set()
    out = []
    for key in keys:
        while key in seen:
            key += "_"
        seen.add(key)
        out.append(key)
    return out


class JsonSource:
    """Decodes JSON values from a drawn byte string and a drawn text, one after another."""

    __slots__ = ("_pool", "_reader")

    def __init__(self, data: bytes, text: str) -> None:
        self._reader = ByteReader(data)
        self._pool = TextPool(text)

    def value(self, max_leaves: int) -> Json:
        """A value of at most ``max_leaves`` scalars."""
        return self._node([max_leaves], 0)

    def obj(self, max_size: int = _CONTAINER_SIZE, max_leaves: int = _OBJECT_LEAVES) -> FrozenDict:
        """An object of at most ``max_size`` keys (call arguments, a function's response)."""
        reader = self._reader
        size = min(reader.below(max_size + 1), reader.left // 2)
        return self._entries(size, [max_leaves], 1)

    def _entries(self, size: int, budget: list[int], depth: int) -> FrozenDict:
        keys, values = [], []
        for _ in range(size):
            if budget[0] <= 0:
                break
            keys.append(self._key())
            values.append(self._node(budget, depth))
        return FrozenDict(zip(unique_keys(keys), values, strict=True))

    def _key(self) -> str:
        code = self._reader.byte()
        key = self._pool.take(code % 9) if code % 9 else ""
        return key or _KEY_LETTERS[code // 9 % 26]

    def _node(self, budget: list[int], depth: int) -> Json:
        reader = self._reader
        code = reader.byte()
        kind, payload = code >> 5, code & 31
        if kind >= 5 and (budget[0] <= 1 or depth >= _DEPTH):
            kind -= 5  # no room for a container: a scalar instead
        if kind >= 5:
            size = min(payload % (_CONTAINER_SIZE + 1), budget[0], reader.left // (kind - 4))
            if kind == 5:
                items = []
                for _ in range(size):
                    if budget[0] <= 0:
                        break
                    items.append(self._node(budget, depth + 1))
                return tuple(items)
            return self._entries(size, budget, depth + 1)
        budget[0] -= 1
        if kind == 0:
            return None
        if kind == 1:
            return bool(payload & 1)
        if kind == 2:
            return self._integer(payload)
        if kind == 3:
            return self._float(payload)
        return self._pool.take(payload % 16)

    def _integer(self, payload: int) -> int:
        if payload < 24:  # 0, -1, 1, -2, 2, ...
            return -(payload + 1) // 2 if payload % 2 else payload // 2
        if payload < 26:
            magnitude = self._reader.integer(7) % (_BIG + 1)
            return -magnitude if payload % 2 else magnitude
        return _INTS[payload - 26]

    def _float(self, payload: int) -> float:
        if payload < len(_FLOATS):
            return _FLOATS[payload]
        reader = self._reader
        sign = -1.0 if payload % 2 else 1.0
        if payload < 24:  # decimal: up to ten digits, a few of them after the point
            return _non_integral(sign * reader.integer(4) / 10 ** (1 + reader.below(9)))
        # binary: a full 52-bit mantissa at a scale of 2**-60 .. 2**19
        mantissa = 1 + (reader.integer(7) & (2**52 - 1)) / 2**52
        return _non_integral(sign * mantissa * 2.0 ** (reader.below(80) - 60))


def _decoded(data: bytes, text: str, *, max_leaves: int) -> Json:
    return JsonSource(data, text).value(max_leaves)


def _decoded_object(data: bytes, text: str, *, max_size: int) -> FrozenDict:
    return JsonSource(data, text).obj(max_size)


@cache
def json_values(*, max_leaves: int = 12) -> st.SearchStrategy[Json]:
    """Any frozen JSON value: objects (varied key order), arrays, unicode strings, numbers."""
    check_at_least("json_values", "max_leaves", max_leaves, 1)
    return st.builds(
        partial(_decoded, max_leaves=max_leaves), st.binary(max_size=64), st.text(max_size=40)
    )


@cache
def json_objects(*, max_size: int = 4) -> st.SearchStrategy[FrozenDict]:
    """A frozen JSON object, e.g. call arguments or a function response."""
    check_sizes("json_objects", 0, max_size, low="")
    return st.builds(
        partial(_decoded_object, max_size=max_size), st.binary(max_size=64), st.text(max_size=40)
    )


def json_blobs(objects: int) -> st.SearchStrategy[bytes]:
    """The byte string ``objects`` objects decode from, one after another (a longer one for
    more); with ``pools()``, the two draws of a message's arguments or responses."""
    return blobs(2 * (objects - 1), 64 * objects)
