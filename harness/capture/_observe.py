"""The requests a check works on: model calls whose body the dialect reads, in arrival order.

A capture records everything the fake provider saw; grouping needs only the model calls it
answered (status 200) with a body the dialect turns into the neutral model. The rest is
left out, and a model call that cannot be used is listed with the reason, so a report can
say why a request took no part. The model turn the fake played is rebuilt from the recorded
reply with the ids the fake gave its calls, so the check knows what the agent was told.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from ..dialects import DialectError, get_dialect
from ..model import Message, Request
from ._record import Record
from ._reply import Reply
from ._server import WIRES
from ._stored import Stored

__all__ = ["Ignored", "Observed", "observe", "observed", "reply_message"]


@dataclass(frozen=True, slots=True)
class Observed:
    """One usable model call: where it came from, its raw body and its neutral request.

    ``seq`` is the record's sequence number (for an external log: the line number);
    ``reply``/``nth`` are the scripted answer and the request's number among the requests
    the script answered, when the log recorded them.
    """

    seq: int
    dialect: str
    body: bytes
    request: Request
    mark: str | None = None
    reply: Reply | None = None
    nth: int | None = None

    @property
    def history(self) -> tuple[Message, ...]:
        return self.request.history


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
) -> Observed | str:
    """The usable request, or a sentence saying why the body cannot be used.

    With ``stored``, a body continuing an answer stored there is read with the history it
    continues, and this request's answer (``reply``, ``nth``) is stored in turn.
    """
    if decoded is None:
        return "the body is not JSON"
    try:
        reader = get_dialect(dialect)
    except KeyError:
        return f"no {dialect} dialect is installed to read the body"
    try:
        read = decoded if stored is None else stored.read(reader, decoded)[0]
        request = reader.parse(read).request
    except DialectError as e:
        return f"the {dialect} dialect cannot read the body ({e})"
    except RecursionError:
        return "the body is nested too deeply to read"
    if not request.history:
        return "the request has no messages"
    wire = WIRES.get(dialect)
    if stored is not None and wire is not None and reply is not None and nth is not None:
        stored.keep(wire.response_id(nth), read, reply_message(dialect, reply, nth))
    return Observed(seq, dialect, body, request, mark, reply, nth)


def observe(records: Iterable[Record]) -> tuple[tuple[Observed, ...], tuple[Ignored, ...]]:
    """The usable model calls of a capture, and the model calls left out with the reason.

    Requests the script did not answer (model listings, token counts) are neither: they are
    not model calls. Refused requests (status other than 200) are listed as left out. A
    request continuing an earlier answer (OpenAI Responses ``previous_response_id``) is read
    with the history it continues.
    """
    used: list[Observed] = []
    ignored: list[Ignored] = []
    stored = Stored()
    for record in records:
        found = observe_record(record, stored)
        if isinstance(found, Observed):
            used.append(found)
        elif found is not None:
            ignored.append(found)
    return tuple(used), tuple(ignored)


def observe_record(record: Record, stored: Stored | None = None) -> Observed | Ignored | None:
    """One recorded request as a usable model call, one left out (with the reason), or None
    for a request the script did not answer (not a model call); ``stored`` as for
    ``observed``."""
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
    )
    return Ignored(record.seq, found) if isinstance(found, str) else found


def reply_message(dialect: str, reply: Reply, nth: int | None) -> Message:
    """The model message the fake played: its text, then its calls with the ids it gave them.

    ``nth`` is the request's number among those the script answered (the ids depend on it);
    without it, calls carry no id.
    """
    wire = WIRES.get(dialect)
    if wire is None or nth is None:
        return reply.message()
    return reply.message([wire.call_id(nth, i) for i in range(len(reply.calls))])
