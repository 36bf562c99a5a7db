"""The neutral model rendered as a Responses body: model, instructions, input, tools,
choice, text, reasoning, sampling, then the fields kept in ``Settings.extra``.

A message renders from its source (the items it was read from, breakpoints included) while
its role and parts are those they were read as, else from its parts: a model message as
reasoning items, one assistant message per run of content parts and call items in part
order; a user message as its tool outputs (and other items) first, then one user message.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from ...model import (
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Message,
    Opaque,
    Part,
    Request,
    Thinking,
    dumps,
    thaw,
)
from .._openai_reading import absorb_system
from ._facts import NAME
from ._parts import is_content, render_part
from ._read import OUTPUT_TYPES, SYSTEM_KEPT, render_system
from ._settings import (
    CHOICE_KEPT,
    OWN_FIELDS,
    render_reasoning,
    render_sampling,
    render_text,
    render_tool_choice,
)
from ._tools import TOOL_EXTRAS, render_tool

__all__ = ["render"]


def render(request: Request) -> bytes:
    """The compact body an implementation would POST for ``request``."""
    preset, settings = request.preset, request.preset.settings
    system, rest = absorb_system(preset.system, request.history)
    own = settings.extra.get(NAME)
    extra: Mapping[str, Any] = own if isinstance(own, dict) else {}
    body: dict[str, Any] = {} if settings.model is None else {"model": settings.model}
    instructions, leading = _kept_system(extra.get(SYSTEM_KEPT), system)
    if instructions is not None:
        body["instructions"] = instructions
    body["input"] = [*leading, *(item for m in rest for item in _render_message(m))]
    if preset.tools:
        body["tools"] = [render_tool(t, extra.get(TOOL_EXTRAS)) for t in preset.tools]
    choice = render_tool_choice(settings.tool_choice, extra.get(CHOICE_KEPT))
    if choice is not None:
        body["tool_choice"] = choice
    text = render_text(settings.output_schema, extra.get("text"))
    if text:
        body["text"] = text
    reasoning = render_reasoning(settings.thinking, extra.get("reasoning"))
    if reasoning:
        body["reasoning"] = reasoning
    body.update(render_sampling(settings))
    for key, value in extra.items():
        if key not in OWN_FIELDS and key not in (SYSTEM_KEPT, TOOL_EXTRAS, CHOICE_KEPT):
            body.setdefault(key, value)
    return dumps(body)


def _kept_system(kept: Any, system: list[str]) -> tuple[str | None, list[Any]]:
    """The system as sent while the blocks it was read as are still these, else the plain
    form."""
    if isinstance(kept, dict) and kept.get("system") == tuple(system):
        instructions = kept.get("instructions")
        return instructions if isinstance(instructions, str) else None, list(
            kept.get("items") or ()
        )
    return render_system(system)


def _render_message(message: Message) -> tuple[Any, ...]:
    """The items of one neutral message: those it was read from while it is what they were
    read as (``Message.kept``), else from its parts."""
    kept = message.kept(NAME)
    if kept is not None:
        return tuple(orjson.Fragment(item) for item in kept)
    if message.role == "model":
        return tuple(_render_model(message))
    if message.role == "system":
        content = [render_part(p, "user") for p in message.parts if is_content(p)]
        return ({"type": "message", "role": "developer", "content": content},)
    return tuple(_render_user(message))


def _render_user(message: Message) -> Iterator[dict[str, Any]]:
    """Tool outputs (and other items) first, then the rest as one user message."""
    items = [p for p in message.parts if not is_content(p)]
    for part in items:
        if isinstance(part, FunctionResponse):
            yield _render_output(part)
        elif isinstance(part, Opaque):
            yield thaw(part.value)
    rest = [p for p in message.parts if is_content(p)]
    if rest or not items:
        yield {
            "type": "message",
            "role": "user",
            "content": [render_part(p, "user") for p in rest],
        }


def _render_output(response: FunctionResponse) -> dict[str, Any]:
    own = FrozenDict() if response.extra is None else response.extra.of(NAME)
    custom = own.get("type") == "custom"
    out: dict[str, Any] = {"type": OUTPUT_TYPES[1] if custom else OUTPUT_TYPES[0]}
    if response.id is not None:
        out["call_id"] = response.id
    value = response.response
    if isinstance(value, str):
        out["output"] = value
    elif isinstance(value, tuple) and all(
        isinstance(p, FrozenDict) and isinstance(p.get("type"), str) for p in value
    ):
        out["output"] = thaw(value)
    else:
        out["output"] = dumps(value).decode()
    return out


def _render_model(message: Message) -> Iterator[Mapping[str, Any]]:
    """In part order: reasoning items, one assistant message per run of content parts,
    call items, and this dialect's own items as sent."""
    run: list[Part] = []
    for part in message.parts:
        if is_content(part):
            run.append(part)
            continue
        if run:
            yield _assistant(run)
            run = []
        if isinstance(part, Thinking):
            yield _render_reasoning_item(part)
        elif isinstance(part, FunctionCall):
            yield _render_call(part)
        elif isinstance(part, Opaque):
            yield thaw(part.value)
    if run:
        yield _assistant(run)


def _assistant(parts: list[Part]) -> dict[str, Any]:
    content = [render_part(p, "model") for p in parts]
    return {"type": "message", "role": "assistant", "content": content}


def _render_reasoning_item(part: Thinking) -> dict[str, Any]:
    summary = (
        [] if part.redacted or not part.text else [{"type": "summary_text", "text": part.text}]
    )
    out: dict[str, Any] = {"type": "reasoning", "summary": summary}
    encrypted = (
        part.signature if part.signature is not None else (part.text if part.redacted else None)
    )
    if encrypted is not None:
        out["encrypted_content"] = encrypted
    return out


def _render_call(call: FunctionCall) -> dict[str, Any]:
    args = call.args if isinstance(call.args, str) else dumps(call.args).decode()
    own = FrozenDict() if call.extra is None else call.extra.of(NAME)
    custom = own.get("type") == "custom"
    out: dict[str, Any] = {"type": "custom_tool_call" if custom else "function_call"}
    if call.id is not None:
        out["call_id"] = call.id
    out["name"] = call.name
    namespace = own.get("namespace")
    if isinstance(namespace, str):
        out["namespace"] = namespace
    out["input" if custom else "arguments"] = args
    return out
