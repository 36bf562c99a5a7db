"""OpenAI Responses (``POST /v1/responses``) as a dialect: what codex and the Agents SDK send.

Mapping to the neutral model:

- ``instructions`` is the first system block; a leading run of ``system``/``developer``
  message items of text only adds one block per text; a later one is a neutral ``system``
  message;
- consecutive model-side items (``reasoning``, assistant ``message``, ``function_call``,
  ``custom_tool_call``, any other item type not ending in ``_output``) form one ``model``
  message: reasoning -> Thinking (summary texts, ``encrypted_content`` as its signature),
  ``output_text`` -> Text, calls -> FunctionCall (``call_id`` as the id, a call's
  ``namespace``, the tool group it names, in ``extra``);
- ``function_call_output`` / ``custom_tool_call_output`` items (and other ``*_output`` items)
  with the user message right after them form one neutral user message;
- an item or a content part the neutral model has no name for is an ``Opaque`` part holding
  it verbatim; every neutral message keeps the items it was read from in ``Message.wire``;
- ``text.format`` is a prefix segment (the structured-output schema is cached with the
  prompt); ``reasoning.effort`` is the thinking effort; other fields go to
  ``Settings.extra["openai-responses"]`` in body order.

Cache markers are OpenAI's explicit breakpoints: ``prompt_cache_breakpoint`` on a content
part or a tool-output item, removed from the segments and audited by ``cache-markers``. An
item's ``id`` and ``status`` are the API's bookkeeping, not prompt: they are left out of the
segments too (a runtime that gives its copy of an item a fresh id keeps the prefix).

A body with ``previous_response_id`` continues a response stored on the server: its prefix is
that response's input and output followed by this body's ``input`` (``continued`` and
``expand`` say so; docs/dialects.md has what such a fork must send).

Reference: https://platform.openai.com/docs/api-reference/responses/create
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, Literal

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
    thaw,
)
from ._base import CacheMarker, CacheScope, Dialect, DialectError, Family, Segment
from ._memo import Leading, Memo, PerBody, each, message_once, resume_taken
from ._openai_reading import absorb_system as _absorb_system
from ._openai_reading import arguments as _arguments
from ._openai_reading import field as _field
from ._openai_reading import obj as _object
from ._openai_reading import show as _show
from ._openai_reading import string as _string
from ._per_message import alone

__all__ = ["DIALECT", "OpenAIResponses"]

_NAME = "openai-responses"
_ROLES = ("user", "assistant", "system", "developer")
_SYSTEM_ROLES = ("system", "developer")
_MODES: tuple[Literal["auto", "none", "required"], ...] = ("auto", "none", "required")
_BREAKPOINT = "prompt_cache_breakpoint"
_CALL_TYPES = ("function_call", "custom_tool_call")
_OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")
_SETTING_KEYS = (
    *("model", "temperature", "top_p", "max_output_tokens", "tool_choice"),
    *("parallel_tool_calls", "prompt_cache_key", "prompt_cache_retention"),
    *("prompt_cache_options", "previous_response_id", "conversation", "store", "include"),
    *("truncation", "service_tier", "max_tool_calls", "top_logprobs", "background"),
)
_OWN_FIELDS = frozenset(
    {"model", "instructions", "input", "tools", "tool_choice", "text", "reasoning"}
    | {"temperature", "top_p", "max_output_tokens"}
)
"""Top-level fields that render always writes from the neutral model, never from ``extra``."""
_FUNCTION_KEYS = ("type", "name", "description", "parameters")
_TOOL_EXTRAS = "tools"
_SYSTEM_KEPT = "system_items"
"""Reserved ``extra`` key: ``instructions`` and the leading system items as sent, when they
would render back otherwise."""
_CHOICE_KEPT = "tool_choice"
_SCHEMA_TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})
_TEXT_PARTS = ("input_text", "output_text")
_DETECT_FIELDS = (
    *("instructions", "max_output_tokens", "previous_response_id", "store", "include"),
    *("truncation", "prompt_cache_options", "conversation"),
)
_DETECT_ITEMS = frozenset(
    {"function_call", "function_call_output", "reasoning", "custom_tool_call"}
    | {"custom_tool_call_output", "input_text", "output_text", "input_image", "input_file"}
)
_DETECT_SAMPLE = 64
_DEFAULT_TTL = "30m"
_BOOKKEEPING = ("id", "status")


class OpenAIResponses(Dialect):
    """The Responses body: ``instructions``, ``input`` items, flat function ``tools``."""

    name = _NAME
    title = "OpenAI Responses"
    segment_families: ClassVar[Mapping[str, Family]] = {
        "instructions": "system",
        "tools": "tools",
        "text": "settings",
        "input": "history",
    }
    system_roles = _SYSTEM_ROLES
    marker_limit = 4
    marker_lookback = None
    marker_default_ttl = _DEFAULT_TTL
    provider = "OpenAI"
    cache_guide = "https://platform.openai.com/docs/guides/prompt-caching"
    wire_runs: ClassVar[bool] = True
    cache_keys: ClassVar[Mapping[str, CacheScope]] = {
        "model": "request",
        "prompt_cache_key": "request",
        "reasoning.effort": "request",
    }
    """As for chat completions: per model, routed by ``prompt_cache_key``. The reasoning
    effort is rendered into the model's system header ahead of the instructions (OpenAI's
    harmony format), so a child with another effort reads none of the parent's prefix."""

    def detect(self, body: Mapping[str, Any]) -> int:
        """Count the features only Responses bodies have; 0 without ``input``."""
        if not isinstance(body, Mapping) or "messages" in body or "contents" in body:
            return 0
        items = body.get("input")
        if not isinstance(items, list | str):
            return 0
        found = {key for key in _DETECT_FIELDS if key in body}
        text = body.get("text")
        if isinstance(text, dict) and "format" in text:
            found.add("text.format")
        if isinstance(body.get("reasoning"), dict):
            found.add("reasoning")
        tools = body.get("tools")
        if isinstance(tools, list) and any(
            isinstance(t, dict) and t.get("type") == "function" and "name" in t for t in tools
        ):
            found.add("flat function tools")
        for item in items[:_DETECT_SAMPLE] if isinstance(items, list) else ():
            if isinstance(item, dict):
                found.update(_item_features(item))
        return max(len(found), 1)

    def segments(self, body: Mapping[str, Any]) -> tuple[Segment, ...]:
        """``instructions``, tools, ``text.format``, then every input item, markers removed."""
        items = _envelope(body)
        out = []
        if body.get("instructions") is not None:
            out.append(Segment("instructions", body["instructions"]))
        for i, tool in enumerate(body.get("tools") or ()):
            out.append(Segment(f"tools[{i}]", tool))
        text = body.get("text")
        if isinstance(text, dict) and text.get("format") is not None:
            out.append(Segment("text.format", text["format"]))
        if isinstance(items, str):  # the same prompt as one user message: the same segment
            out.append(Segment("input[0]", {"role": "user", "content": items}))
            return tuple(out)
        out.extend([segment for _, segment in _checked(items)])
        return tuple(out)

    def settings(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The cache-relevant fields outside the prefix, raw; each field of ``reasoning`` and of
        ``text`` (but its format, a prefix segment) by its own dotted name."""
        out = {key: body[key] for key in _SETTING_KEYS if key in body}
        for nested in ("reasoning", "text"):
            value = body.get(nested)
            if isinstance(value, dict):
                out.update((f"{nested}.{k}", v) for k, v in value.items() if k != "format")
            elif value is not None:
                out[nested] = value
        return out

    def cache_markers(self, body: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.segment for m in self.cache_marks(body)))

    def cache_marks(self, body: Mapping[str, Any]) -> tuple[CacheMarker, ...]:
        """Every breakpoint with its block index in cache order: one block for the
        instructions, each tool and the format; per item one for a string content or one per
        content part, and one for any other item. The ttl defaults to the request's
        ``prompt_cache_options.ttl``, else 30m. Never raises."""
        options = body.get("prompt_cache_options")
        default = options.get("ttl") if isinstance(options, dict) else None
        ttl = default if isinstance(default, str) else _DEFAULT_TTL
        out = []
        for segment, block, marker in _marked_blocks(body):
            own = marker.get("ttl") if isinstance(marker, dict) else None
            out.append(CacheMarker(segment, block, own if isinstance(own, str) else ttl, marker))
        return tuple(out)

    def continued(self, body: Mapping[str, Any]) -> str | None:
        """The stored response a body continues (``previous_response_id``), if any."""
        value = body.get("previous_response_id") if isinstance(body, Mapping) else None
        return value if isinstance(value, str) and value else None

    def expand(
        self, body: Mapping[str, Any], before: Mapping[str, Any], answer: Sequence[Message]
    ) -> dict[str, Any]:
        """The body as the provider reads a continuation: the input of the request it
        continues (``before``, itself expanded), the answer to it (``answer``, rendered as
        output items) and this body's own ``input``, without ``previous_response_id``.
        Instructions and tools are not inherited: they are the body's own, as the provider
        uses them."""
        stored = _items(_envelope(before))
        output = orjson.loads(self.render(Request(Preset(), tuple(answer))))["input"]
        own = _items(_envelope(body))
        expanded = {k: v for k, v in body.items() if k != "previous_response_id"}
        expanded["input"] = [*stored, *output, *own]
        return expanded

    def to_request(self, body: Mapping[str, Any]) -> Request:
        """The body in the neutral model; ``DialectError`` names the path of a bad part."""
        items, kinds = _kinded(_envelope(body))
        instructions = _instructions(body)
        system, history = _history(items, instructions, reuse=True, kinds=kinds)
        tools, tool_extras = _tools(body.get("tools") or ())
        settings = _settings(body, tool_extras)
        leading = items[: _leading_count(items)]
        if _render_system(system) != (body.get("instructions"), leading):
            kept = FrozenDict({"instructions": body.get("instructions"), "items": freeze(leading)})
            settings = settings.with_extra(self.name, {_SYSTEM_KEPT: kept})
        names = tuple(dict.fromkeys(m.segment for m in self.cache_marks(body)))
        return Request(Preset(system=system, tools=tools, settings=settings), history, names)

    def render(self, request: Request) -> bytes:
        """The compact body: model, instructions, input, tools, choice, text, reasoning,
        sampling, then extras. Breakpoints render from the messages' wire forms."""
        preset, settings = request.preset, request.preset.settings
        system, history = _absorb_system(preset.system, request.history)
        own = settings.extra.get(self.name)
        extra: Mapping[str, Any] = own if isinstance(own, dict) else {}
        body: dict[str, Any] = {} if settings.model is None else {"model": settings.model}
        instructions, leading = _kept_system(extra.get(_SYSTEM_KEPT), system)
        if instructions is not None:
            body["instructions"] = instructions
        body["input"] = [*leading, *_render_history(history)]
        if preset.tools:
            body["tools"] = [_render_tool(t, extra.get(_TOOL_EXTRAS)) for t in preset.tools]
        choice = _render_tool_choice(settings.tool_choice, extra.get(_CHOICE_KEPT))
        if choice is not None:
            body["tool_choice"] = choice
        text = _render_text(settings.output_schema, extra.get("text"))
        if text:
            body["text"] = text
        reasoning = _render_reasoning(settings.thinking, extra.get("reasoning"))
        if reasoning:
            body["reasoning"] = reasoning
        body.update(_render_sampling(settings))
        for key, value in extra.items():
            if key not in _OWN_FIELDS and key not in (_SYSTEM_KEPT, _TOOL_EXTRAS, _CHOICE_KEPT):
                body.setdefault(key, value)
        return dumps(body)


# --- validation helpers ---------------------------------------------------------------


def _envelope(body: Mapping[str, Any]) -> list[Any] | str:
    """Check the top-level fields' types and return ``input`` (an array or a string)."""
    items: list[Any] | str = _field(
        body, "input", (list, str), "an array of input items or a string", required=True
    )
    _string(body, "model")
    _string(body, "instructions")
    _string(body, "previous_response_id")
    for i, tool in enumerate(_field(body, "tools", (list,), "an array of tools") or ()):
        if not isinstance(tool, dict):
            _object(tool, f"tools[{i}]")  # raises: the path built only then
    _field(body, "text", (dict,), "an object")
    _field(body, "reasoning", (dict,), "an object")
    text = body.get("text")
    if isinstance(text, dict):
        _field(text, "format", (dict,), "an object", "text")
    return items


def _kind(item: dict[str, Any]) -> Any:
    """An item's type; a message may leave it out (the API's easy input form)."""
    return item.get("type", "message" if "role" in item else None)


def _checked_kind(item: Any, k: int) -> str:
    """Validate one item's shape (object, string type, a message's role and content) and
    return its type. Runs once per item of long histories, so errors are built on failure."""
    if not isinstance(item, dict):
        raise DialectError(
            f"an input item must be a JSON object, not {json_kind(item)}", path=f"input[{k}]"
        )
    kind = _kind(item)
    if not isinstance(kind, str):
        raise DialectError(
            f"an item's type must be a string; it is {_show(kind)}", path=f"input[{k}]"
        )
    if kind == "message":
        role = item.get("role")
        if role not in _ROLES:
            expected = ", ".join(_ROLES)
            raise DialectError(
                f"role is {_show(role)}; expected one of {expected}", path=f"input[{k}].role"
            )
        if not isinstance(item.get("content"), str | list):
            content = item.get("content")
            raise DialectError(
                f"{role} content must be a string or an array of parts; it is "
                + ("missing" if "content" not in item else json_kind(content)),
                path=f"input[{k}].content",
            )
    return kind


def _item_read(k: int, item: Any) -> tuple[str, Segment]:
    """The type of ``input[k]``, checked, and its segment: the item as it reaches the model.

    The usual item (a decoded object with a string type, a message with a known role and
    a string or array content) has its type checked inline; any other takes
    ``_checked_kind``, which raises as it must."""
    kind = _kind(item) if type(item) is dict else None
    if type(kind) is not str or (
        kind == "message"
        and (item.get("role") not in _ROLES or type(item.get("content")) not in _CONTENT_TYPES)
    ):
        kind = _checked_kind(item, k)
    return kind, Segment(f"input[{k}]", _prompted(item))


_CONTENT_TYPES = frozenset({str, list})
"""A message content's types as decoded (a subclass takes ``_checked_kind``)."""


def _checked(items: list[Any]) -> list[tuple[str, Segment]]:
    """``_item_read`` of each item, raising at the first bad one."""
    return each(_CHECKED, items, _item_read)


def _items(items: list[Any] | str) -> list[Any]:
    """``input`` as a list of items: a string is one user message."""
    return _kinded(items)[0]


def _kinded(items: list[Any] | str) -> tuple[list[Any], list[str]]:
    """``input`` as a list of items (``_items``) and the type of each, checked."""
    listed = [{"role": "user", "content": items}] if isinstance(items, str) else items
    return listed, [kind for kind, _ in _checked(listed)]


_CHECKED: Leading[list[tuple[str, Segment]]] = Leading()
_MARKS: Leading[list[tuple[int, tuple[tuple[int, Any], ...]]]] = Leading()
"""The types and segments, and the breakpoints (``_item_marks``) of the items read last,
one per item: each depends on its item and index alone, so the leading items a body shares
with those by object give them again (and ``segments``, ``to_request`` check an item once)."""


def _instructions(body: Mapping[str, Any]) -> str | None:
    value = body.get("instructions")
    return value if isinstance(value, str) else None


# --- markers ----------------------------------------------------------------------------


def _prompted(item: dict[str, Any]) -> dict[str, Any]:
    """The item as it reaches the model: without breakpoints, and without the ``id`` and
    ``status`` the API keeps for its own bookkeeping (an ``item_reference``'s id is its
    content, and stays)."""
    item = _unmarked(item)
    if item.get("type") == "item_reference" or not ("id" in item or "status" in item):
        return item
    return {k: v for k, v in item.items() if k not in _BOOKKEEPING}


def _unmarked(item: dict[str, Any]) -> dict[str, Any]:
    """The item without ``prompt_cache_breakpoint`` on itself or its content parts."""
    if _BREAKPOINT not in item and not _has_marked_part(item):
        return item
    out = {k: v for k, v in item.items() if k != _BREAKPOINT}
    for key in ("content", "output"):
        parts = out.get(key)
        if isinstance(parts, list):
            out[key] = [
                {k: v for k, v in p.items() if k != _BREAKPOINT} if isinstance(p, dict) else p
                for p in parts
            ]
    return out


def _has_marked_part(item: dict[str, Any]) -> bool:
    """Whether a part of the item's ``content`` or ``output`` holds a breakpoint."""
    for key in ("content", "output"):
        parts = item.get(key)
        if isinstance(parts, list):
            for part in parts:
                if isinstance(part, dict) and _BREAKPOINT in part:
                    return True
    return False


def _marked_blocks(body: Mapping[str, Any]) -> tuple[tuple[str, int, Any], ...]:
    """``_each_marked_block`` of the body, walked once per reading of it (``PerBody``)."""
    return _MARKED.once(body, lambda: tuple(_each_marked_block(body)))


_MARKED: PerBody[tuple[tuple[str, int, Any], ...]] = PerBody()


def _each_marked_block(body: Mapping[str, Any]) -> Iterator[tuple[str, int, Any]]:
    """(segment, block index, marker) of each breakpoint, in cache order. Never raises."""
    block = 1 if isinstance(body.get("instructions"), str) else 0
    tools = body.get("tools")
    block += len(tools) if isinstance(tools, list) else 0
    text = body.get("text")
    block += 1 if isinstance(text, dict) and text.get("format") is not None else 0
    items = body.get("input")
    if not isinstance(items, list):
        return
    for k, (count, marks) in enumerate(each(_MARKS, items, _item_marks)):
        for at, marker in marks:
            yield f"input[{k}]", block + at, marker
        block += count


def _item_marks(k: int, item: Any) -> tuple[int, tuple[tuple[int, Any], ...]]:
    """The blocks an item counts, and (block within it, marker) of each breakpoint it holds
    in cache order: its parts', then its own on its last block. Never raises."""
    if not isinstance(item, dict):
        return 1, ()
    parts = item.get("content", item.get("output"))
    marks: list[tuple[int, Any]] = []
    count = 1
    if isinstance(parts, list) and parts:
        count = len(parts)
        marks = [
            (j, part[_BREAKPOINT])
            for j, part in enumerate(parts)
            if isinstance(part, dict) and _BREAKPOINT in part
        ]
    if _BREAKPOINT in item:
        marks.append((count - 1, item[_BREAKPOINT]))
    return count, tuple(marks)


# --- body -> neutral --------------------------------------------------------------------


def _is_system_text(item: Any) -> bool:
    """A system/developer message of text only: a system block (or blocks)."""
    if not isinstance(item, dict) or _kind(item) != "message":
        return False
    if item.get("role") not in _SYSTEM_ROLES:
        return False
    content = item.get("content")
    return isinstance(content, str) or (
        isinstance(content, list)
        and all(isinstance(p, dict) and p.get("type") == "input_text" for p in content)
    )


def _leading_count(items: list[Any]) -> int:
    k = 0
    while k < len(items) and _is_system_text(items[k]):
        k += 1
    return k


def _side(kind: str, item: dict[str, Any]) -> Literal["model", "user", "message"]:
    """Whose an item is: the model's (calls, reasoning, unknown items), the user's (tool
    outputs), or a message (by its role)."""
    if kind == "message":
        return "model" if item.get("role") == "assistant" else "message"
    if kind in _OUTPUT_TYPES or kind.endswith("_output"):
        return "user"
    return "model"


_HISTORY: Leading[tuple[tuple[Message, ...], tuple[int, ...]]] = Leading()
"""The items ``to_request`` read last, the neutral history they gave and where each
neutral message's run of items ends (see ``_history``)."""


def _history(
    items: list[Any],
    instructions: str | None = None,
    *,
    leading: bool = True,
    reuse: bool = False,
    kinds: list[str] | None = None,
) -> tuple[tuple[str, ...], tuple[Message, ...]]:
    """The system blocks and the neutral history, each message with the items it was read
    from as its ``wire`` (``kinds``: each item's ``_checked_kind``, when known).

    With ``reuse`` (a body's whole input, as ``to_request`` reads it), the neutral messages
    of the history read last whose runs end before the last item this input shares with it
    by object (``Leading``) are taken as read: such a run and whether it ended there are
    settled by those items alone, and reading goes on after it as it would have, with
    nothing pending and the names of the calls read so far."""
    system: list[str] = [] if instructions is None else [instructions]
    history: list[Message] = []
    ends: list[int] = []  # where each neutral message's run ends (past its last item)
    model: list[Part] = []
    pending: list[Part] = []
    run: list[Any] = []
    keys: list[bytes | None] = []  # the run's compact JSON, which keys every memo of an item
    names: dict[str, str] = {}
    start = _leading_count(items) if leading else 0
    resume = resume_taken(_HISTORY, items, history, ends, names) if reuse else 0
    last = 0  # the index of the last item in ``run``

    def done(role: Literal["user", "model", "system"], parts: Sequence[Part]) -> None:
        history.append(message_once(_MESSAGES, _FROZEN, _NAME, role, tuple(parts), run, keys))
        ends.append(last + 1)
        run.clear()
        keys.clear()

    for k in range(start):
        system.extend(_texts(items[k].get("content"), f"input[{k}].content"))
    for k in range(max(start, resume), len(items)):  # the items taken as read not walked
        item, path = items[k], f"input[{k}]"
        kind = _checked_kind(item, k) if kinds is None else kinds[k]
        side = _side(kind, item)
        if side != "model" and model:
            done("model", model)
            model = []
        if pending and (side == "model" or (side == "message" and item.get("role") != "user")):
            done("user", pending)  # the outputs before a model item or a system message
            pending = []
        key = Memo.key(item)
        last = k
        run.append(item)
        keys.append(key)
        if side == "model":
            model.extend(_model_parts_once(kind, item, path, names, key))
        elif side == "user":
            pending.append(_output_once(kind, item, path, names, key))
        elif item.get("role") == "user":  # a message's parts, as a model message's read
            done("user", [*pending, *_model_parts_once(kind, item, path, names, key)])
            pending = []
        else:
            done("system", _model_parts_once(kind, item, path, names, key))
    if model:
        done("model", model)
    if pending:
        done("user", pending)
    if reuse:
        _HISTORY.keep(items, (tuple(history), tuple(ends)))
    return tuple(system), tuple(history)


def _texts(content: Any, path: str) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [
        str(_string(p, "text", join_path(path, i), required=True)) for i, p in enumerate(content)
    ]


def _parts(content: Any, path: str) -> tuple[Part, ...]:
    """The parts of a message's content: a string is one text."""
    if isinstance(content, str):
        return (Text(content),)
    return tuple(_content_part(part, join_path(path, i)) for i, part in enumerate(content))


def _content_part(part: Any, path: str) -> Part:
    """Text and image parts that render back as sent; anything else as Opaque."""
    part = _unmarked_part(_object(part, path))
    kind = part.get("type")
    parsed: Part | None = None
    if kind in _TEXT_PARTS:
        parsed = Text(str(_string(part, "text", path, required=True)))
        plain = {
            k: v for k, v in part.items() if not (k in ("annotations", "logprobs") and v == [])
        }
        if plain != {"type": kind, "text": parsed.text}:
            parsed = None
    elif kind == "input_image":
        parsed = _image(part, path)
        if parsed is not None and _render_part(parsed, "user") != part:
            parsed = None
    if parsed is not None:
        return parsed
    if not isinstance(kind, str):
        raise DialectError(f"a content part's type must be a string, not {_show(kind)}", path=path)
    return Opaque(kind, freeze(part), _NAME)


def _unmarked_part(part: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in part.items() if k != _BREAKPOINT} if _BREAKPOINT in part else part


def _image(part: dict[str, Any], path: str) -> Image | None:
    """An ``input_image`` part by URL (a base64 ``data:`` URL is inline data); one that
    names a ``file_id`` has no neutral form."""
    url = _string(part, "image_url", path)
    detail = _string(part, "detail", path)
    if url is None:
        return None
    head, comma, data = url.partition(",")
    if comma and head.startswith("data:") and head.endswith(";base64"):
        return Image(mime_type=head[5:-7] or None, data=data, detail=detail)
    return Image(url=url, detail=detail)


_PARTS: Memo[tuple[Part, ...]] = Memo()
_OUTPUTS: Memo[Part] = Memo()
_MESSAGES: Memo[Message] = Memo()
"""Neutral messages already read, by the bytes of their run (``message_once``)."""
_FROZEN: Memo[Json] = Memo()
"""Items already read (their parts, their frozen wire form): a fork's bodies repeat the
parent's items, and an item reads the same wherever it is, but for the function name a
tool output takes from the calls before it (checked, and read anew when it differs)."""


def _model_parts_once(
    kind: str, item: dict[str, Any], path: str, names: dict[str, str], key: bytes | None
) -> list[Part]:
    """``_model_parts``, an item read before (``key``: its bytes) not read again (its calls
    still go to names). A message's parts are its content's, whoever's it is."""
    parts = _PARTS.get(key)
    if parts is None:
        return list(_PARTS.put(key, tuple(_model_parts(kind, item, path, names))))
    if kind in _CALL_TYPES:
        for call in parts:
            if isinstance(call, FunctionCall) and call.id is not None:
                names[call.id] = call.name
    return list(parts)


def _output_once(
    kind: str, item: dict[str, Any], path: str, names: dict[str, str], key: bytes | None
) -> Part:
    """``_output``, an item read before (``key``: its bytes) not read again while its name
    is the same."""
    part = _OUTPUTS.get(key)
    if part is None or (
        isinstance(part, FunctionResponse) and part.name != names.get(part.id or "", "")
    ):
        part = _OUTPUTS.put(key, _output(kind, item, path, names))
    return part


def _model_parts(kind: str, item: dict[str, Any], path: str, names: dict[str, str]) -> list[Part]:
    """The parts of one model-side item; the names of its calls go to ``names``."""
    if kind == "message":
        content = item.get("content")
        return list(_parts(content, f"{path}.content"))
    if kind == "reasoning":
        return [_reasoning(item, path)]
    if kind in _CALL_TYPES:
        call = _call(kind, item, path)
        if call.id is not None:
            names[call.id] = call.name
        return [call]
    return [Opaque(kind, freeze(item), _NAME)]


def _reasoning(item: dict[str, Any], path: str) -> Thinking:
    """Summary texts joined by blank lines, ``encrypted_content`` as the signature; a
    reasoning item with no text at all but encrypted content is redacted thinking."""
    summary = _field(item, "summary", (list,), "an array", path) or ()
    texts = [
        str(_string(_object(s, join_path(path, "summary", i)), "text", path, required=True))
        for i, s in enumerate(summary)
    ]
    encrypted = _string(item, "encrypted_content", path)
    return Thinking("\n\n".join(texts), encrypted, redacted=not texts and encrypted is not None)


def _call(kind: str, item: dict[str, Any], path: str) -> FunctionCall:
    """A function call (arguments decoded when they hold JSON) or a custom call (its input
    string, with ``extra`` saying it is custom)."""
    name = str(_string(item, "name", path, required=True))
    call_id = _string(item, "call_id", path)
    if kind == "custom_tool_call":
        return FunctionCall(
            name=name,
            args=_string(item, "input", path) or "",
            id=call_id,
            extra=FrozenDict({_NAME: FrozenDict({"type": "custom"})}),
        )
    arguments = _field(item, "arguments", (str,), "a JSON string", path, required=True)
    namespace = _string(item, "namespace", path)
    extra = (
        FrozenDict()
        if namespace is None
        else FrozenDict({_NAME: FrozenDict({"namespace": namespace})})
    )
    return FunctionCall(name=name, args=_arguments(arguments), id=call_id, extra=extra)


def _output(kind: str, item: dict[str, Any], path: str, names: dict[str, str]) -> Part:
    """A tool output (its function name from the call with the same ``call_id``); another
    ``*_output`` item as Opaque."""
    if kind not in _OUTPUT_TYPES:
        return Opaque(kind, freeze(_unmarked(item)), _NAME)
    call_id = _string(item, "call_id", path)
    output = _field(item, "output", (str, list), "a string or an array of parts", path)
    response: Json = output if isinstance(output, str) else freeze(_unmarked(item)["output"] or [])
    extra = (
        FrozenDict({_NAME: FrozenDict({"type": "custom"})}) if kind != _OUTPUT_TYPES[0] else None
    )
    return FunctionResponse(
        name=names.get(call_id or "", ""),
        response=response,
        id=call_id,
        extra=extra if extra is not None else FrozenDict(),
    )


def _tools(entries: Sequence[Any]) -> tuple[tuple[Tool, ...], FrozenDict]:
    """Neutral tools, and the unknown fields of each function tool by name. A tool of
    another type (custom, namespace, built-in) keeps its whole declaration."""
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
    """``tools[i]`` as a neutral tool, its name, and its unknown fields (if any)."""
    path = join_path("tools", i)
    kind = entry.get("type")
    if not isinstance(kind, str):
        raise DialectError(f"a tool's type must be a string, not {_show(kind)}", path=path)
    if kind != "function":
        label = entry.get("name", entry.get("server_label", kind))
        tool = Tool(label if isinstance(label, str) else kind, parameters=freeze(entry))
        return tool, "", None
    name = str(_string(entry, "name", path, required=True))
    description = _string(entry, "description", path)
    unknown = {k: v for k, v in entry.items() if k not in _FUNCTION_KEYS}
    extra = FrozenDict((k, freeze(v)) for k, v in unknown.items()) if unknown else None
    return Tool(name, description, freeze(entry.get("parameters"))), name, extra


_TOOLS: Leading[list[tuple[Tool, str, FrozenDict | None]]] = Leading()
"""The tools of the body read last (``_read_tool``), one per declaration."""


def _settings(body: Mapping[str, Any], tool_extras: FrozenDict) -> Settings:
    """Named settings from the body; every other top-level field goes to ``extra``."""
    reasoning = body.get("reasoning") or {}
    effort = _string(reasoning, "effort", "reasoning")
    text = body.get("text") or {}
    schema = _output_schema(text.get("format"))
    choice = _tool_choice(body.get("tool_choice"))
    extra: dict[str, Json] = {k: freeze(v) for k, v in body.items() if k not in _OWN_FIELDS}
    rest_text = {k: v for k, v in text.items() if not (k == "format" and schema is not None)}
    if rest_text:
        extra["text"] = freeze(rest_text)
    rest_reasoning = {k: v for k, v in reasoning.items() if k != "effort"}
    if rest_reasoning:
        extra["reasoning"] = freeze(rest_reasoning)
    if choice is None and body.get("tool_choice") is not None:
        extra[_CHOICE_KEPT] = freeze(body["tool_choice"])
    if tool_extras:
        extra[_TOOL_EXTRAS] = tool_extras
    return Settings(
        model=body.get("model"),
        temperature=_field(body, "temperature", (int, float), "a number"),
        top_p=_field(body, "top_p", (int, float), "a number"),
        max_output_tokens=_field(body, "max_output_tokens", (int,), "an integer"),
        thinking=None if effort is None else ThinkingConfig(effort=effort),
        tool_choice=choice,
        output_schema=schema,
        extra=FrozenDict({_NAME: FrozenDict(extra)}) if extra else FrozenDict(),
    )


def _output_schema(fmt: Any) -> OutputSchema | None:
    """A ``json_schema`` format that renders back as sent; others stay in ``extra``."""
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        return None
    schema = OutputSchema(
        schema=freeze(fmt.get("schema")),
        name=_string(fmt, "name", "text.format"),
        strict=_field(fmt, "strict", (bool,), "a boolean", "text.format"),
    )
    return schema if _render_format(schema) == fmt else None


def _tool_choice(value: Any) -> ToolChoice | None:
    """A mode, a forced function, or an ``allowed_tools`` restriction; None for forms the
    neutral model has no name for (a built-in tool, a custom tool, an MCP server)."""
    if value is None:
        return None
    for mode in _MODES:
        if value == mode:
            return ToolChoice(mode)
    if not isinstance(value, dict):
        raise DialectError(
            f"tool_choice must be a mode string or an object, not {json_kind(value)}",
            path="tool_choice",
        )
    if value.get("type") == "function" and set(value) == {"type", "name"}:
        return ToolChoice("tool", (str(_string(value, "name", "tool_choice", required=True)),))
    if value.get("type") == "allowed_tools" and value.get("mode") in ("auto", "required"):
        tools = _field(value, "tools", (list,), "an array", "tool_choice", required=True)
        if all(isinstance(t, dict) and set(t) == {"type", "name"} for t in tools) and all(
            t["type"] == "function" and isinstance(t["name"], str) for t in tools
        ):
            allowed: Literal["auto", "required"] = value["mode"]
            return ToolChoice(allowed, tuple(t["name"] for t in tools))
    return None


# --- neutral -> body --------------------------------------------------------------------


def _render_system(system: Sequence[str]) -> tuple[str | None, list[Any]]:
    """The first block as ``instructions``, the others as one developer message."""
    if not system:
        return None, []
    rest = [{"type": "input_text", "text": block} for block in system[1:]]
    return system[0], ([{"type": "message", "role": "developer", "content": rest}] if rest else [])


def _kept_system(kept: Any, system: list[str]) -> tuple[str | None, list[Any]]:
    """The system as sent while it still reads back as these blocks, else the plain form."""
    if isinstance(kept, dict):
        instructions, items = kept.get("instructions"), thaw(kept.get("items") or ())
        try:
            read, _ = _history(items, instructions if isinstance(instructions, str) else None)
        except DialectError:
            read = ()
        if list(read) == system:
            return instructions if isinstance(instructions, str) else None, items
    return _render_system(system)


def _render_history(history: tuple[Message, ...]) -> list[dict[str, Any]]:
    """Items for neutral messages, each message's rendered once (``_per_message.alone``):
    they depend on it alone."""
    out: list[dict[str, Any]] = []
    for message in history:
        out.extend(alone(message, _render_message))
    return out


def _render_message(message: Message) -> tuple[dict[str, Any], ...]:
    """The items of one neutral message: its ``wire`` form while it reads back as it, else
    from its parts (no call names are read: a lone re-read has none)."""
    kept = _kept_form(message)
    if kept is not None:
        return tuple(kept)
    if message.role == "model":
        return tuple(_render_model(message))
    if message.role == "system":
        content = [_render_part(p, "user") for p in message.parts if _is_content(p)]
        return ({"type": "message", "role": "developer", "content": content},)
    return tuple(_render_user(message))


def _kept_form(message: Message) -> list[Any] | None:
    kept = message.wire.get(_NAME)
    if not isinstance(kept, tuple) or not kept:
        return None
    raw: list[Any] = thaw(kept)
    try:
        _, read = _history(raw, leading=False)
    except DialectError:
        return None
    if len(read) != 1 or read[0].role != message.role or read[0].parts != _named(message):
        return None
    return raw


def _named(message: Message) -> tuple[Part, ...]:
    """The parts as a lone re-read sees them: responses lose the names their calls gave."""
    return tuple(
        FunctionResponse("", p.response, p.id, p.is_error, p.extra)
        if isinstance(p, FunctionResponse)
        else p
        for p in message.parts
    )


def _is_content(part: Part) -> bool:
    """Whether a part renders inside a message's content (not as an item of its own)."""
    if isinstance(part, FunctionCall | FunctionResponse | Thinking):
        return False
    return not (isinstance(part, Opaque) and _is_item(part))


def _is_item(part: Opaque) -> bool:
    """An Opaque part that is a whole item of this dialect (not a content part)."""
    own = part.own_block(_NAME)
    return own is not None and ("call_id" in own or not _is_part_type(part.kind))


def _is_part_type(kind: str) -> bool:
    return kind.startswith(("input_", "output_")) or kind == "refusal"


def _render_user(message: Message) -> Iterator[dict[str, Any]]:
    """Tool outputs (and other items) first, then the rest as one user message."""
    items = [p for p in message.parts if not _is_content(p)]
    for part in items:
        if isinstance(part, FunctionResponse):
            yield _render_output(part)
        elif isinstance(part, Opaque):
            yield thaw(part.value)
    rest = [p for p in message.parts if _is_content(p)]
    if rest or not items:
        yield {
            "type": "message",
            "role": "user",
            "content": [_render_part(p, "user") for p in rest],
        }


def _render_output(response: FunctionResponse) -> dict[str, Any]:
    own = response.extra.get(_NAME)
    custom = isinstance(own, FrozenDict) and own.get("type") == "custom"
    out: dict[str, Any] = {"type": _OUTPUT_TYPES[1] if custom else _OUTPUT_TYPES[0]}
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


def _render_model(message: Message) -> Iterator[dict[str, Any]]:
    """In part order: reasoning items, one assistant message per run of content parts,
    call items, and this dialect's own items as sent."""
    run: list[Part] = []
    for part in message.parts:
        if _is_content(part):
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
    content = [_render_part(p, "model") for p in parts]
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
    own = call.extra.get(_NAME)
    custom = isinstance(own, FrozenDict) and own.get("type") == "custom"
    out: dict[str, Any] = {"type": "custom_tool_call" if custom else "function_call"}
    if call.id is not None:
        out["call_id"] = call.id
    out["name"] = call.name
    namespace = own.get("namespace") if isinstance(own, FrozenDict) else None
    if isinstance(namespace, str):
        out["namespace"] = namespace
    out["input" if custom else "arguments"] = args
    return out


def _render_part(part: Part, side: Literal["user", "model"]) -> dict[str, Any]:
    """A text part (``input_text`` from the user, ``output_text`` from the model), an
    ``input_image``, an Opaque part as sent (another dialect's as a text of its JSON)."""
    text_type = "output_text" if side == "model" else "input_text"
    if isinstance(part, Opaque):
        own = part.own_block(_NAME)
        return own if own is not None else {"type": text_type, "text": part.as_text}
    if isinstance(part, Text):
        return {"type": text_type, "text": part.text}
    if isinstance(part, Image):
        url = part.url if part.data is None else f"data:{part.mime_type or ''};base64,{part.data}"
        out: dict[str, Any] = {"type": "input_image", "image_url": url}
        if part.detail is not None:
            out["detail"] = part.detail
        return out
    raise TypeError(f"a {type(part).__name__} is not a content part")


def _render_tool(tool: Tool, extras: Any) -> dict[str, Any]:
    """A flat function tool with its kept unknown fields, or a kept declaration."""
    params = tool.parameters
    kind = params.get("type") if isinstance(params, FrozenDict) else None
    if isinstance(kind, str) and kind not in _SCHEMA_TYPES:
        declaration: dict[str, Any] = thaw(params)
        return declaration
    out: dict[str, Any] = {"type": "function", "name": tool.name}
    if tool.description is not None:
        out["description"] = tool.description
    if tool.parameters is not None:
        out["parameters"] = thaw(tool.parameters)
    kept = extras.get(tool.name) if isinstance(extras, dict) else None
    if isinstance(kept, dict):
        out.update((k, thaw(v)) for k, v in kept.items() if k not in _FUNCTION_KEYS)
    return out


def _render_tool_choice(choice: ToolChoice | None, kept: Any) -> Any:
    if choice is None:
        return None if kept is None else thaw(kept)
    if choice.mode == "tool" and len(choice.names) == 1:
        return {"type": "function", "name": choice.names[0]}
    mode = "required" if choice.mode == "tool" else choice.mode
    if not choice.names or mode == "none":
        return mode
    tools = [{"type": "function", "name": n} for n in choice.names]
    return {"type": "allowed_tools", "mode": mode, "tools": tools}


def _render_format(schema: OutputSchema) -> dict[str, Any]:
    """A ``json_schema`` format; the name is required, so it defaults to "output"."""
    out: dict[str, Any] = {"type": "json_schema", "name": schema.name or "output"}
    if schema.schema is not None:
        out["schema"] = thaw(schema.schema)
    if schema.strict is not None:
        out["strict"] = schema.strict
    return out


def _render_text(schema: OutputSchema | None, kept: Any) -> dict[str, Any]:
    out: dict[str, Any] = {} if schema is None else {"format": _render_format(schema)}
    if isinstance(kept, dict):
        out.update((k, thaw(v)) for k, v in kept.items() if k not in out)
    return out


def _render_reasoning(thinking: ThinkingConfig | None, kept: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if thinking is not None and thinking.effort is not None:
        out["effort"] = thinking.effort
    if isinstance(kept, dict):
        out.update((k, thaw(v)) for k, v in kept.items() if k != "effort")
    return out


def _render_sampling(settings: Settings) -> dict[str, Any]:
    """Sampling and length fields that are set (stop and top_k have no form here)."""
    fields = {
        "temperature": settings.temperature,
        "top_p": settings.top_p,
        "max_output_tokens": settings.max_output_tokens,
    }
    return {key: value for key, value in fields.items() if value is not None}


# --- small helpers ----------------------------------------------------------------------


def _item_features(item: dict[str, Any]) -> set[str]:
    """The Responses-only features of one item: its type, its content part types."""
    found: set[str] = set()
    kind = item.get("type")
    if isinstance(kind, str) and kind in _DETECT_ITEMS:
        found.add(kind)
    content = item.get("content")
    for part in content if isinstance(content, list) else ():
        kind = part.get("type") if isinstance(part, dict) else None
        if isinstance(kind, str) and kind in _DETECT_ITEMS:
            found.add(kind)
    return found


DIALECT = OpenAIResponses()
