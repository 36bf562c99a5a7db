"""The capture side of OpenAI's Responses API: ``POST /v1/responses`` (a Response object, or with
``"stream": true`` typed SSE events from ``response.created`` to ``response.completed``,
with no ``[DONE]`` line), ``POST /v1/responses/input_tokens`` and ``GET /v1/models``.

The provider is the one of chat completions, so errors, model listings and call ids are
that wire's; only the generate and token-counting routes and their answers differ. Each
Response's id (``resp_ph000001``) names it for a later ``previous_response_id``
(``harness.capture``). A reply's thinking is a ``reasoning`` item first: its text as one
``summary_text`` part, the signature the fake mints as its ``encrypted_content``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from itertools import count
from typing import Any

import orjson

from .._wire import Route, Stream, Turn, args_json, output_tokens, pieces, sse, with_fields
from ..openai import OpenAIWire
from ._facts import NAME

__all__ = ["WIRE", "OpenAIResponsesWire"]

_PREFIXES = ("/v1", "")
_ECHOED: dict[str, Any] = {
    "instructions": None,
    "max_output_tokens": None,
    "metadata": {},
    "parallel_tool_calls": True,
    "previous_response_id": None,
    "prompt_cache_key": None,
    "reasoning": {"effort": None, "summary": None},
    "service_tier": "default",
    "store": True,
    "temperature": 1.0,
    "text": {"format": {"type": "text"}},
    "tool_choice": "auto",
    "tools": [],
    "top_p": 1.0,
    "truncation": "disabled",
    "user": None,
}
"""Request settings a Response carries back, with the value it shows when none was sent."""


class OpenAIResponsesWire(OpenAIWire):
    """The fake OpenAI API's Responses routes and answers (the rest is chat completions')."""

    dialect = NAME

    def route(self, method: str, path: str, query: Mapping[str, str]) -> Route | None:
        for prefix in _PREFIXES:
            if method == "POST" and path == f"{prefix}/responses":
                return Route("generate")
            if method == "POST" and path == f"{prefix}/responses/input_tokens":
                return Route("count_tokens")
        found = super().route(method, path, query)
        return found if found is not None and found.kind in ("models", "model") else None

    def message(self, turn: Turn) -> bytes:
        return orjson.dumps(self._response(turn, done=True))

    def stream(self, turn: Turn, route: Route) -> Stream:
        return Stream("text/event-stream", self._events(turn))

    def usage(self, turn: Turn) -> dict[str, Any]:
        """``input_tokens`` (cached ones included, counted in ``input_tokens_details``),
        ``output_tokens`` and their total."""
        out = output_tokens(turn.reply)
        usage = {
            "input_tokens": turn.input_tokens,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": out,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": turn.input_tokens + out,
        }
        return with_fields(usage, turn.cache)

    def response_id(self, nth: int) -> str:
        return f"resp_ph{nth:06d}"

    def signature(self, nth: int) -> str | None:
        return f"enc_ph{nth:06d}"

    def count_tokens(self, tokens: int) -> bytes:
        return orjson.dumps({"object": "response.input_tokens", "input_tokens": tokens})

    def _response(self, turn: Turn, *, done: bool) -> dict[str, Any]:
        """The Response object: finished (``done``), or as it stands before any output."""
        body = turn.body
        echoed = {k: body[k] if body.get(k) is not None else v for k, v in _ECHOED.items()}
        return {
            "id": self.response_id(turn.nth),
            "object": "response",
            "created_at": turn.created,
            "status": "completed" if done else "in_progress",
            "completed_at": turn.created if done else None,
            "background": False,
            "error": None,
            "incomplete_details": None,
            "model": turn.model,
            "output": self._items(turn) if done else [],
            **echoed,
            "usage": self.usage(turn) if done else None,
        }

    def _items(self, turn: Turn) -> list[dict[str, Any]]:
        """The finished output items: a message when the reply has text, then one
        ``function_call`` item per call (with the ``namespace`` the request declares the
        function in, if any)."""
        reply, nth = turn.reply, turn.nth
        namespaces = _namespaces(turn.body)
        items: list[dict[str, Any]] = []
        if reply.thinking is not None:
            items.append(
                {
                    "type": "reasoning",
                    "id": f"rs_ph{nth:06d}",
                    "summary": [{"type": "summary_text", "text": reply.thinking}],
                    "encrypted_content": self.signature(nth),
                }
            )
        if reply.text is not None:
            content = {"type": "output_text", "text": reply.text, "annotations": []}
            items.append(
                {
                    "type": "message",
                    "id": f"msg_ph{nth:06d}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [content],
                }
            )
        for i, call in enumerate(reply.calls):
            namespace = {"namespace": namespaces[call.name]} if call.name in namespaces else {}
            items.append(
                {
                    "type": "function_call",
                    "id": f"fc_ph{nth:06d}_{i}",
                    "call_id": self.call_id(nth, i),
                    **namespace,
                    "name": call.name,
                    "arguments": args_json(call),
                    "status": "completed",
                }
            )
        return items

    def _events(self, turn: Turn) -> Iterator[bytes]:
        numbers = count()

        def event(kind: str, **fields: Any) -> bytes:
            return sse({"type": kind, "sequence_number": next(numbers), **fields}, event=kind)

        yield event("response.created", response=self._response(turn, done=False))
        yield event("response.in_progress", response=self._response(turn, done=False))
        for index, item in enumerate(self._items(turn)):
            yield event("response.output_item.added", output_index=index, item=_started(item))
            if item["type"] == "message":
                yield from _text_events(event, index, item)
            elif item["type"] == "reasoning":
                yield from _summary_events(event, index, item)
            else:
                yield from _argument_events(event, index, item)
            yield event("response.output_item.done", output_index=index, item=item)
        yield event("response.completed", response=self._response(turn, done=True))


Event = Callable[..., bytes]


def _started(item: dict[str, Any]) -> dict[str, Any]:
    """An output item as ``response.output_item.added`` shows it: nothing generated yet."""
    if item["type"] == "reasoning":
        return {**item, "summary": []}
    empty: dict[str, Any] = {"content": []} if item["type"] == "message" else {"arguments": ""}
    return {**item, **empty, "status": "in_progress"}


def _summary_events(event: Event, index: int, item: dict[str, Any]) -> Iterator[bytes]:
    """A reasoning item's one summary part: added empty, its text in pieces, then done."""
    part = item["summary"][0]
    where = {"item_id": item["id"], "output_index": index, "summary_index": 0}
    yield event("response.reasoning_summary_part.added", **where, part={**part, "text": ""})
    for piece in pieces(part["text"]):
        yield event("response.reasoning_summary_text.delta", **where, delta=piece)
    yield event("response.reasoning_summary_text.done", **where, text=part["text"])
    yield event("response.reasoning_summary_part.done", **where, part=part)


def _text_events(event: Event, index: int, item: dict[str, Any]) -> Iterator[bytes]:
    """A message's one text part: added empty, its text in pieces, then done."""
    part = item["content"][0]
    where = {"item_id": item["id"], "output_index": index, "content_index": 0}
    yield event("response.content_part.added", **where, part={**part, "text": ""})
    for piece in pieces(part["text"]):
        yield event("response.output_text.delta", **where, delta=piece, logprobs=[])
    yield event("response.output_text.done", **where, text=part["text"], logprobs=[])
    yield event("response.content_part.done", **where, part=part)


def _argument_events(event: Event, index: int, item: dict[str, Any]) -> Iterator[bytes]:
    """A call's arguments in pieces, then whole."""
    where = {"item_id": item["id"], "output_index": index}
    for piece in pieces(item["arguments"]):
        yield event("response.function_call_arguments.delta", **where, delta=piece)
    yield event(
        "response.function_call_arguments.done",
        **where,
        name=item["name"],
        arguments=item["arguments"],
    )


def _namespaces(body: Mapping[str, Any]) -> dict[str, str]:
    """The namespace of each function the request declares only inside a ``namespace`` tool
    (``{"type": "namespace", "name": ..., "tools": [...]}``): a call to it names that
    namespace, or the client does not find the function it is meant to run."""
    declared = body.get("tools")
    tools = [t for t in declared if isinstance(t, dict)] if isinstance(declared, list) else []
    top = {t.get("name") for t in tools if t.get("type") == "function"}
    found: dict[str, str] = {}
    for tool in tools:
        if tool.get("type") != "namespace" or not isinstance(tool.get("name"), str):
            continue
        inner = tool.get("tools")
        for function in inner if isinstance(inner, list) else ():
            name = function.get("name") if isinstance(function, dict) else None
            if isinstance(name, str) and name not in top:
                found.setdefault(name, tool["name"])
    return found


WIRE = OpenAIResponsesWire()
