"""The HTTP plumbing: size limits with Content-Length and chunked bodies, keep-alive
connections ended on stop, and 50 concurrent requests all recorded. Raw HTTP on 127.0.0.1."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import orjson

from harness.capture import FakeProvider, read_record

from .conftest import Serve, post_json, request

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
    assert read_record(provider.record_path or "")[0].body is None
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
    records = read_record(provider.record_path or "")
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
