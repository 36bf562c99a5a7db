"""The neutral model rendered as a chat completions body: model, messages, tools, choice,
format, sampling, then the fields kept in ``Settings.extra``.

A message renders from its source (the body messages it was read from) while its role and
parts are those they were read as, else from its parts: a user message with function
responses becomes one tool message per response and the rest as a user message; a model
message an assistant message (content null when there is no text).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from ...model import (
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Image,
    Message,
    Opaque,
    Request,
    Text,
    Thinking,
    dumps,
)
from .._openai_reading import absorb_system
from ._facts import NAME
from ._parts import render_content
from ._read import SYSTEM_KEPT
from ._settings import OWN_FIELDS, render_output_schema, render_sampling, render_tool_choice
from ._tools import TOOL_EXTRAS, render_tool

__all__ = ["render"]


def render(request: Request) -> bytes:
    """The compact body an implementation would POST for ``request``."""
    preset, settings = request.preset, request.preset.settings
    system, rest = absorb_system(preset.system, request.history)
    own = settings.extra.get(NAME)
    extra: Mapping[str, Any] = own if isinstance(own, dict) else {}
    body: dict[str, Any] = {} if settings.model is None else {"model": settings.model}
    kept = extra.get(SYSTEM_KEPT)
    if isinstance(kept, dict) and kept.get("system") == tuple(system):
        body["messages"] = list(kept.get("messages") or ())
    else:
        body["messages"] = [{"role": "system", "content": block} for block in system]
    for message in rest:
        body["messages"].extend(_render_message(message))
    if preset.tools:
        body["tools"] = [render_tool(t, extra.get(TOOL_EXTRAS)) for t in preset.tools]
    if settings.tool_choice is not None:
        body["tool_choice"] = render_tool_choice(settings.tool_choice)
    if settings.output_schema is not None:
        body["response_format"] = render_output_schema(settings.output_schema)
    body.update(render_sampling(settings))
    for key, value in extra.items():
        if key not in OWN_FIELDS and key != SYSTEM_KEPT:
            body.setdefault(key, value)
    return dumps(body)


def _render_message(message: Message) -> tuple[Any, ...]:
    """The body messages of one neutral message: those it was read from while it is what
    they were read as (``Message.kept``), else from its parts."""
    kept = message.kept(NAME)
    if kept is not None:
        return tuple(orjson.Fragment(item) for item in kept)
    if message.role == "model":
        return (_render_assistant(message),)
    if message.role == "system":
        return ({"role": "system", "content": render_content(message.parts)},)
    return tuple(_render_user(message))


def _render_user(message: Message) -> Iterator[dict[str, Any]]:
    """One tool message per function response, then the rest as a user message."""
    responses = message.function_responses
    for response in responses:
        tool: dict[str, Any] = {"role": "tool"}
        if response.id is not None:
            tool["tool_call_id"] = response.id
        value = response.response
        tool["content"] = value if isinstance(value, str) else dumps(value).decode()
        yield tool
    rest = [p for p in message.parts if not isinstance(p, FunctionCall | FunctionResponse)]
    if rest or not responses:
        yield {"role": "user", "content": render_content(rest)}


def _render_assistant(message: Message) -> dict[str, Any]:
    """Content (null when there is no text), reasoning_content, tool_calls."""
    texts = [p for p in message.parts if isinstance(p, Text | Image | Opaque)]
    body: dict[str, Any] = {
        "role": "assistant",
        "content": render_content(texts) if texts else None,
    }
    thinking = [p.text for p in message.parts if isinstance(p, Thinking) and not p.redacted]
    if thinking:
        body["reasoning_content"] = "".join(thinking)
    if message.function_calls:
        body["tool_calls"] = [_render_call(c) for c in message.function_calls]
    return body


def _render_call(call: FunctionCall) -> dict[str, Any]:
    """A ``tool_calls`` entry; non-string arguments are encoded compactly."""
    args = call.args if isinstance(call.args, str) else dumps(call.args).decode()
    out: dict[str, Any] = {} if call.id is None else {"id": call.id}
    own = FrozenDict() if call.extra is None else call.extra.of(NAME)
    if own.get("type") == "custom":
        out.update(type="custom", custom={"name": call.name, "input": args})
        return out
    out.update(type="function", function={"name": call.name, "arguments": args})
    return out
