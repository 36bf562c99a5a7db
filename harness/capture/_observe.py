"""The requests a check works on: model calls whose body the dialect reads, in arrival order.

A capture records everything the fake provider saw; grouping needs only the model calls it
answered (status 200) with a body the dialect turns into the neutral model. The rest is
left out, and a model call that cannot be used is listed with the reason, so a report can
say why a request took no part. The model turn the fake played is rebuilt from the recorded
reply with the ids the fake gave its calls, so the check knows what the agent was told.

A request read from a log or a record is a small index entry (its sequence number, mark,
reply, history length and what grouping compares of its preset): its body and its neutral
request are read back from where they came from when they are needed, and only the last
few read are kept (``Bodies``), so a check needs memory for a few of the largest records on
top of the index, whatever the number of requests.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias

from ..dialects import DialectError, Reply, ReportedUsage, get_dialect, wires
from ..model import FunctionCall, Message, Request
from ._record import Record
from ._stored import Continued, Stored

__all__ = ["Bodies", "Ignored", "Observed", "observe", "observed", "reply_message"]

RECENT = 3
"""How many requests read back are kept at once: a parent and a child, and one more."""


class Bodies(Protocol):
    """Where the bodies of lazily read requests are read back from (a log file, records)."""

    def fetch(self, where: Any) -> tuple[bytes, Any]:
        """The body at ``where`` as sent, and decoded."""

    def raw(self, where: Any) -> bytes:
        """The body at ``where`` as sent."""


class Observed:
    """One usable model call: where it came from, its raw body and its neutral request.

    ``seq`` is the record's sequence number (for an external log: the line number);
    ``reply``/``nth`` are the scripted answer and the request's number among the requests
    the script answered, when the log recorded them. ``size`` is the history's length;
    ``system_key``/``tools_key`` stand for the preset's system and tools (equal presets
    have equal keys), ``has_tools`` says whether a tool is declared by name and
    ``has_model`` whether the history holds a model message: what grouping asks of every
    request without reading it back.

    Built from a body and a request, both are held; built by ``observed`` with ``bodies``,
    ``body`` and ``request`` are read back when asked for.
    """

    __slots__ = (
        "_bodies",
        "_continued",
        "_held",
        "_turn",
        "_where",
        "dialect",
        "has_model",
        "has_tools",
        "hint",
        "mark",
        "nth",
        "reply",
        "reported",
        "seq",
        "size",
        "system_key",
        "tools_key",
    )

    def __init__(
        self,
        seq: int,
        dialect: str,
        body: bytes,
        request: Request,
        mark: str | None = None,
        reply: Reply | None = None,
        nth: int | None = None,
    ) -> None:
        self.seq, self.dialect, self.mark, self.reply, self.nth = seq, dialect, mark, reply, nth
        self._held: tuple[bytes, Request] | None = (body, request)
        self._bodies: Bodies | None = None
        self._where: Any = None
        self._continued: Continued | None = None
        self._turn: tuple[int, tuple[FunctionCall, ...] | None] | None = None
        self.size = len(request.history)
        self.system_key = _key(request.preset.system)
        self.tools_key = _key(request.preset.tools)
        self.has_tools = any(t.name for t in request.preset.tools)
        self.has_model = any(m.role == "model" for m in request.history)
        self.hint: Any = None
        """What grouping noted of the request while it was read (``_group.Prefixes``)."""
        self.reported: ReportedUsage | str | None = None
        """The cache usage the provider reported for it (a log line's ``response`` or
        ``usage``), why that usage cannot be read, or None when the log gives none."""

    @classmethod
    def lazy(
        cls,
        seq: int,
        dialect: str,
        request: Request,
        bodies: Bodies,
        where: Any,
        *,
        mark: str | None = None,
        reply: Reply | None = None,
        nth: int | None = None,
        continued: Continued | None = None,
    ) -> Observed:
        """An entry for ``request`` (read once, from the body at ``where``) that keeps
        neither: both are read back from ``bodies`` when they are needed (with the body it
        continues, ``continued``, ahead of it)."""
        found = cls(seq, dialect, b"", request, mark, reply, nth)
        found._held = None
        found._bodies, found._where, found._continued = bodies, where, continued
        return found

    def __repr__(self) -> str:
        return f"Observed(seq={self.seq}, dialect={self.dialect!r}, mark={self.mark!r})"

    @property
    def body(self) -> bytes:
        """The body as sent."""
        if self._held is not None:
            return self._held[0]
        found = _RECENT.get(self)
        if found is not None:
            return found[0]
        assert self._bodies is not None
        return self._bodies.raw(self._where)

    @property
    def request(self) -> Request:
        """The neutral request (a continuation read with the history it continues)."""
        if self._held is not None:
            return self._held[1]
        return self._load()[2]

    @property
    def history(self) -> tuple[Message, ...]:
        return self.request.history

    def read_body(self) -> Mapping[str, Any]:
        """The body as the provider read it: a continuation with what it continues."""
        if self._held is not None:
            raise TypeError("a request built from its body keeps no body as read")
        return self._load()[1]

    def _load(self) -> tuple[bytes, Mapping[str, Any], Request]:
        """The body, the body as read and the request, read back if they are not among the
        last read; a chain of continuations is read back from its oldest body not kept on,
        one at a time (not by recursion)."""
        chain: list[Observed] = []
        node: Observed | None = self
        while node is not None and _RECENT.get(node) is None:
            chain.append(node)
            node = node._base()
        for handle in reversed(chain):
            handle._read_back()
        found = _RECENT.get(self)
        assert found is not None
        return found

    def _base(self) -> Observed | None:
        """The lazily read request this one continues, if any."""
        before = self._continued.before if self._continued is not None else None
        base = getattr(before, "__self__", None)
        return base if isinstance(base, Observed) else None

    def _read_back(self) -> None:
        assert self._bodies is not None
        raw, decoded = self._bodies.fetch(self._where)
        reader = get_dialect(self.dialect)
        read = decoded if self._continued is None else self._continued.expand(reader, decoded)
        _RECENT.put(self, (raw, read, reader.parse(read).request))

    def model_at(self, k: int) -> Message | None:
        """``history[k]`` when it is a model message (the agent's copy of a model turn)."""
        history = self.history
        if len(history) > k and history[k].role == "model":
            return history[k]
        return None

    def calls_at(self, k: int) -> tuple[FunctionCall, ...] | None:
        """The calls of ``model_at(k)`` (``None``: no model message there), remembered so that
        asking again does not read the request back."""
        if self._turn is not None and self._turn[0] == k:
            return self._turn[1]
        if k >= self.size:
            return None
        message = self.model_at(k)
        calls = None if message is None else message.function_calls
        self._turn = (k, calls)
        return calls


class _Recent:
    """The last requests read back (body, body as read, request), the latest kept longest."""

    def __init__(self, keep: int) -> None:
        self._keep = keep
        self._items: OrderedDict[Observed, tuple[bytes, Mapping[str, Any], Request]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Observed) -> tuple[bytes, Mapping[str, Any], Request] | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: Observed, value: tuple[bytes, Mapping[str, Any], Request]) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._keep:
                self._items.popitem(last=False)


_RECENT = _Recent(RECENT)


def _key(value: Hashable) -> Hashable:
    """What stands for ``value`` in comparisons: its hash, or the value itself when it
    cannot be hashed (a key of equal values is equal either way)."""
    try:
        return hash(value)
    except (TypeError, RecursionError):
        return value


IgnoredKind: TypeAlias = Literal["refused", "unreadable", "retry"]


@dataclass(frozen=True, slots=True)
class Ignored:
    """A request left out of the check, and why.

    ``kind``: ``refused`` (the fake answered an error: no such route, a body it could not
    take), ``unreadable`` (a model call whose body the dialect cannot read) or ``retry`` (a
    repeat of an earlier request). Refused and unreadable requests are traffic the check
    did not see, so a run without a failure that left some out is no pass.
    """

    seq: int
    reason: str
    kind: IgnoredKind = "unreadable"


def observed(
    seq: int,
    dialect: str,
    body: bytes,
    decoded: Any,
    *,
    mark: str | None = None,
    reply: Reply | None = None,
    nth: int | None = None,
    stored: Stored | None = None,
    bodies: Bodies | None = None,
    where: Any = None,
) -> Observed | str:
    """The usable request, or a sentence saying why the body cannot be used.

    With ``stored``, a body continuing an answer stored there is read with the history it
    continues, and this request's answer (``reply``, ``nth``) is stored in turn. With
    ``bodies``, the request keeps neither its body nor its neutral request: both are read
    back from ``bodies`` at ``where`` when they are needed.
    """
    if decoded is None:
        return "the body is not JSON"
    try:
        reader = get_dialect(dialect)
    except KeyError:
        return f"no {dialect} dialect is installed to read the body"
    continued = None
    try:
        read = decoded
        if stored is not None:
            found = stored.find(reader, decoded)
            if isinstance(found, Continued):
                continued, read = found, found.expand(reader, decoded)
        request = reader.parse(read).request
    except DialectError as e:
        return f"the {dialect} dialect cannot read the body ({e})"
    except RecursionError:
        return "the body is nested too deeply to read"
    if not request.history:
        return "the request has no messages"
    if bodies is None:
        usable = Observed(seq, dialect, body, request, mark, reply, nth)
    else:
        usable = Observed.lazy(
            seq,
            dialect,
            request,
            bodies,
            where,
            mark=mark,
            reply=reply,
            nth=nth,
            continued=continued,
        )
        _RECENT.put(usable, (body, read, request))
    wire = wires().get(dialect)
    if stored is not None and wire is not None and reply is not None and nth is not None:
        kept = read if bodies is None else usable.read_body
        stored.keep(wire.response_id(nth), kept, reply_message(dialect, reply, nth))
    return usable


class _Records:
    """Bodies read back from capture records already in memory (``where`` is the record):
    only the neutral requests are not kept."""

    def fetch(self, where: Any) -> tuple[bytes, Any]:
        record: Record = where
        return record.body or b"", record.json

    def raw(self, where: Any) -> bytes:
        record: Record = where
        return record.body or b""


_RECORDS = _Records()


def observe(
    records: Iterable[Record], note: Callable[[Observed], None] | None = None
) -> tuple[tuple[Observed, ...], tuple[Ignored, ...]]:
    """The usable model calls of a capture, and the model calls left out with the reason.

    Requests the script did not answer (model listings, token counts) are neither: they are
    not model calls. Refused requests (status other than 200) are listed as left out. A
    request continuing an earlier answer (OpenAI Responses ``previous_response_id``) is read
    with the history it continues. The neutral requests are not kept: they are read again
    from the records when they are needed. ``note`` is called with each usable request as
    soon as it is read (grouping notes what it needs of it then).
    """
    used: list[Observed] = []
    ignored: list[Ignored] = []
    stored = Stored()
    for record in records:
        found = observe_record(record, stored, _RECORDS, record)
        if isinstance(found, Observed):
            if note is not None:
                note(found)
            used.append(found)
        elif found is not None:
            ignored.append(found)
    return tuple(used), tuple(ignored)


def observe_record(
    record: Record, stored: Stored | None = None, bodies: Bodies | None = None, where: Any = None
) -> Observed | Ignored | None:
    """One recorded request as a usable model call, one left out (with the reason), or None
    for a request the script did not answer (not a model call); ``stored``, ``bodies`` and
    ``where`` as for ``observed``."""
    if record.status != 200:
        why = f": {record.error}" if record.error else ""
        route = f"{record.method} {record.path}"
        return Ignored(record.seq, f"refused with status {record.status} ({route}{why})", "refused")
    if record.reply is None or record.body is None:
        return None
    found = observed(
        record.seq,
        record.dialect,
        record.body,
        record.json,
        mark=record.mark,
        reply=record.reply,
        nth=record.nth,
        stored=stored,
        bodies=bodies,
        where=where,
    )
    return Ignored(record.seq, found) if isinstance(found, str) else found


def reply_message(dialect: str, reply: Reply, nth: int | None) -> Message:
    """The model message the fake played: its text, then its calls with the ids it gave them.

    ``nth`` is the request's number among those the script answered (the ids depend on it);
    without it, calls carry no id.
    """
    wire = wires().get(dialect)
    if wire is None or nth is None:
        return reply.message()
    return reply.message([wire.call_id(nth, i) for i in range(len(reply.calls))])
