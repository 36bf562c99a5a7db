"""Gemini ``generateContent`` bodies: ``contents`` of user/model parts, a ``systemInstruction``,
``tools[].functionDeclarations``, a ``toolConfig`` and a ``generationConfig`` (docs/dialects.md).

References: the generateContent request (https://ai.google.dev/api/generate-content) and the
``Content`` / ``Part`` / ``Tool`` types it uses (https://ai.google.dev/api/caching#Content).

The model name travels in the URL, not the body, so ``Settings.model`` stays unset.

Mapping of parts: text (``thought: true`` -> Thinking), functionCall, functionResponse,
inlineData and fileData map to their neutral parts, with ``thoughtSignature`` kept on any of
them (``signature``). A part is mapped to a neutral part only when that part renders back to
the same bytes; every other part (``executableCode``, ``codeExecutionResult``, a part with
``videoMetadata``, any part not known at all) is an ``Opaque`` part holding it verbatim.
Unknown fields of a functionCall / functionResponse (``willContinue``, ``scheduling``,
``parts``) and of their part are kept in the part's ``extra["gemini"]`` (under ``"call"`` /
``"response"`` and ``"part"``). Each content keeps its body form in ``Message.wire``.

Call ids are optional in Gemini: a response answers the call with its id when both carry
one, else the call of the same name at the same position (``calls_answered``).

Unknown top-level fields (``cachedContent``, ``labels``, ``safetySettings``), non-function
tools (``googleSearch``, ``codeExecution``, ``urlContext``) and unknown ``toolConfig`` /
``generationConfig`` fields are kept in ``Settings.extra["gemini"]``, as are declarations and
a system instruction that would render back otherwise (``parametersJsonSchema``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Final, Literal

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
    Role,
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
from ._base import CacheScope, Dialect, DialectError, Family, Segment
from ._memo import Leading, Memo, PerBody, each
from ._per_message import alone

__all__ = ["DIALECT", "GeminiDialect"]

_ROLES: Final[frozenset[str]] = frozenset({"user", "model"})
_PART_KINDS: Final = ("text", "functionCall", "functionResponse", "inlineData", "fileData")
_DETECT_WINDOW: Final = 8
"""How many leading ``contents`` entries detect() looks into for call/response parts."""

_KNOWN_TOP: Final = frozenset(
    ["contents", "systemInstruction", "tools", "toolConfig", "generationConfig"]
)
_KNOWN_CONFIG: Final = frozenset(
    ["temperature", "topP", "topK", "maxOutputTokens", "stopSequences", "thinkingConfig"]
) | {"responseSchema", "responseJsonSchema"}
_MERGED: Final = ("tools", "toolConfig", "generationConfig", "declarations", "systemInstruction")
"""Keys of our ``Settings.extra`` entry that hold leftovers of known containers, not fields."""

_JSON_MIME: Final = "application/json"
_RESOLUTION: Final = "MEDIA_RESOLUTION_"
_PARSE_MODES: Final[dict[str, Literal["auto", "none", "required"]]] = {
    "AUTO": "auto",
    "MODE_UNSPECIFIED": "auto",
    "VALIDATED": "auto",
    "NONE": "none",
    "ANY": "required",
}
_RENDER_MODES: Final = {"auto": "AUTO", "none": "NONE", "required": "ANY", "tool": "ANY"}
_MODE_BUDGETS: Final = {"disabled": 0, "adaptive": -1}
"""Neutral thinking modes as gemini budgets: 0 turns thinking off, -1 is dynamic thinking."""


class GeminiDialect(Dialect):
    """The Google Gemini API ``generateContent`` REST body, camelCase as sent on the wire."""

    name = "gemini"
    title = "Gemini generateContent"
    segment_families: ClassVar[Mapping[str, Family]] = {
        "systemInstruction": "system",
        "tools": "tools",
        "toolConfig": "settings",
        "contents": "history",
    }
    provider = "Gemini"
    cache_guide = "https://ai.google.dev/gemini-api/docs/caching"
    cache_keys: ClassVar[Mapping[str, CacheScope]] = {"cachedContent": "request"}
    """Implicit caching matches the prefix per model (the model is in the URL, not the
    body); a request naming another explicit ``cachedContent`` reads another cache.
    ``toolConfig`` is a prefix segment itself; ``generationConfig`` has no documented effect."""

    def calls_answered(
        self, calls: Sequence[FunctionCall], responses: Sequence[FunctionResponse]
    ) -> bool:
        """Pair by id where both sides carry one, else by name and position: the k-th
        response named N answers the k-th call named N still open. Each call has exactly one
        response and no response answers nothing."""
        open_calls = list(calls)
        by_position: list[FunctionResponse] = []
        for response in responses:
            match = next(
                (c for c in open_calls if response.id is not None and c.id == response.id), None
            )
            if match is None:
                by_position.append(response)
            elif match.name != response.name:
                return False
            else:
                open_calls.remove(match)
        for response in by_position:
            match = next((c for c in open_calls if c.name == response.name), None)
            if match is None or (match.id is not None and response.id is not None):
                return False
            open_calls.remove(match)
        return not open_calls

    def detect(self, body: Mapping[str, Any]) -> int:
        """Score gemini-only features: ``contents``, gemini config fields, role ``model``, and
        call/response parts near the start of the history."""
        if not isinstance(body, Mapping) or not isinstance(body.get("contents"), list):
            return 0
        score = 1 + sum(
            key in body for key in ("systemInstruction", "generationConfig", "toolConfig")
        )
        saw_model = False
        for content in body["contents"][:_DETECT_WINDOW]:
            if not isinstance(content, dict):
                continue
            saw_model = saw_model or content.get("role") == "model"
            parts = content.get("parts")
            if isinstance(parts, list):
                score += sum(
                    isinstance(p, dict) and ("functionCall" in p or "functionResponse" in p)
                    for p in parts
                )
        return score + saw_model

    def segments(self, body: Mapping[str, Any]) -> tuple[Segment, ...]:
        """systemInstruction, each function declaration, toolConfig, then each content
        (once per reading of the body: ``to_request`` checks them too)."""
        return _BODY_SEGMENTS.once(body, lambda: _segments(body))

    def settings(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Every ``generationConfig.<field>`` as sent, plus ``cachedContent``."""
        out: dict[str, Any] = {}
        config = body.get("generationConfig")
        if isinstance(config, dict):
            out.update((join_path("generationConfig", k), v) for k, v in config.items())
        if "cachedContent" in body:
            out["cachedContent"] = body["cachedContent"]
        return out

    def to_request(self, body: Mapping[str, Any]) -> Request:
        """The body in the neutral model; unknown fields are kept in ``Settings.extra``."""
        self.segments(body)
        tools, other_tools = _tools(body.get("tools"))
        system = _system_blocks(body.get("systemInstruction"))
        settings = _settings(body, other_tools)
        settings = settings.with_extra(self.name, _kept_head(body, system, tools))
        preset = Preset(system=system, tools=tools, settings=settings)
        history = tuple(each(_HISTORY, body["contents"], _indexed_message))
        return Request(preset=preset, history=history)

    def render(self, request: Request) -> bytes:
        """Compact JSON in cache order: systemInstruction, tools, toolConfig, contents, then
        generationConfig and the unknown top-level fields kept in ``extra``."""
        preset, settings = request.preset, request.preset.settings
        extra: Mapping[str, Any] = settings.extra.get(self.name, FrozenDict())
        body: dict[str, Any] = {}
        if preset.system:
            kept_system = extra.get("systemInstruction")
            if isinstance(kept_system, FrozenDict) and _kept_system(kept_system) == preset.system:
                body["systemInstruction"] = kept_system
            else:
                body["systemInstruction"] = {"parts": [{"text": b} for b in preset.system]}
        tools = list(extra.get("tools", ()))
        if preset.tools:
            kept = _kept_declarations(extra.get("declarations"))
            decls = [kept.get(t) or _render_tool(t) for t in preset.tools]
            tools.insert(0, {"functionDeclarations": decls})
        if tools:
            body["tools"] = tools
        tool_config = _render_tool_config(settings.tool_choice, extra.get("toolConfig", {}))
        if tool_config:
            body["toolConfig"] = tool_config
        body["contents"] = [alone(m, _rendered_content) for m in request.history]
        config = _render_config(settings, extra.get("generationConfig", {}))
        if config:
            body["generationConfig"] = config
        body.update((k, v) for k, v in extra.items() if k not in _MERGED)
        return dumps(body)


def _segments(body: Mapping[str, Any]) -> tuple[Segment, ...]:
    """``GeminiDialect.segments``, read afresh."""
    contents: list[Any] = _required(body, "contents", list, "")
    out: list[Segment] = []
    system = _field(body, "systemInstruction", dict, "")
    if system is not None:
        _required(system, "parts", list, "systemInstruction")
        out.append(Segment("systemInstruction", system))
    out.extend(_tool_segments(_field(body, "tools", list, "")))
    tool_config = _field(body, "toolConfig", dict, "")
    if tool_config is not None:
        out.append(Segment("toolConfig", tool_config))
    _field(body, "generationConfig", dict, "")
    out.extend(each(_SEGMENTS, contents, _content_segment))
    return tuple(out)


_BODY_SEGMENTS: PerBody[tuple[Segment, ...]] = PerBody()
"""The segments of the body read last, for ``to_request`` in the same reading."""


# --- typed field access --------------------------------------------------------------------

_TYPE_NAMES: Final[dict[type, str]] = {
    dict: "an object",
    list: "an array",
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}
_NUMBER: Final = (int, float)


def _field(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], base: str) -> Any:
    """``obj[key]`` checked against ``kind`` (a bool is never a number); None when absent or
    null. ``base`` is the path of ``obj``, for the error."""
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, kind) and (kind is bool or not isinstance(value, bool)):
        return value
    expected = "a number" if isinstance(kind, tuple) else _TYPE_NAMES[kind]
    raise DialectError(
        f"{key} must be {expected}, not {json_kind(value)}", path=join_path(base, key)
    )


def _required(obj: Mapping[str, Any], key: str, kind: type, base: str) -> Any:
    """Like ``_field`` but the key must be there."""
    value = _field(obj, key, kind, base)
    if value is None:
        raise DialectError(f"{key} is required", path=join_path(base, key))
    return value


def _strings(obj: Mapping[str, Any], key: str, base: str) -> tuple[str, ...] | None:
    """An optional array of strings."""
    values = _field(obj, key, list, base)
    for i, value in enumerate(values or ()):
        if not isinstance(value, str):
            path = join_path(base, key, i)
            raise DialectError(f"expected a string, not {json_kind(value)}", path=path)
    return None if values is None else tuple(values)


# --- envelope checks (cheap: no per-part work) -------------------------------------------


def _plain(role: Any, parts: Any) -> bool:
    """Whether a content's role and parts pass ``_role`` and ``_required`` as decoded JSON
    has them: the check ``segments`` makes of every content, cheaper than the full one."""
    return (not role or (type(role) is str and role in _ROLES)) and type(parts) is list


def _role(content: Mapping[str, Any], path: str) -> Role:
    """The content's role; a blank or missing role means ``user`` in Gemini."""
    role = content.get("role") or "user"
    if not isinstance(role, str) or role not in _ROLES:
        said = repr(role) if isinstance(role, str) else shown(role)
        reason = f"unknown role {said}; Gemini roles are user and model"
        raise DialectError(reason, path=join_path(path, "role"))
    return "user" if role == "user" else "model"


def _tool_segments(tools: list[Any] | None) -> list[Segment]:
    """One segment per function declaration; any other tool entry is one whole segment."""
    out: list[Segment] = []
    for i, entry in enumerate(tools or ()):
        path = f"tools[{i}]"
        if not isinstance(entry, dict):
            raise DialectError(f"a tool is an object, not {json_kind(entry)}", path=path)
        decls = _field(entry, "functionDeclarations", list, path)
        if decls is None or len(entry) > 1:
            out.append(Segment(path, entry))
            continue
        for j, decl in enumerate(decls):
            decl_path = join_path(path, "functionDeclarations", j)
            _check_declaration(decl, decl_path)
            out.append(Segment(decl_path, decl))
    return out


def _check_declaration(decl: Any, path: str) -> None:
    """A function declaration is an object."""
    if not isinstance(decl, dict):
        reason = f"a function declaration is an object, not {json_kind(decl)}"
        raise DialectError(reason, path=path)


# --- body -> neutral -----------------------------------------------------------------------


def _system_blocks(system: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The texts of the system instruction's parts; its role, if any, is not kept."""
    if system is None:
        return ()
    blocks: list[str] = []
    for i, raw in enumerate(system["parts"]):
        path = join_path("systemInstruction", "parts", i)
        part = _part(raw, path)
        if not isinstance(part, Text):
            raise DialectError("a systemInstruction part must be plain text", path=path)
        blocks.append(part.text)
    return tuple(blocks)


def _tools(tools: list[Any] | None) -> tuple[tuple[Tool, ...], tuple[Json, ...]]:
    """Every function declaration as a Tool, and the other tool entries (googleSearch, ...)
    frozen as sent, minus their ``functionDeclarations``."""
    declared: list[Tool] = []
    others: list[Json] = []
    for i, entry in enumerate(tools or ()):
        path = f"tools[{i}]"
        for j, decl in enumerate(_field(entry, "functionDeclarations", list, path) or ()):
            declared.append(_declared(decl, path, j))
        rest = {k: v for k, v in entry.items() if k != "functionDeclarations"}
        if rest:
            others.append(freeze(rest))
    return tuple(declared), tuple(others)


def _declared(decl: Any, path: str, j: int) -> Tool:
    """``_tool`` of declaration ``j`` of the tool entry at ``path``; a declaration read
    before (by its bytes: a scenario's bodies repeat their tools) is not read again (its
    path names only a problem)."""
    return _DECLARED.once(decl, lambda: _tool(decl, join_path(path, "functionDeclarations", j)))


_DECLARED: Memo[Tool] = Memo()
"""Function declarations already read, by their bytes."""


def _tool(decl: Any, path: str) -> Tool:
    """A declaration; ``parametersJsonSchema`` is read like ``parameters``."""
    _check_declaration(decl, path)
    if "parameters" in decl and "parametersJsonSchema" in decl:
        raise DialectError(
            "a declaration has parameters or parametersJsonSchema, not both", path=path
        )
    schema = decl.get("parameters", decl.get("parametersJsonSchema"))
    return Tool(
        name=_required(decl, "name", str, path),
        description=_field(decl, "description", str, path),
        parameters=freeze(schema),
    )


def _content_segment(k: int, content: Any) -> Segment:
    """The segment of ``contents[k]``, its envelope checked."""
    if type(content) is dict and _plain(content.get("role"), content.get("parts")):
        return Segment(f"contents[{k}]", content)  # checked inline: see _plain
    path = f"contents[{k}]"
    if not isinstance(content, dict):
        raise DialectError(f"a content is an object, not {json_kind(content)}", path=path)
    _role(content, path)
    _required(content, "parts", list, path)
    return Segment(path, content)


_READ: Memo[Message] = Memo()
"""Contents entries already read: a fork's bodies repeat the parent's entries."""
_HISTORY: Leading[list[Message]] = Leading()
_SEGMENTS: Leading[list[Segment]] = Leading()
"""The messages and the segments of the contents read last, one per entry: an entry reads
the same wherever it is (its index names only a problem), so the leading entries a body
shares with it by object read as they did."""


def _indexed_message(k: int, content: dict[str, Any]) -> Message:
    return _message(content, f"contents[{k}]")


def _message(content: dict[str, Any], path: str) -> Message:
    """A contents entry; its envelope was checked by segments()."""
    key = _READ.key(content)
    return _READ.get(key) or _READ.put(key, _read_message(content, path))


def _read_message(content: dict[str, Any], path: str) -> Message:
    """The entry's message; its parts take their values from the entry frozen once."""
    parts = content["parts"]
    frozen = freeze(content)
    kept = frozen.get("parts") if isinstance(frozen, FrozenDict) else None
    frozen_parts = kept if isinstance(kept, tuple) else (None,) * len(parts)
    return Message(
        role=_role(content, path),
        parts=tuple(_part(p, f"{path}.parts[{i}]", frozen_parts[i]) for i, p in enumerate(parts)),
        wire=FrozenDict({GeminiDialect.name: frozen}),
    )


def _kept_form(message: Message) -> Any:
    """The message's ``wire`` form when it still reads back as ``message``; else None."""
    kept = message.wire.get(GeminiDialect.name)
    if not isinstance(kept, FrozenDict):
        return None
    raw: dict[str, Any] = thaw(kept)
    try:
        parts = raw.get("parts")
        if not isinstance(parts, list):
            return None
        same = _role(raw, "contents") == message.role and message.parts == tuple(
            _part(p, "contents") for p in parts
        )
    except DialectError:
        return None
    return kept if same else None


def _part(part: Any, path: str, frozen: Json = None) -> Part:
    """One part: a neutral part when exactly one of text, functionCall, functionResponse,
    inlineData, fileData is there and the neutral part renders back to the same bytes (a call
    or response keeps its other fields in ``extra``); else an Opaque part. ``frozen`` is
    ``freeze(part)`` when the caller has it: values are taken from it, not frozen again."""
    if _plain_text(part):
        return Text(part["text"])  # ``{"text": ...}`` alone: what Text renders to
    if not isinstance(part, dict):
        raise DialectError(f"a part is an object, not {json_kind(part)}", path=path)
    kinds = [k for k in _PART_KINDS if k in part]
    if len(kinds) == 1:
        own = frozen if isinstance(frozen, FrozenDict) else None
        parsed = _PART_READERS[kinds[0]](part, path, own)
        if isinstance(parsed, FunctionCall | FunctionResponse) or _same(_render_part(parsed), part):
            return parsed
    kind = next((k for k in part if k not in _PART_META), next(iter(part), "part"))
    return Opaque(kind, freeze(part) if frozen is None else frozen, GeminiDialect.name)


def _plain_text(part: Any) -> bool:
    """Whether ``part`` is ``{"text": <a string>}`` and nothing else."""
    return type(part) is dict and len(part) == 1 and type(part.get("text")) is str


_PART_META: Final = frozenset({"thought", "thoughtSignature", "partMetadata", "mediaResolution"})
"""Part fields beside its data: an Opaque part is named after its first other key."""


def _same(a: Any, b: Any) -> bool:
    return dumps(a) == dumps(b)


def _extras(**groups: tuple[Mapping[str, Any], tuple[str, ...], Any]) -> FrozenDict:
    """Each group's fields outside its known keys, keyed by this dialect then group (their
    values from the group's object frozen, the third of its triple, when not None)."""
    out = {}
    for group, (obj, known, frozen) in groups.items():
        if isinstance(frozen, FrozenDict):
            rest = {k: v for k, v in frozen.items() if k not in known}
        else:
            rest = {k: freeze(v) for k, v in obj.items() if k not in known}
        if rest:
            out[group] = FrozenDict(rest)
    return FrozenDict({GeminiDialect.name: FrozenDict(out)}) if out else FrozenDict()


def _text_part(part: dict[str, Any], path: str, frozen: FrozenDict | None) -> Part:
    """Text, or Thinking when ``thought`` is true, each with its ``thoughtSignature``."""
    text: str = _required(part, "text", str, path)
    signature = _field(part, "thoughtSignature", str, path)
    if _field(part, "thought", bool, path):
        return Thinking(text, signature=signature)
    return Text(text, signature=signature)


def _call_part(part: dict[str, Any], path: str, frozen: FrozenDict | None) -> Part:
    """A functionCall with its sibling ``thoughtSignature``; absent args stay None."""
    call = _required(part, "functionCall", dict, path)
    call_path = join_path(path, "functionCall")
    own = None if frozen is None else frozen["functionCall"]
    return FunctionCall(
        name=_required(call, "name", str, call_path),
        args=freeze(call.get("args")) if own is None else own.get("args"),
        id=_field(call, "id", str, call_path),
        signature=_field(part, "thoughtSignature", str, path),
        extra=_extras(
            part=(part, ("functionCall", "thoughtSignature"), frozen),
            call=(call, ("id", "name", "args"), own),
        ),
    )


def _response_part(part: dict[str, Any], path: str, frozen: FrozenDict | None) -> Part:
    """A functionResponse; a lone ``error`` key marks an error, a lone ``output`` key around a
    non-object is unwrapped (both are Gemini's documented response conventions)."""
    response = _required(part, "functionResponse", dict, path)
    response_path = join_path(path, "functionResponse")
    if "response" not in response:
        raise DialectError("response is required", path=join_path(response_path, "response"))
    own = None if frozen is None else frozen["functionResponse"]
    value, is_error = _unwrap_response(
        freeze(response["response"]) if own is None else own["response"]
    )
    return FunctionResponse(
        name=_required(response, "name", str, response_path),
        response=value,
        id=_field(response, "id", str, response_path),
        is_error=is_error,
        extra=_extras(
            part=(part, ("functionResponse",), frozen),
            response=(response, ("id", "name", "response"), own),
        ),
    )


def _unwrap_response(response: Json) -> tuple[Json, bool]:
    """Inverse of ``_wrap_response``: the neutral response and its error flag."""
    if isinstance(response, dict) and len(response) == 1:
        if "error" in response:
            return response["error"], True
        if "output" in response and not isinstance(response["output"], dict):
            return response["output"], False
    return response, False


def _image_part(part: dict[str, Any], path: str, frozen: FrozenDict | None) -> Part:
    """inlineData (base64) or fileData (URI) as an Image; mediaResolution gives its detail."""
    if "inlineData" in part:
        blob, blob_path = _required(part, "inlineData", dict, path), join_path(path, "inlineData")
        data, url = _required(blob, "data", str, blob_path), None
    else:
        blob, blob_path = _required(part, "fileData", dict, path), join_path(path, "fileData")
        data, url = None, _required(blob, "fileUri", str, blob_path)
    return Image(
        mime_type=_field(blob, "mimeType", str, blob_path),
        data=data,
        url=url,
        detail=_detail(part, path),
    )


def _detail(part: dict[str, Any], path: str) -> str | None:
    """``mediaResolution.level`` as a neutral detail: ``MEDIA_RESOLUTION_HIGH`` -> ``high``."""
    resolution = _field(part, "mediaResolution", dict, path)
    if resolution is None:
        return None
    level: str = _required(resolution, "level", str, join_path(path, "mediaResolution"))
    return level.removeprefix(_RESOLUTION).lower()


_PART_READERS: Final[dict[str, Callable[[dict[str, Any], str, FrozenDict | None], Part]]] = {
    "text": _text_part,
    "functionCall": _call_part,
    "functionResponse": _response_part,
    "inlineData": _image_part,
    "fileData": _image_part,
}


def _settings(body: Mapping[str, Any], other_tools: tuple[Json, ...]) -> Settings:
    """Named generationConfig fields, the tool choice, and everything else in ``extra``."""
    config = body.get("generationConfig") or {}
    path = "generationConfig"
    schema = _output_schema(config, path)
    return Settings(
        temperature=_field(config, "temperature", _NUMBER, path),
        top_p=_field(config, "topP", _NUMBER, path),
        top_k=_field(config, "topK", int, path),
        max_output_tokens=_field(config, "maxOutputTokens", int, path),
        stop=_strings(config, "stopSequences", path),
        thinking=_thinking(config, path),
        tool_choice=_tool_choice(body.get("toolConfig") or {}),
        output_schema=schema,
        extra=_extra(body, config, other_tools, schema),
    )


def _thinking(config: Mapping[str, Any], base: str) -> ThinkingConfig | None:
    """thinkingConfig: budget, includeThoughts and thinkingLevel (as the neutral effort)."""
    thinking = _field(config, "thinkingConfig", dict, base)
    if thinking is None:
        return None
    path = join_path(base, "thinkingConfig")
    return ThinkingConfig(
        budget_tokens=_field(thinking, "thinkingBudget", int, path),
        effort=_field(thinking, "thinkingLevel", str, path),
        include_thoughts=_field(thinking, "includeThoughts", bool, path),
    )


def _tool_choice(tool_config: Mapping[str, Any]) -> ToolChoice | None:
    """functionCallingConfig: ANY with one allowed name forces that tool; VALIDATED reads as
    auto, its nearest neutral mode."""
    calling = _field(tool_config, "functionCallingConfig", dict, "toolConfig")
    if calling is None:
        return None
    path = join_path("toolConfig", "functionCallingConfig")
    mode = _field(calling, "mode", str, path) or "AUTO"
    names = _strings(calling, "allowedFunctionNames", path) or ()
    if mode not in _PARSE_MODES:
        raise DialectError(f"unknown function calling mode {mode!r}", path=join_path(path, "mode"))
    if _PARSE_MODES[mode] == "required" and len(names) == 1:
        return ToolChoice("tool", names)
    return ToolChoice(_PARSE_MODES[mode], names)


def _output_schema(config: Mapping[str, Any], path: str) -> OutputSchema | None:
    """responseSchema or responseJsonSchema; Gemini has no schema name or strict flag."""
    keys = [k for k in ("responseSchema", "responseJsonSchema") if k in config]
    if len(keys) > 1:
        raise DialectError("use responseSchema or responseJsonSchema, not both", path=path)
    return OutputSchema(freeze(config[keys[0]])) if keys else None


def _extra(
    body: Mapping[str, Any],
    config: Mapping[str, Any],
    other_tools: tuple[Json, ...],
    schema: OutputSchema | None,
) -> FrozenDict:
    """Unknown top-level fields in body order, then the leftovers of known containers:
    non-function ``tools``, unknown ``toolConfig`` and ``generationConfig`` keys."""
    own: dict[str, Any] = {k: freeze(v) for k, v in body.items() if k not in _KNOWN_TOP}
    tool_config = body.get("toolConfig") or {}
    leftovers: dict[str, Any] = {
        "tools": other_tools,
        "toolConfig": {k: v for k, v in tool_config.items() if k != "functionCallingConfig"},
        "generationConfig": {k: v for k, v in config.items() if k not in _KNOWN_CONFIG},
    }
    if schema is not None and config.get("responseMimeType") == _JSON_MIME:
        del leftovers["generationConfig"]["responseMimeType"]  # render() emits it anyway
    own.update((k, freeze(v)) for k, v in leftovers.items() if v)
    return FrozenDict({"gemini": FrozenDict(own)}) if own else FrozenDict()


# --- neutral -> body -----------------------------------------------------------------------


def _kept_head(
    body: Mapping[str, Any], system: tuple[str, ...], tools: tuple[Tool, ...]
) -> dict[str, Json]:
    """The system instruction and function declarations as sent, when they would render back
    otherwise (a ``role`` on the instruction, ``parametersJsonSchema``, fields of their own)."""
    out: dict[str, Json] = {}
    raw_system = body.get("systemInstruction")
    if raw_system is not None and not _same({"parts": [{"text": b} for b in system]}, raw_system):
        out["systemInstruction"] = freeze(raw_system)
    decls = [
        d
        for entry in body.get("tools") or ()
        for d in (entry.get("functionDeclarations") or () if isinstance(entry, dict) else ())
    ]
    if any(not _same(_render_tool(t), d) for t, d in zip(tools, decls, strict=False)):
        out["declarations"] = freeze(decls)
    return out


def _kept_system(kept: Mapping[str, Any]) -> tuple[str, ...] | None:
    try:
        return _system_blocks(thaw(FrozenDict(kept)))
    except (DialectError, KeyError, TypeError):
        return None


def _kept_declarations(kept: Json) -> dict[Tool, Any]:
    """Each kept declaration by the Tool it reads as."""
    out: dict[Tool, Any] = {}
    for decl in kept if isinstance(kept, tuple) else ():
        try:
            out.setdefault(_tool(thaw(decl), "tools"), decl)
        except DialectError:
            continue
    return out


def _render_tool(tool: Tool) -> dict[str, Any]:
    """A function declaration: name, description, parameters (omitted when None)."""
    decl: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        decl["description"] = tool.description
    if tool.parameters is not None:
        decl["parameters"] = tool.parameters
    return decl


def _render_tool_config(choice: ToolChoice | None, rest: Mapping[str, Any]) -> dict[str, Any]:
    """functionCallingConfig from the tool choice, then the kept unknown toolConfig keys."""
    tool_config: dict[str, Any] = {}
    if choice is not None:
        calling: dict[str, Any] = {"mode": _RENDER_MODES[choice.mode]}
        if choice.names:
            calling["allowedFunctionNames"] = list(choice.names)
        tool_config["functionCallingConfig"] = calling
    tool_config.update(rest)
    return tool_config


def _rendered_content(message: Message) -> Any:
    """The message's contents entry: its kept form, else from its parts (``alone`` keeps it:
    it depends on the message alone)."""
    return _kept_form(message) or _render_message(message)


def _render_message(message: Message) -> dict[str, Any]:
    """A content; an in-history system message has no Gemini form and becomes a user turn."""
    role = "model" if message.role == "model" else "user"
    return {"role": role, "parts": [_render_part(p) for p in message.parts]}


def _own_extra(extra: FrozenDict, group: str) -> dict[str, Any]:
    own = extra.get(GeminiDialect.name)
    kept = own.get(group) if isinstance(own, FrozenDict) else None
    return thaw(kept) if isinstance(kept, FrozenDict) else {}


def _render_part(part: Part) -> dict[str, Any]:
    """One part in its wire form; redacted thinking becomes thought text."""
    if isinstance(part, Text):
        return _with_signature({"text": part.text}, part.signature)
    if isinstance(part, Opaque):
        own = part.own_block(GeminiDialect.name)
        return own if own is not None else {"text": part.as_text}
    if isinstance(part, Thinking):
        thought: dict[str, Any] = {"text": part.text, "thought": True}
        return _with_signature(thought, part.signature)
    if isinstance(part, FunctionCall):
        call: dict[str, Any] = {"id": part.id} if part.id is not None else {}
        call["name"] = part.name
        if part.args is not None:
            call["args"] = part.args
        call.update(_own_extra(part.extra, "call"))
        out = _with_signature({"functionCall": call}, part.signature)
        return out | _own_extra(part.extra, "part")
    if isinstance(part, FunctionResponse):
        response: dict[str, Any] = {"id": part.id} if part.id is not None else {}
        response["name"] = part.name
        response["response"] = _wrap_response(part.response, part.is_error)
        response.update(_own_extra(part.extra, "response"))
        return {"functionResponse": response} | _own_extra(part.extra, "part")
    return _render_image(part)


def _with_signature(part: dict[str, Any], signature: str | None) -> dict[str, Any]:
    """Add the part-level ``thoughtSignature`` when there is one."""
    if signature is not None:
        part["thoughtSignature"] = signature
    return part


def _wrap_response(response: Json, is_error: bool) -> Json:
    """Gemini wants an object: errors go under ``error``, non-objects under ``output``."""
    if is_error:
        return FrozenDict({"error": response})
    return response if isinstance(response, dict) else FrozenDict({"output": response})


def _render_image(image: Image) -> dict[str, Any]:
    """inlineData for base64 data, fileData for a URL; a non-auto detail as mediaResolution."""
    blob: dict[str, Any] = {"mimeType": image.mime_type} if image.mime_type is not None else {}
    if image.data is not None:
        out: dict[str, Any] = {"inlineData": {**blob, "data": image.data}}
    else:
        out = {"fileData": {**blob, "fileUri": image.url}}
    if image.detail is not None and image.detail != "auto":
        out["mediaResolution"] = {"level": _RESOLUTION + image.detail.upper()}
    return out


def _render_config(settings: Settings, rest: Mapping[str, Any]) -> dict[str, Any]:
    """generationConfig: sampling, limits, kept unknown keys, the output schema, thinking."""
    config: dict[str, Any] = {}
    named = (
        ("temperature", settings.temperature),
        ("topP", settings.top_p),
        ("topK", settings.top_k),
        ("maxOutputTokens", settings.max_output_tokens),
        ("stopSequences", None if settings.stop is None else list(settings.stop)),
    )
    config.update((key, value) for key, value in named if value is not None)
    config.update(rest)
    if settings.output_schema is not None:
        config.setdefault("responseMimeType", _JSON_MIME)
        config["responseSchema"] = settings.output_schema.schema
    if settings.thinking is not None:
        config["thinkingConfig"] = _render_thinking(settings.thinking)
    return config


def _render_thinking(thinking: ThinkingConfig) -> dict[str, Any]:
    """thinkingConfig; a neutral mode without a budget maps to budget 0 (off) or -1 (dynamic)."""
    budget = thinking.budget_tokens
    if budget is None and thinking.mode is not None:
        budget = _MODE_BUDGETS.get(thinking.mode)
    named = (
        ("includeThoughts", thinking.include_thoughts),
        ("thinkingBudget", budget),
        ("thinkingLevel", thinking.effort),
    )
    return {key: value for key, value in named if value is not None}


DIALECT = GeminiDialect()
