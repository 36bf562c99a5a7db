"""The fake provider's HTTP server: loopback only, size limits, bad bodies, concurrency,
clean stops. Raw HTTP on 127.0.0.1 only."""

from __future__ import annotations

import socket

import orjson
import pytest

from harness.capture import (
    DEFAULT_MAX_REQUEST_BYTES,
    FakeProvider,
    LoopbackError,
    read_record,
)
from harness.capture._server import loopback_host

from .conftest import Serve, post_json, request

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
    with pytest.raises(ValueError, match="no fake provider for dialect 'cohere'"):
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


def test_given_port_and_port_in_use(serve: Serve) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    provider = serve("openai", port=free)
    assert provider.port == free
    with pytest.raises(OSError, match="in use"):
        serve("openai", port=free)


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
    assert len(read_record(provider.record_path or "")) == 1


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
