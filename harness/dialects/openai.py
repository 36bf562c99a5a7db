"""OpenAI chat completions (``POST /v1/chat/completions``) as a dialect.

Mapping to the neutral model:

- the leading run of system/developer messages is the preset's system, one block per text;
  a later system/developer message is a neutral ``system`` message;
- assistant -> ``model``: ``reasoning_content`` -> Thinking, content -> Text, ``tool_calls`` ->
  FunctionCall (arguments decoded when they hold a JSON object, array or scalar);
- tool messages and the user message right after them form one neutral user message;
- fields with no neutral home go to ``Settings.extra["openai"]`` in body order; unknown
  function fields (``strict``) are kept there under the reserved key ``"tools"``, by tool name;
- ``function`` (legacy) messages are FunctionResponses without an id, an assistant's legacy
  ``function_call`` a FunctionCall without one; ``custom`` tools keep their whole declaration
  as ``parameters`` and ``custom`` tool calls are FunctionCalls with ``extra["openai"]``;
- a content part with no neutral form (``input_audio``, ``file``, ``refusal``, a text part with
  fields of its own, any unknown type) is an ``Opaque`` part holding it verbatim; each neutral
  message keeps the body messages it was read from in ``Message.wire`` so that fields the
  parts do not say (``name``, ``refusal``, ``audio``, a content array) render back verbatim.

Reference: https://platform.openai.com/docs/api-reference/chat/create
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar, Literal

from ..model import (
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Image,
    Json,
    Message,
    Opaque,
    OutputSchema,
    Part,
    Preset,
    Request,
    Settings,
    Text,
    Thinking,
    ThinkingConfig,
    Tool,
    ToolChoice,
    dumps,
    freeze,
    join_path,
    json_kind,
    thaw,
)
from ._base import CacheScope, Dialect, DialectError, Family, Segment
from ._memo import Leading, Memo, each, message_once, resume_taken
from ._openai_reading import absorb_system as _absorb_system
from ._openai_reading import arguments as _arguments
from ._openai_reading import field as _field
from ._openai_reading import obj as _object
from ._openai_reading import show as _show
from ._openai_reading import string as _string
from ._per_message import once

__all__ = ["DIALECT", "OpenAIChat"]

_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
_SYSTEM_ROLES = ("system", "developer")
_PLAIN_ROLES = frozenset(_ROLES)
_PLAIN_CONTENT = frozenset((str, list))


def _plain(role: Any, content: Any) -> bool:
    """Whether a message's role and content pass ``_checked_role`` as decoded JSON has them:
    the test ``segments`` makes of every message, cheaper than the full check."""
    return (
        type(role) is str
        and role in _PLAIN_ROLES
        and (type(content) in _PLAIN_CONTENT or (content is None and role == "assistant"))
    )


_MODES: tuple[Literal["auto", "none", "required"], ...] = ("auto", "none", "required")
_SETTING_KEYS = (
    *("model", "temperature", "top_p", "max_tokens", "max_completion_tokens", "stop"),
    *("reasoning_effort", "tool_choice", "parallel_tool_calls", "seed", "n"),
    *("presence_penalty", "frequency_penalty", "prompt_cache_key", "prompt_cache_retention"),
)
_OWN_FIELDS = frozenset(
    {"model", "messages", "tools", "tool_choice", "temperature", "top_p", "stop"}
    | {"max_completion_tokens", "reasoning_effort"}
)
"""Top-level fields that render always writes from the neutral model, never from ``extra``."""
_FUNCTION_KEYS = ("name", "description", "parameters")
_TOOL_EXTRAS = "tools"
_SYSTEM_KEPT = "system_messages"
"""Reserved ``extra`` key: the leading system/developer messages as sent, when they would
render back otherwise (a developer role, content parts, a name)."""
_SCHEMA_TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})
_DETECT_FIELDS = ("response_format", "max_completion_tokens", "reasoning_effort", "stream_options")
_DETECT_SAMPLE = 64
"""Messages looked at for detection: enough to see every role, cheap on long histories."""


class OpenAIChat(Dialect):
    """The chat completions body: ``messages``, function ``tools``, ``response_format``."""

    name = "openai"
    title = "OpenAI chat completions"
    segment_families: ClassVar[Mapping[str, Family]] = {
        "tools": "tools",
        "response_format": "settings",
        "messages": "history",
    }
    system_roles = _SYSTEM_ROLES
    provider = "OpenAI"
    cache_guide = "https://platform.openai.com/docs/guides/prompt-caching"
    wire_runs: ClassVar[bool] = True
    cache_keys: ClassVar[Mapping[str, CacheScope]] = {
        "model": "request",
        "prompt_cache_key": "request",
        "reasoning_effort": "request",
    }
    """The cache is per model; requests are routed by a hash of the prefix combined with
    ``prompt_cache_key``, so a child with another key lands where the parent's prefix is not
    cached. The reasoning effort is rendered into the model's system header, ahead of
    everything else (OpenAI's harmony format), so a change of it reads none of the prefix.
    The structured-output schema (``response_format``) is a prefix segment itself."""

    def detect(self, body: Mapping[str, Any]) -> int:
        """Count the features only chat completions bodies have; 0 without ``messages``."""
        if not isinstance(body, Mapping) or not isinstance(body.get("messages"), list):
            return 0
        found = {key for key in _DETECT_FIELDS if key in body}
        tools = body.get("tools")
        if isinstance(tools, list) and any(
            isinstance(t, dict) and t.get("type") == "function" and "function" in t for t in tools
        ):
            found.add("function tools")
        for message in body["messages"][:_DETECT_SAMPLE]:
            if isinstance(message, dict):
                found.update(_message_features(message))
        return len(found)

    def segments(self, body: Mapping[str, Any]) -> tuple[Segment, ...]:
        """Tools, then ``response_format``, then every message, as sent."""
        messages = _envelope(body)
        out = [Segment(f"tools[{i}]", t) for i, t in enumerate(body.get("tools") or ())]
        if body.get("response_format") is not None:
            out.append(Segment("response_format", body["response_format"]))
        out.extend(each(_SEGMENTS, messages, _message_segment))  # raises at the first bad one
        return tuple(out)

    def settings(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The cache-relevant fields outside the prefix, raw, under their body names."""
        return {key: body[key] for key in _SETTING_KEYS if key in body}

    def to_request(self, body: Mapping[str, Any]) -> Request:
        """The body in the neutral model; ``DialectError`` names the path of a bad part."""
        messages = _envelope(body)
        system, history = _history(messages, reuse=True)
        tools, tool_extras = _tools(body.get("tools") or ())
        settings = _settings(body, tool_extras)
        leading = messages[: _leading_count(messages)]
        plain = [{"role": "system", "content": b} for b in system]
        if leading and dumps(plain) != dumps(leading):
            own = dict(settings.extra.get(self.name, FrozenDict()))
            own[_SYSTEM_KEPT] = freeze(leading)
            settings = replace(settings, extra=FrozenDict({self.name: FrozenDict(own)}))
        preset = Preset(system=system, tools=tools, settings=settings)
        return Request(preset=preset, history=history)

    def render(self, request: Request) -> bytes:
        """The compact body: model, messages, tools, choice, format, sampling, then extras."""
        preset, settings = request.preset, request.preset.settings
        system, history = _absorb_system(preset.system, request.history)
        own = settings.extra.get(self.name)
        extra: Mapping[str, Any] = own if isinstance(own, dict) else {}
        body: dict[str, Any] = {} if settings.model is None else {"model": settings.model}
        kept = extra.get(_SYSTEM_KEPT)
        if isinstance(kept, tuple) and _history(thaw(kept))[0] == tuple(system):
            body["messages"] = thaw(kept)
        else:
            body["messages"] = [{"role": "system", "content": block} for block in system]
        body["messages"].extend(_render_history(history))
        if preset.tools:
            tool_extras = extra.get(_TOOL_EXTRAS)
            body["tools"] = [_render_tool(t, tool_extras) for t in preset.tools]
        if settings.tool_choice is not None:
            body["tool_choice"] = _render_tool_choice(settings.tool_choice)
        if settings.output_schema is not None:
            body["response_format"] = _render_output_schema(settings.output_schema)
        body.update(_render_sampling(settings))
        for key, value in extra.items():
            if key not in _OWN_FIELDS and key != _SYSTEM_KEPT:
                body.setdefault(key, value)
        return dumps(body)


# --- validation helpers ---------------------------------------------------------------


def _envelope(body: Mapping[str, Any]) -> list[Any]:
    """Check the top-level fields' types and return the ``messages`` array."""
    messages: list[Any] = _field(body, "messages", (list,), "an array of messages", required=True)
    _string(body, "model")
    for i, tool in enumerate(_field(body, "tools", (list,), "an array of tools") or ()):
        if not isinstance(tool, dict):
            _object(tool, f"tools[{i}]")  # raises: the path built only then
    _field(body, "response_format", (dict,), "an object")
    return messages


def _message_segment(k: int, message: Any) -> Segment:
    """The segment of ``messages[k]``, the message checked (``_checked_role``)."""
    if not (type(message) is dict and _plain(message.get("role"), message.get("content"))):
        _checked_role(message, k)
    return Segment(f"messages[{k}]", message)


def _checked_role(message: Any, k: int) -> str:
    """Validate one message's shape (object, known role, content type) and return its role.

    Runs once per message of long histories, so the error path is built only on failure.
    """
    if not isinstance(message, dict):
        raise DialectError(
            f"a message must be a JSON object, not {json_kind(message)}", path=f"messages[{k}]"
        )
    role = message.get("role")
    if role not in _ROLES:
        expected = ", ".join(_ROLES)
        raise DialectError(
            f"role is {_show(role)}; expected one of {expected}", path=f"messages[{k}].role"
        )
    content = message.get("content")
    if not (isinstance(content, str | list) or (content is None and role == "assistant")):
        raise DialectError(
            f"{role} content must be a string or an array of parts; it is "
            + ("missing" if "content" not in message else json_kind(content)),
            path=f"messages[{k}].content",
        )
    return str(role)


# --- body -> neutral --------------------------------------------------------------------


def _leading_count(messages: list[Any]) -> int:
    """How many leading messages are system/developer messages of text only (the system)."""
    k = 0
    while k < len(messages) and _is_system_text(messages[k]):
        k += 1
    return k


def _is_system_text(message: Any) -> bool:
    if not isinstance(message, dict) or message.get("role") not in _SYSTEM_ROLES:
        return False
    content = message.get("content")
    return isinstance(content, str) or (
        isinstance(content, list)
        and all(isinstance(p, dict) and p.get("type") == "text" for p in content)
    )


_FROZEN: Memo[Json] = Memo()
"""Body messages already frozen for a wire form: a fork's bodies repeat the parent's."""
_MESSAGES: Memo[Message] = Memo()
"""Neutral messages already read, by the bytes of their run (``message_once``)."""
_HISTORY: Leading[tuple[tuple[Message, ...], tuple[int, ...]]] = Leading()
"""The body messages ``to_request`` read last, the neutral history they gave and where
each neutral message's run of body messages ends (see ``_history``)."""


def _history(
    messages: list[Any],
    names: dict[str, str] | None = None,
    *,
    leading: bool = True,
    reuse: bool = False,
) -> tuple[tuple[str, ...], tuple[Message, ...]]:
    """The system blocks (leading system/developer messages of text) and the neutral
    history, each message with the body messages it was read from as its ``wire``.

    With ``reuse`` (a body's whole history, as ``to_request`` reads it), the neutral
    messages of the history read last whose runs end before the last body message this
    one shares with it by object (``Leading``) are taken as read: such a run and whether
    it ended there are settled by those body messages alone, and reading goes on after it
    as it would have, with nothing pending and the names of the calls read so far."""
    system: list[str] = []
    history: list[Message] = []
    ends: list[int] = []  # where each neutral message's run ends (past its last body message)
    pending: list[Part] = []
    run: list[Any] = []  # the body messages of the neutral message being built
    keys: list[bytes | None] = []  # their compact JSON, which keys every memo of a message
    names = {} if names is None else names
    start = _leading_count(messages) if leading else 0
    resume = resume_taken(_HISTORY, messages, history, ends, names) if reuse else 0
    last = 0  # the index of the last body message in ``run``

    def done(role: Literal["user", "model", "system"], parts: tuple[Part, ...]) -> None:
        history.append(message_once(_MESSAGES, _FROZEN, OpenAIChat.name, role, parts, run, keys))
        ends.append(last + 1)
        run.clear()
        keys.clear()

    for k in range(min(start, resume)):  # the system messages taken as read, unchecked
        system.extend(_texts(messages[k].get("content"), f"messages[{k}].content"))
    for k in range(resume, len(messages)):  # the messages taken as read not walked
        message = messages[k]
        role = _checked_role(message, k)
        path, content = f"messages[{k}]", message.get("content")
        if k < start:
            system.extend(_texts(content, f"{path}.content"))
            continue
        key = Memo.key(message)
        if role in ("tool", "function"):
            last = k
            run.append(message)
            keys.append(key)
            pending.append(_function_response_once(message, path, names, key))
            continue
        if role != "user" and pending:
            done("user", tuple(pending))
            pending = []
        last = k
        run.append(message)
        keys.append(key)
        if role == "user":
            done("user", (*pending, *_user_parts_once(content, f"{path}.content", key)))
            pending = []
        elif role == "assistant":
            done("model", _assistant_once(message, path, names, key).parts)
        else:
            done("system", _user_parts_once(content, f"{path}.content", key))
    if pending:
        done("user", tuple(pending))
    if reuse:
        _HISTORY.keep(messages, (tuple(history), tuple(ends)))
    return tuple(system), tuple(history)


def _texts(content: Any, path: str) -> list[str]:
    """The texts of a string content or of an array of text parts."""
    if isinstance(content, str):
        return [content]
    return [_text_part(part, join_path(path, i)) for i, part in enumerate(content or ())]


def _text_part(part: Any, path: str, expected: str = "a text part") -> str:
    """The text of a ``{"type": "text", "text": ...}`` part."""
    kind = _object(part, path).get("type")
    if kind != "text":
        raise DialectError(f"expected {expected}, not type {_show(kind)}", path=f"{path}.type")
    return str(_string(part, "text", path, required=True))


def _user_parts(content: Any, path: str) -> tuple[Part, ...]:
    """The parts of a message's content: text and image_url parts that render back as sent,
    every other part (``input_audio``, ``file``, ``refusal``, unknown) as Opaque."""
    if isinstance(content, str):
        return (Text(content),)
    return tuple(_content_part(part, join_path(path, i)) for i, part in enumerate(content or ()))


def _plain_text(part: Any) -> bool:
    """Whether ``part`` is ``{"type": "text", "text": <a string>}``, in that key order."""
    return (
        type(part) is dict
        and len(part) == 2
        and part.get("type") == "text"
        and type(part.get("text")) is str
        and next(iter(part)) == "type"
    )


def _content_part(part: Any, path: str) -> Part:
    if _plain_text(part):
        return Text(part["text"])  # renders back as ``{"type":"text","text":...}``: itself
    kind = _object(part, path).get("type")
    parsed: Part | None = None
    if kind == "image_url":
        parsed = _image(part, path)
    elif kind == "text":
        parsed = Text(_text_part(part, path))
    if parsed is not None and dumps(_render_part(parsed)) == dumps(part):
        return parsed
    if not isinstance(kind, str):
        raise DialectError(f"a content part's type must be a string, not {_show(kind)}", path=path)
    return Opaque(kind, freeze(part), OpenAIChat.name)


def _image(part: dict[str, Any], path: str) -> Image:
    """An ``image_url`` part: a base64 ``data:`` URL becomes inline data, others stay URLs."""
    spec = _object(part.get("image_url"), f"{path}.image_url")
    url = str(_string(spec, "url", f"{path}.image_url", required=True))
    detail = _string(spec, "detail", f"{path}.image_url")
    head, comma, data = url.partition(",")
    if comma and head.startswith("data:") and head.endswith(";base64"):
        return Image(mime_type=head[5:-7] or None, data=data, detail=detail)
    return Image(url=url, detail=detail)


_SEGMENTS: Leading[list[Segment]] = Leading()
"""The segments of the messages ``segments`` read last, one per message (each is the message
itself, checked)."""
_ASSISTANT: Memo[Message] = Memo()
"""Assistant messages already read: a fork's bodies repeat the parent's."""


_PARTS: Memo[tuple[Part, ...]] = Memo()
"""User (and mid-history system) message contents already read, by their message's bytes."""
_RESPONSES: Memo[Part] = Memo()
"""Tool messages already read, by their bytes (the function's name is checked anew)."""


def _user_parts_once(content: Any, path: str, key: bytes | None) -> tuple[Part, ...]:
    """``_user_parts`` of a message's content, a message read before not read again: its
    parts depend on its bytes alone."""
    read = _PARTS.get(key)
    return _PARTS.put(key, _user_parts(content, path)) if read is None else read


def _function_response_once(
    message: dict[str, Any], path: str, names: dict[str, str], key: bytes | None
) -> Part:
    """``_function_response``, a tool message read before not read again while the call
    before it with its id still names the same function."""
    read = _RESPONSES.get(key)
    if (
        isinstance(read, FunctionResponse)
        and message.get("role") == "tool"
        and read.name == names.get(read.id or "", "")
    ):
        return read
    return _RESPONSES.put(key, _function_response(message, path, names))


def _assistant_once(
    message: dict[str, Any], path: str, names: dict[str, str], key: bytes | None
) -> Message:
    """``_assistant``, a message read before (``key``: its bytes) not read again (``names``
    still learns its calls, in order)."""
    read = _ASSISTANT.get(key)
    if read is None:
        return _ASSISTANT.put(key, _assistant(message, path, names))
    names.update((call.id, call.name) for call in read.function_calls if call.id is not None)
    return read


def _assistant(message: dict[str, Any], path: str, names: dict[str, str]) -> Message:
    """A model message: reasoning first, then text, then calls (whose names ``names`` learns)."""
    parts: list[Part] = []
    reasoning = _string(message, "reasoning_content", path)
    if reasoning is not None:
        parts.append(Thinking(reasoning))
    content = message.get("content")
    if content is not None:
        parts.extend(_user_parts(content, f"{path}.content"))
    legacy = _field(message, "function_call", (dict,), "an object", path)
    if legacy is not None:
        name = _string(legacy, "name", f"{path}.function_call", required=True)
        arguments = _string(legacy, "arguments", f"{path}.function_call") or ""
        parts.append(FunctionCall(name=name, args=_arguments(arguments)))
    calls = _field(message, "tool_calls", (list,), "an array", path) or ()
    for i, call in enumerate(calls):
        parsed = _function_call(call, join_path(path, "tool_calls", i))
        if parsed.id is not None:
            names[parsed.id] = parsed.name
        parts.append(parsed)
    return Message("model", tuple(parts))


def _function_call(call: Any, path: str) -> FunctionCall:
    """One ``tool_calls`` entry; arguments that are not JSON (or a JSON string) stay raw. A
    ``custom`` call keeps its input string and ``extra["openai"]`` says it is custom."""
    kind = _object(call, path).get("type", "function")
    if kind == "custom":
        custom = _object(call.get("custom"), f"{path}.custom")
        return FunctionCall(
            name=_string(custom, "name", f"{path}.custom", required=True),
            args=_string(custom, "input", f"{path}.custom") or "",
            id=_string(call, "id", path),
            extra=FrozenDict({OpenAIChat.name: FrozenDict({"type": "custom"})}),
        )
    if kind != "function":
        raise DialectError(f"unknown tool call type {_show(kind)}", path=f"{path}.type")
    function = _object(call.get("function"), f"{path}.function")
    name = _string(function, "name", f"{path}.function", required=True)
    arguments = _field(
        function, "arguments", (str,), "a JSON string", f"{path}.function", required=True
    )
    call_id = _string(call, "id", path)
    return FunctionCall(name=name, args=_arguments(arguments), id=call_id)


def _function_response(message: dict[str, Any], path: str, names: dict[str, str]) -> Part:
    """A tool message (its function name comes from the earlier call with the same id), or a
    legacy function message (named, without an id)."""
    if message.get("role") == "function":
        name = _string(message, "name", path, required=True)
        return FunctionResponse(name=name, response=message.get("content") or "")
    call_id = _string(message, "tool_call_id", path)
    content = message["content"]
    if isinstance(content, list) and all(
        isinstance(p, dict) and p.get("type") == "text" for p in content
    ):
        response: Json = "".join(_texts(content, f"{path}.content"))
    else:
        response = freeze(content)
    return FunctionResponse(name=names.get(call_id or "", ""), response=response, id=call_id)


def _tools(entries: Sequence[Any]) -> tuple[tuple[Tool, ...], FrozenDict]:
    """Neutral tools, and the unknown function fields of each tool by name."""
    read = each(_TOOLS, entries, _read_tool)
    extras = {name: extra for _, name, extra in read if extra is not None}
    return tuple(tool for tool, _, _ in read), FrozenDict(extras)


def _read_tool(i: int, entry: Any) -> tuple[Tool, str, FrozenDict | None]:
    """``_declared`` of ``tools[i]``, a declaration read before (by its bytes: a scenario's
    bodies repeat their tools) not read again (its index names only a problem)."""
    return _DECLARED.once(entry, lambda: _declared(i, entry))


_DECLARED: Memo[tuple[Tool, str, FrozenDict | None]] = Memo()
"""Tool declarations already read, by their bytes."""


def _declared(i: int, entry: Any) -> tuple[Tool, str, FrozenDict | None]:
    """``tools[i]`` as a neutral tool, its name, and its unknown function fields (if any)."""
    path = join_path("tools", i)
    if entry.get("type") != "function":
        kind = entry.get("type")
        if not isinstance(kind, str):
            raise DialectError(f"a tool's type must be a string, not {_show(kind)}", path=path)
        spec = entry.get(kind)
        name = spec.get("name") if isinstance(spec, dict) else None
        return Tool(name if isinstance(name, str) else "", parameters=freeze(entry)), "", None
    function = _object(entry.get("function"), f"{path}.function")
    name = str(_string(function, "name", f"{path}.function", required=True))
    description = _string(function, "description", f"{path}.function")
    tool = Tool(name, description, freeze(function.get("parameters")))
    unknown = {k: v for k, v in function.items() if k not in _FUNCTION_KEYS}
    extra = FrozenDict((k, freeze(v)) for k, v in unknown.items()) if unknown else None
    return tool, name, extra


_TOOLS: Leading[list[tuple[Tool, str, FrozenDict | None]]] = Leading()
"""The tools of the body read last (``_read_tool``), one per declaration."""


def _settings(body: Mapping[str, Any], tool_extras: FrozenDict) -> Settings:
    """Named settings from the body; every other top-level field goes to ``extra``."""
    max_key = "max_tokens" if body.get("max_completion_tokens") is None else "max_completion_tokens"
    stop = _field(body, "stop", (str, list), "a string or an array of strings")
    effort = _string(body, "reasoning_effort")
    schema = _output_schema(body.get("response_format"))
    extra = _extra_fields(body, schema)
    if tool_extras:
        extra[_TOOL_EXTRAS] = tool_extras
    return Settings(
        model=body.get("model"),
        temperature=_field(body, "temperature", (int, float), "a number"),
        top_p=_field(body, "top_p", (int, float), "a number"),
        max_output_tokens=_field(body, max_key, (int,), "an integer"),
        stop=None if stop is None else _stop(stop),
        thinking=None if effort is None else ThinkingConfig(effort=effort),
        tool_choice=_tool_choice(body.get("tool_choice")),
        output_schema=schema,
        extra=FrozenDict({"openai": FrozenDict(extra)}) if extra else FrozenDict(),
    )


def _stop(stop: str | list[Any]) -> tuple[str, ...]:
    """Stop sequences as a tuple: one string or an array of strings."""
    if isinstance(stop, str):
        return (stop,)
    for i, item in enumerate(stop):
        if not isinstance(item, str):
            raise DialectError(
                f"a stop sequence must be a string, not {json_kind(item)}", path=f"stop[{i}]"
            )
    return tuple(stop)


def _extra_fields(body: Mapping[str, Any], schema: OutputSchema | None) -> dict[str, Json]:
    """Top-level fields with no neutral home, frozen, in body order."""
    skip = set(_OWN_FIELDS)
    if body.get("max_completion_tokens") is None or body.get("max_tokens") is None:
        skip.add("max_tokens")
    if schema is not None or body.get("response_format") is None:
        skip.add("response_format")
    return {key: freeze(value) for key, value in body.items() if key not in skip}


def _output_schema(fmt: Any) -> OutputSchema | None:
    """A ``json_schema`` response format; other formats are not a neutral schema."""
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        return None
    path = "response_format.json_schema"
    spec = _object(fmt.get("json_schema"), path)
    return OutputSchema(
        schema=freeze(spec.get("schema")),
        name=_string(spec, "name", path),
        strict=_field(spec, "strict", (bool,), "a boolean", path),
    )


def _tool_choice(value: Any) -> ToolChoice | None:
    """A mode string, a forced function, or an ``allowed_tools`` restriction."""
    if value is None:
        return None
    for mode in _MODES:
        if value == mode:
            return ToolChoice(mode)
    kind = value.get("type") if isinstance(value, dict) else None
    if kind == "function":
        function = _object(value.get("function"), "tool_choice.function")
        return ToolChoice(
            "tool", (_string(function, "name", "tool_choice.function", required=True),)
        )
    if kind == "allowed_tools":
        allowed = _object(value.get("allowed_tools"), "tool_choice.allowed_tools")
        if (allowed_mode := allowed.get("mode")) in ("auto", "required"):
            path = "tool_choice.allowed_tools"
            tools = _field(allowed, "tools", (list,), "an array", path, required=True)
            return ToolChoice(allowed_mode, tuple(_choice_name(t, i) for i, t in enumerate(tools)))
    raise DialectError(
        'tool_choice must be "auto", "none", "required", a function or an allowed_tools object',
        path="tool_choice",
    )


def _choice_name(tool: Any, i: int) -> str:
    """The function name of one ``allowed_tools`` entry."""
    path = f"tool_choice.allowed_tools.tools[{i}]"
    function = _object(_object(tool, path).get("function"), f"{path}.function")
    return str(_string(function, "name", f"{path}.function", required=True))


# --- neutral -> body --------------------------------------------------------------------


def _render_history(history: tuple[Message, ...]) -> list[dict[str, Any]]:
    """Body messages for neutral ones; a user message may become tool messages plus a user.
    Each message's items are rendered once (``_per_message.once``): they depend on it and on
    the names of the calls before it alone."""
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for message in history:
        out.extend(once(message, _render_message, names))
        for call in message.function_calls:
            if call.id is not None:
                names[call.id] = call.name
    return out


def _render_message(message: Message, names: dict[str, str]) -> tuple[dict[str, Any], ...]:
    """The body messages of one neutral message: its ``wire`` form while it still reads back
    as the message (with the call ``names`` before it), else from its parts."""
    kept = _kept_form(message, names)
    if kept is not None:
        return tuple(kept)
    if message.role == "model":
        return (_render_assistant(message),)
    if message.role == "system":
        return ({"role": "system", "content": _render_content(message.parts)},)
    return tuple(_render_user(message))


def _kept_form(message: Message, names: dict[str, str]) -> list[Any] | None:
    kept = message.wire.get(OpenAIChat.name)
    if not isinstance(kept, tuple) or not kept:
        return None
    raw: list[Any] = thaw(kept)
    try:
        _, read = _history(raw, names, leading=False)
    except DialectError:
        return None
    if len(read) != 1 or read[0].role != message.role or read[0].parts != message.parts:
        return None
    return raw


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
        yield {"role": "user", "content": _render_content(rest)}


def _render_content(parts: Sequence[Part]) -> str | list[dict[str, Any]]:
    """A lone text as a string, anything else as an array of parts."""
    if len(parts) == 1 and isinstance(parts[0], Text):
        return parts[0].text
    return [_render_part(p) for p in parts if not isinstance(p, FunctionCall | FunctionResponse)]


def _render_part(part: Part) -> dict[str, Any]:
    """A text part, an ``image_url`` part (inline data as a base64 ``data:`` URL), or an
    Opaque part as sent (another dialect's as a text part of its JSON); thinking as text."""
    if isinstance(part, Opaque):
        own = part.own_block(OpenAIChat.name)
        return own if own is not None else {"type": "text", "text": part.as_text}
    if isinstance(part, Thinking):
        return {"type": "text", "text": part.text}
    if isinstance(part, FunctionCall | FunctionResponse):
        raise TypeError("calls and responses are not content parts")
    if isinstance(part, Text):
        return {"type": "text", "text": part.text}
    url = part.url if part.data is None else f"data:{part.mime_type or ''};base64,{part.data}"
    spec: dict[str, Any] = {"url": url}
    if part.detail is not None:
        spec["detail"] = part.detail
    return {"type": "image_url", "image_url": spec}


def _render_assistant(message: Message) -> dict[str, Any]:
    """Content (null when there is no text), reasoning_content, tool_calls."""
    texts = [p for p in message.parts if isinstance(p, Text | Image | Opaque)]
    body: dict[str, Any] = {
        "role": "assistant",
        "content": _render_content(texts) if texts else None,
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
    own = call.extra.get(OpenAIChat.name)
    if isinstance(own, FrozenDict) and own.get("type") == "custom":
        out.update(type="custom", custom={"name": call.name, "input": args})
        return out
    out.update(type="function", function={"name": call.name, "arguments": args})
    return out


def _render_tool(tool: Tool, extras: Any) -> dict[str, Any]:
    """A function tool, followed by the tool's unknown function fields kept in ``extra``; a
    tool of another type (``custom``) from its kept declaration."""
    params = tool.parameters
    kind = params.get("type") if isinstance(params, FrozenDict) else None
    if isinstance(kind, str) and kind not in _SCHEMA_TYPES:
        declaration: dict[str, Any] = thaw(params)
        return declaration
    function: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        function["description"] = tool.description
    if tool.parameters is not None:
        function["parameters"] = tool.parameters
    kept = extras.get(tool.name) if isinstance(extras, dict) else None
    if isinstance(kept, dict):
        function.update((k, v) for k, v in kept.items() if k not in _FUNCTION_KEYS)
    return {"type": "function", "function": function}


def _render_tool_choice(choice: ToolChoice) -> Any:
    """Mode string, forced function, or ``allowed_tools`` when a mode names tools."""
    if choice.mode == "tool" and len(choice.names) == 1:
        return {"type": "function", "function": {"name": choice.names[0]}}
    mode = "required" if choice.mode == "tool" else choice.mode
    if not choice.names or mode == "none":
        return mode
    tools = [{"type": "function", "function": {"name": n}} for n in choice.names]
    return {"type": "allowed_tools", "allowed_tools": {"mode": mode, "tools": tools}}


def _render_output_schema(schema: OutputSchema) -> dict[str, Any]:
    """A ``json_schema`` response format; the name is required, so it defaults to "output"."""
    spec: dict[str, Any] = {"name": schema.name or "output"}
    if schema.schema is not None:
        spec["schema"] = schema.schema
    if schema.strict is not None:
        spec["strict"] = schema.strict
    return {"type": "json_schema", "json_schema": spec}


def _render_sampling(settings: Settings) -> dict[str, Any]:
    """Sampling, length, stop and effort fields that are set (top_k has no form here)."""
    thinking = settings.thinking
    fields = {
        "temperature": settings.temperature,
        "top_p": settings.top_p,
        "max_completion_tokens": settings.max_output_tokens,
        "stop": None if settings.stop is None else list(settings.stop),
        "reasoning_effort": None if thinking is None else thinking.effort,
    }
    return {key: value for key, value in fields.items() if value is not None}


# --- small helpers ----------------------------------------------------------------------


def _message_features(message: dict[str, Any]) -> set[str]:
    """The chat-completions-only features of one message (roles, call fields, image parts)."""
    found: set[str] = {key for key in ("tool_calls", "tool_call_id") if key in message}
    role = message.get("role")
    if isinstance(role, str) and role in ("system", "developer", "tool"):
        found.add(role)
    content = message.get("content")
    if isinstance(content, list) and any(
        isinstance(p, dict) and p.get("type") == "image_url" for p in content
    ):
        found.add("image_url")
    return found


DIALECT = OpenAIChat()
