"""One request in, one answer out, one record kept: the fake provider's logic, free of
HTTP plumbing so it can be read and tested on its own.

Every request is recorded whatever happens to it (answered, refused as too large, not
JSON, unknown URL, or a bug here), so a capture never silently loses a request.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import orjson

from ..dialects import DialectError, get_dialect
from ..model import Request
from ._match import Matcher
from ._record import Record, RecordWriter, timestamp
from ._redact import redact_headers, redact_query
from ._wire import Route, Turn, Wire

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


@dataclass(frozen=True, slots=True)
class Outgoing:
    """An answer: a whole JSON body, or (``chunks`` set) a stream of unknown length."""

    status: int
    content_type: str
    body: bytes = b""
    chunks: Iterator[bytes] | None = None


class Exchange:
    """Answers requests for one wire protocol from a script, recording each."""

    def __init__(
        self, wire: Wire, matcher: Matcher, writer: RecordWriter, max_request_bytes: int
    ) -> None:
        self.wire = wire
        self.matcher = matcher
        self.writer = writer
        self.max_request_bytes = max_request_bytes

    def respond(self, incoming: Incoming) -> Outgoing:
        """The answer to ``incoming``, after its record has been written."""
        try:
            return self._respond(incoming)
        except Exception as e:  # a bug here must not lose the request nor hang the client
            message = f"the fake provider failed: {type(e).__name__}: {e}"
            return self._refuse(incoming, 500, message)

    def _respond(self, incoming: Incoming) -> Outgoing:
        if incoming.body is None:
            limit = self.max_request_bytes
            message = (
                f"request body of {incoming.body_size:,} bytes is over the fake provider's"
                f" limit of {limit:,} bytes"
            )
            return self._refuse(incoming, 413, message)
        query = dict(parse_qsl(incoming.query, keep_blank_values=True))
        route = self.wire.route(incoming.method, incoming.path, query)
        if route is None:
            message = (
                f"the fake {self.wire.dialect} provider has no route"
                f" {incoming.method} {incoming.path}"
            )
            return self._refuse(incoming, 404, message)
        if route.kind in ("models", "model"):
            self._record(incoming, 200)
            return _json(200, self.wire.models(route))
        try:
            body = orjson.loads(incoming.body)
        except orjson.JSONDecodeError as e:
            return self._refuse(incoming, 400, f"the request body is not valid JSON: {e.msg}")
        if not isinstance(body, dict):
            return self._refuse(incoming, 400, "the request body must be a JSON object", body)
        tokens = max(1, len(incoming.body) // 4)
        if route.kind == "count_tokens":
            self._record(incoming, 200, json=body)
            return _json(200, self.wire.count_tokens(tokens))
        return self._generate(incoming, route, body, tokens)

    def _generate(
        self, incoming: Incoming, route: Route, body: dict[str, Any], tokens: int
    ) -> Outgoing:
        request, note = _neutral(self.wire.dialect, body)
        answer = self.matcher.answer(request)
        model = self.wire.model_of(route, body)
        stream = self.wire.is_stream(route, body)
        self._record(
            incoming,
            200,
            json=body,
            stream=stream,
            model=model,
            mark=answer.mark,
            rule=answer.rule,
            nth=answer.nth,
            reply=answer.reply,
            note=note,
        )
        turn = Turn.now(answer.reply, model, answer.nth, tokens, body)
        if not stream:
            return _json(200, self.wire.message(turn))
        streamed = self.wire.stream(turn, route)
        return Outgoing(200, streamed.content_type, chunks=streamed.chunks)

    def _refuse(self, incoming: Incoming, status: int, message: str, json: Any = None) -> Outgoing:
        self._record(incoming, status, json=json, error=message)
        return _json(status, self.wire.error(status, message))

    def _record(self, incoming: Incoming, status: int, json: Any = None, **fields: Any) -> None:
        self.writer.write(
            Record(
                seq=0,
                time=timestamp(incoming.arrived),
                dialect=self.wire.dialect,
                method=incoming.method,
                path=incoming.path,
                query=redact_query(incoming.query),
                headers=redact_headers(incoming.headers),
                status=status,
                body=incoming.body,
                body_size=incoming.body_size,
                json=json,
                **fields,
            )
        )


def _neutral(dialect: str, body: dict[str, Any]) -> tuple[Request | None, str | None]:
    """The body in the neutral model, or ``None`` and why the dialect could not read it."""
    try:
        return get_dialect(dialect).parse(body).request, None
    except DialectError as e:
        problem = f"the {dialect} dialect could not read the body ({e})"
    except RecursionError:
        problem = "the body is nested too deeply to read"
    return None, f"{problem}; only rules without conditions on the request could answer"


def _json(status: int, body: bytes) -> Outgoing:
    return Outgoing(status, "application/json", body)
