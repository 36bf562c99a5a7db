"""Reading a JSON-lines log of requests for an offline check (``prefix-harness check-log``).

Two line formats, mixed freely: a record line of ``prefix-harness capture`` (it has
``"v"``), and a minimal line from any other tool: ``{"body": ..., "path": ..., "dialect":
..., "mark": ...}`` where only ``body`` (the request JSON, as an object or as text) is
required. A line that is neither is bad input, reported with the file and line number.

The file is read one line at a time, and of each usable request only a small index entry
is kept (where its line is, its mark and reply, what grouping compares): its body and its
neutral request are read back from the file when the check needs them. So a check needs
memory for a few of the largest records on top of the index, whatever the file's size.
Standard input (``-``) cannot be read twice, nor can any other file that cannot seek (a named
pipe, ``/dev/stdin``, a shell's ``<(...)``): it is first copied to a temporary file, which is
removed when the check is done.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from ..dialects import (
    Dialect,
    ReportedUsage,
    UsageError,
    all_dialects,
    detect_dialect,
    get_dialect,
    wires,
)
from ..model import json_kind
from ._group import Prefixes
from ._observe import Ignored, Observed, observe_record, observed
from ._record import Record, _decode
from ._stored import Stored

__all__ = ["STDIN", "LogError", "read_log"]

_NO_MEMORY = "Not enough memory"
"""How orjson says it ran out of memory (a ``JSONDecodeError``, though the JSON may be fine)."""

STDIN = "-"
"""The file name that stands for standard input."""

_SPOOL = 1 << 20
"""How much of a pipe is copied aside at a time."""
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
    from their ``path``, else detected from the body). ``-`` reads standard input, and a
    file that cannot seek (a pipe) is read the same way: copied to a temporary file first.
    The requests' bodies are read back from the file when needed."""
    if str(path) == STDIN:
        source = getattr(sys.stdin, "buffer", None)
        if source is None:
            raise LogError("standard input cannot be read: it is closed")
        return _read(_spooled(source, "standard input"), "standard input", dialect)
    try:
        file = open(path, "rb")  # noqa: SIM115 (kept open for reading bodies back)
    except OSError as e:
        raise LogError(f"{path}: cannot be read ({e.strerror or e})") from None
    if not file.seekable():  # its bodies could not be read back: read it once, aside
        with file:
            return _read(_spooled(file, str(path)), path, dialect)
    return _read(file, path, dialect)


def _spooled(source: IO[bytes], name: str) -> IO[bytes]:
    """``source`` copied to an unnamed temporary file, read from its start."""
    spool = tempfile.TemporaryFile()  # noqa: SIM115 (kept open for reading bodies back)
    try:
        while True:
            try:
                chunk = source.read(_SPOOL)
            except OSError as e:
                raise LogError(f"{name}: cannot be read ({e.strerror or e})") from None
            if not chunk:
                break
            try:
                spool.write(chunk)
            except OSError as e:
                raise LogError(
                    f"{name} cannot be copied to a temporary file ({e.strerror or e})"
                ) from None
        spool.seek(0)
    except ValueError:  # a closed stream
        spool.close()
        raise LogError(f"{name} cannot be read: it is closed") from None
    except BaseException:
        spool.close()
        raise
    return spool


def _lines(file: IO[bytes], path: str | Path) -> Iterator[tuple[int, int, bytes]]:
    """The file's lines with their numbers and offsets, one at a time; ``LogError`` when
    reading fails."""
    number = offset = 0
    while True:
        try:
            line = file.readline()
        except OSError as e:
            raise LogError(f"{path}: cannot be read ({e.strerror or e})") from None
        if not line:
            return
        number += 1
        yield number, offset, line
        offset += len(line)


def _read(
    file: IO[bytes], path: str | Path, dialect: str | None
) -> tuple[tuple[Observed, ...], tuple[Ignored, ...]]:
    used: list[Observed] = []
    ignored: list[Ignored] = []
    stored = Stored()
    bodies = _LogBodies(file, path)
    prefixes = Prefixes()
    lines = 0
    try:
        for number, offset, line in _lines(file, path):
            where = f"{path}: line {number}"
            if number == 1:
                if line.startswith(_UTF16_BOMS):
                    raise LogError(
                        f"{path}: the file is UTF-16 (it starts with a byte order mark); "
                        "a log is JSON lines in UTF-8"
                    )
                if line.startswith(_BOM):
                    line, offset = line.removeprefix(_BOM), offset + len(_BOM)
            if not line.strip():
                continue
            lines += 1
            obj = _loads_line(line, where)
            at = _At(offset, len(line), number)
            found = (
                _record_line(obj, where, stored, bodies, at)
                if "v" in obj
                else _minimal_line(obj, number, where, dialect, bodies, at)
            )
            del obj, line
            if isinstance(found, Observed):
                prefixes.note(found)
                used.append(found)
            elif found is not None:
                ignored.append(found)
    except BaseException:
        file.close()
        raise
    if not used:
        file.close()  # nothing will be read back
    if not lines:
        raise LogError(f"{path}: the file is empty: there is no request to check")
    return tuple(used), tuple(ignored)


def _loads_line(line: bytes, where: str) -> dict[str, Any]:
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as e:
        if e.msg.startswith(_NO_MEMORY):  # the log is not at fault: the memory is
            raise MemoryError(e.msg) from None
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
    obj: dict[str, Any], where: str, stored: Stored, bodies: _LogBodies, at: _At
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
    return _guarded(record.seq, record.dialect, lambda: observe_record(record, stored, bodies, at))


def _minimal_line(
    obj: dict[str, Any],
    number: int,
    where: str,
    default: str | None,
    bodies: _LogBodies,
    at: _At,
) -> Observed | Ignored | None:
    if "body" not in obj:
        raise LogError(
            f'{where}: the line has no "body" (the request JSON) and is not a capture record'
        )
    for key in ("path", "dialect", "mark"):
        if obj.get(key) is not None and not isinstance(obj[key], str):
            raise LogError(f'{where}: "{key}" must be a string, not {json_kind(obj[key])}')
    for key in ("response", "usage"):
        if obj.get(key) is not None and not isinstance(obj[key], dict):
            raise LogError(f'{where}: "{key}" must be an object, not {json_kind(obj[key])}')
    if obj.get("response") is not None and obj.get("usage") is not None:
        raise LogError(
            f'{where}: the line has both "response" and "usage"; give one (the response, or'
            " only its usage)"
        )
    body = _body(obj["body"], number, where)
    if isinstance(body, Ignored):
        return body
    decoded, raw = body
    route_dialect = None
    if obj.get("path"):
        routes = {d: w.route("POST", obj["path"].split("?")[0], {}) for d, w in wires().items()}
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
        found = observed(number, name, raw, decoded, mark=obj.get("mark"), bodies=bodies, where=at)
        if isinstance(found, str):
            return Ignored(number, found)
        found.reported = _reported(obj, get_dialect(name), decoded)
        return found

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


def _reported(
    obj: dict[str, Any], dialect: Dialect, body: dict[str, Any]
) -> ReportedUsage | str | None:
    """The usage the line reports (its ``response``'s, or its ``usage``), a sentence saying
    why it cannot be compared, or None when the line reports none."""
    usage = obj.get("usage")
    if obj.get("response") is not None:
        usage = dialect.response_usage(obj["response"])
        if usage is not None and not isinstance(usage, dict):
            return f'the response\'s "{dialect.usage_key}" is {json_kind(usage)}, not an object'
    if usage is None:
        return None
    try:
        return dialect.reported_usage(usage, body)
    except UsageError as e:
        return str(e)


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


class _At:
    """Where a usable request's line is in the log: its offset, length and number."""

    __slots__ = ("length", "number", "offset")

    def __init__(self, offset: int, length: int, number: int) -> None:
        self.offset, self.length, self.number = offset, length, number


class _LogBodies:
    """Reads the bodies of a log's requests back from the file, a line at a time; the file
    stays open while a request of it is kept, and is closed with the last."""

    def __init__(self, file: IO[bytes], path: str | Path) -> None:
        self._file, self._path = file, path
        self._lock = threading.Lock()
        weakref.finalize(self, file.close)

    def _line(self, at: _At) -> dict[str, Any]:
        with self._lock:
            try:
                self._file.seek(at.offset)
                line = self._file.read(at.length)
            except (OSError, ValueError) as e:
                raise LogError(f"{self._path}: cannot be read back ({e})") from None
        if len(line) != at.length:
            raise LogError(f"{self._path}: the file changed while it was checked")
        try:
            obj: dict[str, Any] = orjson.loads(line)
        except orjson.JSONDecodeError:
            obj = {}
        if not isinstance(obj, dict) or ("v" not in obj and "body" not in obj):
            raise LogError(f"{self._path}: the file changed while it was checked")
        return obj

    def fetch(self, where: Any) -> tuple[bytes, Any]:
        at: _At = where
        obj = self._line(at)
        if "v" in obj:
            record = Record.from_json(obj)
            return record.body or b"", record.json
        found = _body(obj["body"], at.number, f"{self._path}: line {at.number}")
        assert not isinstance(found, Ignored)
        decoded, raw = found
        return raw, decoded

    def raw(self, where: Any) -> bytes:
        at: _At = where
        obj = self._line(at)
        if "v" in obj:
            return _decode(obj.get("body_encoding"), obj.get("body")) or b""
        value = obj["body"]
        if isinstance(value, str):
            return value.encode("utf-8", "surrogatepass")
        return orjson.dumps(value)
