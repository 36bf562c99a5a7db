"""The capture side of Gemini generateContent: ``POST /v1beta/models/{model}:generateContent``,
``:streamGenerateContent`` (SSE with ``alt=sse``, else one JSON array of responses),
``:countTokens`` and ``GET /v1beta/models``; errors as ``{"error": {"code", "message",
"status"}}``. ``/v1`` and ``/v1alpha`` are served the same way. A reply's thinking is a
thought part first (``"thought": true``), its ``thoughtSignature`` on the first call after it
(or on the text when the reply makes none)."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import orjson

from ...model import Message, thaw
from .._reply import Reply
from .._wire import (
    FAKE_MODEL,
    Route,
    Stream,
    Turn,
    Wire,
    output_tokens,
    pieces,
    sse,
    with_fields,
)
from ._facts import NAME

__all__ = ["WIRE", "GeminiWire"]

_ACTION = re.compile(r"/(?:v1beta|v1alpha|v1)/models/(?P<model>[^/:]+):(?P<action>\w+)")
_MODELS = re.compile(r"/(?:v1beta|v1alpha|v1)/models(?:/(?P<model>[^/:]+))?")
_STATUS = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 413: "INVALID_ARGUMENT"}


class GeminiWire(Wire):
    """The fake Gemini API's routes and answers (the Google Gen AI SDKs, not Vertex AI)."""

    dialect = NAME
    environment: ClassVar[Mapping[str, str]] = {
        "GOOGLE_GEMINI_BASE_URL": "{base_url}",
        "GEMINI_API_KEY": "{api_key}",
        "GOOGLE_API_KEY": "{api_key}",
        "GOOGLE_GENAI_USE_VERTEXAI": "false",
    }

    def route(self, method: str, path: str, query: Mapping[str, str]) -> Route | None:
        action = _ACTION.fullmatch(path)
        if method == "POST" and action is not None:
            model = action["model"]
            if action["action"] == "generateContent":
                return Route("generate", model=model, stream=False)
            if action["action"] == "streamGenerateContent":
                return Route("generate", model=model, stream=True, sse=query.get("alt") == "sse")
            if action["action"] == "countTokens":
                return Route("count_tokens", model=model)
            return None
        listing = _MODELS.fullmatch(path)
        if method == "GET" and listing is not None:
            if listing["model"] is None:
                return Route("models")
            return Route("model", model=listing["model"])
        return None

    def model_of(self, route: Route, body: Mapping[str, Any]) -> str:
        return route.model or FAKE_MODEL

    def message(self, turn: Turn) -> bytes:
        texts = [] if turn.reply.text is None else [turn.reply.text]
        return orjson.dumps(_response(turn, self._parts(turn, texts), self.usage(turn)))

    def _parts(self, turn: Turn, texts: list[str]) -> list[dict[str, Any]]:
        """The answer's parts: a thought part for its thinking, the text (in ``texts``
        pieces), then the calls; the thinking's ``thoughtSignature`` on the first call, else
        on the first text part (where Gemini attaches it)."""
        reply = turn.reply
        parts: list[dict[str, Any]] = []
        if reply.thinking is not None:
            parts.append({"text": reply.thinking, "thought": True})
        after = len(parts)
        parts.extend({"text": piece} for piece in texts)
        calls = [_call_part(call.name, thaw(call.args)) for call in reply.calls]
        if calls:
            after = len(parts)
        parts.extend(calls)
        if reply.thinking is not None and after < len(parts):
            parts[after]["thoughtSignature"] = self.signature(turn.nth)
        return parts

    def signature(self, nth: int) -> str | None:
        """Base64, as Gemini's ``thoughtSignature`` is (the SDKs decode it to bytes)."""
        return base64.b64encode(f"sig_ph{nth:06d}".encode()).decode()

    def played(self, reply: Reply, nth: int) -> Message:
        ids = [self.call_id(nth, i) for i in range(len(reply.calls))]
        return reply.message(ids, self.signature(nth), signed_call=True)

    def stream(self, turn: Turn, route: Route) -> Stream:
        responses = self._responses(turn)
        if route.sse:
            return Stream("text/event-stream", (sse(r) for r in responses))
        return Stream("application/json", _array(orjson.dumps(r) for r in responses))

    def _responses(self, turn: Turn) -> Iterator[dict[str, Any]]:
        texts = [] if turn.reply.text is None else pieces(turn.reply.text)
        parts = self._parts(turn, texts)
        for i, part in enumerate(parts):
            final = i == len(parts) - 1
            yield _response(turn, [part], self.usage(turn) if final else None)

    def usage(self, turn: Turn) -> dict[str, Any]:
        """``usageMetadata``: ``promptTokenCount`` (cached ones included, counted in
        ``cachedContentTokenCount``), ``candidatesTokenCount`` and their total."""
        produced = output_tokens(turn.reply)
        usage = {
            "promptTokenCount": turn.input_tokens,
            "candidatesTokenCount": produced,
            "totalTokenCount": turn.input_tokens + produced,
        }
        return with_fields(usage, turn.cache, root="usageMetadata")

    def error(self, status: int, message: str) -> bytes:
        code = _STATUS.get(status, "INTERNAL")
        return orjson.dumps({"error": {"code": status, "message": message, "status": code}})

    def count_tokens(self, tokens: int) -> bytes:
        return orjson.dumps({"totalTokens": tokens})

    def models(self, route: Route) -> bytes:
        if route.kind == "model":
            return orjson.dumps(_model(route.model or FAKE_MODEL))
        return orjson.dumps({"models": [_model(FAKE_MODEL)]})


def _call_part(name: str, args: Any) -> dict[str, Any]:
    return {"functionCall": {"name": name, "args": args}}


def _response(
    turn: Turn, parts: list[dict[str, Any]], usage: dict[str, Any] | None
) -> dict[str, Any]:
    """One response (a stream's chunk); the final one has a finish reason and ``usage``."""
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    out: dict[str, Any] = {"candidates": [candidate]}
    if usage is not None:
        candidate["finishReason"] = "STOP"
        out["usageMetadata"] = usage
    out["modelVersion"] = turn.model
    out["responseId"] = f"ph{turn.nth:06d}"
    return out


def _array(items: Iterator[bytes]) -> Iterator[bytes]:
    yield b"["
    for i, item in enumerate(items):
        yield item if i == 0 else b",\r\n" + item
    yield b"]"


def _model(name: str) -> dict[str, Any]:
    return {
        "name": f"models/{name}",
        "displayName": name,
        "supportedGenerationMethods": ["generateContent", "streamGenerateContent", "countTokens"],
    }


WIRE = GeminiWire()
