"""The capture side of OpenAI chat completions: ``POST /v1/chat/completions`` (JSON or SSE chunks
ending in ``data: [DONE]``, with a usage chunk when ``stream_options.include_usage``) and
``GET /v1/models``; errors as ``{"error": {"message", "type", "param", "code"}}``. A reply's
thinking is the message's ``reasoning_content`` (DeepSeek's form on this wire; no
signature), streamed in ``delta.reasoning_content`` pieces before the text."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import orjson

from .._wire import (
    FAKE_MODEL,
    Route,
    Stream,
    Turn,
    Wire,
    args_json,
    output_tokens,
    pieces,
    sse,
    with_fields,
)
from ._facts import NAME

__all__ = ["WIRE", "OpenAIWire"]

_PREFIXES = ("/v1", "")
_ERRORS = {
    400: ("invalid_request_error", None),
    404: ("invalid_request_error", "unknown_url"),
    405: ("invalid_request_error", "method_not_allowed"),
    413: ("invalid_request_error", "request_too_large"),
}


class OpenAIWire(Wire):
    """The fake OpenAI API's chat completions routes and answers, and what it shares with
    the Responses API (errors, model listings, call ids)."""

    dialect = NAME
    base_path = "/v1"
    environment: ClassVar[Mapping[str, str]] = {
        "OPENAI_BASE_URL": "{base_url}",
        "OPENAI_API_KEY": "{api_key}",
    }

    def route(self, method: str, path: str, query: Mapping[str, str]) -> Route | None:
        for prefix in _PREFIXES:
            if method == "POST" and path == f"{prefix}/chat/completions":
                return Route("generate")
            if method == "GET" and path == f"{prefix}/models":
                return Route("models")
            if method == "GET" and path.startswith(f"{prefix}/models/"):
                return Route("model", model=path.removeprefix(f"{prefix}/models/"))
        return None

    def model_of(self, route: Route, body: Mapping[str, Any]) -> str:
        model = body.get("model")
        return model if isinstance(model, str) and model else FAKE_MODEL

    def message(self, turn: Turn) -> bytes:
        reply = turn.reply
        message: dict[str, Any] = {"role": "assistant", "content": reply.text, "refusal": None}
        if reply.thinking is not None:
            message["reasoning_content"] = reply.thinking
        if reply.calls:
            message["tool_calls"] = [
                {
                    "id": self.call_id(turn.nth, i),
                    "type": "function",
                    "function": {"name": call.name, "arguments": args_json(call)},
                }
                for i, call in enumerate(reply.calls)
            ]
        choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": _finish(turn)}
        return orjson.dumps(
            {**_head(turn, "chat.completion"), "choices": [choice], "usage": self.usage(turn)}
        )

    def stream(self, turn: Turn, route: Route) -> Stream:
        return Stream("text/event-stream", self._events(turn))

    def _events(self, turn: Turn) -> Iterator[bytes]:
        options = turn.body.get("stream_options")
        with_usage = isinstance(options, dict) and options.get("include_usage") is True
        head = _head(turn, "chat.completion.chunk")
        extra: dict[str, Any] = {"usage": None} if with_usage else {}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return sse({**head, "choices": [choice], **extra})

        reply = turn.reply
        yield chunk({"role": "assistant", "content": "" if reply.text is not None else None})
        for piece in pieces(reply.thinking) if reply.thinking else ():
            yield chunk({"reasoning_content": piece})
        if reply.text:
            for piece in pieces(reply.text):
                yield chunk({"content": piece})
        for i, call in enumerate(reply.calls):
            start = {"name": call.name, "arguments": ""}
            yield chunk(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": self.call_id(turn.nth, i),
                            "type": "function",
                            "function": start,
                        }
                    ]
                }
            )
            for piece in pieces(args_json(call)):
                yield chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
        yield chunk({}, _finish(turn))
        if with_usage:
            yield sse({**head, "choices": [], "usage": self.usage(turn)})
        yield sse(b"[DONE]")

    def usage(self, turn: Turn) -> dict[str, Any]:
        """``prompt_tokens`` (cached ones included, counted in ``prompt_tokens_details``),
        ``completion_tokens`` and their total."""
        out = output_tokens(turn.reply)
        usage = {
            "prompt_tokens": turn.input_tokens,
            "completion_tokens": out,
            "total_tokens": turn.input_tokens + out,
        }
        return with_fields(usage, turn.cache)

    def call_id(self, nth: int, index: int) -> str:
        return f"call_ph{nth:06d}_{index}"

    def signature(self, nth: int) -> str | None:
        return None  # reasoning_content carries none

    def error(self, status: int, message: str) -> bytes:
        kind, code = _ERRORS.get(status, ("server_error", None))
        return orjson.dumps(
            {"error": {"message": message, "type": kind, "param": None, "code": code}}
        )

    def models(self, route: Route) -> bytes:
        if route.kind == "model":
            return orjson.dumps(_model(route.model or FAKE_MODEL))
        return orjson.dumps({"object": "list", "data": [_model(FAKE_MODEL)]})


def _head(turn: Turn, kind: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-ph{turn.nth:06d}",
        "object": kind,
        "created": turn.created,
        "model": turn.model,
        "system_fingerprint": None,
    }


def _finish(turn: Turn) -> str:
    return "tool_calls" if turn.reply.calls else "stop"


def _model(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "prefix-harness"}


WIRE = OpenAIWire()
