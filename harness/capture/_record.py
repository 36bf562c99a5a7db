"""The record of a capture: one JSON object per request, one per line (docs/capture.md).

Every request the fake provider receives is recorded, answered or refused, with its raw
body as received so that later checks see exactly what the agent sent. Lines are written
one request at a time under a lock, so parallel children never interleave and a crashed run
still leaves every finished request on disk, in whole lines.
"""

from __future__ import annotations

import base64
import contextlib
import os
import threading
import weakref
from array import array
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from ..dialects import ParsedBody, Reply, get_dialect, reply_from_json
from ..model import FrozenDict, freeze
from ._claim import Claim, ClaimError

__all__ = ["RECORD_VERSION", "Record", "RecordError", "RecordWriter", "read_record", "timestamp"]

RECORD_VERSION = 1
_UNSET = object()


class RecordError(ValueError):
    """A record file that cannot be read back; ``str()`` names the file and line."""


@dataclass(frozen=True, slots=True, weakref_slot=True)
class Record:
    """One request as the fake provider saw it and what it answered.

    ``body`` is the raw body as received (``None`` when refused unread, over the size
    limit); ``json`` is that body decoded, or ``None`` when it is not JSON. ``headers`` and
    ``query`` are already redacted. ``mark``/``rule``/``nth``/``reply`` say which script
    rule answered (``rule`` ``None`` with a reply: the default reply). ``error`` is the
    message of a refusal (status other than 200); ``note`` a remark such as a body the
    dialect could not read. ``usage`` is the usage object of the answer as sent (the
    provider's own shape: the fake's predicted cache usage, ``docs/capture.md``), ``None``
    for a refusal or a wire whose answers carry none. ``body_secrets`` counts the
    key-shaped strings of the body replaced by placeholders before it was recorded
    (``body`` and ``json`` are the body with them replaced).
    """

    seq: int
    time: str
    dialect: str
    method: str
    path: str
    query: str
    headers: FrozenDict
    status: int
    body: bytes | None
    body_size: int
    stream: bool | None = None
    model: str | None = None
    mark: str | None = None
    rule: int | None = None
    nth: int | None = None
    reply: Reply | None = None
    usage: FrozenDict | None = None
    error: str | None = None
    note: str | None = None
    body_secrets: int = 0
    json: Any = field(default=None, compare=False, repr=False)

    def parse(self) -> ParsedBody:
        """The body read through the record's dialect; ``DialectError`` if it is not one."""
        return get_dialect(self.dialect).parse(self.json)

    def to_json(self) -> dict[str, Any]:
        """The record line's object (body last, as text when it is UTF-8, else base64)."""
        encoding, text = _encode(self.body)
        return {
            "v": RECORD_VERSION,
            "seq": self.seq,
            "time": self.time,
            "dialect": self.dialect,
            "method": self.method,
            "path": self.path,
            "query": self.query,
            "status": self.status,
            "stream": self.stream,
            "model": self.model,
            "mark": self.mark,
            "rule": self.rule,
            "nth": self.nth,
            "reply": None if self.reply is None else self.reply.to_json(),
            "usage": self.usage,
            "error": self.error,
            "note": self.note,
            "headers": dict(self.headers),
            "body_secrets": self.body_secrets,
            "body_size": self.body_size,
            "body_encoding": encoding,
            "body": text,
        }

    @classmethod
    def from_json(cls, obj: Any) -> Record:
        """Read one record line's object back; ``ValueError`` says what is wrong."""
        if not isinstance(obj, dict):
            raise ValueError("a record is a JSON object")
        if obj.get("v") != RECORD_VERSION:
            raise ValueError(
                f"unknown record version {obj.get('v')!r} (this reads {RECORD_VERSION})"
            )
        body = _decode(obj.get("body_encoding"), obj.get("body"))
        reply = obj.get("reply")
        headers = _get(obj, "headers", dict)
        if not all(isinstance(v, str) for v in headers.values()):
            raise ValueError("header values are strings")
        return cls(
            seq=_get(obj, "seq", int),
            time=_get(obj, "time", str),
            dialect=_get(obj, "dialect", str),
            method=_get(obj, "method", str),
            path=_get(obj, "path", str),
            query=_get(obj, "query", str),
            headers=FrozenDict(headers),
            status=_get(obj, "status", int),
            body=body,
            body_size=_get(obj, "body_size", int),
            stream=_get(obj, "stream", bool, None),
            model=_get(obj, "model", str, None),
            mark=_get(obj, "mark", str, None),
            rule=_get(obj, "rule", int, None),
            nth=_get(obj, "nth", int, None),
            reply=None if reply is None else reply_from_json(reply),
            usage=_usage(_get(obj, "usage", dict, None)),
            error=_get(obj, "error", str, None),
            note=_get(obj, "note", str, None),
            body_secrets=_get(obj, "body_secrets", int, 0),
            json=_loads(body),
        )


class RecordWriter:
    """Numbers records and appends each to a JSON-lines file, written at once; one lock
    covers numbering and writing, so the file is in ``seq`` order.

    The file is owned by this writer (``_claim.Claim``): it is written as ``FILE.partial``,
    locked against a second run (``RecordError`` at once, naming the run that holds it),
    and renamed to ``FILE`` by ``close()``. Each line is one write; a write that fails (a
    full disk) is cut back to the end of the last whole line, so the file holds only whole
    records, however the run ends.

    With a file, records are not kept in memory: ``records`` reads them back from it, so
    what a capture holds while it runs does not grow with the bodies it was sent (the
    writer keeps each line's end offset, and a weak reference to each record read back:
    a record still held elsewhere is not read again, so a caller that keeps what
    ``records`` gave reads only the new lines next time). Without one, they are kept in
    memory. A file that cannot be written (a full disk) is not
    retried: ``failure`` says why, in one sentence, and every later ``write`` raises
    ``RecordError`` with it.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = None if path is None else Path(path)
        self._lock = threading.Lock()
        self._records: list[Record] = []
        self._count = 0
        self._failure: str | None = None
        self._claim: Claim | None = None
        if path is not None:
            try:
                self._claim = Claim(path)
            except ClaimError as e:
                raise RecordError(str(e)) from None
            weakref.finalize(self, self._claim.release)
        self._open = self._claim is not None
        """Whether lines are still written (until ``close()`` or a failure)."""
        self._ends = array("q")
        """Where each record's line ends in the file."""
        self._read: list[weakref.ref[Record]] = []
        """The records read back from the file so far, by ``seq - 1``."""

    def write(self, draft: Record) -> Record:
        """Give ``draft`` the next sequence number, write it (keep it, without a file);
        returns the record. ``RecordError`` when the file cannot take it.

        The line is encoded before the lock is taken, with a placeholder number that is
        swapped for the real one under it: parallel requests wait on each other only for
        the write itself, not for one another's encoding."""
        encoded = None if self.path is None else _encode_unnumbered(draft)
        with self._lock:
            if self._failure is not None:
                raise RecordError(self._failure)
            seq = self._count + 1
            if encoded is None:
                self._records.append(replace(draft, seq=seq))
            elif not self._open or self._claim is None:  # closed: not recorded
                raise RecordError(f"the record file {self.path} is closed")
            else:
                line = b"%s%d%s\n" % (_NUMBERED, seq, encoded)
                end = self._ends[-1] if self._ends else 0
                try:
                    _write_all(self._claim.fd, line)
                except OSError as e:
                    self._fail(e, end)
                    raise RecordError(self._failure or "") from None
                self._ends.append(end + len(line))
            self._count = seq
        return replace(draft, seq=seq)

    @property
    def file(self) -> Path | None:
        """The file the records are in now: ``FILE.partial`` until ``close()``, then the
        record's path; None without a file."""
        claim = self._claim
        if claim is None:
            return None
        return self.path if claim.published else claim.partial

    @property
    def count(self) -> int:
        """How many records were written."""
        with self._lock:
            return self._count

    @property
    def failure(self) -> str | None:
        """Why the record file could not be written, or ``None``."""
        with self._lock:
            return self._failure

    @property
    def records(self) -> tuple[Record, ...]:
        """Every record so far: read back from the file (``RecordError`` after a failure),
        or the ones kept in memory."""
        with self._lock:
            if self._claim is None:
                return tuple(self._records)
            if self._failure is not None:
                raise RecordError(self._failure)
            return self._read_back(self._claim)

    def _read_back(self, claim: Claim) -> tuple[Record, ...]:
        """Every record written, the ones still alive from an earlier call reused, the rest
        read from the file line by line by offset (under the lock): no more than one line
        is held on top of the records. The file is read through the writer's own
        descriptor, so another run's file renamed over the path later is never read."""
        held: list[Record | None] = [ref() for ref in self._read]
        held += [None] * (len(self._ends) - len(held))
        missing = [i for i, record in enumerate(held) if record is None]
        if not missing:
            return tuple(r for r in held if r is not None)
        path = self.path or claim.path
        try:
            for i in missing:
                begin = self._ends[i - 1] if i else 0
                line = os.pread(claim.fd, self._ends[i] - begin, begin)
                held[i] = _parse_line(path, i + 1, line)
        except OSError as e:
            raise RecordError(f"{path}: cannot be read ({e.strerror or e})") from None
        records = tuple(r for r in held if r is not None)
        self._read = [weakref.ref(record) for record in records]
        return records

    def close(self) -> None:
        """Write no more, and rename the file into place (after a failure too: it holds
        the whole lines written before). The records can still be read back."""
        with self._lock:
            self._open = False
            claim = self._claim
            if claim is None or claim.published:
                return
            try:
                claim.publish()
            except OSError as e:
                if self._failure is None:
                    self._failure = (
                        f"the record file {self.path} cannot be put in place"
                        f" ({e.strerror or e}); the requests recorded are in {claim.partial}"
                    )

    def discard(self) -> None:
        """Write no more and remove the file unpublished (a run that never started): an
        earlier record at the path stays as it was."""
        with self._lock:
            self._open = False
            claim = self._claim
            if claim is not None and not claim.published:
                with contextlib.suppress(OSError):
                    os.unlink(claim.partial)
                claim.release()

    def _fail(self, error: OSError, end: int) -> None:
        """Give the file up after ``error`` (under the lock), cut back to ``end``, the end
        of the last whole line."""
        if self._failure is None:
            self._failure = (
                f"the record file {self.path} cannot be written ({error.strerror or error});"
                f" {self._count} request{' was' if self._count == 1 else 's were'} recorded before"
            )
        self._open = False
        if self._claim is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._claim.fd, end)


def _write_all(fd: int, line: bytes) -> None:
    """Write ``line`` whole (a short write is continued; an error raises)."""
    view = memoryview(line)
    while view:
        view = view[os.write(fd, view) :]


_NUMBERED = b'{"v":%d,"seq":' % RECORD_VERSION
"""How every record line starts: its number comes next."""


def _encode_unnumbered(draft: Record) -> bytes:
    """``draft``'s record line after ``_NUMBERED`` and its number, without the newline."""
    obj = draft.to_json()
    obj["seq"] = 0  # in place: the key order stays
    encoded = orjson.dumps(obj)
    head = _NUMBERED + b"0"
    assert encoded.startswith(head), "a record line starts with its version and number"
    return encoded[len(head) :]


def read_record(path: str | Path) -> list[Record]:
    """Every record of a JSON-lines record file, with bodies decoded; ``RecordError`` names
    the file and the line of the first malformed record (blank lines are skipped)."""
    try:
        lines = Path(path).read_bytes().splitlines()
    except OSError as e:
        raise RecordError(f"{path}: cannot be read ({e.strerror or e})") from None
    return [
        _parse_line(path, number, line)
        for number, line in enumerate(lines, start=1)
        if line.strip()
    ]


def _parse_line(path: str | Path, number: int, line: bytes) -> Record:
    """The record of line ``number`` of the record file ``path``; ``RecordError`` names
    them when it is not one."""
    try:
        return Record.from_json(orjson.loads(line))
    except orjson.JSONDecodeError as e:
        raise RecordError(f"{path}: line {number}: not valid JSON: {e.msg}") from None
    except ValueError as e:
        raise RecordError(f"{path}: line {number}: {e}") from None


def timestamp(seconds: float) -> str:
    """A UTC ISO 8601 time with microseconds: ``2025-01-31T12:00:00.123456Z``."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _encode(body: bytes | None) -> tuple[str | None, str | None]:
    if body is None:
        return None, None
    try:
        return "utf-8", body.decode("utf-8")
    except UnicodeDecodeError:
        return "base64", base64.b64encode(body).decode("ascii")


def _decode(encoding: Any, text: Any) -> bytes | None:
    if encoding is None and text is None:
        return None
    if encoding == "utf-8" and isinstance(text, str):
        return text.encode("utf-8")
    if encoding == "base64" and isinstance(text, str):
        try:
            return base64.b64decode(text, validate=True)
        except ValueError:
            raise ValueError("body is not valid base64") from None
    raise ValueError('body_encoding is "utf-8", "base64" or null, with a string body')


def _loads(body: bytes | None) -> Any:
    if not body:
        return None
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return None


def _usage(value: dict[str, Any] | None) -> FrozenDict | None:
    frozen = None if value is None else freeze(value)
    assert frozen is None or isinstance(frozen, FrozenDict)
    return frozen


def _get(obj: dict[str, Any], key: str, kind: type, default: Any = _UNSET) -> Any:
    value = obj.get(key, default)
    if value is _UNSET:
        raise ValueError(f"the {key!r} field is missing")
    if value is default and default is None:
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ValueError(f"{key!r} must be {kind.__name__}, not {type(value).__name__}")
    return value
