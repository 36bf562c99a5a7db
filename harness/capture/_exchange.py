"""One request in, one answer out, one record kept: the fake provider's logic, free of
HTTP plumbing so it can be read and tested on its own.

Every request is recorded whatever happens to it (answered, refused as too large, not
JSON, unknown URL, or a bug here), so a capture never silently loses a request.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import orjson

from ..dialects import DialectError, Route, Turn, Wire, get_dialect
from ..model import FrozenDict, Request, freeze
from ._cache import CacheUsage
from ._match import Matcher
from ._record import Record, RecordError, RecordWriter, timestamp
from ._redact import redact_headers, redact_query, scrub_body
from ._stored import Stored

__all__ = ["Exchange", "Incoming", "Outgoing"]


@dataclass(frozen=True, slots=True)
class Incoming:
    """A request as read off the connection; ``body`` is ``None`` when it was over the
    size limit and not kept (``body_size`` is then the size declared or read so far)."""

    method: str
    path: str
    query: str
    headers: tuple[tuple[str, str], ...]
    body: bytes | None
    body_size: int
    arrived: float
    problem: str | None = None
    """Why the request's framing could not be read (a malformed ``Content-Length``, a
    broken chunk, a connection closed early): it is refused with 400, ``body`` being
    what was read."""


@dataclass(frozen=True, slots=True)
class Outgoing:
    """An answer: a whole JSON body, or (``chunks`` set) a stream of unknown length."""

    status: int
    content_type: str
    body: bytes = b""
    chunks: Iterator[bytes] | None = None


class Exchange:
    """Answers the requests of one fake provider from a script, recording each.

    A provider serves one or more wires (OpenAI: chat completions and responses); the
    first wire with a route for the URL serves a request, which is recorded under that
    wire's dialect. A URL no wire has is refused in the first wire's error shape.
    """

    def __init__(
        self, wires: Sequence[Wire], matcher: Matcher, writer: RecordWriter, max_request_bytes: int
    ) -> None:
        if not wires:
            raise ValueError("an exchange serves at least one wire")
        self.wires = tuple(wires)
        self.matcher = matcher
        self.writer = writer
        self.max_request_bytes = max_request_bytes
        self.stored = Stored()
        self.cache = CacheUsage()
        """The run's simulated prompt cache: every answer reports its predicted usage."""

    @property
    def provider(self) -> str:
        """The provider's name: its first wire's dialect."""
        return self.wires[0].dialect

    def respond(self, incoming: Incoming) -> Outgoing:
        """The answer to ``incoming``, after its record has been written."""
        wire = self.wires[0]
        try:
            try:
                wire, route = self._route(incoming)
                return self._respond(wire, route, incoming)
            except RecordError:
                raise
            except Exception as e:  # a bug here must not lose the request nor hang the client
                message = f"the fake provider failed: {type(e).__name__}: {e}"
                return self._refuse(wire, incoming, 500, message)
        except RecordError as e:  # the record cannot take it: say so, still answer
            return _json(500, wire.error(500, f"the fake provider cannot record: {e}"))

    def _route(self, incoming: Incoming) -> tuple[Wire, Route | None]:
        """The wire that serves ``incoming`` and its route; the first wire and ``None``
        when no wire has the URL."""
        query = dict(parse_qsl(incoming.query, keep_blank_values=True))
        for wire in self.wires:
            route = wire.route(incoming.method, incoming.path, query)
            if route is not None:
                return wire, route
        return self.wires[0], None

    def _respond(self, wire: Wire, route: Route | None, incoming: Incoming) -> Outgoing:
        if incoming.problem is not None:
            return self._refuse(wire, incoming, 400, incoming.problem)
        if incoming.body is None:
            limit = self.max_request_bytes
            message = (
                f"request body of {incoming.body_size:,} bytes is over the fake provider's"
                f" limit of {limit:,} bytes"
            )
            return self._refuse(wire, incoming, 413, message)
        if route is None:
            message = (
                f"the fake {self.provider} provider has no route {incoming.method} {incoming.path}"
            )
            return self._refuse(wire, incoming, 404, message)
        if route.kind in ("models", "model"):
            self._record(wire, incoming, 200)
            return _json(200, wire.models(route))
        try:
            body = orjson.loads(incoming.body)
        except orjson.JSONDecodeError as e:
            message = f"the request body is not valid JSON: {e.msg}"
            return self._refuse(wire, incoming, 400, message)
        if not isinstance(body, dict):
            message = "the request body must be a JSON object"
            return self._refuse(wire, incoming, 400, message, body)
        tokens = max(1, len(incoming.body) // 4)
        if route.kind == "count_tokens":
            self._record(wire, incoming, 200, json=body)
            return _json(200, wire.count_tokens(tokens))
        return self._generate(wire, route, incoming, body, tokens)

    def _generate(
        self, wire: Wire, route: Route, incoming: Incoming, body: dict[str, Any], tokens: int
    ) -> Outgoing:
        request, read, note = _neutral(wire.dialect, body, self.stored)
        answer = self.matcher.answer(request)
        if request is not None:
            played = wire.played(answer.reply, answer.nth)
            self.stored.keep(wire.response_id(answer.nth), read, played)
        model = wire.model_of(route, body)
        stream = wire.is_stream(route, body)
        cache: Mapping[str, int] = {}
        if request is not None:
            dialect = get_dialect(wire.dialect)
            predicted = self.cache.send(dialect, read, model, incoming.arrived)
            if isinstance(predicted, str):
                note = predicted if note is None else f"{note}; {predicted}"
            else:
                tokens, cache = predicted.total, predicted.fields
        turn = Turn.now(answer.reply, model, answer.nth, tokens, body, cache)
        self._record(
            wire,
            incoming,
            200,
            json=body,
            stream=stream,
            model=model,
            mark=answer.mark,
            rule=answer.rule,
            nth=answer.nth,
            reply=answer.reply,
            usage=_usage(wire.usage(turn)),
            note=note,
        )
        if not stream:
            return _json(200, wire.message(turn))
        streamed = wire.stream(turn, route)
        return Outgoing(200, streamed.content_type, chunks=streamed.chunks)

    def _refuse(
        self, wire: Wire, incoming: Incoming, status: int, message: str, json: Any = None
    ) -> Outgoing:
        self._record(wire, incoming, status, json=json, error=message)
        return _json(status, wire.error(status, message))

    def _record(
        self, wire: Wire, incoming: Incoming, status: int, json: Any = None, **fields: Any
    ) -> None:
        body, secrets = (None, 0) if incoming.body is None else scrub_body(incoming.body)
        if secrets and json is not None:
            json = _loads(body)
        self.writer.write(
            Record(
                seq=0,
                time=timestamp(incoming.arrived),
                dialect=wire.dialect,
                method=incoming.method,
                path=incoming.path,
                query=redact_query(incoming.query),
                headers=redact_headers(incoming.headers),
                status=status,
                body=body,
                body_size=incoming.body_size,
                body_secrets=secrets,
                json=json,
                **fields,
            )
        )


def _neutral(
    name: str, body: dict[str, Any], stored: Stored
) -> tuple[Request | None, Mapping[str, Any], str | None]:
    """The body in the neutral model, the body as read (a continuation of a stored answer
    expanded) and a note; ``None`` for the request, with the note saying why, when it could
    not be read (no such dialect installed, a body the dialect rejects, nesting too deep)."""
    try:
        dialect = get_dialect(name)
    except KeyError:
        problem = f"no {name} dialect is installed to read the body"
    else:
        try:
            read, note = stored.read(dialect, body)
            return dialect.parse(read).request, read, note
        except DialectError as e:
            problem = f"the {name} dialect could not read the body ({e})"
        except RecursionError:
            problem = "the body is nested too deeply to read"
    return None, body, f"{problem}; only rules without conditions on the request could answer"


def _usage(usage: dict[str, Any] | None) -> FrozenDict | None:
    """An answer's usage object as a record keeps it."""
    frozen = None if usage is None else freeze(usage)
    assert frozen is None or isinstance(frozen, FrozenDict)
    return frozen


def _loads(body: bytes | None) -> Any:
    """A scrubbed body decoded again (placeholders keep JSON as JSON)."""
    try:
        return None if body is None else orjson.loads(body)
    except orjson.JSONDecodeError:
        return None


def _json(status: int, body: bytes) -> Outgoing:
    return Outgoing(status, "application/json", body)
