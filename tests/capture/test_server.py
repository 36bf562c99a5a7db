"""The fake provider's HTTP server: loopback only, size limits, bad bodies, concurrency,
clean stops. Raw HTTP on 127.0.0.1 only."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import openai
import orjson
import pytest
from openai.types.responses import ResponseFunctionToolCall

from harness.capture import (
    DEFAULT_MAX_REQUEST_BYTES,
    FakeProvider,
    LoopbackError,
    RecordError,
    check_records,
    read_record,
    summarize,
)
from harness.capture._server import loopback_host

from .conftest import SECRET, FullDisk, Serve, post_json, record_text, request

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize(
    "host", ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "8.8.8.8", "example.com", ""]
)
def test_non_loopback_bind_is_refused(host: str) -> None:
    with pytest.raises(LoopbackError, match="listens only on a loopback address"):
        FakeProvider("openai", host=host)


@pytest.mark.parametrize(
    ("host", "bound"),
    [("localhost", "127.0.0.1"), ("127.0.0.1", "127.0.0.1"), ("127.0.0.2", "127.0.0.2")],
)
def test_loopback_hosts(host: str, bound: str) -> None:
    assert loopback_host(host) == bound


def test_ipv6_loopback(serve: Serve) -> None:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    provider = serve("openai", host="::1")
    assert provider.origin.startswith("http://[::1]:")
    assert post_json(provider, "/v1/chat/completions", BODY)[0] == 200


def test_bad_arguments() -> None:
    known = "known: anthropic, gemini, openai, openai-responses"
    with pytest.raises(ValueError, match=f"no fake provider for dialect 'cohere'; {known}"):
        FakeProvider("cohere")
    with pytest.raises(ValueError, match="port 70000"):
        FakeProvider("openai", port=70000)
    with pytest.raises(ValueError, match="max_request_bytes"):
        FakeProvider("openai", max_request_bytes=0)


def test_defaults_and_urls(serve: Serve) -> None:
    provider = serve("openai")
    assert provider.max_request_bytes == DEFAULT_MAX_REQUEST_BYTES == 32 * 1024 * 1024
    assert provider.base_url == f"http://127.0.0.1:{provider.port}/v1"
    anthropic = serve("anthropic")
    assert anthropic.base_url == f"http://127.0.0.1:{anthropic.port}"
    gemini = serve("gemini")
    assert gemini.base_url == gemini.origin == f"http://127.0.0.1:{gemini.port}"
    assert provider.environment()["OPENAI_BASE_URL"] == provider.base_url
    responses = serve("openai-responses")
    assert responses.base_url == f"http://127.0.0.1:{responses.port}/v1"
    assert responses.environment()["OPENAI_BASE_URL"] == responses.base_url


def test_given_port_and_port_in_use(serve: Serve, tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    provider = serve("openai", port=free)
    assert provider.port == free
    (tmp_path / "second.jsonl").write_text("an earlier record\n")
    with pytest.raises(OSError, match="in use"):
        serve("openai", port=free, record=tmp_path / "second.jsonl")
    # a provider that never started leaves an earlier record as it was, and no partial file
    assert (tmp_path / "second.jsonl").read_text() == "an earlier record\n"
    assert not (tmp_path / "second.jsonl.partial").exists()


def test_a_record_file_is_one_provider_s_at_a_time(serve: Serve, tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("an earlier record\n")
    first = serve("openai", record=path)
    with pytest.raises(RecordError, match=r"is being written by another run \(pid \d+\)"):
        serve("openai", record=path)
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    assert post_json(first, "/v1/chat/completions", body)[0] == 200
    assert path.read_text() == "an earlier record\n"  # untouched until the run ends
    first.stop()
    assert [r.seq for r in read_record(path)] == [1]
    assert not path.with_name("r.jsonl.partial").exists()
    second = serve("openai", record=path)  # the file is free again
    second.stop()
    assert read_record(path) == []


def test_invalid_json_is_400_and_recorded(serve: Serve) -> None:
    provider = serve("anthropic")
    status, _, raw = request(provider, "POST", "/v1/messages", b'{"model": "m",')
    assert status == 400
    assert orjson.loads(raw) == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "the request body is not valid JSON: unexpected end of data",
        },
    }
    (record,) = provider.records
    assert (record.status, record.body, record.json) == (400, b'{"model": "m",', None)


def test_records_are_on_disk_while_running(serve: Serve) -> None:
    provider = serve("gemini")
    path = "/v1beta/models/g:generateContent"
    post_json(provider, path, {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
    assert len(read_record(provider.record_file or "")) == 1


def test_without_a_record_file(serve: Serve) -> None:
    provider = serve("openai", record=None)
    post_json(provider, "/v1/chat/completions", BODY)
    assert provider.record_path is None
    assert len(provider.records) == 1


def test_start_twice_and_port_before_start() -> None:
    provider = FakeProvider("openai")
    with pytest.raises(RuntimeError, match="not running"):
        _ = provider.port
    with provider, pytest.raises(RuntimeError, match="already running"):
        provider.start()


SCRIPT = {
    "rules": [
        {
            "when": {"last_user_contains": "fork please"},
            "reply": {"call": [{"name": "fork", "args": {"directive": "A"}}]},
            "mark": "parent",
        }
    ],
    "default": {"text": "answered"},
}


@pytest.mark.parametrize("dialect", ["openai", "openai-responses"])
def test_one_openai_fake_serves_both_apis_each_recorded_under_its_dialect(
    dialect: str, serve: Serve
) -> None:
    provider = serve(dialect, SCRIPT)
    ask = [{"role": "user", "content": "fork please"}]
    with openai.OpenAI(base_url=provider.base_url, api_key=SECRET, max_retries=0) as sdk:
        chat = sdk.chat.completions.create(model="m", messages=ask)
        responses = sdk.responses.create(model="m", input=ask)
        with pytest.raises(openai.NotFoundError):
            sdk.embeddings.create(model="m", input="x")
    chat_calls = chat.choices[0].message.tool_calls or []
    response_calls = [c for c in responses.output if isinstance(c, ResponseFunctionToolCall)]
    assert [c.function.name for c in chat_calls if c.type == "function"] == ["fork"]
    assert [json.loads(c.arguments) for c in response_calls] == [{"directive": "A"}]
    assert chat_calls[0].id != response_calls[0].call_id
    records = provider.records
    assert [(r.dialect, r.path, r.status, r.mark, r.nth) for r in records] == [
        ("openai", "/v1/chat/completions", 200, "parent", 1),
        ("openai-responses", "/v1/responses", 200, "parent", 2),
        (dialect, "/v1/embeddings", 404, None, None),
    ]
    assert records[2].error == f"the fake {dialect} provider has no route POST /v1/embeddings"
    assert [r.parse().request.history[-1].text for r in records[:2]] == ["fork please"] * 2
    assert tuple(read_record(provider.record_file or "")) == records
    grouped = check_records(records)
    assert [r.conversations[0].first.dialect for r in grouped.roles] == [
        "openai",
        "openai-responses",
    ]
    assert SECRET not in record_text(provider)


LEAKS = {
    "sig": "s1g-value-0001",
    "code": "auth-code-0002",
    "X-Amz-Credential": "AKIAEXAMPLE%2F20260101",
    "pwd": "hunter2-0003",
    "jwt": "jwt-value-0004",
}
LEAK_HEADERS = {
    "X-Credential": "cred-value-0005",
    "X-JWT": "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.sig",
    "X-Passwd": "passwd-value-0006",
    "X-Anything": "Bearer opaque-bearer-0007",
    "User-Agent": "agent/1 (key sk-ant-api03-leakedleakedleaked0008)",
}


def test_nothing_but_the_allow_list_reaches_the_record(serve: Serve) -> None:
    """Real HTTP: query parameters, headers and key-shaped strings in a body never reach
    the record file; a parent and a child carrying the same key still match byte for byte."""
    provider = serve("openai")
    query = "&".join(f"{k}={v}" for k, v in LEAKS.items())
    key = "sk-proj-bodykeybodykeybodykey0009"
    parent = {"model": "m", "messages": [{"role": "system", "content": f"use {key}"}]}
    child = {"model": "m", "messages": [*parent["messages"], {"role": "user", "content": "go"}]}
    for body in (parent, child):
        status, _, _ = request(
            provider,
            "POST",
            f"/v1/chat/completions?{query}",
            orjson.dumps(body),
            {"content-type": "application/json", **LEAK_HEADERS},
        )
        assert status == 200
    provider.stop()
    raw = (provider.record_file or Path()).read_bytes()
    for secret in [*LEAKS.values(), *LEAK_HEADERS.values(), key, "leakedleaked", "opaque-bearer"]:
        assert secret.encode() not in raw, secret
    first, second = read_record(provider.record_file or "")
    assert first.query == "&".join(f"{k}=<redacted>" for k in LEAKS)
    assert first.headers["content-type"] == "application/json"
    assert first.headers["x-credential"] == first.headers["x-passwd"] == "<redacted>"
    assert first.headers["user-agent"] == "agent/1 (key <redacted>)"
    assert (first.body_secrets, second.body_secrets) == (1, 1)
    assert first.json == orjson.loads(first.body or b"")  # the body and its JSON agree
    assert len(first.body or b"") == first.body_size
    prefix = (first.body or b"")[: (first.body or b"").index(b"]")]
    assert (second.body or b"").startswith(prefix)
    assert "2 secrets in bodies replaced" in summarize([first, second])


def test_a_full_disk_answers_every_request_and_says_why(
    serve: Serve, tmp_path: Path, full_disk: FullDisk
) -> None:
    path = tmp_path / "r.jsonl"
    provider = serve("openai", record=path)
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    assert post_json(provider, "/v1/chat/completions", body)[0] == 200
    whole = path.with_name("r.jsonl.partial").read_bytes()
    full_disk(100)  # the next line is cut short after 100 bytes
    for _ in range(3):
        status, answer = post_json(provider, "/v1/chat/completions", body)
        assert status == 500
        assert "cannot be written (No space left on device)" in answer["error"]["message"]
    assert provider.failure == (
        f"the record file {path} cannot be written (No space left on device);"
        " 1 request was recorded before"
    )
    with pytest.raises(RecordError, match="No space left"):
        _ = provider.records
    provider.stop()
    assert path.read_bytes() == whole  # cut back to the last whole line, then put in place
    assert len(read_record(path)) == 1
