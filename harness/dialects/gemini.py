"""Gemini ``generateContent`` bodies: ``contents`` of user/model parts, a ``systemInstruction``,
``tools[].functionDeclarations``, a ``toolConfig`` and a ``generationConfig`` (SPEC §4).

The model name travels in the URL, not the body, so ``Settings.model`` stays unset.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
    Role,
    Settings,
    Text,
    Thinking,
    ThinkingConfig,
    Tool,
    ToolChoice,
    freeze,
    join_path,
    json_kind,
)
from ._base import Dialect, DialectError, Segment

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
_MERGED: Final = ("tools", "toolConfig", "generationConfig")
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
        """systemInstruction, each function declaration, toolConfig, then each content."""
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
        for k, content in enumerate(contents):
            path = join_path("contents", k)
            if not isinstance(content, dict):
                raise DialectError(f"a content is an object, not {json_kind(content)}", path=path)
            _role(content, path)
            _required(content, "parts", list, path)
            out.append(Segment(path, content))
        return tuple(out)

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
        preset = Preset(
            system=_system_blocks(body.get("systemInstruction")),
            tools=tools,
            settings=_settings(body, other_tools),
        )
        history = tuple(
            _message(content, join_path("contents", k))
            for k, content in enumerate(body["contents"])
        )
        return Request(preset=preset, history=history)

    def render(self, request: Request) -> bytes:
        """Compact JSON in cache order: systemInstruction, tools, toolConfig, contents, then
        generationConfig and the unknown top-level fields kept in ``extra``."""
        preset, settings = request.preset, request.preset.settings
        extra: Mapping[str, Any] = settings.extra.get(self.name, FrozenDict())
        body: dict[str, Any] = {}
        if preset.system:
            body["systemInstruction"] = {"parts": [{"text": block} for block in preset.system]}
        tools = list(extra.get("tools", ()))
        if preset.tools:
            tools.insert(0, {"functionDeclarations": [_render_tool(t) for t in preset.tools]})
        if tools:
            body["tools"] = tools
        tool_config = _render_tool_config(settings.tool_choice, extra.get("toolConfig", {}))
        if tool_config:
            body["toolConfig"] = tool_config
        body["contents"] = [_render_message(m) for m in request.history]
        config = _render_config(settings, extra.get("generationConfig", {}))
        if config:
            body["generationConfig"] = config
        body.update((k, v) for k, v in extra.items() if k not in _MERGED)
        return orjson.dumps(body)


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


def _role(content: Mapping[str, Any], path: str) -> Role:
    """The content's role; a blank or missing role means ``user`` in Gemini."""
    role = content.get("role") or "user"
    if role not in _ROLES:
        reason = f"unknown role {role!r}; Gemini roles are user and model"
        raise DialectError(reason, path=join_path(path, "role"))
    return "user" if role == "user" else "model"


def _tool_segments(tools: list[Any] | None) -> list[Segment]:
    """One segment per function declaration; any other tool entry is one whole segment."""
    out: list[Segment] = []
    for i, entry in enumerate(tools or ()):
        path = join_path("tools", i)
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
        path = join_path("tools", i)
        for j, decl in enumerate(_field(entry, "functionDeclarations", list, path) or ()):
            declared.append(_tool(decl, join_path(path, "functionDeclarations", j)))
        rest = {k: v for k, v in entry.items() if k != "functionDeclarations"}
        if rest:
            others.append(freeze(rest))
    return tuple(declared), tuple(others)


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


def _message(content: dict[str, Any], path: str) -> Message:
    """A contents entry; its envelope was checked by segments()."""
    parts = content["parts"]
    return Message(
        role=_role(content, path),
        parts=tuple(_part(p, join_path(path, "parts", i)) for i, p in enumerate(parts)),
    )


def _part(part: Any, path: str) -> Part:
    """One part: exactly one of text, functionCall, functionResponse, inlineData, fileData."""
    if not isinstance(part, dict):
        raise DialectError(f"a part is an object, not {json_kind(part)}", path=path)
    kinds = [k for k in _PART_KINDS if k in part]
    if len(kinds) != 1:
        found = " and ".join(kinds) or f"none (keys: {', '.join(part)})"
        raise DialectError(
            f"a part holds exactly one of {', '.join(_PART_KINDS)}; found {found}", path=path
        )
    return _PART_READERS[kinds[0]](part, path)


def _text_part(part: dict[str, Any], path: str) -> Part:
    """Text, or Thinking when ``thought`` is true. A plain text part's ``thoughtSignature`` has
    no neutral field and is dropped."""
    text: str = _required(part, "text", str, path)
    if _field(part, "thought", bool, path):
        return Thinking(text, signature=_field(part, "thoughtSignature", str, path))
    return Text(text)


def _call_part(part: dict[str, Any], path: str) -> Part:
    """A functionCall with its sibling ``thoughtSignature``; absent args stay None."""
    call = _required(part, "functionCall", dict, path)
    call_path = join_path(path, "functionCall")
    return FunctionCall(
        name=_required(call, "name", str, call_path),
        args=freeze(call.get("args")),
        id=_field(call, "id", str, call_path),
        signature=_field(part, "thoughtSignature", str, path),
    )


def _response_part(part: dict[str, Any], path: str) -> Part:
    """A functionResponse; a lone ``error`` key marks an error, a lone ``output`` key around a
    non-object is unwrapped (both are Gemini's documented response conventions)."""
    response = _required(part, "functionResponse", dict, path)
    response_path = join_path(path, "functionResponse")
    if "response" not in response:
        raise DialectError("response is required", path=join_path(response_path, "response"))
    value, is_error = _unwrap_response(freeze(response["response"]))
    return FunctionResponse(
        name=_required(response, "name", str, response_path),
        response=value,
        id=_field(response, "id", str, response_path),
        is_error=is_error,
    )


def _unwrap_response(response: Json) -> tuple[Json, bool]:
    """Inverse of ``_wrap_response``: the neutral response and its error flag."""
    if isinstance(response, dict) and len(response) == 1:
        if "error" in response:
            return response["error"], True
        if "output" in response and not isinstance(response["output"], dict):
            return response["output"], False
    return response, False


def _image_part(part: dict[str, Any], path: str) -> Part:
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


_PART_READERS: Final[dict[str, Callable[[dict[str, Any], str], Part]]] = {
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


def _render_message(message: Message) -> dict[str, Any]:
    """A content; an in-history system message has no Gemini form and becomes a user turn."""
    role = "model" if message.role == "model" else "user"
    return {"role": role, "parts": [_render_part(p) for p in message.parts]}


def _render_part(part: Part) -> dict[str, Any]:
    """One part in its wire form; redacted thinking becomes thought text."""
    if isinstance(part, Text):
        return {"text": part.text}
    if isinstance(part, Thinking):
        thought: dict[str, Any] = {"text": part.text, "thought": True}
        return _with_signature(thought, part.signature)
    if isinstance(part, FunctionCall):
        call: dict[str, Any] = {"id": part.id} if part.id is not None else {}
        call["name"] = part.name
        if part.args is not None:
            call["args"] = part.args
        return _with_signature({"functionCall": call}, part.signature)
    if isinstance(part, FunctionResponse):
        response: dict[str, Any] = {"id": part.id} if part.id is not None else {}
        response["name"] = part.name
        response["response"] = _wrap_response(part.response, part.is_error)
        return {"functionResponse": response}
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
