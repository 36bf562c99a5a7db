"""The fake Gemini provider, driven by the official ``google-genai`` SDK over real HTTP on
loopback: generateContent and streamGenerateContent (SSE), text and function calls, records
redacted (the key header and a ``key=`` in the URL)."""

from __future__ import annotations

from typing import Any

import orjson
from google import genai
from google.genai import types

from ...capture.conftest import SECRET, Serve, post_json, record_text, request, sse_data

TEXT = "A scripted answer that is long enough to be streamed in pieces."
SCRIPT: dict[str, Any] = {
    "rules": [
        {
            "when": {"last_user_contains": "fork please"},
            "reply": {
                "call": [
                    {"name": "fork", "args": {"directive": "A"}},
                    {"name": "fork", "args": {"directive": "B", "n": 2}},
                ]
            },
            "mark": "parent",
        }
    ],
    "default": {"text": TEXT},
}


def client(base_url: str) -> genai.Client:
    options = types.HttpOptions(base_url=base_url, timeout=10_000)
    return genai.Client(api_key=SECRET, http_options=options)


def test_text_reply(serve: Serve) -> None:
    provider = serve("gemini", SCRIPT)
    sdk = client(provider.base_url)
    response = sdk.models.generate_content(model="gemini-test", contents="hello")
    assert response.text == TEXT
    assert response.usage_metadata is not None
    assert response.usage_metadata.total_token_count
    (record,) = provider.records
    assert record.path.endswith("/models/gemini-test:generateContent")
    assert (record.model, record.stream, record.status) == ("gemini-test", False, 200)
    assert record.parse().request.history[0].text == "hello"


def test_function_calls(serve: Serve) -> None:
    provider = serve("gemini", SCRIPT)
    sdk = client(provider.base_url)
    response = sdk.models.generate_content(model="gemini-test", contents="fork please")
    calls = response.function_calls
    assert calls is not None
    assert [(c.name, c.args) for c in calls] == [
        ("fork", {"directive": "A"}),
        ("fork", {"directive": "B", "n": 2}),
    ]
    assert provider.records[0].mark == "parent"


def test_stream_text(serve: Serve) -> None:
    provider = serve("gemini", SCRIPT)
    sdk = client(provider.base_url)
    chunks = list(sdk.models.generate_content_stream(model="gemini-test", contents="hello"))
    assert len(chunks) > 1
    assert "".join(c.text or "" for c in chunks) == TEXT
    assert chunks[-1].candidates is not None
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP
    (record,) = provider.records
    assert record.path.endswith(":streamGenerateContent")
    assert record.query == "alt=sse"
    assert record.stream is True


def test_stream_function_calls(serve: Serve) -> None:
    provider = serve("gemini", SCRIPT)
    sdk = client(provider.base_url)
    chunks = sdk.models.generate_content_stream(model="gemini-test", contents="fork please")
    calls = [c for chunk in chunks for c in chunk.function_calls or []]
    assert [c.args for c in calls] == [{"directive": "A"}, {"directive": "B", "n": 2}]


def test_stream_without_sse_is_one_json_array(serve: Serve) -> None:
    provider = serve("gemini", SCRIPT)
    body = orjson.dumps({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
    status, headers, raw = request(provider, "POST", "/v1beta/models/g:streamGenerateContent", body)
    assert status == 200
    assert headers["content-type"] == "application/json"
    responses = orjson.loads(raw)
    text = "".join(r["candidates"][0]["content"]["parts"][0]["text"] for r in responses)
    assert text == TEXT
    assert "usageMetadata" in responses[-1]
    _, headers, raw = request(
        provider, "POST", "/v1beta/models/g:streamGenerateContent?alt=sse", body
    )
    assert headers["content-type"] == "text/event-stream"
    assert len(sse_data(raw)) == len(responses)


def test_count_tokens_and_models(serve: Serve) -> None:
    provider = serve("gemini")
    sdk = client(provider.base_url)
    assert sdk.models.count_tokens(model="g", contents="hello").total_tokens
    assert sdk.models.get(model="gemini-x").name == "models/gemini-x"
    assert [r.reply for r in provider.records] == [None, None]


def test_keys_are_redacted_in_header_and_query(serve: Serve) -> None:
    provider = serve("gemini", SCRIPT)
    sdk = client(provider.base_url)
    sdk.models.generate_content(model="g", contents="hello")
    assert provider.records[0].headers["x-goog-api-key"] == "<redacted>"
    body = orjson.dumps({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
    status, _, _ = request(
        provider, "POST", f"/v1beta/models/g:generateContent?alt=json&key={SECRET}", body
    )
    assert status == 200
    assert provider.records[1].query == "alt=json&key=<redacted>"
    assert SECRET not in record_text(provider)


def test_errors_are_gemini_shaped(serve: Serve) -> None:
    provider = serve("gemini")
    status, answer = post_json(provider, "/v1beta/models/g:embedContent", {})
    assert status == 404
    assert answer["error"] == {
        "code": 404,
        "message": "the fake gemini provider has no route POST /v1beta/models/g:embedContent",
        "status": "NOT_FOUND",
    }
    status, _, raw = request(provider, "POST", "/v1beta/models/g:generateContent", b"[1,")
    assert status == 400
    assert orjson.loads(raw)["error"]["status"] == "INVALID_ARGUMENT"
