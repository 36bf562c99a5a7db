"""Reading captured request bodies from files or stdin, with one clear sentence per problem.

Every failure is a ``BodyError`` naming the source, so a command can print it and exit 2
instead of a traceback; sizes are checked before reading so memory stays bounded.
"""

from __future__ import annotations

import json
import os
import re
import sys
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import Any, BinaryIO

import orjson

from .dialects import Dialect, DialectError, ParsedBody, all_dialects
from .model import dumps

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "BodyError",
    "BodyPair",
    "Layout",
    "choose_dialect",
    "decode_body",
    "decode_pair",
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
    """
    return _decode(data.removeprefix(_BOM), source, warnings, None, 0)[0]


@dataclass(frozen=True, slots=True)
class BodyPair:
    """A parent's and a fork's decoded bodies, each with its ``Layout`` (None: not compact)."""

    parent: Any
    fork: Any
    parent_layout: Layout | None
    fork_layout: Layout | None


def decode_pair(
    parent: str,
    fork: str,
    *,
    max_bytes: int = DEFAULT_MAX_BODY_BYTES,
    warnings: list[str] | None = None,
    stdin: BinaryIO | None = None,
) -> BodyPair:
    """``read_body`` and ``decode_body`` of a parent's and a fork's body, in that order (so
    their errors come as two separate readings give them), each with its ``Layout``.

    The parent's bytes are kept until the fork's are read and compared with them (one
    ``memcmp``, no copy), then dropped before the fork is decoded. The fork's leading array
    items that repeat the parent's bytes are neither decoded nor encoded again: the fork's
    arrays hold the parent's item objects there (``_reusing``, ``Layout.shared``), so a
    fork that repeats its parent costs the reading of its own tail, and memory stays below
    that of the two bodies decoded one after the other.
    """
    data = read_body(parent, max_bytes=max_bytes, stdin=stdin).removeprefix(_BOM)
    parent_value, parent_layout = _decode(data, parent, warnings, None, 0)
    fork_data = read_body(fork, max_bytes=max_bytes, stdin=stdin).removeprefix(_BOM)
    common = 0 if parent_layout is None else _common_length(data, fork_data)
    del data  # the fork is decoded without the parent's bytes
    reused = None if parent_layout is None else _reusing(fork_data, parent_layout, common)
    fork_value, fork_layout = reused or _decode(fork_data, fork, warnings, parent_layout, common)
    return BodyPair(parent_value, fork_value, parent_layout, fork_layout)


def _reusing(data: bytes, parent: Layout, common: int) -> tuple[Any, Layout] | None:
    """The fork's body, its arrays' leading items that repeat the parent's bytes (in the
    ``common`` prefix, at the parent's offsets) taken from the parent, and its layout; None
    when it cannot be read so, and it is to be read whole.

    Only the rest is decoded: the body's bytes without those items (and their commas). The
    result is then checked as any body is (``_layout``: every byte of the body compared
    with the compact encoding of this value, the parent's items' bytes being the parent's
    own compact encoding of them), so it is what decoding the whole body gives; anything
    else (a key held twice, whitespace, an array read from a later duplicate) leaves bytes
    unmatched, and the body is read whole instead.
    """
    cuts: list[tuple[str, int, int, int]] = []  # key, bytes cut out, items taken
    for key, bounds in parent.items.items():  # in the order of the bytes
        count = bisect_right(bounds, common) - 1
        if count > 0:
            after = bounds[count]  # the next item, or the byte after the closing bracket
            cuts.append((key, bounds[0], after if data[after - 1] == 44 else after - 1, count))
    if not cuts:
        return None
    pieces, at = [], 0
    for _, start, end, _ in cuts:
        pieces.append(data[at:start])
        at = end
    pieces.append(data[at:])
    try:
        rest = orjson.loads(b"".join(pieces))
    except (orjson.JSONDecodeError, RecursionError):
        return None
    del pieces
    if type(rest) is not dict:
        return None
    for key, _, _, count in cuts:
        items = rest.get(key)
        if type(items) is not list:
            return None
        items[0:0] = parent.body[key][:count]
    layout = _layout(data, rest, parent, common)
    return None if layout is None else (rest, layout)


def _decode(
    data: bytes, source: str, warnings: list[str] | None, parent: Layout | None, common: int
) -> tuple[Any, Layout | None]:
    """``decode_body`` of ``data`` (its byte-order mark already skipped), with its layout."""
    if not data or data.isspace():  # not strip(): that copies a body ending in a newline
        raise BodyError(source, "is empty, not a JSON request body")
    try:
        decoded = orjson.loads(data)
    except orjson.JSONDecodeError as e:
        if e.msg.startswith(_NO_MEMORY):  # the body is not at fault: the memory is
            raise MemoryError(e.msg) from None
        raise BodyError(source, _json_problem(e, len(data))) from None
    except RecursionError:
        raise BodyError(source, "is nested too deeply to read") from None
    layout = _layout(data, decoded, parent, common)
    if layout is not None:
        return decoded, layout  # no key read twice, no integer orjson could not hold: see there
    colons, wide = _tally(decoded)
    if warnings is not None:
        warnings.extend(
            f"{_display(source)}: {d}" for d in _duplicate_keys(data, decoded, colons=colons)
        )
    if wide and _LONG_NUMBER.search(data) is not None:
        decoded = _exact(data, source)
    return decoded, None


_CHUNK = 1 << 20
"""Most bytes compared at a time in ``_common_length``: few calls, each a plain ``memcmp``."""
_FIRST = 64
"""Bytes compared first in ``_common_length``: bodies of two runs part within the first few."""
_TAIL = 32
"""Bytes at most turned into integers in ``_common_length`` (its cost grows with them)."""


def _common_length(a: bytes, b: bytes) -> int:
    """The length of the longest common prefix of ``a`` and ``b``: windows compared in place
    (``startswith`` of a memoryview slice at an offset), doubling from ``_FIRST`` bytes up to
    ``_CHUNK``, then the window they differ in halved down to ``_TAIL`` bytes, and those as
    two big-endian integers, whose xor's highest bit is in the first byte that differs. So
    it costs a few comparisons, whether the two part early or late."""
    limit = min(len(a), len(b))
    with memoryview(a) as view:
        at, step = 0, max(1, min(_FIRST, _CHUNK))
        while True:
            if at >= limit:
                return limit
            end = min(at + step, limit)
            if not b.startswith(view[at:end], at):
                break
            at, step = end, min(step * 2, _CHUNK)
        while end - at > _TAIL:  # a[:at] == b[:at]; they differ before end
            middle = (at + end) // 2
            if b.startswith(view[at:middle], at):
                at = middle
            else:
                end = middle
        differ = int.from_bytes(view[at:end], "big") ^ int.from_bytes(b[at:end], "big")
        return end - (differ.bit_length() + 7) // 8  # the bytes after the first differing one


_BOM = b"\xef\xbb\xbf"
_LONG_NUMBER = re.compile(rb"\d{19}")
"""19 digits in a row: maybe an integer orjson cannot hold (it holds -2**63 to 2**64 - 1)."""
_MAX_SHOWN_DUPLICATES = 3
_WIDE = 2.0**63
"""orjson reads an integer below -2**63 or above 2**64 - 1 as a float at least this large."""


@dataclass(frozen=True, slots=True, eq=False)
class Layout:
    """Where the parts of a body that is its own compact encoding stand in its bytes.

    ``items[key]`` holds, for a non-empty array at the top level, the offset of each item
    and then the offset after its closing bracket: item ``k`` is ``data[b[k] : b[k+1] - 1]``
    (the compact encoding of ``body[key][k]``, whose length is thus known without encoding
    it). ``shared[key]``, for a fork decoded with its parent's layout (``parent``), is how
    many leading items of that array are byte for byte the parent's, at the same offsets,
    followed by the same byte: they are the parent's items, equal in value and key order.
    """

    body: dict[str, Any]
    items: dict[str, list[int]]
    parent: Layout | None = None
    shared: dict[str, int] | None = None


def _layout(data: bytes, decoded: Any, parent: Layout | None, common: int) -> Layout | None:
    """The layout of ``data`` if it is, but for trailing whitespace, the compact encoding of
    ``decoded``; None otherwise.

    Many clients send compact JSON, and then one comparison settles what ``_tally`` and
    ``_duplicate_keys`` would find by counting: a key read twice drops a member, and an
    integer orjson cannot hold comes back as a float in another form, so neither body
    encodes to its own bytes. The object is encoded one top-level value at a time, each
    array one item at a time, and each encoding is compared in place (``startswith`` at an
    offset, no copy) and dropped: time of one encoding and one ``memcmp``, memory of one item.

    With a ``parent`` layout and the length of the prefix this body shares with the
    parent's bytes (``common``), the leading items of an array that starts where the
    parent's does and that end, with the byte after them, inside that prefix are not
    encoded: their bytes are the parent's compact encoding of its items. The rest of the
    comparison is unchanged, so it still holds only if the whole body is the compact
    encoding of ``decoded`` with those items taken from the parent: then ``decoded`` is that
    value (a key read twice, or an array read from a later duplicate, would leave bytes
    over), so its items are the parent's there.
    """
    if type(decoded) is not dict or not data.startswith(b"{"):
        return None
    at, starts, dumps_ = 1, data.startswith, orjson.dumps
    items: dict[str, list[int]] = {}
    shared: dict[str, int] = {}
    theirs = parent.items if parent is not None else {}
    try:
        for i, (key, value) in enumerate(decoded.items()):
            head = (b"," if i else b"") + dumps_(key) + b":"
            if not starts(head, at):
                return None
            at += len(head)
            if type(value) is list and value:
                if not starts(b"[", at):
                    return None
                at += 1
                first = at
                bounds: list[int] = []
                rest: Iterable[Any] = value
                parents = theirs.get(key)
                skip = _shared_count(parents, at, common, len(value))
                if parents is not None and skip:
                    shared[key] = skip
                    bounds, at = parents[:skip], parents[skip]
                    rest = islice(value, skip, None)
                append = bounds.append
                for item in rest:
                    if at != first and data[at - 1] != 44:  # a comma after the item before
                        return None
                    encoded = dumps_(item)
                    if not starts(encoded, at):
                        return None
                    append(at)
                    at += len(encoded) + 1  # and the comma or closing bracket after it
                if data[at - 1] != 93:  # "]"
                    return None
                append(at)
                items[key] = bounds
            else:
                encoded = dumps_(value)
                if not starts(encoded, at):
                    return None
                at += len(encoded)
    except orjson.JSONEncodeError:
        return None  # nested deeper than orjson encodes
    except IndexError:
        return None  # bytes that end after an item: not a body ``_reusing`` may take
    if not starts(b"}", at) or not (len(data) == at + 1 or data[at + 1 :].isspace()):
        return None
    return Layout(decoded, items, parent, shared if parent is not None else None)


def _shared_count(bounds: list[int] | None, at: int, common: int, count: int) -> int:
    """How many leading items of an array whose first item starts at ``at`` (of ``count``
    items) are the parent's: those of the parent's array (item offsets ``bounds``) starting
    there whose bytes and the byte after them lie in the ``common`` bytes both bodies share."""
    if bounds is None or bounds[0] != at:
        return 0
    return max(0, min(bisect_right(bounds, common) - 1, count))


def _tally(decoded: Any) -> tuple[int, bool]:
    """The colons the body's compact encoding holds (one per key, and those inside keys and
    strings), and whether it holds a float as large as an integer orjson could not hold.

    The body is encoded a few values at a time (``_pieces``), never whole, and each piece is
    dropped once counted: memory stays that of one piece, and the time that of one encoding.
    """
    colons, wide = 0, False
    for piece, structural in _pieces(decoded):
        colons += piece.count(b":") + structural
        wide = wide or _wide(piece)
    return colons, wide


_PIECE = 64
"""Items of an array encoded together: a piece holds at most this many messages."""


def _pieces(decoded: Any) -> Iterator[tuple[bytes, int]]:
    """The compact encodings of the body's top-level values, each array's items in pieces of
    ``_PIECE``, with the colons the encoding around them holds (one per top-level key, and
    those inside the keys)."""
    if type(decoded) is not dict:
        yield dumps(decoded), 0
        return
    yield b"", len(decoded) + "".join(decoded).count(":")
    for value in decoded.values():
        if type(value) is list and len(value) > _PIECE:
            for at in range(0, len(value), _PIECE):
                yield dumps(value[at : at + _PIECE]), 0
        else:
            yield dumps(value), 0


_NUMBER_BYTES = frozenset(b"0123456789.-")
_E = ord("e")


def _wide(piece: bytes) -> bool:
    """Whether the compact JSON ``piece`` holds a float at least ``_WIDE`` across: orjson
    writes one with an exponent (``1.8446744073709552e+19``). A string holding such text
    counts too; that only costs the exact scan of the body. ``+`` is looked for, not ``e+``:
    a search for a rare byte skips through text, one for ``e`` stops every few bytes."""
    plus = piece.find(b"+")
    while plus != -1:
        start, end = plus - 1, plus + 1
        if start > 0 and piece[start] == _E:
            while start and piece[start - 1] in _NUMBER_BYTES:
                start -= 1
            while end < len(piece) and 48 <= piece[end] <= 57:
                end += 1
            if start < plus - 1 and end > plus + 1:
                try:
                    if not -_WIDE < float(piece[start:end]) < _WIDE:
                        return True
                except ValueError:  # text such as "1-2e+5" inside a string
                    pass
        plus = piece.find(b"+", end)
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


def _duplicate_keys(data: bytes, decoded: Any, *, colons: int) -> list[str]:
    """A sentence naming the keys that an object of the body holds twice (the first few), if any.

    Cheap when there are none: a key read twice drops at least one ``:`` that stands
    outside strings, so the decoded body's compact encoding (``colons``, from ``_tally``)
    then has fewer colons than the body (a colon written as an escape inside a string
    aside). Only then is the body read again, slowly, to find them.
    """
    if b"u003" not in data and colons == data.count(b":"):
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
