"""The capture side of a dialect: its provider's URLs and response shapes, and the helpers
the wires share.

A wire knows one provider's URLs and answers: which requests are model calls, how a neutral
``Reply`` looks as that provider's JSON answer, SSE stream or error body, and which
environment variables point the provider's SDKs at a fake of it. The fake provider
(``harness.capture``) knows none of that; it asks the wires of the registered dialects.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import orjson

from ..model import Message, thaw
from ._reply import Reply, ToolCall

__all__ = [
    "FAKE_MODEL",
    "Route",
    "Stream",
    "Turn",
    "Wire",
    "args_json",
    "output_tokens",
    "pieces",
    "sse",
    "with_fields",
]

FAKE_MODEL = "prefix-harness-fake"
"""The model name the fake provider lists and answers with when a request names none."""

RouteKind = Literal["generate", "count_tokens", "models", "model"]


@dataclass(frozen=True, slots=True)
class Route:
    """What a URL asks for. ``stream`` is ``None`` when the body says (``"stream": true``)."""

    kind: RouteKind
    model: str | None = None
    stream: bool | None = None
    sse: bool = True
    """For a stream: server-sent events; ``False``: one JSON array (gemini without alt=sse)."""


@dataclass(frozen=True, slots=True)
class Turn:
    """One scripted answer to render: the reply, the model name, the request's number
    (``nth``, for unique ids), the request's input tokens and its decoded body.

    ``cache`` is the request's predicted cache usage in the provider's own usage fields
    (``Dialect.usage_fields``: dotted names for nested ones), laid over the answer's usage
    (``with_fields``); empty when the request could not be priced, and the answer reports
    ``input_tokens`` alone, as uncached."""

    reply: Reply
    model: str
    nth: int
    input_tokens: int
    body: Mapping[str, Any]
    created: int = 0
    cache: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def now(
        cls,
        reply: Reply,
        model: str,
        nth: int,
        input_tokens: int,
        body: Mapping[str, Any],
        cache: Mapping[str, int] | None = None,
    ) -> Turn:
        return cls(reply, model, nth, input_tokens, body, int(time.time()), dict(cache or {}))


@dataclass(frozen=True, slots=True)
class Stream:
    """A streamed answer: its content type and the chunks to send, in order."""

    content_type: str
    chunks: Iterator[bytes]


class Wire(ABC):
    """One provider's wire protocol, for the dialect of the same name."""

    dialect: ClassVar[str]
    base_path: ClassVar[str] = ""
    """What the provider's SDKs add to the origin as their base URL (openai: ``/v1``)."""
    environment: ClassVar[Mapping[str, str]] = {}
    """The environment variables that point the provider's SDKs at a fake of it, each
    value a template: ``{base_url}`` is the fake's origin followed by ``base_path``,
    ``{api_key}`` a dummy key (``Wire.sdk_environment``)."""

    def sdk_environment(self, origin: str, api_key: str) -> dict[str, str]:
        """``environment`` for a fake provider at ``origin`` (``http://127.0.0.1:PORT``)."""
        base_url = origin + self.base_path
        return {
            name: value.format(base_url=base_url, api_key=api_key)
            for name, value in self.environment.items()
        }

    @abstractmethod
    def route(self, method: str, path: str, query: Mapping[str, str]) -> Route | None:
        """The route of a request, or ``None`` when this provider has no such URL."""

    @abstractmethod
    def model_of(self, route: Route, body: Mapping[str, Any]) -> str:
        """The model the request names (URL or body), else ``FAKE_MODEL``."""

    def is_stream(self, route: Route, body: Mapping[str, Any]) -> bool:
        return route.stream if route.stream is not None else body.get("stream") is True

    @abstractmethod
    def message(self, turn: Turn) -> bytes:
        """The non-streamed JSON answer."""

    @abstractmethod
    def stream(self, turn: Turn, route: Route) -> Stream:
        """The streamed answer."""

    def usage(self, turn: Turn) -> dict[str, Any] | None:
        """The usage object of the whole answer as the provider reports it (Anthropic's and
        OpenAI's ``usage``, Gemini's ``usageMetadata``): the input tokens with
        ``turn.cache`` laid over them, and the reply's output tokens; the fake provider
        records it beside the request. ``None`` for a wire whose answers carry none."""
        return None

    @abstractmethod
    def error(self, status: int, message: str) -> bytes:
        """The provider's error body for ``status``."""

    def call_id(self, nth: int, index: int) -> str | None:
        """The id the fake gives call ``index`` of its answer to request ``nth`` (``None``
        where the provider's calls carry no id); grouping rebuilds recorded model turns
        with it (``reply_message``)."""
        return None

    def signature(self, nth: int) -> str | None:
        """The signature of the thinking in the fake's answer to request ``nth`` (``None``
        where the provider signs none: DeepSeek's ``reasoning_content``)."""
        return f"sig_ph{nth:06d}"

    def played(self, reply: Reply, nth: int) -> Message:
        """The model message the fake played for request ``nth``, as an agent that keeps
        it whole sends it back: its thinking with the signature, its text, its calls with
        the ids the fake gave them."""
        ids = [self.call_id(nth, i) for i in range(len(reply.calls))]
        return reply.message(ids, self.signature(nth))

    def response_id(self, nth: int) -> str | None:
        """The id of the fake's answer to request ``nth`` where the provider stores answers
        for a later request to continue (OpenAI Responses); ``None`` elsewhere."""
        return None

    def count_tokens(self, tokens: int) -> bytes:
        """The answer to a token-counting request (only where ``route`` gives that kind)."""
        raise NotImplementedError(f"{self.dialect} has no token-counting route")

    @abstractmethod
    def models(self, route: Route) -> bytes:
        """The answer to listing models (``route.kind == "models"``) or getting one."""


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event: an optional ``event:`` line, a ``data:`` line, a blank line."""
    head = b"" if event is None else b"event: " + event.encode() + b"\n"
    payload = data if isinstance(data, bytes) else orjson.dumps(data)
    return head + b"data: " + payload + b"\n\n"


def pieces(text: str, size: int = 16) -> list[str]:
    """``text`` cut into pieces of ``size`` characters, so clients must join deltas; an
    empty text is one empty piece."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def args_json(call: ToolCall) -> str:
    """A call's arguments as compact JSON text, key order kept."""
    return orjson.dumps(thaw(call.args)).decode()


def output_tokens(reply: Reply) -> int:
    """A rough token count of a reply (4 characters a token), at least 1."""
    size = len(reply.text or "") + len(reply.thinking or "")
    size += sum(len(c.name) + len(args_json(c)) for c in reply.calls)
    return max(1, size // 4)


def with_fields(
    usage: Mapping[str, Any], fields: Mapping[str, int], *, root: str = ""
) -> dict[str, Any]:
    """``usage`` with ``fields`` set in it: a dotted name sets a nested object's field
    (created when missing), a leading ``root.`` is dropped (Gemini's fields name their
    ``usageMetadata``). ``usage`` is not changed."""
    out: dict[str, Any] = dict(usage)
    for name, value in fields.items():
        path = name.removeprefix(root + ".").split(".") if root else name.split(".")
        target = out
        for key in path[:-1]:
            inner = target.get(key)
            target[key] = inner = dict(inner) if isinstance(inner, Mapping) else {}
            target = inner
        target[path[-1]] = value
    return out
