"""The exchange: routing, refusals and recording, without HTTP in the way."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from harness.capture import Matcher, RecordWriter, parse_script
from harness.capture._exchange import Exchange, Incoming
from harness.dialects import providers, wires

OPENAI_BODY = orjson.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})


def exchange(dialect: str = "openai", script: Any = None, limit: int = 1000) -> Exchange:
    wires = providers()[dialect]
    return Exchange(wires, Matcher(parse_script(script or {})), RecordWriter(), limit)


def incoming(
    body: bytes | None = OPENAI_BODY,
    path: str = "/v1/chat/completions",
    method: str = "POST",
    query: str = "",
) -> Incoming:
    size = 5000 if body is None else len(body)
    headers = (("Authorization", "Bearer sk-secret"), ("Content-Type", "application/json"))
    return Incoming(method, path, query, headers, body, size, 0.0)


def test_answered_request_is_recorded_with_its_rule() -> None:
    ex = exchange(script={"rules": [{"reply": {"text": "yo"}, "mark": "m1"}]})
    out = ex.respond(incoming())
    assert (out.status, out.content_type) == (200, "application/json")
    assert orjson.loads(out.body)["choices"][0]["message"]["content"] == "yo"
    (record,) = ex.writer.records
    assert (record.mark, record.rule, record.nth, record.status) == ("m1", 0, 1, 200)
    assert record.headers["authorization"] == "<redacted>"
    assert record.body == OPENAI_BODY
    assert record.json == orjson.loads(OPENAI_BODY)


def test_streamed_answer_has_chunks() -> None:
    body = orjson.dumps({**orjson.loads(OPENAI_BODY), "stream": True})
    out = exchange().respond(incoming(body))
    assert out.chunks is not None
    assert out.content_type == "text/event-stream"
    assert b"".join(out.chunks).endswith(b"data: [DONE]\n\n")


@pytest.mark.parametrize(
    ("request_", "status", "error"),
    [
        (incoming(None), 413, "request body of 5,000 bytes is over the fake provider's limit"),
        (incoming(b"{oops"), 400, "the request body is not valid JSON"),
        (incoming(b""), 400, "the request body is not valid JSON"),
        (incoming(b"[]"), 400, "the request body must be a JSON object"),
        (incoming(path="/v1/embeddings"), 404, "has no route POST /v1/embeddings"),
        (incoming(method="GET"), 404, "has no route GET /v1/chat/completions"),
    ],
)
def test_refusals_are_recorded(request_: Incoming, status: int, error: str) -> None:
    ex = exchange()
    out = ex.respond(request_)
    assert out.status == status
    assert error in orjson.loads(out.body)["error"]["message"]
    (record,) = ex.writer.records
    assert record.status == status
    assert error in (record.error or "")
    assert record.reply is None
    assert record.body == request_.body


def test_a_bug_is_a_recorded_500(monkeypatch: pytest.MonkeyPatch) -> None:
    ex = exchange()

    def broken(*args: object) -> bytes:
        raise KeyError("boom")

    monkeypatch.setattr(wires()["openai"], "message", broken)
    out = ex.respond(incoming())
    assert out.status == 500
    assert "KeyError" in orjson.loads(out.body)["error"]["message"]
    assert [r.status for r in ex.writer.records] == [200, 500]


def test_body_nested_too_deep_for_json_is_refused() -> None:
    deep = (
        b'{"messages": [{"role": "user", "content": "x"}], "x": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    )
    ex = exchange(limit=100_000)
    out = ex.respond(incoming(deep))
    assert out.status == 400
    assert [r.status for r in ex.writer.records] == [400]


RESPONSES_BODY = orjson.dumps({"model": "m", "input": "hi"})


def test_each_request_is_recorded_under_the_wire_that_served_it() -> None:
    ex = exchange("openai", {"default": {"text": "yo"}})
    chat = ex.respond(incoming())
    responses = ex.respond(incoming(RESPONSES_BODY, "/v1/responses"))
    counted = ex.respond(incoming(RESPONSES_BODY, "/v1/responses/input_tokens"))
    unknown = ex.respond(incoming(path="/v1/embeddings"))
    assert orjson.loads(chat.body)["object"] == "chat.completion"
    assert orjson.loads(responses.body)["object"] == "response"
    assert orjson.loads(counted.body)["object"] == "response.input_tokens"
    assert unknown.status == 404
    assert "the fake openai provider has no route" in orjson.loads(unknown.body)["error"]["message"]
    assert [(r.dialect, r.status, r.nth) for r in ex.writer.records] == [
        ("openai", 200, 1),
        ("openai-responses", 200, 2),
        ("openai-responses", 200, None),
        ("openai", 404, None),
    ]


def test_the_responses_fake_serves_chat_completions_too() -> None:
    ex = exchange("openai-responses")
    assert ex.provider == "openai-responses"
    assert ex.respond(incoming()).status == 200
    assert ex.respond(incoming(RESPONSES_BODY, "/responses")).status == 200
    ex.respond(incoming(method="GET", path="/v1/models"))
    ex.respond(incoming(path="/v1/embeddings"))
    assert [r.dialect for r in ex.writer.records] == [
        "openai",
        "openai-responses",
        "openai-responses",
        "openai-responses",
    ]


def test_a_refusal_on_a_route_takes_that_wires_dialect() -> None:
    ex = exchange("openai")
    assert ex.respond(incoming(None, "/v1/responses")).status == 413
    assert ex.respond(incoming(b"{oops", "/v1/responses")).status == 400
    assert [r.dialect for r in ex.writer.records] == ["openai-responses"] * 2


def test_a_dialect_that_is_not_installed_is_a_note_and_still_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(wires()["openai"], "dialect", "openai-not-installed")
    ex = exchange("openai", {"rules": [{"when": {"nth_request": 1}, "reply": {"text": "yo"}}]})
    out = ex.respond(incoming())
    assert orjson.loads(out.body)["choices"][0]["message"]["content"] == "yo"
    (record,) = ex.writer.records
    assert record.note is not None
    assert record.note.startswith("no openai-not-installed dialect is installed to read the body")


def test_an_exchange_needs_a_wire() -> None:
    with pytest.raises(ValueError, match="at least one wire"):
        Exchange((), Matcher(parse_script({})), RecordWriter(), 10)
