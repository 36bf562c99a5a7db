"""HTTP plumbing of the fake provider: a threaded HTTP/1.1 server that reads each request
(bounded by a size limit, ``Content-Length`` or chunked), hands it to an ``Exchange`` and
writes the answer back, whole or streamed with chunked transfer encoding."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from ._exchange import Exchange, Incoming, Outgoing

__all__ = ["HTTPServer"]

_DRAIN_LIMIT = 256 * 1024 * 1024
"""A refused body up to this size is read and dropped so the client sees the 413."""
_READ = 64 * 1024


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

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

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
        with self._open_lock:
            open_now = list(self._open)
        for sock in open_now:
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

    def _serve(self) -> None:
        arrived = time.time()
        limit = self.server.exchange.max_request_bytes
        body, size = self._read_body(limit)
        target = urlsplit(self.path)
        incoming = Incoming(
            method=self.command,
            path=target.path,
            query=target.query,
            headers=tuple(self.headers.items()),
            body=body,
            body_size=size,
            arrived=arrived,
        )
        self._send(self.server.exchange.respond(incoming))

    def _read_body(self, limit: int) -> tuple[bytes | None, int]:
        """The body and its size; ``None`` and the size seen when over ``limit``."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked(limit)
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            length = -1
        if length < 0:
            self.close_connection = True
            return b"", 0
        if length <= limit:
            return self.rfile.read(length), length
        if length <= _DRAIN_LIMIT:
            remaining = length
            while remaining > 0:
                got = self.rfile.read(min(_READ, remaining))
                if not got:
                    break
                remaining -= len(got)
        else:
            self.close_connection = True
        return None, length

    def _read_chunked(self, limit: int) -> tuple[bytes | None, int]:
        """A chunked body; over ``limit`` the rest is read and dropped (up to the drain limit)
        so that the client, still sending, sees the 413 instead of a broken pipe."""
        parts: list[bytes] = []
        size = 0
        while True:
            line = self.rfile.readline(1024).split(b";", 1)[0].strip()
            try:
                chunk = int(line, 16)
            except ValueError:
                self.close_connection = True
                return (b"".join(parts) if size <= limit else None), size
            if chunk == 0:
                while self.rfile.readline(1024).strip():
                    pass
                return (b"".join(parts) if size <= limit else None), size
            size += chunk
            if size > _DRAIN_LIMIT:
                self.close_connection = True
                return None, size
            data = self.rfile.read(chunk)
            if size <= limit:
                parts.append(data)
            else:
                parts.clear()
            self.rfile.readline(1024)

    def _send(self, out: Outgoing) -> None:
        try:
            self.send_response(out.status)
            self.send_header("Content-Type", out.content_type)
            if self.close_connection:
                self.send_header("Connection", "close")
            if out.chunks is None:
                self.send_header("Content-Length", str(len(out.body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(out.body)
                return
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for chunk in out.chunks:
                if chunk:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
