"""The fake Anthropic messages provider, driven by the official ``anthropic`` SDK over real
HTTP on loopback: JSON and SSE answers, text and tool_use blocks, records redacted."""

from __future__ import annotations

from typing import Any

import anthropic
import orjson
import pytest

from ...capture.conftest import SECRET, Serve, post_json, record_text, request, sse_data

TEXT = "A scripted answer that is long enough to be streamed in pieces."
SCRIPT: dict[str, Any] = {
    "rules": [
        {
            "when": {"last_user_contains": "fork please"},
            "reply": {
                "text": "Forking.",
                "call": [{"name": "fork", "args": {"directive": "A", "deep": {"k": [1, "x"]}}}],
            },
            "mark": "parent",
        }
    ],
    "default": {"text": TEXT},
}
USER_TEXT = [{"role": "user", "content": "hello"}]
USER_FORK = [{"role": "user", "content": "fork please"}]


def client(base_url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=base_url, api_key=SECRET, max_retries=0, timeout=10)


def test_text_reply(serve: Serve) -> None:
    provider = serve("anthropic", SCRIPT)
    with client(provider.base_url) as sdk:
        message = sdk.messages.create(model="claude-test", max_tokens=64, messages=USER_TEXT)
    assert [b.type for b in message.content] == ["text"]
    assert message.content[0].text == TEXT
    assert message.stop_reason == "end_turn"
    assert message.model == "claude-test"
    assert message.usage.input_tokens > 0
    (record,) = provider.records
    assert (record.path, record.status, record.stream, record.model) == (
        "/v1/messages",
        200,
        False,
        "claude-test",
    )
    assert record.parse().request.history[0].text == "hello"


def test_tool_use(serve: Serve) -> None:
    provider = serve("anthropic", SCRIPT)
    with client(provider.base_url) as sdk:
        message = sdk.messages.create(model="claude-test", max_tokens=64, messages=USER_FORK)
    text, tool_use = message.content
    assert text.type == "text"
    assert text.text == "Forking."
    assert tool_use.type == "tool_use"
    assert tool_use.name == "fork"
    assert tool_use.input == {"directive": "A", "deep": {"k": [1, "x"]}}
    assert tool_use.id.startswith("toolu_")
    assert message.stop_reason == "tool_use"
    assert provider.records[0].mark == "parent"


def test_stream_text(serve: Serve) -> None:
    provider = serve("anthropic", SCRIPT)
    with (
        client(provider.base_url) as sdk,
        sdk.messages.stream(model="claude-test", max_tokens=64, messages=USER_TEXT) as stream,
    ):
        pieces = list(stream.text_stream)
        message = stream.get_final_message()
    assert len(pieces) > 1
    assert "".join(pieces) == TEXT
    assert message.content[0].text == TEXT
    assert message.stop_reason == "end_turn"
    assert provider.records[0].stream is True


def test_stream_tool_use(serve: Serve) -> None:
    provider = serve("anthropic", SCRIPT)
    with (
        client(provider.base_url) as sdk,
        sdk.messages.stream(model="claude-test", max_tokens=64, messages=USER_FORK) as stream,
    ):
        message = stream.get_final_message()
    assert [b.type for b in message.content] == ["text", "tool_use"]
    assert message.content[1].input == {"directive": "A", "deep": {"k": [1, "x"]}}
    assert message.stop_reason == "tool_use"


def test_raw_event_sequence(serve: Serve) -> None:
    provider = serve("anthropic", SCRIPT)
    body = {"model": "c", "max_tokens": 8, "messages": USER_FORK, "stream": True}
    status, headers, raw = request(provider, "POST", "/v1/messages", orjson.dumps(body))
    assert status == 200
    assert headers["content-type"] == "text/event-stream"
    events = [orjson.loads(d) for d in sse_data(raw)]
    kinds = [e["type"] for e in events]
    assert kinds[:2] == ["message_start", "ping"]
    assert kinds[-2:] == ["message_delta", "message_stop"]
    starts = [e["content_block"]["type"] for e in events if e["type"] == "content_block_start"]
    assert starts == ["text", "tool_use"]
    deltas = {e["delta"]["type"] for e in events if e["type"] == "content_block_delta"}
    assert deltas == {"text_delta", "input_json_delta"}
    assert kinds.count("content_block_stop") == 2
    named = [line for line in raw.split(b"\n") if line.startswith(b"event: ")]
    assert [n.removeprefix(b"event: ").decode() for n in named] == kinds


def test_count_tokens_and_models(serve: Serve) -> None:
    provider = serve("anthropic")
    with client(provider.base_url) as sdk:
        counted = sdk.messages.count_tokens(model="claude-test", messages=USER_TEXT)
        listed = sdk.models.list()
    assert counted.input_tokens > 0
    assert [m.id for m in listed.data] == ["prefix-harness-fake"]
    assert [r.reply for r in provider.records] == [None, None]


def test_keys_are_redacted_in_the_record(serve: Serve) -> None:
    provider = serve("anthropic", SCRIPT)
    with client(provider.base_url) as sdk:
        sdk.messages.create(
            model="c",
            max_tokens=8,
            messages=USER_TEXT,
            extra_headers={"x-api-key": SECRET, "X-Custom-Token": "t0k3n"},
        )
    headers = provider.records[0].headers
    assert headers["x-api-key"] == "<redacted>"
    assert headers["x-custom-token"] == "<redacted>"
    assert headers["anthropic-version"]
    assert SECRET not in record_text(provider)
    assert "t0k3n" not in record_text(provider)


def test_errors_are_anthropic_shaped(serve: Serve) -> None:
    provider = serve("anthropic")
    status, answer = post_json(provider, "/v1/complete", {"prompt": "hi"})
    assert status == 404
    assert answer["type"] == "error"
    assert answer["error"]["type"] == "not_found_error"
    status, _, raw = request(provider, "POST", "/v1/messages", b"{nope")
    assert status == 400
    assert orjson.loads(raw)["error"]["type"] == "invalid_request_error"


def test_sdk_sees_413_over_the_limit(serve: Serve) -> None:
    provider = serve("anthropic", max_request_bytes=1000)
    big = [{"role": "user", "content": "x" * 5000}]
    with client(provider.base_url) as sdk, pytest.raises(anthropic.APIStatusError) as raised:
        sdk.messages.create(model="c", max_tokens=8, messages=big)
    assert raised.value.status_code == 413
    assert "over the fake provider's limit of 1,000 bytes" in str(raised.value)
    (record,) = provider.records
    assert (record.status, record.body, record.body_size > 5000) == (413, None, True)
