"""A chat completions body read into the neutral model.

- the leading run of system/developer messages is the preset's system, one block per text
  (kept as sent in ``Settings.extra["openai"]["system_messages"]`` when they would render
  back otherwise: a developer role, content parts, a name); a later system/developer
  message is a neutral ``system`` message;
- assistant -> ``model``: ``reasoning_content`` -> Thinking, content -> Text, ``tool_calls``
  -> FunctionCall (arguments decoded when they hold a JSON object, array or scalar); a
  ``custom`` call is a FunctionCall whose ``Extra`` says it is custom;
- tool messages and the user message right after them form one neutral user message;
  ``function`` (legacy) messages are FunctionResponses without an id, an assistant's legacy
  ``function_call`` a FunctionCall without one;
- each neutral message keeps the body messages it was read from as its ``Message.source``,
  so that fields the parts do not say (``name``, ``refusal``, ``audio``, a content array)
  render back verbatim while its parts are those it was read as.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from ...model import (
    Extra,
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Json,
    Message,
    Part,
    Preset,
    Request,
    Role,
    Thinking,
    dumps,
    freeze,
    join_path,
)
from .._base import DialectError
from .._openai_reading import arguments, field, obj, show, string
from ._facts import NAME, SYSTEM_ROLES
from ._parts import content_parts, texts
from ._prefix import checked_role, envelope
from ._settings import read_settings
from ._tools import read_tools

__all__ = ["SYSTEM_KEPT", "history", "read_request"]

SYSTEM_KEPT: Final = "system_messages"
"""Reserved ``extra`` key: the leading system/developer messages as sent (``"messages"``),
when they would render back otherwise (a developer role, content parts, a name), with the
system blocks they were read as (``"system"``): render sends them while the preset's system
is still those blocks."""


def read_request(body: Mapping[str, Any]) -> Request:
    """The body in the neutral model; ``DialectError`` names the path of a bad part."""
    messages = envelope(body)
    system, found = history(messages)
    tools, tool_extras = read_tools(body.get("tools") or ())
    settings = read_settings(body, tool_extras)
    leading = messages[: _leading_count(messages)]
    plain = [{"role": "system", "content": b} for b in system]
    if leading and dumps(plain) != dumps(leading):
        own = dict(settings.extra.get(NAME, FrozenDict()))
        own[SYSTEM_KEPT] = FrozenDict({"system": system, "messages": freeze(leading)})
        settings = replace(settings, extra=FrozenDict({NAME: FrozenDict(own)}))
    preset = Preset(system=system, tools=tools, settings=settings)
    return Request(preset=preset, history=found)


def _leading_count(messages: list[Any]) -> int:
    """How many leading messages are system/developer messages of text only (the system)."""
    k = 0
    while k < len(messages) and _is_system_text(messages[k]):
        k += 1
    return k


def _is_system_text(message: Any) -> bool:
    if not isinstance(message, dict) or message.get("role") not in SYSTEM_ROLES:
        return False
    content = message.get("content")
    return isinstance(content, str) or (
        isinstance(content, list)
        and all(isinstance(p, dict) and p.get("type") == "text" for p in content)
    )


def history(messages: list[Any]) -> tuple[tuple[str, ...], tuple[Message, ...]]:
    """The system blocks (leading system/developer messages of text) and the neutral
    history, each message with the body messages it was read from as its source."""
    system: list[str] = []
    out: list[Message] = []
    pending: list[Part] = []
    run: list[Any] = []  # the body messages of the neutral message being built
    names: dict[str, str] = {}  # call id -> function name, for the tool messages
    start = _leading_count(messages)

    def done(role: Role, parts: tuple[Part, ...]) -> None:
        out.append(Message.read(NAME, run, role, parts))
        run.clear()

    for k, message in enumerate(messages):
        role = checked_role(message, k)
        path, content = f"messages[{k}]", message.get("content")
        if k < start:
            system.extend(texts(content, f"{path}.content"))
            continue
        if role in ("tool", "function"):
            run.append(message)
            pending.append(_function_response(message, path, names))
            continue
        if role != "user" and pending:
            done("user", tuple(pending))
            pending = []
        run.append(message)
        if role == "user":
            done("user", (*pending, *content_parts(content, f"{path}.content")))
            pending = []
        elif role == "assistant":
            done("model", _assistant_parts(message, path, names))
        else:
            done("system", content_parts(content, f"{path}.content"))
    if pending:
        done("user", tuple(pending))
    return tuple(system), tuple(out)


def _assistant_parts(message: dict[str, Any], path: str, names: dict[str, str]) -> tuple[Part, ...]:
    """A model message's parts: reasoning first, then text, then calls (whose names
    ``names`` learns)."""
    parts: list[Part] = []
    reasoning = string(message, "reasoning_content", path)
    if reasoning is not None:
        parts.append(Thinking(reasoning))
    content = message.get("content")
    if content is not None:
        parts.extend(content_parts(content, f"{path}.content"))
    legacy = field(message, "function_call", (dict,), "an object", path)
    if legacy is not None:
        name = string(legacy, "name", f"{path}.function_call", required=True)
        raw = string(legacy, "arguments", f"{path}.function_call") or ""
        parts.append(FunctionCall(name=name, args=arguments(raw)))
    calls = field(message, "tool_calls", (list,), "an array", path) or ()
    for i, call in enumerate(calls):
        read = _function_call(call, join_path(path, "tool_calls", i))
        if read.id is not None:
            names[read.id] = read.name
        parts.append(read)
    return tuple(parts)


def _function_call(call: Any, path: str) -> FunctionCall:
    """One ``tool_calls`` entry; arguments that are not JSON (or a JSON string) stay raw. A
    ``custom`` call keeps its input string and its ``Extra`` says it is custom."""
    kind = obj(call, path).get("type", "function")
    if kind == "custom":
        custom = obj(call.get("custom"), f"{path}.custom")
        return FunctionCall(
            name=string(custom, "name", f"{path}.custom", required=True),
            args=string(custom, "input", f"{path}.custom") or "",
            id=string(call, "id", path),
            extra=Extra(NAME, FrozenDict({"type": "custom"})),
        )
    if kind != "function":
        raise DialectError(f"unknown tool call type {show(kind)}", path=f"{path}.type")
    function = obj(call.get("function"), f"{path}.function")
    name = string(function, "name", f"{path}.function", required=True)
    raw = field(function, "arguments", (str,), "a JSON string", f"{path}.function", required=True)
    return FunctionCall(name=name, args=arguments(raw), id=string(call, "id", path))


def _function_response(message: dict[str, Any], path: str, names: dict[str, str]) -> Part:
    """A tool message (its function name comes from the earlier call with the same id), or a
    legacy function message (named, without an id)."""
    if message.get("role") == "function":
        name = string(message, "name", path, required=True)
        return FunctionResponse(name=name, response=message.get("content") or "")
    call_id = string(message, "tool_call_id", path)
    content = message["content"]
    if isinstance(content, list) and all(
        isinstance(p, dict) and p.get("type") == "text" for p in content
    ):
        response: Json = "".join(texts(content, f"{path}.content"))
    else:
        response = freeze(content)
    return FunctionResponse(name=names.get(call_id or "", ""), response=response, id=call_id)
