"""Shared helpers for the capture tests: start fake providers, send raw HTTP to them."""

from __future__ import annotations

import errno
import http.client
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from harness.capture import FakeProvider, Script, _record, parse_script

SECRET = "sk-live-DO-NOT-LEAK-1234567890"
"""An API key the tests send; it must never appear in a record."""

Serve = Callable[..., FakeProvider]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    """Start a fake provider (recording to ``tmp_path/<dialect>.jsonl``); stopped after."""
    started: list[FakeProvider] = []

    def start(
        dialect: str, script: Script | dict[str, Any] | None = None, **options: Any
    ) -> FakeProvider:
        if isinstance(script, dict):
            script = parse_script(script)
        options.setdefault("record", tmp_path / f"{dialect}.jsonl")
        provider = FakeProvider(dialect, script, **options).start()
        started.append(provider)
        return provider

    yield start
    for provider in started:
        provider.stop()


def request(
    provider: FakeProvider,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP request on a fresh connection: status, headers (lower-cased), body."""
    connection = http.client.HTTPConnection(provider.host, provider.port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data
    finally:
        connection.close()


def post_json(provider: FakeProvider, path: str, body: Any, **headers: str) -> tuple[int, Any]:
    """POST a JSON body; the status and the decoded answer (``None`` if not JSON)."""
    status, _, data = request(
        provider, "POST", path, orjson.dumps(body), {"content-type": "application/json", **headers}
    )
    try:
        return status, orjson.loads(data)
    except orjson.JSONDecodeError:
        return status, None


def sse_data(raw: bytes) -> list[bytes]:
    """The ``data:`` payloads of a server-sent event stream, in order."""
    return [line[len(b"data: ") :] for line in raw.split(b"\n") if line.startswith(b"data: ")]


def record_text(provider: FakeProvider) -> str:
    """The whole record file as text (to look for leaked secrets)."""
    assert provider.record_file is not None
    return provider.record_file.read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def _no_way_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """Send any request that is not for loopback to a dead proxy on loopback, so that a
    client ignoring its base URL fails at once instead of reaching the network."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.setenv(name, "127.0.0.1,localhost,::1")


FullDisk = Callable[[int], None]


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> FullDisk:
    """``full_disk(room)``: from now on the record's disk takes ``room`` more bytes; a line
    past them is written up to there (a short write, really made) and then fails with
    ENOSPC, as on a full disk. A real full disk is tried in tests/faults (a small tmpfs)."""

    def fill(room: int) -> None:
        left = room

        def write_all(fd: int, line: bytes) -> None:
            nonlocal left
            view = memoryview(line)
            while view:
                if left <= 0:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                written = os.write(fd, view[:left])
                left -= written
                view = view[written:]

        monkeypatch.setattr(_record, "_write_all", write_all)

    return fill
