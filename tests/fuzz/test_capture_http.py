"""The capture fake on malformed HTTP, over raw sockets on loopback: bad request lines,
bad headers, huge, negative or non-numeric Content-Length, bad chunks, truncated bodies and
partial sends that stall. The fake answers or closes, the test never hangs on it, a good
request still gets its answer afterwards, and every request that reached the exchange has
a record."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
from hypothesis import example, given
from hypothesis import strategies as st

from harness.capture import FakeProvider

from ._fuzz import fuzz_settings

BODY = orjson.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
CLIENT_TIMEOUT = 3.0
STALL = 0.05
PATIENCE = 0.3

LINES = [
    b"POST /v1/chat/completions HTTP/1.1",
    b"POST /v1/chat/completions HTTP/1.0",
    b"GET /v1/models HTTP/1.1",
    b"POST /v1/responses HTTP/1.1",
    b"POST http://127.0.0.1/v1/chat/completions HTTP/1.1",
    b"POST /v1/chat/completions?key=secret HTTP/1.1",
    b"GARBAGE",
    b"POST",
    b"POST / HTTP/9.9",
    b"POST /v1/chat/completions HTTP/1.1 extra",
    b"\x00\xff / HTTP/1.1",
    b"POST /" + b"a" * 70_000 + b" HTTP/1.1",
    b"",
    b"BREW /pot HTTP/1.1",
    b"POST /%ff%fe HTTP/1.1",
]
LENGTHS = [None, "-1", "abc", "99999999999999999999", "+5", " 5 ", "0x10", "", "1e3", "٣"]
LENGTHS += ["10, 10", "1000000", "0", "5", "33554433", "4294967296"]
HEADERS = [
    b"Content-Type: application/json",
    b"Transfer-Encoding: chunked",
    b"Transfer-Encoding: gzip, chunked",
    b"Content-Length: 3",
    b"no colon here",
    b"X-Bad: \xff\xfe",
    b"Authorization: Bearer sk-secret",
    b": empty name",
    b"X-Long: " + b"x" * 70_000,
    b" folded continuation",
    b"Expect: 100-continue",
    b"Connection: keep-alive",
    b"Connection: close",
]
BODIES = [
    BODY,
    BODY[: len(BODY) // 2],
    b"",
    b"not json",
    b"\xff\xfe",
    b"[1, 2]",
    b"5\r\nhello\r\n0\r\n\r\n",
    b"zz\r\nhello\r\n0\r\n\r\n",
    b"ffffffffffffffffffff\r\n",
    b"5\r\nhel",
    b"-1\r\n",
]


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    headers = draw(st.lists(st.sampled_from(HEADERS), max_size=3))
    length = draw(st.sampled_from(LENGTHS))
    if length is not None:
        headers.append(b"Content-Length: " + length.encode())
    return {
        "line": draw(st.sampled_from(LINES)),
        "headers": headers,
        "body": draw(st.sampled_from(BODIES)),
        "cut": draw(st.one_of(st.none(), st.integers(0, 400))),
        "close": draw(st.sampled_from(["close", "half", "stall"])),
    }


def raw(request: dict[str, Any]) -> bytes:
    head = (
        request["line"]
        + b"\r\nHost: 127.0.0.1\r\n"
        + b"".join(h + b"\r\n" for h in request["headers"])
    )
    data = head + b"\r\n" + request["body"]
    return data if request["cut"] is None else data[: request["cut"]]


def exchange(port: int, request: dict[str, Any]) -> bytes:
    """Send the request; what came back before the fake closed or the client gave up. A
    client that has sent everything and half-closed must see an answer or the close within
    the client timeout; one that stalls, or keeps its side open, hangs up soon."""
    with socket.create_connection(("127.0.0.1", port), timeout=CLIENT_TIMEOUT) as s:
        try:
            s.sendall(raw(request))
            if request["close"] == "half":
                s.shutdown(socket.SHUT_WR)
            else:
                time.sleep(STALL if request["close"] == "stall" else 0)
                s.settimeout(PATIENCE)
        except OSError:
            return b""
        got = b""
        try:
            while chunk := s.recv(65536):
                got += chunk
                if request["close"] != "half" and b"\r\n\r\n" in got:
                    break
        except TimeoutError:
            assert request["close"] != "half", f"no answer nor close in {CLIENT_TIMEOUT} s"
        except OSError:
            pass
        return got


def answered(answer: bytes) -> bool:
    """An HTTP/1.x answer, nothing (closed), or the error page the standard library sends a
    request line it cannot read as HTTP/1.x, which it answers as HTTP/0.9 (no status line)."""
    return answer == b"" or answer.startswith(b"HTTP/1.") or b"<title>Error response" in answer


@contextmanager
def counted(provider: FakeProvider) -> Iterator[list[int]]:
    """How many requests reached the provider's exchange."""
    server: Any = provider._server
    calls = [0]
    lock = threading.Lock()
    respond = server.exchange.respond

    def counting(incoming: Any) -> Any:
        with lock:
            calls[0] += 1
        return respond(incoming)

    server.exchange.respond = counting
    yield calls


def good_request(port: int) -> bytes:
    head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    head += b"Content-Length: " + str(len(BODY)).encode() + b"\r\nConnection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=CLIENT_TIMEOUT) as s:
        s.sendall(head + BODY)
        got = b""
        while chunk := s.recv(65536):
            got += chunk
    return got


@fuzz_settings(25)
@given(st.lists(requests(), min_size=1, max_size=3))
@example(
    [
        {
            "line": LINES[0],
            "headers": [b"Content-Length: -1"],
            "body": BODY,
            "cut": None,
            "close": "half",
        }
    ]
)
@example(
    [
        {
            "line": LINES[0],
            "headers": [b"Transfer-Encoding: chunked"],
            "body": b"5\r\nhel",
            "cut": None,
            "close": "stall",
        }
    ]
)
def test_malformed_http_is_answered_or_closed_and_recorded(batch: list[dict[str, Any]]) -> None:
    provider = FakeProvider("openai").start()
    try:
        with counted(provider) as calls:
            for request in batch:
                answer = exchange(provider.port, request)
                assert answered(answer), answer[:200]
            assert good_request(provider.port).startswith(b"HTTP/1.1 200 ")
            deadline = time.monotonic() + 5
            while len(provider.records) < calls[0] and time.monotonic() < deadline:
                time.sleep(0.01)
    finally:
        started = time.monotonic()
        provider.stop()
        assert time.monotonic() - started < 5, "stopping the fake took too long"
    assert len(provider.records) == calls[0]
