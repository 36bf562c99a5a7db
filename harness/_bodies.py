"""Reading captured request bodies from files or stdin, with one clear sentence per problem.

Every failure is a ``BodyError`` naming the source, so a command can print it and exit 2
instead of a traceback; sizes are checked before reading so memory stays bounded.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO

import orjson

from .dialects import Dialect, DialectError, ParsedBody, all_dialects
from .model import dumps

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "BodyError",
    "BodyPair",
    "Encodings",
    "choose_dialect",
    "decode_body",
    "decode_pair",
    "kept_encoding",
    "parse_body",
    "read_body",
]

_NO_MEMORY = "Not enough memory"
"""How orjson says it ran out of memory (a ``JSONDecodeError``, though the JSON may be fine)."""

DEFAULT_MAX_BODY_BYTES = 128 * 1024 * 1024
STDIN = "-"


class BodyError(Exception):
    """A body that cannot be read or is not a request: ``str()`` is the sentence to print."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{_display(source)}: {problem}")
        self.source = source
        self.problem = problem


def _display(source: str) -> str:
    return "<stdin>" if source == STDIN else source


def _size(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 1_000_000 else f"{n:,} bytes"


def read_body(
    source: str, *, max_bytes: int = DEFAULT_MAX_BODY_BYTES, stdin: BinaryIO | None = None
) -> bytes:
    """The raw bytes of a body file, or of stdin for ``"-"``, refusing more than ``max_bytes``."""
    if source == STDIN:
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = stream.read(max_bytes + 1)
    else:
        try:
            size = os.stat(source).st_size
            if os.path.isdir(source):
                raise BodyError(source, "is a directory, not a request body file")
            if size > max_bytes:
                raise BodyError(
                    source,
                    f"is {_size(size)}, over the {_size(max_bytes)} limit for one body"
                    " (raise it with --max-body-size)",
                )
            with open(source, "rb") as f:
                data = f.read(max_bytes + 1)
        except FileNotFoundError:
            raise BodyError(source, "no such file") from None
        except PermissionError:
            raise BodyError(source, "cannot be read (permission denied)") from None
        except OSError as e:
            raise BodyError(source, f"cannot be read ({e.strerror or e})") from None
    if len(data) > max_bytes:
        raise BodyError(
            source,
            f"is over the {_size(max_bytes)} limit for one body (raise it with --max-body-size)",
        )
    return data


def decode_body(data: bytes, *, source: str, warnings: list[str] | None = None) -> Any:
    """The decoded JSON of a body, with orjson's parse errors turned into plain sentences.

    A leading UTF-8 byte-order mark is skipped. Integers beyond 64 bits are read exactly
    (orjson would read them as floats, and two bodies differing only there would compare
    equal). A key that an object holds twice is read as its last value, as orjson does;
    each one found is said as a sentence naming the source, appended to ``warnings`` when
    a list is given.

    Both are found in the body's compact encoding, made once. A body that is that
    encoding (as most clients send it) holds neither: a key read twice, or an integer read
    as a float, would have made other bytes. Otherwise orjson writes a float as large as an
    integer it cannot hold with an exponent (``_wide``), and a key read twice leaves the
    encoding fewer colons than the body (``_duplicate_keys``).
    """
    data = data.removeprefix(_BOM)
    decoded = _loads(data, source)
    return _checked(data, decoded, [dumps(decoded)], source, warnings)


def _loads(data: bytes, source: str) -> Any:
    """``orjson.loads`` of a body (its byte-order mark skipped), errors as sentences."""
    if not data or data.isspace():  # not strip(): that copies a body ending in a newline
        raise BodyError(source, "is empty, not a JSON request body")
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as e:
        if e.msg.startswith(_NO_MEMORY):  # the body is not at fault: the memory is
            raise MemoryError(e.msg) from None
        raise BodyError(source, _json_problem(e, len(data))) from None
    except RecursionError:
        raise BodyError(source, "is nested too deeply to read") from None


def _checked(
    data: bytes, decoded: Any, encoded: list[bytes], source: str, warnings: list[str] | None
) -> Any:
    """``decoded``, the body ``data`` decoded by orjson, whose compact encoding is the
    pieces ``encoded``, with its keys held twice said and its integers exact
    (``decode_body``)."""
    if _is_encoding(data, encoded):
        return decoded
    if warnings is not None:
        warnings.extend(f"{_display(source)}: {d}" for d in _duplicate_keys(data, encoded))
    if _wide(encoded):
        decoded = _exact(data, source)
    return decoded


def kept_encoding(value: Any) -> bytes:
    """``dumps(value)`` in bytes of its own length, for an encoding that is kept (a prefix
    stream's): orjson's bytes keep the buffer they were written in, up to about twice
    their length. Copied, the 55 MB of a 55 MB body's items held 56 MB instead of 101 MB,
    and encoding them took 46 ms instead of 66 (freed at once, each buffer serves the next).
    """
    return bytes(memoryview(dumps(value)))


class Encodings:
    """Compact encodings made already, by the identity of the value each encodes: a prefix
    stream frames a segment whose value is here with its encoding, encoding nothing
    (``decode_pair`` fills one for ``diff``). Each value is held with its encoding, so that
    no other object takes its id. One is filled and read by one command's thread."""

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held: dict[int, tuple[Any, bytes]] = {}

    def add(self, value: Any, encoded: bytes) -> None:
        """Keep ``encoded``, the compact encoding of ``value``."""
        self._held[id(value)] = (value, encoded)

    def get(self, value: Any) -> bytes | None:
        """The encoding kept for this very ``value``, if any."""
        held = self._held.get(id(value))
        return held[1] if held is not None and held[0] is value else None


@dataclass(frozen=True, slots=True)
class BodyPair:
    """A parent's and a fork's decoded bodies, and the compact encodings of their top-level
    array items, by the items' identity (``decode_pair``), for their prefix streams."""

    parent: Any
    fork: Any
    known: Encodings


def decode_pair(
    parent: str,
    fork: str,
    *,
    max_bytes: int = DEFAULT_MAX_BODY_BYTES,
    warnings: list[str] | None = None,
    stdin: BinaryIO | None = None,
) -> BodyPair:
    """``read_body`` and ``decode_body`` of a parent's and a fork's body, in that order (so
    their errors come as two readings one after the other give them): the same values and
    warnings, read with ``diff``'s one cache, ``known``.

    ``diff`` compares two bodies of which the second repeats the first; read as two
    unrelated bodies, each is decoded, encoded whole (to find keys held twice and integers
    to read exactly) and encoded again segment by segment (its prefix stream): the ~55 MB
    compact pair of bench/against.py then took 2.2x the time it took with the byte-layout
    shortcuts this replaces (0.64 s of CPU against 0.29 s). Here each body is encoded
    once, item by item (``_encode_body``): its checks read those encodings, and its stream
    takes them from ``known``. And when the parent's bytes are its own compact encoding, the fork's
    leading array items that repeat the parent's bytes are the parent's very items,
    neither decoded nor encoded again (``_against``). With both, the compact pair takes
    0.40 s (1.4x), the indented one 0.70 s against 0.56 s (1.3x).
    """
    known = Encodings()
    data = read_body(parent, max_bytes=max_bytes, stdin=stdin).removeprefix(_BOM)
    parent_value = _loads(data, parent)
    encoded, spans = _encode_body(parent_value, known)
    compact = _is_encoding(data, encoded)
    if not compact:
        parent_value = _checked(data, parent_value, encoded, parent, warnings)
    del data  # a compact parent's bytes are its pieces ``encoded``
    fork_data = read_body(fork, max_bytes=max_bytes, stdin=stdin).removeprefix(_BOM)
    taken = _against(fork_data, encoded, parent_value, spans, known) if compact else None
    del encoded
    if taken is None:
        taken = _loads(fork_data, fork)
        encoded, _ = _encode_body(taken, known)
        taken = _checked(fork_data, taken, encoded, fork, warnings)
    return BodyPair(parent_value, taken, known)


Span = tuple[int, int]
"""Where an item stands in a body's compact encoding: its first byte, and the byte after
its last."""


def _encode_body(decoded: Any, known: Encodings) -> tuple[list[bytes], dict[str, list[Span]]]:
    """The compact encoding of a body (orjson's bytes) in pieces, its top-level arrays
    encoded item by item, each item's encoding kept in ``known``; and the span of each item
    of each non-empty top-level array in it."""
    if type(decoded) is not dict:
        return [dumps(decoded)], {}
    pieces, at, spans = [b"{"], 1, {}
    for i, (key, value) in enumerate(decoded.items()):
        head = (b"," if i else b"") + dumps(key) + b":"
        pieces.append(head)
        at += len(head)
        if type(value) is not list or not value:
            encoded = dumps(value)
            pieces.append(encoded)
            at += len(encoded)
            continue
        items: list[Span] = []
        for k, item in enumerate(value):
            encoded = kept_encoding(item)
            known.add(item, encoded)
            pieces += (b"," if k else b"[", encoded)
            items.append((at + 1, at + 1 + len(encoded)))
            at += 1 + len(encoded)
        pieces.append(b"]")
        at += 1
        spans[key] = items
    pieces.append(b"}")
    return pieces, spans


def _against(
    data: bytes,
    parent: list[bytes],
    parent_value: dict[str, Any],
    spans: dict[str, list[Span]],
    known: Encodings,
) -> Any | None:
    """The fork's body ``data``, decoded with the leading items of the parent's top-level
    arrays it repeats taken from ``parent_value``; None where it is to be read whole.

    ``parent`` is the parent's bytes, its own compact encoding, in pieces, and ``spans``
    its items' (``_encode_body``). Up to where the two bodies' bytes part, a reading of
    the fork is a reading of the parent: an item that ends, with the byte after it (a
    comma or the array's closing bracket), before that point is that item of the fork too,
    and the fork's array goes on from there. Those items (and their commas) are cut out of
    the fork's bytes and the rest is decoded; the parent's items are put back at the head
    of each array. That is what decoding the whole gives, unless the rest holds a key twice
    (an array's key again would replace it) or a number to read exactly: then, as for a
    parent that is not compact, the fork is read whole, and its warnings said there.
    """
    common = 0  # the parent's pieces the fork's bytes repeat, whole: where they part, or after
    for piece in parent:
        if not data.startswith(piece, common):
            break
        common += len(piece)
    cuts: list[tuple[str, int, int, int]] = []  # key, first byte cut, byte after, items
    for key, items in spans.items():
        count = sum(1 for _, end in items if end < common)
        if count:
            end = items[count - 1][1]
            cuts.append((key, items[0][0], end + 1 if data[end] == 44 else end, count))
    if not cuts:
        return None
    pieces, at = [], 0
    for _, start, stop, _ in cuts:
        pieces.append(data[at:start])
        at = stop
    pieces.append(data[at:])
    rest = b"".join(pieces)
    del pieces
    try:
        value = orjson.loads(rest)
    except orjson.JSONDecodeError as e:
        if e.msg.startswith(_NO_MEMORY):
            raise MemoryError(e.msg) from None
        return None
    except RecursionError:
        return None
    encoded, _ = _encode_body(value, known)
    if type(value) is not dict or _may_hold_duplicates(rest, encoded) or _wide(encoded):
        return None
    for key, _, _, count in cuts:
        array = value.get(key)
        if type(array) is not list:
            return None
        array[0:0] = parent_value[key][:count]
    return value


_BOM = b"\xef\xbb\xbf"
_MAX_SHOWN_DUPLICATES = 3
_WIDE = 2.0**63
"""orjson reads an integer below -2**63 or above 2**64 - 1 as a float at least this large."""
_NUMBER_BYTES = frozenset(b"0123456789.-")
_E = ord("e")


def _is_encoding(data: bytes, encoded: list[bytes]) -> bool:
    """Whether ``data`` is the pieces ``encoded`` but for trailing whitespace: each piece
    compared in place (a ``memcmp``, no copy)."""
    at = 0
    for piece in encoded:
        if not data.startswith(piece, at):
            return False
        at += len(piece)
    rest = data[at:]  # a copy of the tail alone
    return not rest or rest.isspace()


def _wide(encoded: list[bytes]) -> bool:
    """Whether the compact JSON in pieces ``encoded`` holds a float at least ``_WIDE``
    across: orjson writes one with an exponent (``1.8446744073709552e+19``). A string
    holding such text counts too; that only costs the exact reading of the body. (A piece
    is whole values: no number spans two.)"""
    return any(_wide_in(piece) for piece in encoded)


def _wide_in(encoded: bytes) -> bool:
    """``_wide`` of one piece. ``+`` is looked for, not ``e+``: a search for a rare byte
    skips through text, one for ``e`` stops every few bytes."""
    plus = encoded.find(b"+")
    while plus != -1:
        start, end = plus - 1, plus + 1
        if start > 0 and encoded[start] == _E:
            while start and encoded[start - 1] in _NUMBER_BYTES:
                start -= 1
            while end < len(encoded) and 48 <= encoded[end] <= 57:
                end += 1
            if start < plus - 1 and end > plus + 1:
                try:
                    if not -_WIDE < float(encoded[start:end]) < _WIDE:
                        return True
                except ValueError:  # text such as "1-2e+5" inside a string
                    pass
        plus = encoded.find(b"+", end)
    return False


def _stdlib_loads(data: bytes, **hooks: Any) -> Any:
    """``json.loads`` of a body orjson has read (so it is valid JSON, at most 1,024 levels
    deep), with room on the stack for that depth."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _depth_of_stack() + 1_200))
    try:
        return json.loads(data, **hooks)
    finally:
        sys.setrecursionlimit(limit)


def _depth_of_stack() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1  # type: ignore[assignment]
    return depth


def _exact(data: bytes, source: str) -> Any:
    """The body with its integers exact (Python ints of any size)."""
    try:
        return _stdlib_loads(data)
    except ValueError as e:  # an integer longer than sys.get_int_max_str_digits()
        raise BodyError(
            source, f"holds a number too long to read ({e}); no request body does"
        ) from None


def _may_hold_duplicates(data: bytes, encoded: list[bytes]) -> bool:
    """Whether the body ``data``, whose decoded value's compact encoding is the pieces
    ``encoded``, may hold a key twice: a key read twice drops at least one ``:`` that
    stands outside strings, so the encoding has fewer colons than the body (a colon written
    as an escape inside a string aside)."""
    colons = sum(piece.count(b":") for piece in encoded)
    return b"u003" in data or colons != data.count(b":")


def _duplicate_keys(data: bytes, encoded: list[bytes]) -> list[str]:
    """A sentence naming the keys that an object of the body holds twice (the first few), if any.

    Cheap when there are none: a key read twice drops at least one ``:`` that stands
    outside strings, so the decoded body's compact encoding (``encoded``) then has fewer
    colons than the body (a colon written as an escape inside a string aside). Only then
    is the body read again, slowly, to find them.
    """
    if not _may_hold_duplicates(data, encoded):
        return []
    found: dict[str, None] = {}  # keys held twice, in the order first seen

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) != len(items):
            seen: set[str] = set()
            for key, _ in items:
                if key in seen:
                    found[key] = None
                seen.add(key)
        return obj

    try:
        _stdlib_loads(data, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return []
    if not found:
        return []
    keys = list(found)
    shown = ", ".join(orjson.dumps(k).decode() for k in keys[:_MAX_SHOWN_DUPLICATES])
    more = len(keys) - _MAX_SHOWN_DUPLICATES
    named = f"{shown} and {more} more" if more > 0 else shown
    return [
        f"an object holds the same key twice ({named}); only the last of each is compared,"
        " and a provider may read another"
    ]


def _json_problem(error: orjson.JSONDecodeError, size: int) -> str:
    message = error.msg
    where = f"line {error.lineno}, column {error.colno} (byte {error.pos})"
    if "UTF-8" in message:
        return "is not valid UTF-8 text, so it is not a JSON request body"
    if message.startswith("unexpected end of data") or error.pos >= size:
        return f"ends in the middle of the JSON at byte {error.pos}: the file looks truncated"
    if "depth limit" in message or "recursion" in message:
        return f"is nested more than 1,024 levels deep at {where}; no request body is"
    return f"is not valid JSON: {message} at {where}"


def choose_dialect(bodies: Mapping[str, Any], *, name: str | None = None) -> tuple[Dialect, bool]:
    """The dialect to read ``bodies`` (source -> decoded JSON) with, and whether it was guessed.

    An explicit ``name`` wins. Otherwise the dialect with the most evidence over all bodies is
    chosen; a tie is a guess (the report says so), no evidence at all is an error.
    """
    if name is not None:
        try:
            return all_dialects()[name], False
        except KeyError:
            known = ", ".join(all_dialects())
            raise BodyError("--dialect", f"unknown dialect {name!r}; known: {known}") from None
    totals: dict[str, int] = {}
    for body in bodies.values():
        if not isinstance(body, dict):
            continue
        for dialect_name, dialect in all_dialects().items():
            totals[dialect_name] = totals.get(dialect_name, 0) + dialect.detect(body)
    ranked = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
    if not ranked or ranked[0][1] <= 0:
        return _plausible_dialect(bodies)
    guessed = len(ranked) > 1 and ranked[1][1] == ranked[0][1]
    return all_dialects()[ranked[0][0]], guessed


def _plausible_dialect(bodies: Mapping[str, Any]) -> tuple[Dialect, bool]:
    """With no telling feature in any body, the first dialect that reads them all (a guess)."""
    for dialect in all_dialects().values():
        try:
            for body in bodies.values():
                dialect.parse(body)
        except (DialectError, RecursionError):
            continue
        return dialect, True
    raise BodyError(
        " and ".join(bodies) or "input",
        "does not look like a request of any known dialect"
        f" ({', '.join(all_dialects())}); pass --dialect",
    )


def parse_body(dialect: Dialect, body: Any, *, source: str) -> ParsedBody:
    """``dialect.parse`` with its errors named after the source."""
    try:
        return dialect.parse(body)
    except DialectError as e:
        raise BodyError(source, f"is not a valid {dialect.title} request: {e}") from None
    except RecursionError:
        raise BodyError(source, "is nested too deeply to read") from None
