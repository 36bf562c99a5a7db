"""Reading captured request bodies from files or stdin, with one clear sentence per problem.

Every failure is a ``BodyError`` naming the source, so a command can print it and exit 2
instead of a traceback; sizes are checked before reading so memory stays bounded.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any, BinaryIO

import orjson

from .dialects import Dialect, DialectError, ParsedBody, all_dialects
from .model._json import dumps

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "BodyError",
    "choose_dialect",
    "decode_body",
    "parse_body",
    "read_body",
]

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

    Both are found in the body's compact encoding, made once: orjson writes a float as
    large as an integer it cannot hold with an exponent (``_wide``), and a key read twice
    leaves the encoding fewer colons than the body (``_duplicate_keys``).
    """
    data = data.removeprefix(_BOM)
    if not data or data.isspace():  # not strip(): that copies a body ending in a newline
        raise BodyError(source, "is empty, not a JSON request body")
    try:
        decoded = orjson.loads(data)
    except orjson.JSONDecodeError as e:
        raise BodyError(source, _json_problem(e, len(data))) from None
    except RecursionError:
        raise BodyError(source, "is nested too deeply to read") from None
    encoded = dumps(decoded)
    if warnings is not None:
        warnings.extend(f"{_display(source)}: {d}" for d in _duplicate_keys(data, encoded))
    if _wide(encoded):
        decoded = _exact(data, source)
    return decoded


_BOM = b"\xef\xbb\xbf"
_MAX_SHOWN_DUPLICATES = 3
_WIDE = 2.0**63
"""orjson reads an integer below -2**63 or above 2**64 - 1 as a float at least this large."""
_NUMBER_BYTES = frozenset(b"0123456789.-")
_E = ord("e")


def _wide(encoded: bytes) -> bool:
    """Whether the compact JSON ``encoded`` holds a float at least ``_WIDE`` across: orjson
    writes one with an exponent (``1.8446744073709552e+19``). A string holding such text
    counts too; that only costs the exact reading of the body. ``+`` is looked for, not
    ``e+``: a search for a rare byte skips through text, one for ``e`` stops every few bytes."""
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


def _duplicate_keys(data: bytes, encoded: bytes) -> list[str]:
    """A sentence naming the keys that an object of the body holds twice (the first few), if any.

    Cheap when there are none: a key read twice drops at least one ``:`` that stands
    outside strings, so the decoded body's compact encoding (``encoded``) then has fewer
    colons than the body (a colon written as an escape inside a string aside). Only then
    is the body read again, slowly, to find them.
    """
    if b"u003" not in data and encoded.count(b":") == data.count(b":"):
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
