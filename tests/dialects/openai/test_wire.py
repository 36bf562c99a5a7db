"""The fake OpenAI chat completions provider, driven by the official ``openai`` SDK over
real HTTP on loopback: JSON and streamed answers, text and tool calls, records redacted."""

from __future__ import annotations

import json
from typing import Any

import openai
import orjson

from ...capture.conftest import SECRET, Serve, post_json, record_text, request, sse_data

SCRIPT: dict[str, Any] = {
    "rules": [
        {
            "when": {"last_user_contains": "fork please"},
            "reply": {
                "call": [
                    {"name": "fork", "args": {"directive": "A", "n": [1, 2]}},
                    {"name": "fork", "args": {"directive": "B"}},
                ]
            },
            "mark": "parent",
        }
    ],
    "default": {"text": "A scripted answer that is long enough to be streamed in pieces."},
}
USER_TEXT = [{"role": "user", "content": "hello"}]
USER_FORK = [{"role": "user", "content": "fork please"}]


def client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key=SECRET, max_retries=0, timeout=10)


def test_text_reply(serve: Serve) -> None:
    provider = serve("openai", SCRIPT)
    with client(provider.base_url) as sdk:
        reply = sdk.chat.completions.create(model="gpt-test", messages=USER_TEXT)
    assert reply.choices[0].message.content == SCRIPT["default"]["text"]
    assert reply.choices[0].finish_reason == "stop"
    assert reply.model == "gpt-test"
    assert reply.usage is not None
    assert reply.usage.total_tokens > 0
    (record,) = provider.records
    assert (record.status, record.path, record.mark, record.rule, record.stream) == (
        200,
        "/v1/chat/completions",
        None,
        None,
        False,
    )
    assert record.json["messages"] == USER_TEXT
    assert record.parse().request.history[0].text == "hello"


def test_tool_calls(serve: Serve) -> None:
    provider = serve("openai", SCRIPT)
    with client(provider.base_url) as sdk:
        reply = sdk.chat.completions.create(model="gpt-test", messages=USER_FORK)
    calls = reply.choices[0].message.tool_calls
    assert calls is not None
    assert [c.function.name for c in calls] == ["fork", "fork"]
    assert json.loads(calls[0].function.arguments) == {"directive": "A", "n": [1, 2]}
    assert calls[0].function.arguments == '{"directive":"A","n":[1,2]}'
    assert len({c.id for c in calls}) == 2
    assert reply.choices[0].finish_reason == "tool_calls"
    assert provider.records[0].mark == "parent"
    assert provider.records[0].rule == 0


def test_stream_text_with_usage(serve: Serve) -> None:
    provider = serve("openai", SCRIPT)
    with client(provider.base_url) as sdk:
        chunks = list(
            sdk.chat.completions.create(
                model="gpt-test",
                messages=USER_TEXT,
                stream=True,
                stream_options={"include_usage": True},
            )
        )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == SCRIPT["default"]["text"]
    assert sum(1 for c in chunks if c.choices and c.choices[0].delta.content) > 1
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens > 0
    assert provider.records[0].stream is True


def test_stream_tool_calls(serve: Serve) -> None:
    provider = serve("openai", SCRIPT)
    with client(provider.base_url) as sdk:
        stream = sdk.chat.completions.create(
            model="gpt-test",
            messages=USER_FORK,
            stream=True,
        )
        calls: dict[int, dict[str, str]] = {}
        finish = None
        for chunk in stream:
            assert chunk.usage is None
            choice = chunk.choices[0]
            finish = choice.finish_reason or finish
            for delta in choice.delta.tool_calls or []:
                call = calls.setdefault(delta.index, {"name": "", "arguments": ""})
                assert delta.function is not None
                call["name"] += delta.function.name or ""
                call["arguments"] += delta.function.arguments or ""
    assert finish == "tool_calls"
    assert [c["name"] for c in calls.values()] == ["fork", "fork"]
    assert json.loads(calls[1]["arguments"]) == {"directive": "B"}


def test_raw_stream_ends_with_usage_then_done(serve: Serve) -> None:
    provider = serve("openai", SCRIPT)
    body = {"model": "m", "messages": USER_TEXT, "stream": True}
    status, headers, raw = request(
        provider,
        "POST",
        "/v1/chat/completions",
        orjson.dumps({**body, "stream_options": {"include_usage": True}}),
    )
    assert status == 200
    assert headers["content-type"] == "text/event-stream"
    events = sse_data(raw)
    assert events[-1] == b"[DONE]"
    usage_chunk = orjson.loads(events[-2])
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"]["total_tokens"] > 0
    assert all(orjson.loads(e)["usage"] is None for e in events[:-2])
    _, _, plain = request(provider, "POST", "/v1/chat/completions", orjson.dumps(body))
    assert all("usage" not in orjson.loads(e) for e in sse_data(plain)[:-1])


def test_models(serve: Serve) -> None:
    provider = serve("openai")
    with client(provider.base_url) as sdk:
        assert [m.id for m in sdk.models.list().data] == ["prefix-harness-fake"]
        assert sdk.models.retrieve("gpt-x").id == "gpt-x"
    assert [r.path for r in provider.records] == ["/v1/models", "/v1/models/gpt-x"]
    assert all(r.reply is None for r in provider.records)


def test_key_is_redacted_in_the_record(serve: Serve) -> None:
    provider = serve("openai", SCRIPT)
    with client(provider.base_url) as sdk:
        sdk.chat.completions.create(model="m", messages=USER_TEXT)
    record = provider.records[0]
    assert record.headers["authorization"] == "<redacted>"
    assert record.headers["user-agent"].startswith("OpenAI/Python")
    assert SECRET not in record_text(provider)


def test_errors_are_openai_shaped(serve: Serve) -> None:
    provider = serve("openai")
    status, answer = post_json(provider, "/v1/embeddings", {"input": "hi"})
    assert status == 404
    assert answer["error"]["type"] == "invalid_request_error"
    assert "no route POST /v1/embeddings" in answer["error"]["message"]
    status, answer = post_json(provider, "/v1/chat/completions", ["not", "an", "object"])
    assert status == 400
    assert answer["error"]["message"] == "the request body must be a JSON object"


def test_body_the_dialect_cannot_read_is_answered_and_noted(serve: Serve) -> None:
    provider = serve("openai", {"rules": [{"when": {"first": True}, "reply": {"text": "no"}}]})
    with client(provider.base_url) as sdk:
        reply = sdk.chat.completions.create(model="m", messages="not a list")
    assert reply.choices[0].message.content == "OK."
    assert "the openai dialect could not read the body" in (provider.records[0].note or "")
