"""The HTTP plumbing: size limits with Content-Length and chunked bodies, keep-alive
connections ended on stop, and 50 concurrent requests all recorded. Raw HTTP on 127.0.0.1."""

from __future__ import annotations

import http.client
import socket
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from harness.capture import (
    FakeProvider,
    RecordWriter,
    Script,
    check_records,
    parse_script,
    read_record,
)
from harness.capture._exchange import Exchange, Outgoing
from harness.capture._http import HTTPServer
from harness.capture._match import Matcher
from harness.dialects import providers

from .conftest import Serve, post_json, request, sse_data

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def test_413_with_content_length_is_recorded_without_body(serve: Serve) -> None:
    provider = serve("openai", max_request_bytes=1024)
    big = orjson.dumps({**BODY, "pad": "x" * 4000})
    status, headers, raw = request(provider, "POST", "/v1/chat/completions", big)
    assert status == 413
    assert headers["content-type"] == "application/json"
    assert orjson.loads(raw)["error"]["code"] == "request_too_large"
    (record,) = provider.records
    assert (record.status, record.body, record.body_size) == (413, None, len(big))
    assert "limit of 1,024 bytes" in (record.error or "")
    assert read_record(provider.record_file or "")[0].body is None
    assert post_json(provider, "/v1/chat/completions", BODY)[0] == 200


def test_413_with_chunked_body(serve: Serve) -> None:
    provider = serve("openai", max_request_bytes=1024)

    def chunks() -> Iterator[bytes]:
        for _ in range(10):
            yield b" " * 500

    connection = http.client.HTTPConnection(provider.host, provider.port, timeout=10)
    connection.request("POST", "/v1/chat/completions", body=chunks(), encode_chunked=True)
    assert connection.getresponse().status == 413
    connection.close()
    assert provider.records[0].status == 413


def test_chunked_body_within_the_limit(serve: Serve) -> None:
    provider = serve("openai", {"default": {"text": "chunked ok"}})
    data = orjson.dumps(BODY)
    connection = http.client.HTTPConnection(provider.host, provider.port, timeout=10)
    connection.request(
        "POST", "/v1/chat/completions", body=iter([data[:10], data[10:]]), encode_chunked=True
    )
    answer = orjson.loads(connection.getresponse().read())
    connection.close()
    assert answer["choices"][0]["message"]["content"] == "chunked ok"
    assert provider.records[0].body == data


def test_fifty_concurrent_requests_are_all_recorded(serve: Serve) -> None:
    provider = serve("openai", {"rules": [{"reply": {"text": "first"}, "times": 1}]})
    start = threading.Barrier(50)
    answers: dict[int, str] = {}
    lock = threading.Lock()

    def client(i: int) -> None:
        body = {**BODY, "messages": [{"role": "user", "content": f"child {i}"}]}
        start.wait(timeout=10)
        status, answer = post_json(provider, "/v1/chat/completions", body)
        assert status == 200
        with lock:
            answers[i] = answer["choices"][0]["message"]["content"]

    threads = [threading.Thread(target=client, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert len(answers) == 50
    assert sorted(answers.values()).count("first") == 1
    records = read_record(provider.record_file or "")
    assert [r.seq for r in records] == list(range(1, 51))
    assert sorted(r.nth or 0 for r in records) == list(range(1, 51))
    contents = {r.json["messages"][0]["content"] for r in records}
    assert contents == {f"child {i}" for i in range(50)}


def test_keep_alive_connection_and_quick_stop(tmp_path: Path) -> None:
    provider = FakeProvider("openai", record=tmp_path / "r.jsonl").start()
    connection = http.client.HTTPConnection(provider.host, provider.port, timeout=10)
    for _ in range(3):
        connection.request("POST", "/v1/chat/completions", body=orjson.dumps(BODY))
        response = connection.getresponse()
        assert response.status == 200
        response.read()
    began = time.monotonic()
    provider.stop()
    provider.stop()
    assert time.monotonic() - began < 5  # stopping does not wait for the idle keep-alive
    connection.close()
    assert len(read_record(tmp_path / "r.jsonl")) == 3


def _raw(provider: FakeProvider, head: bytes, body: bytes = b"") -> bytes:
    """Send raw bytes on a fresh connection, half-close it and read the whole answer."""
    with socket.create_connection((provider.host, provider.port), timeout=10) as sock:
        sock.sendall(head + body)
        sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def _post_head(length: str) -> bytes:
    return (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
        + f"Content-Length: {length}\r\n\r\n".encode()
    )


@pytest.mark.parametrize(
    ("length", "status", "error"),
    [
        ("abc", 400, "the Content-Length 'abc' is not a size in bytes"),
        ("-5", 400, "the Content-Length '-5' is not a size in bytes"),
        ("1e3", 400, "the Content-Length '1e3' is not a size in bytes"),
        ("1_0", 400, "the Content-Length '1_0' is not a size in bytes"),
        ("9" * 40, 400, "is not a size in bytes"),
        (str(2**62), 413, "request body of 4,611,686,018,427,387,904 bytes is over"),
        ("500", 400, "the connection closed after 2 of the 500 bytes of Content-Length"),
    ],
)
def test_bad_content_lengths_get_an_answer_and_a_record(
    serve: Serve, length: str, status: int, error: str
) -> None:
    provider = serve("openai", max_request_bytes=1024)
    assert post_json(provider, "/v1/chat/completions", BODY)[0] == 200  # accepted before
    answer = _raw(provider, _post_head(length), b"{}")
    assert answer.startswith(f"HTTP/1.1 {status} ".encode())
    assert post_json(provider, "/v1/chat/completions", BODY)[0] == 200  # still serving
    records = read_record(provider.record_file or "")
    assert [r.status for r in records] == [200, status, 200]
    assert error in (records[1].error or "")


def _cut_short(provider: FakeProvider, sent: bytes, how: str) -> None:
    """Send ``sent`` (a head and part of a body), let the fake read it, then hang up:
    ``close`` (FIN) or ``reset`` (RST, as a killed client or a dropped link does)."""
    sock = socket.create_connection((provider.host, provider.port), timeout=10)
    sock.sendall(sent)
    time.sleep(0.2)
    if how == "reset":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


CHUNKED = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"


@pytest.mark.parametrize(
    ("how", "said"), [("close", "the connection closed"), ("reset", "the connection was reset")]
)
@pytest.mark.parametrize(
    ("sent", "where"),
    [
        (_post_head("500") + b'{"model": "m", "messa', " after 21 of the 500 bytes"),
        (CHUNKED + b"40\r\n" + b'{"model": "m"', " in the middle of a chunk"),
        (CHUNKED + b"4\r\n{}  \r\n", " before the body's last chunk"),
    ],
    ids=["content-length", "mid-chunk", "between-chunks"],
)
def test_a_body_cut_short_by_a_close_or_a_reset_is_recorded_and_inconclusive(
    serve: Serve, how: str, said: str, sent: bytes, where: str
) -> None:
    provider = serve("openai")
    _cut_short(provider, sent, how)
    deadline = time.monotonic() + 10
    while provider.recorded < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    (record,) = provider.records
    assert record.status == 400
    assert record.error == said + where + ("" if "500" not in where else " of Content-Length")
    assert post_json(provider, "/v1/chat/completions", BODY)[0] == 200  # still serving
    result = check_records(provider.records)  # a request never seen whole: no verdict
    assert any("refused by the fake" in reason for reason in result.inconclusive)


def test_conflicting_content_lengths_and_bad_chunks(serve: Serve) -> None:
    provider = serve("openai")
    head = _post_head("2")[:-2] + b"Content-Length: 3\r\n\r\n"
    assert _raw(provider, head, b"{}").startswith(b"HTTP/1.1 400 ")
    chunked = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    assert _raw(provider, chunked, b"zz\r\n{}\r\n").startswith(b"HTTP/1.1 400 ")
    assert _raw(provider, chunked, b"ffff\r\n{}").startswith(b"HTTP/1.1 400 ")
    errors = [r.error for r in read_record(provider.record_file or "")]
    assert errors == [
        "the request has conflicting Content-Length headers",
        "the chunk size b'zz' is not a hexadecimal size",
        "the connection closed in the middle of a chunk",
    ]


def test_a_chunk_over_the_limit_is_never_held_whole(serve: Serve) -> None:
    """A chunk far over the limit is drained a buffer at a time, not read in one piece."""
    import tracemalloc

    provider = serve("openai", max_request_bytes=1024)
    chunked = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    size = 32 * 1024 * 1024
    payload = chunked + b"%x\r\n" % size + b" " * size + b"\r\n0\r\n\r\n"
    tracemalloc.start()
    try:
        answer = _raw(provider, payload)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert peak < size // 8


@pytest.fixture
def server(tmp_path: Path) -> Iterator[HTTPServer]:
    """The HTTP server of an OpenAI fake on its own, serving in a thread."""
    writer = RecordWriter(tmp_path / "r.jsonl")
    exchange = Exchange(providers()["openai"], Matcher(Script()), writer, 1024 * 1024)
    server = HTTPServer(("127.0.0.1", 0), exchange)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    server.close_connections()
    thread.join()
    writer.close()


def _keep_alive(server: HTTPServer, body: object, times: int = 6) -> list[bytes]:
    """``times`` requests on one kept-alive raw socket, and for each the bytes of the first
    recv (past the first few, a client acknowledges with a delay: a second small write of
    an answer would wait for that ACK, and arrive apart)."""
    answers = []
    with socket.create_connection(server.server_address[:2], timeout=10) as sock:
        data = orjson.dumps(body)
        for _ in range(times):
            sock.sendall(_post_head(str(len(data))) + data)
            answers.append(sock.recv(1024 * 1024))
        assert server.connections()  # kept alive
    return answers


def test_accepted_connections_have_nagle_off(server: HTTPServer) -> None:
    """TCP_NODELAY, read back from the server's side of the connection: a small answer is
    not held back until the client acknowledges the one before."""
    with socket.create_connection(server.server_address[:2], timeout=10) as sock:
        data = orjson.dumps(BODY)
        sock.sendall(_post_head(str(len(data))) + data)
        assert sock.recv(1024 * 1024).startswith(b"HTTP/1.1 200 ")
        (accepted,) = server.connections()
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0  # ours is left on


def test_an_answer_is_one_write(server: HTTPServer) -> None:
    """Status line, headers and body arrive together: written in one piece, not as a
    head then a body that waits on the client's delayed ACK."""
    for first in _keep_alive(server, BODY):
        head, _, body = first.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 OK\r\n")
        assert b"\r\nDate: " in head
        assert b"\r\nServer: " in head
        length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        assert len(body) == length
        assert orjson.loads(body)["object"] == "chat.completion"


def test_a_short_stream_is_one_write_and_a_long_one_still_streams(server: HTTPServer) -> None:
    for first in _keep_alive(server, {**BODY, "stream": True}):
        assert b"\r\nTransfer-Encoding: chunked\r\n" in first
        assert first.endswith(b"data: [DONE]\n\n\r\n0\r\n\r\n")  # every event, the end
    server.exchange.matcher = Matcher(parse_script({"default": {"text": "z" * 300_000}}))
    connection = http.client.HTTPConnection(*server.server_address[:2], timeout=10)
    connection.request("POST", "/v1/chat/completions", body=orjson.dumps({**BODY, "stream": True}))
    response = connection.getresponse()
    assert response.getheader("Transfer-Encoding") == "chunked"
    events = sse_data(response.read())
    connection.close()
    text = "".join(orjson.loads(e)["choices"][0]["delta"].get("content") or "" for e in events[:-1])
    assert text == "z" * 300_000


def test_sixteen_keep_alive_clients_lose_no_record(serve: Serve) -> None:
    """16 clients, each on one kept-alive connection, JSON and streamed answers in turn:
    every request is answered and recorded once, in one seq order without gaps."""
    provider = serve("openai")
    clients, each = 16, 25
    start = threading.Barrier(clients)
    failures: list[BaseException] = []

    def client(i: int) -> None:
        connection = http.client.HTTPConnection(provider.host, provider.port, timeout=20)
        try:
            start.wait(timeout=10)
            for n in range(each):
                body = {**BODY, "messages": [{"role": "user", "content": f"{i}/{n}"}]}
                if n % 2:
                    body["stream"] = True
                connection.request("POST", "/v1/chat/completions", body=orjson.dumps(body))
                sock = connection.sock
                response = connection.getresponse()
                data = response.read()
                assert response.status == 200
                assert data.endswith(b"data: [DONE]\n\n" if n % 2 else b"}")
                assert connection.sock is sock is not None  # the same connection throughout
        except BaseException as e:
            failures.append(e)
        finally:
            connection.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not failures, failures[0]
    records = read_record(provider.record_file or "")
    assert [r.seq for r in records] == list(range(1, clients * each + 1))
    sent = sorted(r.json["messages"][0]["content"] for r in records)
    assert sent == sorted(f"{i}/{n}" for i in range(clients) for n in range(each))
    assert provider.recorded == len(provider.records) == clients * each


def test_an_http_0_9_request_gets_its_body_alone(serve: Serve) -> None:
    provider = serve("openai")
    answer = _raw(provider, b"GET /v1/models\r\n")
    assert orjson.loads(answer)["object"] == "list"
    assert read_record(provider.record_file or "")[0].path == "/v1/models"


def test_a_stream_that_fails_still_answers_or_ends_cut_short(
    server: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream whose making fails before anything is written is answered 500; one that
    fails later ends with the connection closed, never as a complete stream."""

    def failing(after: int) -> Iterator[bytes]:
        yield from [b"data: " + b"x" * 1000 + b"\n\n"] * after
        raise RuntimeError("the wire broke")

    def answer(after: int) -> Outgoing:
        return Outgoing(200, "text/event-stream", chunks=failing(after))

    monkeypatch.setattr(server.exchange, "respond", lambda incoming: answer(0))
    connection = http.client.HTTPConnection(*server.server_address[:2], timeout=10)
    connection.request("POST", "/v1/chat/completions", body=orjson.dumps(BODY))
    response = connection.getresponse()
    assert response.status == 500
    assert response.read() == b"the fake provider failed: RuntimeError: the wire broke"
    assert response.getheader("Connection") == "close"
    connection.close()
    monkeypatch.setattr(server.exchange, "respond", lambda incoming: answer(100))
    connection = http.client.HTTPConnection(*server.server_address[:2], timeout=10)
    connection.request("POST", "/v1/chat/completions", body=orjson.dumps(BODY))
    response = connection.getresponse()
    assert response.status == 200
    with pytest.raises(http.client.IncompleteRead):
        response.read()
    connection.close()
