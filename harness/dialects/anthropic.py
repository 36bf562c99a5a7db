"""Anthropic messages (``POST /v1/messages``): tools, system and messages in cache order,
with ``cache_control`` markers audited apart from the prefix bytes.

References: the create-message request (https://docs.anthropic.com/en/api/messages) and
prompt caching (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching).

Mapping to the neutral model:

- user / assistant / system -> ``user`` / ``model`` / ``system`` (current programs send
  ``role: "system"`` messages inside the conversation); another role string is an error;
- text, thinking, redacted_thinking, image (base64 or url source), tool_use and tool_result
  blocks map to their neutral parts. tool_result -> FunctionResponse named after the earlier
  tool_use with its id ("" when none), its content string or block list (images, documents)
  as the response; unknown fields of tool_use / tool_result (``caller``) are kept in the
  part's ``extra["anthropic"]``;
- every other block (``document``, ``search_result``, ``server_tool_use``,
  ``web_search_tool_result``, ``web_fetch_tool_result``, ``code_execution_tool_result``,
  ``mcp_tool_use``, ``mcp_tool_result``, ``container_upload``, an image with a ``file``
  source, a text block with ``citations``, any type not known at all) is an ``Opaque`` part
  holding the block verbatim: a block is mapped to a neutral part only when that part renders
  back to the same bytes;
- each message keeps its body form in ``Message.wire`` so that it renders back verbatim;
- a server tool (``{"type": "web_search_20250305", ...}``) is a Tool whose ``parameters`` is its
  whole declaration; render tells it apart by a ``type`` that is no JSON Schema type;
- markers become ``Request.cache_breakpoints`` (a segment name when on its last block, else
  the block's path ``messages[3].content[0]``) with any marker other than
  ``{"type": "ephemeral"}`` (a ``ttl``) in ``Request.cache_control``; they render back where
  they were;
- unknown top-level fields (``output_config``, ``context_management``, ``container``,
  ``mcp_servers``, ``metadata``, ``service_tier``, a top-level ``cache_control``), and a named
  setting whose value the neutral settings cannot say (tool_choice with options), go to
  ``Settings.extra["anthropic"]``.

Cache facts (prompt caching reference above): the cache order is tools, system, messages; a
request carries at most 4 markers; a read looks back from each marker for the longest cached
prefix over at most 20 blocks; a marker's ``ttl`` is "5m" unless it says "1h". Blocks are
counted in cache order as: one per tool, one for a string system prompt or one per system
block, and per message one for a string content or one per top-level content block (a
tool_result with nested blocks is one block).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from itertools import repeat
from operator import contains
from typing import Any, ClassVar, Final, Literal

import orjson

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
    shown,
    thaw,
)
from ._base import CacheMarker, CacheScope, Dialect, DialectError, Family, Segment
from ._memo import Leading, Memo, PerBody, call_names, each
from ._per_message import once

__all__ = ["DIALECT", "AnthropicDialect"]

_MARKER: Final = "cache_control"
_EPHEMERAL: Final = FrozenDict({"type": "ephemeral"})
_ROLES: Final[dict[str, Literal["user", "model", "system"]]] = {
    "user": "user",
    "assistant": "model",
    "system": "system",
}
_WIRE_ROLES: Final = {"user": "user", "model": "assistant", "system": "system"}
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
    segment_families: ClassVar[Mapping[str, Family]] = {
        "tools": "tools",
        "system": "system",
        "messages": "history",
    }
    marker_limit = 4
    marker_lookback = 20
    marker_default_ttl = "5m"
    provider = "Anthropic"
    cache_guide = "https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching"
    cache_keys: ClassVar[Mapping[str, CacheScope]] = {
        "model": "request",
        "output_format": "request",
        "tool_choice": "history",
        "thinking": "history",
        "output_config": "history",
    }
    """Caches are per model; a changed tool choice or thinking configuration (enabled,
    budget, effort) invalidates the cached message blocks, tools and system stay cached;
    a changed structured-output format invalidates the conversation's cache."""

    def detect(self, body: Mapping[str, Any]) -> int:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return 0
        features = {key for key in _DETECT_KEYS if key in body}
        for tool in _dicts(body.get("tools")):
            features.update(key for key in ("input_schema", _MARKER) if key in tool)
        if any(_MARKER in block for block in _dicts(body.get("system"))):
            features.add(_MARKER)
        for message in body["messages"][:_DETECT_SAMPLE]:
            role = message.get("role") if isinstance(message, dict) else None
            if not isinstance(role, str) or role not in _ROLES:
                return 0
            for block in _dicts(message.get("content")):
                features.update(_block_features(block))
        return len(features)

    def segments(self, body: Mapping[str, Any]) -> tuple[Segment, ...]:
        messages = _messages(body)
        tools = _field(body, "tools", "", (list,), "an array") or []
        out = each(_TOOL_SEGMENTS, tools, _tool_segment)
        system = _field(body, "system", "", (str, list), "a string or an array of text blocks")
        if isinstance(system, str):
            out.append(Segment("system", system))
        elif system is not None:
            blocks = _unmarked_items(system, "system", "a system block")
            out.extend(Segment(join_path("system", i), block) for i, block in enumerate(blocks))
        out.extend(each(_SEGMENTS, messages, _message_segment))
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
        messages = body.get("messages")
        if isinstance(messages, list):
            marks = each(_MARKS, messages, _message_marks)
            names += [f"messages[{k}]" for k, (_, marked) in enumerate(marks) if marked]
        return tuple(names)

    def cache_marks(self, body: Mapping[str, Any]) -> tuple[CacheMarker, ...]:
        """Every marker with its block index in cache order (see the module docstring)."""
        out = []
        for segment, block, marker, _ in _marked_blocks(body):
            out.append(CacheMarker(segment, block, self.marker_ttl(marker), marker))
        return tuple(out)

    def to_request(self, body: Mapping[str, Any]) -> Request:
        messages = _messages(body)
        system, read_tools = _system(body), _read_tools(body)
        tools = tuple(tool for tool, _ in read_tools)
        settings = _settings(body)
        settings = settings.with_extra(self.name, _kept_head(body, system, read_tools))
        preset = Preset(system=system, tools=tools, settings=settings)
        names: list[str] = []
        controls: dict[str, Json] = {}
        for _, _, marker, name in _marked_blocks(body):
            names.append(name)
            if marker != _EPHEMERAL:
                controls[name] = freeze(marker)
        return Request(preset, _history(messages), tuple(names), FrozenDict(controls))

    def render(self, request: Request) -> bytes:
        preset, settings = request.preset, request.preset.settings
        marks = _Marks(request)
        own = settings.extra.get(self.name)
        extra: Mapping[str, Json] = own if isinstance(own, dict) else FrozenDict()
        kept_tools = _kept_tools(extra.get("tools"))
        tools = [
            marks.apply(join_path("tools", i), kept_tools.get(t) or _render_tool(t))
            for i, t in enumerate(preset.tools)
        ]
        output = settings.output_schema
        schema = None if output is None else thaw(output.schema)
        body = _compact(
            model=settings.model,
            max_tokens=settings.max_output_tokens,
            system=_render_system(preset.system, marks, extra.get("system")),
            tools=tools or None,
            tool_choice=_render_tool_choice(settings.tool_choice, extra.get("tool_choice")),
            thinking=_render_thinking(settings.thinking),
            temperature=settings.temperature,
            top_p=settings.top_p,
            top_k=settings.top_k,
            stop_sequences=None if settings.stop is None else list(settings.stop),
            output_format=None if output is None else {"type": "json_schema", "schema": schema},
        )
        body.update((key, thaw(value)) for key, value in extra.items() if key not in _HEAD_KEYS)
        body["messages"] = _render_history(request.history, marks)
        return dumps(body)


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
    """The role and content of ``messages[k]``, checked (the usual message inline: this
    runs once per message of long histories)."""
    if type(message) is dict:
        role, content = message.get("role"), message.get("content")
        if type(role) is str and role in _ROLES and isinstance(content, str | list):
            return role, content
    path = f"messages[{k}]"
    if not isinstance(message, dict):
        raise DialectError(f"a message must be an object, not {json_kind(message)}", path=path)
    role = message.get("role")
    if not isinstance(role, str) or role not in _ROLES:
        raise DialectError(
            f"unknown role {repr(role) if isinstance(role, str) else shown(role)}:"
            " Anthropic messages are user, assistant or system",
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


def _all_unmarked(items: list[Any]) -> bool:
    """Whether every item is a decoded object without a cache marker (in C: this runs for
    the blocks of every message)."""
    return _DICT_ONLY.issuperset(map(type, items)) and not any(
        map(contains, items, repeat(_MARKER))
    )


_DICT_ONLY: Final = frozenset({dict})


def _unmarked_items(items: list[Any], path: str, what: str) -> list[Any]:
    """Objects of an array with cache markers removed; the same list when none is marked."""
    if _all_unmarked(items):
        return items  # the usual array, in one pass
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


def _marked_blocks(body: Mapping[str, Any]) -> tuple[tuple[str, int, Any, str], ...]:
    """``_each_marked_block`` of the body, walked once per reading of it (``PerBody``)."""
    return _MARKED.once(body, lambda: tuple(_each_marked_block(body)))


_MARKED: PerBody[tuple[tuple[str, int, Any, str], ...]] = PerBody()


def _each_marked_block(body: Mapping[str, Any]) -> Iterator[tuple[str, int, Any, str]]:
    """(segment, block index, marker, breakpoint name) of each marked block, in cache order.

    Blocks are counted as the module docstring says; the breakpoint name is the segment's
    when the marker is on its last block, else the block's path. Never raises.
    """
    block = 0
    tools = body.get("tools")
    for i, tool in enumerate(tools if isinstance(tools, list) else ()):
        if isinstance(tool, dict) and _MARKER in tool:
            name = join_path("tools", i)
            yield name, block, tool[_MARKER], name
        block += 1
    system = body.get("system")
    if isinstance(system, str):
        block += 1
    for i, item in enumerate(system if isinstance(system, list) else ()):
        if isinstance(item, dict) and _MARKER in item:
            name = join_path("system", i)
            yield name, block, item[_MARKER], name
        block += 1
    messages = body.get("messages")
    if not isinstance(messages, list):
        return
    for k, (count, marked) in enumerate(each(_MARKS, messages, _message_marks)):
        if marked:  # the name built only for a marked message
            segment = f"messages[{k}]"
            for j, marker in marked:
                last = j == count - 1
                yield segment, block + j, marker, segment if last else f"{segment}.content[{j}]"
        block += count


def _message_marks(k: int, message: Any) -> tuple[int, tuple[tuple[int, Any], ...]]:
    """The blocks ``messages[k]`` counts in cache order, and (index, marker) of each of its
    marked blocks; never raises."""
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return 1, ()
    if _all_unmarked(content):
        return len(content), ()
    marked = tuple(
        (j, item[_MARKER])
        for j, item in enumerate(content)
        if isinstance(item, dict) and _MARKER in item
    )
    return len(content), marked


def _message_segment(k: int, message: Any) -> Segment:
    """The segment of ``messages[k]``: the message as sent, its blocks unmarked."""
    _, content = _message(message, k)
    return Segment(f"messages[{k}]", _unmarked_message(message, content, k))


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


def _read_tools(body: Mapping[str, Any]) -> list[tuple[Tool, bool]]:
    """Each tool, and whether it renders back to its declaration as sent (unmarked)."""
    tools = _field(body, "tools", "", (list,), "an array") or []
    return each(_TOOLS, tools, _read_tool)


def _read_tool(i: int, entry: Any) -> tuple[Tool, bool]:
    """``tools[i]`` and whether it renders back as sent; a declaration read before (by its
    bytes: a scenario's bodies repeat their tools) is not read again."""

    def read() -> tuple[Tool, bool]:
        tool = _tool(entry, join_path("tools", i))
        return tool, _same(_render_tool(tool), _unmarked(entry))

    return _DECLARED.once(entry, read)


_DECLARED: Memo[tuple[Tool, bool]] = Memo()
"""Tool declarations already read, by their bytes (their index names only a problem)."""


def _tool_segment(i: int, tool: Any) -> Segment:
    """The segment of ``tools[i]``: the declaration as sent, without its cache marker."""
    if not isinstance(tool, dict):
        raise DialectError(f"a tool must be an object, not {json_kind(tool)}", path=f"tools[{i}]")
    return Segment(f"tools[{i}]", _unmarked(tool))


_TOOLS: Leading[list[tuple[Tool, bool]]] = Leading()
_TOOL_SEGMENTS: Leading[list[Segment]] = Leading()
"""The tools of the body read last (``_read_tool``) and their segments, one per declaration:
each depends on its declaration and index alone."""


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
    named = _named_settings(body)
    return replace(named, extra=_extra(body, named))


def _named_settings(body: Mapping[str, Any]) -> Settings:
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


def _rendered_settings(named: Settings) -> dict[str, Any]:
    """The body of a request of ``named`` alone, decoded (read only); the one rendered for
    settings of the same repr before (a repr tells 1, 1.0 and True apart, and a tuple from
    a list: it is what ``named`` holds, field by field)."""
    key = repr(named).encode()
    held = _SETTINGS_RENDERED.get(key)
    if held is None:
        held = orjson.loads(DIALECT.render(Request(Preset(settings=named))))
        _SETTINGS_RENDERED.put(key, held)
    return held


_SETTINGS_RENDERED: Memo[dict[str, Any]] = Memo(limit=256)
"""Named settings rendered alone, by their repr: a scenario's bodies repeat them."""


def _extra(body: Mapping[str, Any], named: Settings) -> FrozenDict:
    """Unknown top-level fields in body order, and each named setting whose value renders
    back otherwise from the neutral settings (a tool_choice with options, a thinking object
    with fields of its own): render writes those as sent."""
    rendered = _rendered_settings(named)
    fields = FrozenDict(
        (key, freeze(value))
        for key, value in body.items()
        if key not in _KNOWN_KEYS
        or (key in _SETTING_KEYS and dumps(rendered.get(key)) != dumps(value))
    )
    return FrozenDict({AnthropicDialect.name: fields}) if fields else FrozenDict()


def _history(messages: list[Any]) -> tuple[Message, ...]:
    names: dict[str, str] = {}  # call id -> function name, for the tool_result blocks
    shared = _HISTORY.shared(messages)
    out = list(_HISTORY.values[:shared]) if _HISTORY.values is not None else []
    names.update(call_names(out))  # the calls of the messages taken as read
    for k in range(shared, len(messages)):
        message = messages[k]
        key = _READ.key(message)
        read = _READ.get(key)
        if read is None or not _same_names(read, names):
            role, content = _message(message, k)
            unmarked = _unmarked_message(message, content, k)
            frozen = freeze(unmarked)  # its parts take their values from it, frozen once
            wire = FrozenDict({AnthropicDialect.name: frozen})
            blocks = frozen["content"] if isinstance(frozen, FrozenDict) else None
            parts = _parts(unmarked["content"], k, names, blocks)
            read = _READ.put(key, Message(_ROLES[role], parts, wire))
        out.append(read)
    history = tuple(out)
    _HISTORY.keep(messages, history)
    return history


_READ: Memo[Message] = Memo()
"""Messages already read: a fork's bodies repeat the parent's messages."""
_HISTORY: Leading[tuple[Message, ...]] = Leading()
"""The messages of the history read last, one per body message: a message is read from it
and those before it alone, so the leading ones a body shares by object read the same."""
_SEGMENTS: Leading[list[Segment]] = Leading()
"""The history segments of the body read last, one per body message (see ``_HISTORY``)."""
_MARKS: Leading[list[tuple[int, tuple[tuple[int, Any], ...]]]] = Leading()
"""The blocks and markers of each message of the body read last (``_message_marks``)."""


def _same_names(message: Message, names: dict[str, str]) -> bool:
    """Whether ``message``, read before, reads the same after the calls in ``names``: each
    of its results names the function its id names now (its own calls included, in order).
    If so, ``names`` takes its calls, as reading it would have given them."""
    mine: dict[str, str] = {}
    for part in message.parts:
        if isinstance(part, FunctionCall) and part.id is not None:
            mine[part.id] = part.name
        elif (
            isinstance(part, FunctionResponse)
            and part.id is not None
            and mine.get(part.id, names.get(part.id, "")) != part.name
        ):
            return False
    names.update(mine)
    return True


def _parts(
    content: str | list[Any], k: int, names: dict[str, str], frozen: Json = None
) -> tuple[Part, ...]:
    """The parts of ``messages[k]``'s content; ``frozen`` is ``freeze(content)`` when the
    caller has it (the parts' values are then taken from it, not frozen again)."""
    if isinstance(content, str):
        return (Text(content),)
    frozen_blocks = frozen if isinstance(frozen, tuple) else (None,) * len(content)
    return tuple(
        _part(block, f"messages[{k}].content[{j}]", names, frozen_blocks[j])
        for j, block in enumerate(content)
    )


def _part(block: Any, path: str, names: dict[str, str], frozen: Json = None) -> Part:
    """The neutral part of an unmarked block: a known one only when it renders back to the
    same bytes (calls and responses keep their unknown fields in ``extra``), else Opaque."""
    if _plain_text(block):
        return Text(block["text"])  # renders back as ``{"type":"text","text":...}``: itself
    if not isinstance(block, dict):
        raise DialectError(f"a content block must be an object, not {json_kind(block)}", path=path)
    kind = block.get("type")
    if not isinstance(kind, str):
        reason = f"a content block's type must be a string, not {json_kind(kind)}"
        raise DialectError(reason, path=join_path(path, "type"))
    reader = _READERS.get(kind)
    part = None if reader is None else reader(block, path, names, frozen)
    if part is None or not (
        isinstance(part, FunctionCall | FunctionResponse) or _same(_render_part(part), block)
    ):
        return Opaque(kind, freeze(block) if frozen is None else frozen, AnthropicDialect.name)
    return part


def _plain_text(block: Any) -> bool:
    """Whether ``block`` is ``{"type": "text", "text": <a string>}``, in that key order."""
    return (
        type(block) is dict
        and len(block) == 2
        and block.get("type") == "text"
        and type(block.get("text")) is str
        and next(iter(block)) == "type"
    )


def _same(a: Any, b: Any) -> bool:
    """Whether two JSON values encode to the same bytes (key order included)."""
    return dumps(a) == dumps(b)


def _extras(block: dict[str, Any], known: tuple[str, ...], frozen: Json = None) -> FrozenDict:
    """The block's fields outside ``known``, in body order, keyed by this dialect (their
    values from ``frozen``, the block frozen, when given)."""
    if isinstance(frozen, FrozenDict):
        rest = {key: value for key, value in frozen.items() if key not in known}
    else:
        rest = {key: freeze(value) for key, value in block.items() if key not in known}
    return FrozenDict({AnthropicDialect.name: FrozenDict(rest)}) if rest else FrozenDict()


_CALL_KEYS: Final = ("type", "id", "name", "input")
_HEAD_KEYS: Final = frozenset({"system", "tools"})
"""Keys of our ``Settings.extra`` entry holding the head as sent, not top-level fields."""
_RESPONSE_KEYS: Final = ("type", "tool_use_id", "content", "is_error")


def _text(block: dict[str, Any], path: str, names: dict[str, str], frozen: Json) -> Part | None:
    return Text(_required_str(block, "text", path))


def _tool_use(block: dict[str, Any], path: str, names: dict[str, str], frozen: Json) -> Part | None:
    name = _required_str(block, "name", path)
    call_id: str | None = _field(block, "id", path, (str,), "a string")
    if "input" not in block:
        raise DialectError("the input field is missing", path=join_path(path, "input"))
    if call_id is not None:
        names[call_id] = name
    args = frozen["input"] if isinstance(frozen, FrozenDict) else freeze(block["input"])
    return FunctionCall(name, args, call_id, extra=_extras(block, _CALL_KEYS, frozen))


def _tool_result(
    block: dict[str, Any], path: str, names: dict[str, str], frozen: Json
) -> Part | None:
    call_id: str | None = _field(block, "tool_use_id", path, (str,), "a string")
    content = _field(block, "content", path, (str, list), "a string or an array of blocks")
    is_error = _field(block, "is_error", path, (bool,), "a boolean")
    return FunctionResponse(
        names.get(call_id, "") if call_id is not None else "",
        "" if content is None else _frozen_field(block, frozen, "content"),
        call_id,
        bool(is_error),
        _extras(block, _RESPONSE_KEYS, frozen),
    )


def _thinking(block: dict[str, Any], path: str, names: dict[str, str], frozen: Json) -> Part | None:
    signature = _field(block, "signature", path, (str,), "a string")
    return Thinking(_required_str(block, "thinking", path), signature)


def _redacted_thinking(
    block: dict[str, Any], path: str, names: dict[str, str], frozen: Json
) -> Part | None:
    return Thinking(_required_str(block, "data", path), redacted=True)


def _image(block: dict[str, Any], path: str, names: dict[str, str], frozen: Json) -> Part | None:
    """A base64 or url source; another source (``file``) has no neutral form: None."""
    source = _field(block, "source", path, (dict,), "an object")
    path = join_path(path, "source")
    kind = None if source is None else source.get("type")
    if kind == "base64":
        mime_type = _field(source, "media_type", path, (str,), "a string")
        return Image(mime_type=mime_type, data=_required_str(source, "data", path))
    if kind == "url":
        return Image(url=_required_str(source, "url", path))
    return None


_Reader = Callable[[dict[str, Any], str, dict[str, str], Json], Part | None]
"""A block's reader: the block, its path, the call names so far, the block frozen (or None)."""


def _frozen_field(block: dict[str, Any], frozen: Json, key: str) -> Json:
    """``freeze(block[key])``, taken from ``frozen`` (the block frozen) when given."""
    return frozen[key] if isinstance(frozen, FrozenDict) else freeze(block[key])


_READERS: Final[dict[str, _Reader]] = {
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


class _Marks:
    """Where a request's cache markers go: by segment name (its last block) or block path."""

    def __init__(self, request: Request) -> None:
        self.names = frozenset(request.cache_breakpoints)
        self.controls = request.cache_control
        # every name, and what comes before each ``.content[`` in one: a segment not among
        # these has no marked block, and ``blocks`` builds no name for it
        self.touched = frozenset(_named_segments(self.names))

    def marker(self, name: str) -> Any:
        return thaw(self.controls.get(name, _EPHEMERAL))

    def apply(self, name: str, block: dict[str, Any]) -> dict[str, Any]:
        """``block`` with the marker of breakpoint ``name`` when there is one."""
        return {**block, _MARKER: self.marker(name)} if name in self.names else block

    def blocks(self, segment: str, count: int) -> dict[int, str]:
        """The marked blocks of a segment of ``count`` blocks, by index: breakpoint name."""
        if segment not in self.touched:
            return {}
        out = {j: f"{segment}.content[{j}]" for j in range(count)}
        marked = {j: name for j, name in out.items() if name in self.names}
        if segment in self.names and count:
            marked[count - 1] = segment
        return marked


def _named_segments(names: Iterable[str]) -> Iterator[str]:
    """Each name, and each of its heads before a ``.content[``: a block's name is its
    segment's followed by ``.content[j]``."""
    for name in names:
        yield name
        at = name.find(_BLOCK_STEP)
        while at >= 0:
            yield name[:at]
            at = name.find(_BLOCK_STEP, at + 1)


_BLOCK_STEP: Final = ".content["


def _kept_head(
    body: Mapping[str, Any], system: tuple[str, ...], tools: list[tuple[Tool, bool]]
) -> dict[str, Json]:
    """The system and tools as sent (unmarked) when they render back otherwise: a one-block
    system array, system blocks or tools with fields of their own. Kept in ``extra``."""
    out: dict[str, Json] = {}
    raw_system = body.get("system")
    if isinstance(raw_system, list):
        unmarked = [_unmarked(block) for block in raw_system]
        if not _same(_render_system(system, _Marks(Request(Preset())), None), unmarked):
            out["system"] = freeze(unmarked)
    if not all(same for _, same in tools):
        out["tools"] = freeze([_unmarked(tool) for tool in body.get("tools") or ()])
    return out


def _kept_tools(kept: Json) -> dict[Tool, dict[str, Any]]:
    """Each kept tool declaration by the Tool it reads as."""
    out: dict[Tool, dict[str, Any]] = {}
    for i, raw in enumerate(kept if isinstance(kept, tuple) else ()):
        try:
            out.setdefault(_tool(thaw(raw), join_path("tools", i)), thaw(raw))
        except DialectError:
            continue
    return out


def _render_system(system: tuple[str, ...], marks: _Marks, kept: Json) -> Any:
    """None when empty; one unmarked block as a plain string; otherwise text blocks. The
    system as sent (``kept``) while its texts are still ``system``."""
    if not system:
        return None
    marked = {i: join_path("system", i) for i in range(len(system))}
    marked = {i: name for i, name in marked.items() if name in marks.names}
    if "system" in marks.names:
        marked[len(system) - 1] = "system"
    blocks: list[Any] = [{"type": "text", "text": text} for text in system]
    if isinstance(kept, tuple) and len(kept) == len(system):
        try:
            texts = tuple(_system_text(thaw(b), join_path("system", i)) for i, b in enumerate(kept))
        except DialectError:
            texts = ()
        if texts == system:
            blocks = [thaw(block) for block in kept]
    elif len(system) == 1 and not marked:
        return system[0]
    for i, name in marked.items():
        blocks[i] = {**blocks[i], _MARKER: marks.marker(name)}
    return blocks


def _render_tool(tool: Tool) -> dict[str, Any]:
    """A server tool from its kept declaration; a client tool with an object input_schema."""
    params = tool.parameters
    kind = params.get("type") if isinstance(params, dict) else None
    if isinstance(kind, str) and kind not in _SCHEMA_TYPES:
        out: dict[str, Any] = thaw(params)
        return out
    schema = thaw(params if isinstance(params, dict) else _EMPTY_SCHEMA)
    return _compact(name=tool.name, description=tool.description, input_schema=schema)


def _render_tool_choice(choice: ToolChoice | None, original: Json) -> dict[str, Any] | None:
    """The choice; a body's own tool_choice with options is kept in ``extra`` instead."""
    if choice is None:
        return None
    name = choice.names[0] if choice.mode == "tool" and choice.names else None
    return _compact(type="tool" if name else _CHOICE_TYPES[choice.mode], name=name)


def _render_thinking(thinking: ThinkingConfig | None) -> dict[str, Any] | None:
    """A budget without a mode means enabled; effort has no Anthropic form here."""
    if thinking is None or (thinking.mode is None and thinking.budget_tokens is None):
        return None
    return _compact(type=thinking.mode or "enabled", budget_tokens=thinking.budget_tokens)


def _render_history(history: tuple[Message, ...], marks: _Marks) -> list[dict[str, Any]]:
    """Each message from its kept body form while that still reads back as the message, else
    from its parts; then its markers."""
    names: dict[str, str] = {}
    out = []
    for k, message in enumerate(history):
        body = once(message, _render_unmarked, names)
        for call in message.function_calls:
            if call.id is not None:
                names[call.id] = call.name
        out.append(_mark_message(body, f"messages[{k}]", marks))
    return out


def _render_unmarked(message: Message, names: dict[str, str]) -> dict[str, Any]:
    """The message without markers: the same wherever it is (its index names only a
    problem of its kept form, which is then not used), given the call ``names`` before it."""
    return _kept_form(message, 0, names) or _render_message(message)


def _kept_form(message: Message, k: int, names: dict[str, str]) -> dict[str, Any] | None:
    """The message's ``wire`` form when it still reads back as ``message``."""
    kept = message.wire.get(AnthropicDialect.name)
    if not isinstance(kept, FrozenDict):
        return None
    raw: dict[str, Any] = thaw(kept)
    try:
        role, content = _message(raw, k)
        same = _ROLES[role] == message.role and _parts(content, k, names) == message.parts
    except DialectError:
        return None
    return raw if same else None


def _mark_message(body: dict[str, Any], segment: str, marks: _Marks) -> dict[str, Any]:
    content = body["content"]
    count = 1 if isinstance(content, str) else len(content)
    marked = marks.blocks(segment, count)
    if not marked:
        return body
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    for j, name in marked.items():
        blocks[j] = {**blocks[j], _MARKER: marks.marker(name)}
    return {**body, "content": blocks}


def _render_message(message: Message) -> dict[str, Any]:
    """A single text as a string; tool results first in user turns (the API's rule)."""
    role = _WIRE_ROLES[message.role]
    parts = message.parts
    if role == "user":
        parts = message.function_responses + tuple(
            p for p in parts if not isinstance(p, FunctionResponse)
        )
    if len(parts) == 1 and isinstance(parts[0], Text):
        return {"role": role, "content": parts[0].text}
    return {"role": role, "content": [_render_part(part) for part in parts]}


def _own_extra(extra: FrozenDict) -> dict[str, Any]:
    own = extra.get(AnthropicDialect.name)
    return thaw(own) if isinstance(own, FrozenDict) else {}


def _render_part(part: Part) -> dict[str, Any]:
    if isinstance(part, Text):
        return {"type": "text", "text": part.text}
    if isinstance(part, Opaque):
        own = part.own_block(AnthropicDialect.name)
        return own if own is not None else {"type": "text", "text": part.as_text}
    if isinstance(part, Thinking):
        if part.redacted:
            return {"type": "redacted_thinking", "data": part.text}
        return _compact(type="thinking", thinking=part.text, signature=part.signature)
    if isinstance(part, FunctionCall):
        args = {} if part.args is None else thaw(part.args)
        call = _compact(type="tool_use", id=part.id, name=part.name, input=args)
        return call | _own_extra(part.extra)
    if isinstance(part, FunctionResponse):
        content = _render_response(part.response)
        error = True if part.is_error else None
        result = _compact(type="tool_result", tool_use_id=part.id, content=content, is_error=error)
        return result | _own_extra(part.extra)
    return {"type": "image", "source": _render_source(part)}


def _render_response(response: Json) -> Any:
    """A string or a block list as is; any other JSON as its compact encoding."""
    if isinstance(response, str | tuple):
        return thaw(response)
    return dumps(response).decode()


def _render_source(image: Image) -> dict[str, Any]:
    if image.url is not None:
        return {"type": "url", "url": image.url}
    return _compact(type="base64", media_type=image.mime_type, data=image.data)


DIALECT = AnthropicDialect()
