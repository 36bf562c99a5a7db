"""Reading a JSON-lines log of requests for an offline check (``prefix-harness check-log``).

Two line formats, mixed freely: a record line of ``prefix-harness capture`` (it has
``"v"``), and a minimal line from any other tool: ``{"body": ..., "path": ..., "dialect":
..., "mark": ...}`` where only ``body`` (the request JSON, as an object or as text) is
required. A line that is neither is bad input, reported with the file and line number.

The file is read one line at a time from a binary file object, so reading needs memory for
the largest line on top of what is kept of each request (its body and its neutral request,
whose messages are shared between the requests that repeat them).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

import orjson

from ..dialects import all_dialects, detect_dialect
from ..model import Message, json_kind
from ._observe import Ignored, Observed, observe_record, observed
from ._record import Record
from ._server import WIRES
from ._stored import Stored

__all__ = ["LogError", "read_log"]

_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_DEPTH = "depth limit exceeded"


class LogError(ValueError):
    """A log that cannot be checked; ``str()`` is one sentence naming the file and line."""


def read_log(
    path: str | Path, *, dialect: str | None = None
) -> tuple[tuple[Observed, ...], tuple[Ignored, ...]]:
    """The usable requests of a log and the model calls left out; ``LogError`` for bad
    input. ``dialect`` is the wire format of minimal lines that do not name one (default:
    from their ``path``, else detected from the body)."""
    try:
        file = open(path, "rb")  # noqa: SIM115 (closed below; the errors differ)
    except OSError as e:
        raise LogError(f"{path}: cannot be read ({e.strerror or e})") from None
    with file:
        return _read(file, path, dialect)


def _lines(file: IO[bytes], path: str | Path) -> Iterator[tuple[int, bytes]]:
    """The file's lines with their numbers, one at a time; ``LogError`` when reading fails."""
    number = 0
    while True:
        try:
            line = file.readline()
        except OSError as e:
            raise LogError(f"{path}: cannot be read ({e.strerror or e})") from None
        if not line:
            return
        number += 1
        yield number, line


def _read(
    file: IO[bytes], path: str | Path, dialect: str | None
) -> tuple[tuple[Observed, ...], tuple[Ignored, ...]]:
    used: list[Observed] = []
    ignored: list[Ignored] = []
    stored = Stored()
    shared = _Shared()
    lines = 0
    for number, line in _lines(file, path):
        where = f"{path}: line {number}"
        if number == 1:
            if line.startswith(_UTF16_BOMS):
                raise LogError(
                    f"{path}: the file is UTF-16 (it starts with a byte order mark); "
                    "a log is JSON lines in UTF-8"
                )
            line = line.removeprefix(_BOM)
        if not line.strip():
            continue
        lines += 1
        obj = _loads_line(line, where)
        found = (
            _record_line(obj, number, where, stored)
            if "v" in obj
            else _minimal_line(obj, number, where, dialect)
        )
        del obj, line
        if isinstance(found, Observed):
            used.append(shared.observed(found))
        elif found is not None:
            ignored.append(found)
    if not lines:
        raise LogError(f"{path}: the file is empty: there is no request to check")
    return tuple(used), tuple(ignored)


def _loads_line(line: bytes, where: str) -> dict[str, Any]:
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as e:
        if _DEPTH in e.msg:
            raise LogError(
                f"{where}: nested deeper than JSON lines are read (1024 levels); "
                'give such a body as text, in "body", to have it left out instead'
            ) from None
        if line.startswith(_BOM):
            raise LogError(
                f"{where}: a byte order mark starts the line (only the file may start with one)"
            ) from None
        raise LogError(f"{where}: not valid JSON ({e.msg})") from None
    if not isinstance(obj, dict):
        raise LogError(f"{where}: a log line is a JSON object, not {json_kind(obj)}")
    return obj


def _record_line(
    obj: dict[str, Any], number: int, where: str, stored: Stored
) -> Observed | Ignored | None:
    try:
        record = Record.from_json(obj)
    except (ValueError, TypeError) as e:
        raise LogError(f"{where}: not a capture record: {e}") from None
    except RecursionError:
        raise LogError(f"{where}: not a capture record: the reply is nested too deeply") from None
    if record.reply is not None:
        try:  # no fake wrote it: its answer could not have been sent
            orjson.dumps(record.reply.to_json())
        except orjson.JSONEncodeError:
            raise LogError(
                f"{where}: not a capture record: the reply is nested deeper than it can be sent"
            ) from None
    if record.status == 200 and record.reply is not None and record.body:
        if record.json is None:
            return Ignored(record.seq, f"the body is not JSON ({_json_error(record.body)})")
        if not isinstance(record.json, dict):
            return Ignored(record.seq, f"the body is {json_kind(record.json)}, not a JSON object")
    return _guarded(record.seq, record.dialect, lambda: observe_record(record, stored))


def _minimal_line(
    obj: dict[str, Any], number: int, where: str, default: str | None
) -> Observed | Ignored | None:
    if "body" not in obj:
        raise LogError(
            f'{where}: the line has no "body" (the request JSON) and is not a capture record'
        )
    for key in ("path", "dialect", "mark"):
        if obj.get(key) is not None and not isinstance(obj[key], str):
            raise LogError(f'{where}: "{key}" must be a string, not {json_kind(obj[key])}')
    body = _body(obj["body"], number, where)
    if isinstance(body, Ignored):
        return body
    decoded, raw = body
    route_dialect = None
    if obj.get("path"):
        routes = {d: w.route("POST", obj["path"].split("?")[0], {}) for d, w in WIRES.items()}
        if any(r is not None and r.kind != "generate" for r in routes.values()):
            return None  # token counting and the like: not a model call
        route_dialect = next((d for d, r in routes.items() if r is not None), None)
    name = obj.get("dialect") or default or route_dialect
    if name is None:
        try:
            detected, _ = detect_dialect(decoded)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
            detected = None  # a body too odd to tell: as one of no known shape
        if detected is None:
            raise LogError(
                f'{where}: cannot tell the body\'s wire format; give --dialect or a "dialect" field'
            )
        name = detected.name
    if name not in all_dialects():
        known = ", ".join(all_dialects())
        raise LogError(f"{where}: unknown dialect {name!r} (known: {known})")

    def read() -> Observed | Ignored:
        found = observed(number, name, raw, decoded, mark=obj.get("mark"))
        return Ignored(number, found) if isinstance(found, str) else found

    return _guarded(number, name, read)


def _body(value: Any, number: int, where: str) -> tuple[dict[str, Any], bytes] | Ignored:
    """The decoded body and its bytes (text as given; an object re-encoded compactly), or
    the body left out when its text is nested deeper than it can be read."""
    if isinstance(value, str):
        raw = value.encode("utf-8", "surrogatepass")
        try:
            decoded = orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            if _DEPTH in e.msg:
                return Ignored(number, f"the body is not JSON ({_json_error(raw)})")
            raise LogError(f'{where}: the "body" text is not valid JSON ({e.msg})') from None
    else:
        decoded = value
        try:
            raw = orjson.dumps(value)
        except orjson.JSONEncodeError as e:  # nested deeper than orjson writes
            return Ignored(number, f"the body is nested too deeply to read ({e})")
    if not isinstance(decoded, dict):
        raise LogError(f'{where}: the "body" is {json_kind(decoded)}, not a JSON object')
    return decoded, raw


def _json_error(body: bytes) -> str:
    """Why ``body`` is not JSON, in the parser's words (a depth limit said as such)."""
    try:
        orjson.loads(body)
    except orjson.JSONDecodeError as e:
        if _DEPTH in e.msg:
            return "nested deeper than 1024 levels"
        return e.msg
    return "not an object"


def _guarded(seq: int, dialect: str, read: Any) -> Observed | Ignored | None:
    """``read()``, with a body that makes the dialect fail in any other way than by saying
    it cannot read it left out with the reason, rather than ending the check."""
    try:
        found: Observed | Ignored | None = read()
    except RecursionError:
        return Ignored(seq, "the body is nested too deeply to read")
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as e:
        kind = type(e).__name__
        return Ignored(seq, f"the {dialect} dialect cannot read the body ({kind}: {e})")
    return found


class _Shared:
    """One copy of each message (and preset) for every request that repeats it: a log's
    requests repeat their conversation's history, so a long log holds each message once."""

    def __init__(self) -> None:
        self._messages: dict[Message, Message] = {}
        self._presets: dict[Any, Any] = {}

    def observed(self, found: Observed) -> Observed:
        request = found.request
        try:
            history = tuple(self._messages.setdefault(m, m) for m in request.history)
            preset = self._presets.setdefault(request.preset, request.preset)
        except (TypeError, RecursionError):  # a value that cannot be hashed: kept as it is
            return found
        return replace(found, request=replace(request, history=history, preset=preset))
