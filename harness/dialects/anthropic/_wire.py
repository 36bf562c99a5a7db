"""The capture side of Anthropic messages: ``POST /v1/messages`` (JSON, or the SSE event stream
message_start, content_block_start/delta/stop per thinking, text or tool_use block,
message_delta, message_stop), ``POST /v1/messages/count_tokens`` and ``GET /v1/models``;
errors as ``{"type": "error", "error": {"type", "message"}}``. A reply's thinking is a
``thinking`` block first, with the signature the fake mints (``signature_delta`` last in a
stream)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import orjson

from ...model import thaw
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

__all__ = ["WIRE", "AnthropicWire"]

_ERRORS = {
    400: "invalid_request_error",
    404: "not_found_error",
    405: "invalid_request_error",
    413: "request_too_large",
}


class AnthropicWire(Wire):
    """The fake Anthropic API's routes and answers."""

    dialect = NAME
    environment: ClassVar[Mapping[str, str]] = {
        "ANTHROPIC_BASE_URL": "{base_url}",
        "ANTHROPIC_API_KEY": "{api_key}",
    }

    def route(self, method: str, path: str, query: Mapping[str, str]) -> Route | None:
        if method == "POST" and path == "/v1/messages":
            return Route("generate")
        if method == "POST" and path == "/v1/messages/count_tokens":
            return Route("count_tokens")
        if method == "GET" and path == "/v1/models":
            return Route("models")
        if method == "GET" and path.startswith("/v1/models/"):
            return Route("model", model=path.removeprefix("/v1/models/"))
        return None

    def model_of(self, route: Route, body: Mapping[str, Any]) -> str:
        model = body.get("model")
        return model if isinstance(model, str) and model else FAKE_MODEL

    def message(self, turn: Turn) -> bytes:
        blocks: list[dict[str, Any]] = []
        if turn.reply.thinking is not None:
            signature = self.signature(turn.nth)
            blocks.append(
                {"type": "thinking", "thinking": turn.reply.thinking, "signature": signature}
            )
        if turn.reply.text is not None:
            blocks.append({"type": "text", "text": turn.reply.text})
        for i, call in enumerate(turn.reply.calls):
            tool_use = {"type": "tool_use", "id": self.call_id(turn.nth, i), "name": call.name}
            blocks.append({**tool_use, "input": thaw(call.args)})
        return orjson.dumps(
            {
                **_message(turn),
                "content": blocks,
                "stop_reason": _stop(turn),
                "usage": self.usage(turn),
            }
        )

    def usage(self, turn: Turn) -> dict[str, Any]:
        """``input_tokens`` (the uncached part, with the cache's fields beside it) and
        ``output_tokens``."""
        return _usage(turn, output_tokens(turn.reply))

    def stream(self, turn: Turn, route: Route) -> Stream:
        return Stream("text/event-stream", self._events(turn))

    def _events(self, turn: Turn) -> Iterator[bytes]:
        start = {
            **_message(turn),
            "content": [],
            "stop_reason": None,
            "usage": _usage(turn, 1),
        }
        yield _event({"type": "message_start", "message": start})
        yield _event({"type": "ping"})
        index = 0
        if turn.reply.thinking is not None:
            start_block = {"type": "thinking", "thinking": "", "signature": ""}
            yield _event(
                {"type": "content_block_start", "index": index, "content_block": start_block}
            )
            for piece in pieces(turn.reply.thinking):
                delta = {"type": "thinking_delta", "thinking": piece}
                yield _event({"type": "content_block_delta", "index": index, "delta": delta})
            signed = {"type": "signature_delta", "signature": self.signature(turn.nth)}
            yield _event({"type": "content_block_delta", "index": index, "delta": signed})
            yield _event({"type": "content_block_stop", "index": index})
            index += 1
        if turn.reply.text is not None:
            text_block = {"type": "text", "text": ""}
            yield from _block(index, text_block, "text_delta", "text", turn.reply.text)
            index += 1
        for i, call in enumerate(turn.reply.calls):
            block = {
                "type": "tool_use",
                "id": self.call_id(turn.nth, i),
                "name": call.name,
                "input": {},
            }
            yield from _block(index, block, "input_json_delta", "partial_json", args_json(call))
            index += 1
        yield _event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": _stop(turn), "stop_sequence": None},
                "usage": {"output_tokens": output_tokens(turn.reply)},
            }
        )
        yield _event({"type": "message_stop"})

    def call_id(self, nth: int, index: int) -> str:
        return f"toolu_ph{nth:06d}_{index}"

    def error(self, status: int, message: str) -> bytes:
        kind = _ERRORS.get(status, "api_error")
        return orjson.dumps({"type": "error", "error": {"type": kind, "message": message}})

    def count_tokens(self, tokens: int) -> bytes:
        return orjson.dumps({"input_tokens": tokens})

    def models(self, route: Route) -> bytes:
        if route.kind == "model":
            return orjson.dumps(_model(route.model or FAKE_MODEL))
        listing = {"data": [_model(FAKE_MODEL)], "has_more": False}
        return orjson.dumps({**listing, "first_id": FAKE_MODEL, "last_id": FAKE_MODEL})


def _message(turn: Turn) -> dict[str, Any]:
    return {
        "id": f"msg_ph{turn.nth:06d}",
        "type": "message",
        "role": "assistant",
        "model": turn.model,
        "stop_sequence": None,
    }


def _block(index: int, start: dict[str, Any], kind: str, key: str, text: str) -> Iterator[bytes]:
    yield _event({"type": "content_block_start", "index": index, "content_block": start})
    for piece in pieces(text):
        delta = {"type": kind, key: piece}
        yield _event({"type": "content_block_delta", "index": index, "delta": delta})
    yield _event({"type": "content_block_stop", "index": index})


def _usage(turn: Turn, produced: int) -> dict[str, Any]:
    """The usage of ``turn`` having produced ``produced`` tokens so far (a stream's
    message_start says 1, as Anthropic's does)."""
    return with_fields({"input_tokens": turn.input_tokens, "output_tokens": produced}, turn.cache)


def _event(data: dict[str, Any]) -> bytes:
    return sse(data, event=data["type"])


def _stop(turn: Turn) -> str:
    return "tool_use" if turn.reply.calls else "end_turn"


def _model(name: str) -> dict[str, Any]:
    return {
        "type": "model",
        "id": name,
        "display_name": name,
        "created_at": "2025-01-01T00:00:00Z",
    }


WIRE = AnthropicWire()
