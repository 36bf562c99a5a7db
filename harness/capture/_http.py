"""HTTP plumbing of the fake provider: a threaded HTTP/1.1 server that reads each request
(bounded by a size limit, ``Content-Length`` or chunked), hands it to an ``Exchange`` and
writes the answer back, whole or streamed with chunked transfer encoding.

A body cut short — the connection closed, or reset, before its end — is still a request:
it is handed on with the problem said, so it gets an answer and a record line."""

from __future__ import annotations

import contextlib
import email.utils
import socket
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from ._exchange import Exchange, Incoming, Outgoing

__all__ = ["HTTPServer"]

_DRAIN_LIMIT = 256 * 1024 * 1024
"""A refused body up to this size is read and dropped so the client sees the 413."""
_READ = 64 * 1024
_BATCH = 64 * 1024
"""A stream's events are written in batches of about this many bytes: one write for a short
answer, pieces of a long one as they are made."""
_MAX_SIZE = 2**63 - 1
"""A larger size is no size a client can send (and would overflow a record)."""


def _closed_early(got: int, length: int, how: str = "closed") -> str:
    return f"the connection {how} after {got:,} of the {length:,} bytes of Content-Length"


class HTTPServer(ThreadingHTTPServer):
    """One thread per connection; keeps track of open connections so a stop can end them."""

    daemon_threads = True
    request_queue_size = 128
    """Parallel children connect at once; the default backlog of 5 would reset them."""

    def __init__(self, address: tuple[str, int], exchange: Exchange) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.exchange = exchange
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(address, _Handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        """An accepted connection, with Nagle's algorithm off: an answer is one write, and
        a client waiting for it must not wait for its own delayed ACK first."""
        sock, address = super().get_request()
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock, address

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def connections(self) -> list[socket.socket]:
        """The connections open now (a snapshot)."""
        with self._open_lock:
            return list(self._open)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up is normal (an agent killed mid-stream); say nothing."""
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError | TimeoutError):
            super().handle_error(request, client_address)

    def close_connections(self) -> None:
        """End kept-alive connections so their handler threads finish."""
        for sock in self.connections():
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: HTTPServer

    def do_POST(self) -> None:
        self._serve()

    do_GET = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_POST

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the record is the log."""

    _cut = "closed"
    """How the body's connection ended early: ``closed``, or ``was reset`` (by the client)."""

    def _serve(self) -> None:
        arrived = time.time()
        self._cut = "closed"
        limit = self.server.exchange.max_request_bytes
        body, size, problem = self._read_body(limit)
        target = urlsplit(self.path)
        incoming = Incoming(
            method=self.command,
            path=target.path,
            query=target.query,
            headers=tuple(self.headers.items()),
            body=body,
            body_size=size,
            arrived=arrived,
            problem=problem,
        )
        if problem is not None:
            self.close_connection = True  # the rest of the stream cannot be framed
        try:
            out = self.server.exchange.respond(incoming)
        except Exception as e:  # still answer: a client must never hang on us
            out = _failed(e)
        self._send(out)

    def _read_body(self, limit: int) -> tuple[bytes | None, int, str | None]:
        """The body (``None`` when over ``limit``), its size, and why its framing could not
        be read, if it could not. No more than ``limit`` bytes (and one read buffer) are
        held for a request, whatever it declares."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked(limit)
        declared = self.headers.get_all("Content-Length") or []
        if not declared:
            return b"", 0, None
        values = {v.strip() for v in declared}
        text = values.pop()
        if values:
            return b"", 0, "the request has conflicting Content-Length headers"
        if not (text.isascii() and text.isdigit() and len(text) <= 19 and int(text) <= _MAX_SIZE):
            shown = text if len(text) <= 40 else text[:40] + "..."
            return b"", 0, f"the Content-Length {shown!r} is not a size in bytes"
        length = int(text)
        if length <= limit:
            body = self._read_exactly(length)
            if len(body) < length:
                return body, len(body), _closed_early(len(body), length, self._cut)
            return body, length, None
        if length <= _DRAIN_LIMIT:
            self._drain(length)
        else:
            self.close_connection = True
        return None, length, None

    def _receive(self, size: int) -> bytes:
        """Up to ``size`` bytes of the body, what one receive gives (so that what arrived
        before a reset is kept); none once the client hung up, closing or resetting the
        connection (said in ``_cut``)."""
        try:
            return self.rfile.read1(size)
        except (ConnectionError, TimeoutError):
            self._cut = "was reset"
            self.close_connection = True
            return b""

    def _line(self) -> bytes:
        """A line of a chunked body's framing (at most 1 KiB), as ``_receive``."""
        try:
            return self.rfile.readline(1024)
        except (ConnectionError, TimeoutError):
            self._cut = "was reset"
            self.close_connection = True
            return b""

    def _read_exactly(self, length: int) -> bytes:
        """Up to ``length`` bytes, fewer when the client hangs up."""
        parts = []
        remaining = length
        while remaining > 0:
            got = self._receive(min(_READ, remaining))
            if not got:
                break
            parts.append(got)
            remaining -= len(got)
        return b"".join(parts)

    def _drain(self, length: int) -> int:
        """Read and drop up to ``length`` bytes, a buffer at a time; how many were read."""
        remaining = length
        while remaining > 0:
            got = self._receive(min(_READ, remaining))
            if not got:
                break
            remaining -= len(got)
        return length - remaining

    def _read_chunked(self, limit: int) -> tuple[bytes | None, int, str | None]:
        """A chunked body; over ``limit`` the rest is read and dropped a buffer at a time
        (up to the drain limit) so that the client, still sending, sees the 413 instead of
        a broken pipe."""
        parts: list[bytes] = []
        size = 0
        while True:
            raw = self._line()
            if not raw:
                kept = b"".join(parts) if size <= limit else None
                return kept, size, f"the connection {self._cut} before the body's last chunk"
            line = raw.split(b";", 1)[0].strip()
            try:
                chunk = int(line, 16) if len(line) <= 15 else -1
            except ValueError:
                chunk = -1
            if chunk < 0:
                kept = b"".join(parts) if size <= limit else None
                return kept, size, f"the chunk size {line[:40]!r} is not a hexadecimal size"
            if chunk == 0:
                while self._line().strip():
                    pass
                return (b"".join(parts) if size <= limit else None), size, None
            size += chunk
            if size > _DRAIN_LIMIT:
                self.close_connection = True
                return None, size, None
            if size <= limit:
                data = self._read_exactly(chunk)
                parts.append(data)
                got = len(data)
            else:
                parts.clear()
                got = self._drain(chunk)
            if got < chunk:
                size -= chunk - got
                kept = b"".join(parts) if size <= limit else None
                return kept, size, f"the connection {self._cut} in the middle of a chunk"
            self._line()

    def _send(self, out: Outgoing) -> None:
        """The status line, headers and body in one write (a stream: its events gathered
        into writes of up to ``_BATCH`` bytes, the first carrying the headers), so that no
        small write waits on the client's delayed ACK."""
        fields = [("Content-Type", out.content_type)]
        if self.close_connection:
            fields.append(("Connection", "close"))
        try:
            if out.chunks is None:
                fields.append(("Content-Length", str(len(out.body))))
                head = self._head(out.status, fields)
                self.wfile.write(head if self.command == "HEAD" else head + out.body)
                return
            fields += [("Cache-Control", "no-cache"), ("Transfer-Encoding", "chunked")]
            self._stream(self._head(out.status, fields), out.chunks)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _stream(self, head: bytes, chunks: Iterator[bytes]) -> None:
        """``head``, then ``chunks`` in chunked encoding, written in batches. A stream that
        fails before its first write is answered 500 instead; after it, the connection is
        closed, so that the client sees the stream cut short rather than complete."""
        batch = [head]
        size = 0
        written = False
        pending = iter(chunks)
        while True:
            try:
                chunk = next(pending)
            except StopIteration:
                break
            except Exception as e:  # a bug in a wire: never leave the client hanging
                self.close_connection = True
                if not written:
                    self._send(_failed(e))
                return
            if chunk:
                batch.append(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                size += len(chunk)
                if size >= _BATCH:
                    self.wfile.write(b"".join(batch))
                    batch, size, written = [], 0, True
        batch.append(b"0\r\n\r\n")
        self.wfile.write(b"".join(batch))

    def _head(self, status: int, fields: list[tuple[str, str]]) -> bytes:
        """The status line and headers of an answer, as ``send_response`` would write them
        (``Server`` and ``Date`` included), ending with the blank line; nothing for an
        HTTP/0.9 request, whose answer is its body alone."""
        if self.request_version == "HTTP/0.9":
            return b""
        phrase = self.responses[status][0] if status in self.responses else ""
        lines = [
            f"{self.protocol_version} {status} {phrase}",
            f"Server: {self.version_string()}",
            f"Date: {_http_date(int(time.time()))}",
        ]
        lines += [f"{name}: {value}" for name, value in fields]
        lines.append("\r\n")
        return "\r\n".join(lines).encode("latin-1", "strict")


def _failed(error: Exception) -> Outgoing:
    """The answer when the fake itself fails: 500, naming the exception."""
    message = f"the fake provider failed: {type(error).__name__}: {error}"
    return Outgoing(500, "text/plain; charset=utf-8", message.encode())


def _http_date(second: int) -> str:
    """The HTTP date of ``second``."""
    return email.utils.formatdate(second, usegmt=True)
