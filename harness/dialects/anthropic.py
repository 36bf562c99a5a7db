"""Anthropic messages (``POST /v1/messages``): tools, system and messages in cache order,
with ``cache_control`` markers audited apart from the prefix bytes.

Mapping to the neutral model:

- assistant -> ``model``; tool_result -> FunctionResponse named after the earlier tool_use
  with its id ("" when none), its content string or block list as the response;
- a server tool (``{"type": "web_search_20250305", ...}``) is a Tool whose ``parameters`` is its
  whole declaration; render tells it apart by a ``type`` that is no JSON Schema type;
- markers become ``Request.cache_breakpoints`` (segment names) and render back as
  ``{"type": "ephemeral"}`` on the last block of each named segment (a ``ttl`` is not kept);
- unknown top-level fields, and a tool_choice with options, go to ``Settings.extra["anthropic"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final, Literal

import orjson

from ..model import (
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Image,
    Json,
    Message,
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
    freeze,
    join_path,
    json_kind,
    thaw,
)
from ._base import Dialect, DialectError, Segment

__all__ = ["DIALECT", "AnthropicDialect"]

_MARKER: Final = "cache_control"
_EPHEMERAL: Final = FrozenDict({"type": "ephemeral"})
_ROLES: Final[dict[str, Literal["user", "model"]]] = {"user": "user", "assistant": "model"}
_SETTING_KEYS: Final = frozenset(
    {"model", "max_tokens", "temperature", "top_p", "top_k", "stop_sequences", "thinking"}
    | {"tool_choice", "output_format", "output_config"}
)
_KNOWN_KEYS: Final = (_SETTING_KEYS - {"output_config"}) | {"system", "tools", "messages"}
_THINKING_MODES: Final[dict[str, Literal["enabled", "disabled", "adaptive"]]] = {
    "enabled": "enabled",
    "disabled": "disabled",
    "adaptive": "adaptive",
}
_CHOICE_MODES: Final[dict[str, Literal["auto", "none", "required", "tool"]]] = {
    "auto": "auto",
    "any": "required",
    "tool": "tool",
    "none": "none",
}
_CHOICE_TYPES: Final = {"auto": "auto", "required": "any", "tool": "any", "none": "none"}
_SCHEMA_TYPES: Final = frozenset(
    {"object", "array", "string", "number", "integer", "boolean", "null"}
)
"""JSON Schema type names: a tool whose parameters' ``type`` is another string is a server tool."""
_EMPTY_SCHEMA: Final = FrozenDict({"type": "object", "properties": FrozenDict()})
_DETECT_KEYS: Final = ("system", "thinking", "stop_sequences", "top_k")
_DETECT_BLOCKS: Final = ("tool_use", "tool_result", "thinking", "redacted_thinking")
_DETECT_SAMPLE = 64
"""Messages looked at for detection: enough to see every role, cheap on long histories."""


class AnthropicDialect(Dialect):
    """The Anthropic messages body; cache order is tools, system, messages."""

    name = "anthropic"
    title = "Anthropic messages"

    def detect(self, body: Mapping[str, Any]) -> int:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return 0
        features = {key for key in _DETECT_KEYS if key in body}
        for tool in _dicts(body.get("tools")):
            features.update(key for key in ("input_schema", _MARKER) if key in tool)
        if any(_MARKER in block for block in _dicts(body.get("system"))):
            features.add(_MARKER)
        for message in body["messages"][:_DETECT_SAMPLE]:
            if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
                return 0
            for block in _dicts(message.get("content")):
                features.update(_block_features(block))
        return len(features)

    def segments(self, body: Mapping[str, Any]) -> tuple[Segment, ...]:
        messages = _messages(body)
        out = [
            Segment(join_path("tools", i), tool)
            for i, tool in enumerate(
                _unmarked_items(
                    (_field(body, "tools", "", (list,), "an array") or []), "tools", "a tool"
                )
            )
        ]
        system = _field(body, "system", "", (str, list), "a string or an array of text blocks")
        if isinstance(system, str):
            out.append(Segment("system", system))
        elif system is not None:
            blocks = _unmarked_items(system, "system", "a system block")
            out.extend(Segment(join_path("system", i), block) for i, block in enumerate(blocks))
        for k, message in enumerate(messages):
            _, content = _message(message, k)
            out.append(Segment(f"messages[{k}]", _unmarked_message(message, content, k)))
        return tuple(out)

    def settings(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in body.items() if key in _SETTING_KEYS}

    def cache_markers(self, body: Mapping[str, Any]) -> tuple[str, ...]:
        names = [
            join_path("tools", i) for i, t in _indexed_dicts(body.get("tools")) if _MARKER in t
        ]
        names += [
            join_path("system", i) for i, b in _indexed_dicts(body.get("system")) if _MARKER in b
        ]
        for k, message in _indexed_dicts(body.get("messages")):
            if any(_MARKER in block for block in _dicts(message.get("content"))):
                names.append(join_path("messages", k))
        return tuple(names)

    def to_request(self, body: Mapping[str, Any]) -> Request:
        messages = _messages(body)
        preset = Preset(system=_system(body), tools=_tools(body), settings=_settings(body))
        return Request(preset, _history(messages), self.cache_markers(body))

    def render(self, request: Request) -> bytes:
        preset, settings = request.preset, request.preset.settings
        marks = frozenset(request.cache_breakpoints)
        own = settings.extra.get(self.name)
        extra: Mapping[str, Json] = own if isinstance(own, dict) else FrozenDict()
        tools = [
            _render_tool(t, join_path("tools", i) in marks) for i, t in enumerate(preset.tools)
        ]
        output = settings.output_schema
        schema = None if output is None else thaw(output.schema)
        body = _compact(
            model=settings.model,
            max_tokens=settings.max_output_tokens,
            system=_render_system(preset.system, marks),
            tools=tools or None,
            tool_choice=_render_tool_choice(settings.tool_choice, extra.get("tool_choice")),
            thinking=_render_thinking(settings.thinking),
            temperature=settings.temperature,
            top_p=settings.top_p,
            top_k=settings.top_k,
            stop_sequences=None if settings.stop is None else list(settings.stop),
            output_format=None if output is None else {"type": "json_schema", "schema": schema},
        )
        body.update((key, thaw(value)) for key, value in extra.items() if key not in _KNOWN_KEYS)
        body["messages"] = [
            _render_message(message, join_path("messages", k) in marks)
            for k, message in enumerate(request.history)
        ]
        return orjson.dumps(body)


# --- envelope: cheap checks shared by segments() and to_request() ---------------------------


def _field(obj: Mapping[str, Any], key: str, path: str, types: tuple[type, ...], what: str) -> Any:
    """``obj[key]`` when present and of one of ``types`` (a boolean is no number); else None."""
    if key not in obj:
        return None
    value = obj[key]
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        raise DialectError(
            f"{key} must be {what}, not {json_kind(value)}", path=join_path(path, key)
        )
    return value


def _required_str(obj: Mapping[str, Any], key: str, path: str) -> str:
    """A string field the API requires."""
    value: str | None = _field(obj, key, path, (str,), "a string")
    if value is None:
        raise DialectError(f"the {key} field is missing", path=join_path(path, key))
    return value


def _messages(body: Mapping[str, Any]) -> list[Any]:
    """The history array, which every Anthropic body has."""
    if "messages" not in body:
        raise DialectError("the messages array is missing", path="messages")
    messages: list[Any] = _field(body, "messages", "", (list,), "an array")
    return messages


def _message(message: Any, k: int) -> tuple[str, str | list[Any]]:
    """The role and content of ``messages[k]``, checked."""
    path = f"messages[{k}]"
    if not isinstance(message, dict):
        raise DialectError(f"a message must be an object, not {json_kind(message)}", path=path)
    role = message.get("role")
    if not isinstance(role, str) or role not in _ROLES:
        raise DialectError(
            f"unknown role {role!r}: Anthropic messages are user or assistant",
            path=join_path(path, "role"),
        )
    if "content" not in message:
        raise DialectError("the content field is missing", path=join_path(path, "content"))
    content = _field(message, "content", path, (str, list), "a string or an array of blocks")
    return role, content


def _unmarked(block: dict[str, Any]) -> dict[str, Any]:
    """The block without its cache marker (a copy only when it has one), key order kept."""
    if _MARKER not in block:
        return block
    return {key: value for key, value in block.items() if key != _MARKER}


def _unmarked_items(items: list[Any], path: str, what: str) -> list[Any]:
    """Objects of an array with cache markers removed; the same list when none is marked."""
    out = items
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            reason = f"{what} must be an object, not {json_kind(item)}"
            raise DialectError(reason, path=join_path(path, i))
        if _MARKER in item:
            out = out if out is not items else list(items)
            out[i] = _unmarked(item)
    return out


def _unmarked_message(message: dict[str, Any], content: str | list[Any], k: int) -> Any:
    """The message as sent, its content blocks without cache markers."""
    if isinstance(content, str):
        return message
    blocks = _unmarked_items(content, f"messages[{k}].content", "a content block")
    return message if blocks is content else {**message, "content": blocks}


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    """The objects of ``value`` when it is an array; nothing otherwise (never raises)."""
    return (item for _, item in _indexed_dicts(value))


def _indexed_dicts(value: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    if isinstance(value, list):
        yield from ((i, item) for i, item in enumerate(value) if isinstance(item, dict))


def _block_features(block: dict[str, Any]) -> Iterator[str]:
    """What in a content block only Anthropic bodies have."""
    kind = block.get("type")
    if kind in _DETECT_BLOCKS:
        yield f"block:{kind}"
    if kind == "image" and "source" in block:
        yield "block:image.source"
    if _MARKER in block:
        yield _MARKER


# --- body -> neutral ---------------------------------------------------------------------------


def _system(body: Mapping[str, Any]) -> tuple[str, ...]:
    system = _field(body, "system", "", (str, list), "a string or an array of text blocks")
    if system is None:
        return ()
    if isinstance(system, str):
        return (system,)
    return tuple(_system_text(block, join_path("system", i)) for i, block in enumerate(system))


def _system_text(block: Any, path: str) -> str:
    if not isinstance(block, dict) or block.get("type") != "text":
        raise DialectError("a system block must be a text block", path=path)
    return _required_str(block, "text", path)


def _tools(body: Mapping[str, Any]) -> tuple[Tool, ...]:
    return tuple(
        _tool(entry, join_path("tools", i))
        for i, entry in enumerate(_field(body, "tools", "", (list,), "an array") or [])
    )


def _tool(entry: Any, path: str) -> Tool:
    """A client tool; a server tool keeps its whole declaration as ``parameters``."""
    if not isinstance(entry, dict):
        raise DialectError(f"a tool must be an object, not {json_kind(entry)}", path=path)
    kind = _field(entry, "type", path, (str,), "a string")
    if kind not in (None, "custom"):
        name: str = _field(entry, "name", path, (str,), "a string") or ""
        return Tool(name, parameters=freeze(_unmarked(entry)))
    if "input_schema" not in entry:
        raise DialectError(
            "a client tool needs an input_schema", path=join_path(path, "input_schema")
        )
    return Tool(
        _required_str(entry, "name", path),
        _field(entry, "description", path, (str,), "a string"),
        freeze(_field(entry, "input_schema", path, (dict,), "an object")),
    )


def _settings(body: Mapping[str, Any]) -> Settings:
    number, integer = (int, float), (int,)
    stop = _field(body, "stop_sequences", "", (list,), "an array of strings")
    return Settings(
        model=_field(body, "model", "", (str,), "a string"),
        temperature=_field(body, "temperature", "", number, "a number"),
        top_p=_field(body, "top_p", "", number, "a number"),
        top_k=_field(body, "top_k", "", integer, "an integer"),
        max_output_tokens=_field(body, "max_tokens", "", integer, "an integer"),
        stop=None if stop is None else _strings(stop, "stop_sequences"),
        thinking=_thinking_config(body),
        tool_choice=_tool_choice(body),
        output_schema=_output_schema(body),
        extra=_extra(body),
    )


def _strings(values: list[Any], path: str) -> tuple[str, ...]:
    for i, value in enumerate(values):
        if not isinstance(value, str):
            raise DialectError(f"must be a string, not {json_kind(value)}", path=join_path(path, i))
    return tuple(values)


def _thinking_config(body: Mapping[str, Any]) -> ThinkingConfig | None:
    thinking = _field(body, "thinking", "", (dict,), "an object")
    if thinking is None:
        return None
    mode = _THINKING_MODES.get(_required_str(thinking, "type", "thinking"))
    if mode is None:
        raise DialectError("must be enabled, disabled or adaptive", path="thinking.type")
    budget = _field(thinking, "budget_tokens", "thinking", (int,), "an integer")
    return ThinkingConfig(mode=mode, budget_tokens=budget)


def _tool_choice(body: Mapping[str, Any]) -> ToolChoice | None:
    choice = _field(body, "tool_choice", "", (dict,), "an object")
    if choice is None:
        return None
    mode = _CHOICE_MODES.get(_required_str(choice, "type", "tool_choice"))
    if mode is None:
        raise DialectError("must be auto, any, tool or none", path="tool_choice.type")
    if mode == "tool":
        return ToolChoice(mode, (_required_str(choice, "name", "tool_choice"),))
    return ToolChoice(mode)


def _output_schema(body: Mapping[str, Any]) -> OutputSchema | None:
    output = _field(body, "output_format", "", (dict,), "an object")
    if output is None:
        return None
    if output.get("type") != "json_schema" or "schema" not in output:
        raise DialectError("must be a json_schema with a schema", path="output_format")
    return OutputSchema(freeze(output["schema"]))


def _extra(body: Mapping[str, Any]) -> FrozenDict:
    """Unknown top-level fields in body order, and tool_choice when it has keys of its own."""
    fields = FrozenDict(
        (key, freeze(value))
        for key, value in body.items()
        if key not in _KNOWN_KEYS or (key == "tool_choice" and _choice_options(value))
    )
    return FrozenDict({AnthropicDialect.name: fields}) if fields else FrozenDict()


def _choice_options(choice: Any) -> dict[str, Any]:
    """The tool_choice keys the neutral ToolChoice has no field for."""
    if not isinstance(choice, dict):
        return {}
    return {key: value for key, value in choice.items() if key not in ("type", "name")}


def _history(messages: list[Any]) -> tuple[Message, ...]:
    names: dict[str, str] = {}  # call id -> function name, for the tool_result blocks
    out = []
    for k, message in enumerate(messages):
        role, content = _message(message, k)
        if isinstance(content, str):
            out.append(Message(_ROLES[role], (Text(content),)))
            continue
        path = join_path("messages", k, "content")
        parts = tuple(_part(block, join_path(path, j), names) for j, block in enumerate(content))
        out.append(Message(_ROLES[role], parts))
    return tuple(out)


def _part(block: Any, path: str, names: dict[str, str]) -> Part:
    if not isinstance(block, dict):
        raise DialectError(f"a content block must be an object, not {json_kind(block)}", path=path)
    kind = block.get("type")
    reader = _READERS.get(kind) if isinstance(kind, str) else None
    if reader is None:
        raise DialectError(f"unsupported content block type {kind!r}", path=join_path(path, "type"))
    return reader(block, path, names)


def _text(block: dict[str, Any], path: str, names: dict[str, str]) -> Part:
    return Text(_required_str(block, "text", path))


def _tool_use(block: dict[str, Any], path: str, names: dict[str, str]) -> Part:
    name = _required_str(block, "name", path)
    call_id: str | None = _field(block, "id", path, (str,), "a string")
    if "input" not in block:
        raise DialectError("the input field is missing", path=join_path(path, "input"))
    if call_id is not None:
        names[call_id] = name
    return FunctionCall(name, freeze(block["input"]), call_id)


def _tool_result(block: dict[str, Any], path: str, names: dict[str, str]) -> Part:
    call_id: str | None = _field(block, "tool_use_id", path, (str,), "a string")
    content = _field(block, "content", path, (str, list), "a string or an array of blocks")
    is_error = _field(block, "is_error", path, (bool,), "a boolean")
    return FunctionResponse(
        names.get(call_id, "") if call_id is not None else "",
        "" if content is None else freeze(content),
        call_id,
        bool(is_error),
    )


def _thinking(block: dict[str, Any], path: str, names: dict[str, str]) -> Part:
    signature = _field(block, "signature", path, (str,), "a string")
    return Thinking(_required_str(block, "thinking", path), signature)


def _redacted_thinking(block: dict[str, Any], path: str, names: dict[str, str]) -> Part:
    return Thinking(_required_str(block, "data", path), redacted=True)


def _image(block: dict[str, Any], path: str, names: dict[str, str]) -> Part:
    source = _field(block, "source", path, (dict,), "an object")
    path = join_path(path, "source")
    kind = None if source is None else source.get("type")
    if kind == "base64":
        mime_type = _field(source, "media_type", path, (str,), "a string")
        return Image(mime_type=mime_type, data=_required_str(source, "data", path))
    if kind == "url":
        return Image(url=_required_str(source, "url", path))
    raise DialectError("an image source must be of type base64 or url", path=path)


_READERS: Final[dict[str, Callable[[dict[str, Any], str, dict[str, str]], Part]]] = {
    "text": _text,
    "tool_use": _tool_use,
    "tool_result": _tool_result,
    "thinking": _thinking,
    "redacted_thinking": _redacted_thinking,
    "image": _image,
}


# --- neutral -> body ---------------------------------------------------------------------------


def _compact(**fields: Any) -> dict[str, Any]:
    """An object of the fields that are set, in argument order."""
    return {key: value for key, value in fields.items() if value is not None}


def _marked(block: dict[str, Any], marked: bool) -> dict[str, Any]:
    return {**block, _MARKER: _EPHEMERAL} if marked else block


def _render_system(system: tuple[str, ...], marks: frozenset[str]) -> Any:
    """None when empty; one unmarked block as a plain string; otherwise text blocks."""
    if not system:
        return None
    marked = {i for i in range(len(system)) if join_path("system", i) in marks}
    if "system" in marks:
        marked.add(len(system) - 1)
    if len(system) == 1 and not marked:
        return system[0]
    return [_marked({"type": "text", "text": text}, i in marked) for i, text in enumerate(system)]


def _render_tool(tool: Tool, marked: bool) -> dict[str, Any]:
    """A server tool from its kept declaration; a client tool with an object input_schema."""
    params = tool.parameters
    kind = params.get("type") if isinstance(params, dict) else None
    if isinstance(kind, str) and kind not in _SCHEMA_TYPES:
        return _marked(thaw(params), marked)
    schema = thaw(params if isinstance(params, dict) else _EMPTY_SCHEMA)
    out = _compact(name=tool.name, description=tool.description, input_schema=schema)
    return _marked(out, marked)


def _render_tool_choice(choice: ToolChoice | None, original: Json) -> dict[str, Any] | None:
    """The choice, plus the options (disable_parallel_tool_use) the body it came from had."""
    if choice is None:
        return None
    name = choice.names[0] if choice.mode == "tool" and choice.names else None
    out = _compact(type="tool" if name else _CHOICE_TYPES[choice.mode], name=name)
    return out | {key: thaw(value) for key, value in _choice_options(original).items()}


def _render_thinking(thinking: ThinkingConfig | None) -> dict[str, Any] | None:
    """A budget without a mode means enabled; effort has no Anthropic form here."""
    if thinking is None or (thinking.mode is None and thinking.budget_tokens is None):
        return None
    return _compact(type=thinking.mode or "enabled", budget_tokens=thinking.budget_tokens)


def _render_message(message: Message, marked: bool) -> dict[str, Any]:
    """A single unmarked text as a string; tool results first in user turns (the API's rule)."""
    role = "assistant" if message.role == "model" else "user"
    parts = message.parts
    if role == "user":
        parts = message.function_responses + tuple(
            p for p in parts if not isinstance(p, FunctionResponse)
        )
    if len(parts) == 1 and isinstance(parts[0], Text) and not marked:
        return {"role": role, "content": parts[0].text}
    blocks = [_render_part(part) for part in parts]
    if blocks:
        blocks[-1] = _marked(blocks[-1], marked)
    return {"role": role, "content": blocks}


def _render_part(part: Part) -> dict[str, Any]:
    if isinstance(part, Text):
        return {"type": "text", "text": part.text}
    if isinstance(part, Thinking):
        if part.redacted:
            return {"type": "redacted_thinking", "data": part.text}
        return _compact(type="thinking", thinking=part.text, signature=part.signature)
    if isinstance(part, FunctionCall):
        args = {} if part.args is None else thaw(part.args)
        return _compact(type="tool_use", id=part.id, name=part.name, input=args)
    if isinstance(part, FunctionResponse):
        content = _render_response(part.response)
        error = True if part.is_error else None
        return _compact(type="tool_result", tool_use_id=part.id, content=content, is_error=error)
    return {"type": "image", "source": _render_source(part)}


def _render_response(response: Json) -> Any:
    """A string or a block list as is; any other JSON as its compact encoding."""
    if isinstance(response, str | tuple):
        return thaw(response)
    return orjson.dumps(response).decode()


def _render_source(image: Image) -> dict[str, Any]:
    if image.url is not None:
        return {"type": "url", "url": image.url}
    return _compact(type="base64", media_type=image.mime_type, data=image.data)


DIALECT = AnthropicDialect()
