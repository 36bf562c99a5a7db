"""Parts both ways: a Gemini part read as a neutral part, and a neutral part rendered as one.

text (``thought: true`` -> Thinking), functionCall, functionResponse, inlineData and fileData
map to their neutral parts, with ``thoughtSignature`` kept on any of them (``signature``). A
part maps to a neutral part only when that part renders back to the same bytes; every other
part (``executableCode``, ``codeExecutionResult``, a part with ``videoMetadata``, any part not
known at all) is an ``Opaque`` part holding it verbatim. Unknown fields of a functionCall /
functionResponse (``willContinue``, ``scheduling``, ``parts``) and of their part are the
neutral part's ``Extra`` (grouped under ``"call"`` / ``"response"`` and ``"part"``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from ...model import (
    Extra,
    FrozenDict,
    FunctionCall,
    FunctionResponse,
    Image,
    Json,
    Opaque,
    Part,
    Text,
    Thinking,
    freeze,
    join_path,
    json_kind,
    thaw,
)
from .._base import DialectError
from ._facts import NAME
from ._fields import field, required, same

__all__ = ["part", "render_part"]

_PART_KINDS: Final = ("text", "functionCall", "functionResponse", "inlineData", "fileData")
_PART_META: Final = frozenset({"thought", "thoughtSignature", "partMetadata", "mediaResolution"})
"""Part fields beside its data: an Opaque part is named after its first other key."""
_RESOLUTION: Final = "MEDIA_RESOLUTION_"


def part(raw: Any, path: str) -> Part:
    """One part: a neutral part when exactly one of text, functionCall, functionResponse,
    inlineData, fileData is there and the neutral part renders back to the same bytes (a call
    or response keeps its other fields as its ``Extra``); else an Opaque part."""
    if not isinstance(raw, dict):
        raise DialectError(f"a part is an object, not {json_kind(raw)}", path=path)
    kinds = [k for k in _PART_KINDS if k in raw]
    if len(kinds) == 1:
        read = _PART_READERS[kinds[0]](raw, path)
        if isinstance(read, FunctionCall | FunctionResponse) or same(render_part(read), raw):
            return read
    kind = next((k for k in raw if k not in _PART_META), next(iter(raw), "part"))
    return Opaque(kind, freeze(raw), NAME)


def _extras(**groups: tuple[Mapping[str, Any], tuple[str, ...]]) -> Extra | None:
    """Each group's fields outside its known keys, by group."""
    out = {}
    for group, (obj, known) in groups.items():
        rest = {k: freeze(v) for k, v in obj.items() if k not in known}
        if rest:
            out[group] = FrozenDict(rest)
    return Extra(NAME, FrozenDict(out)) if out else None


def _text_part(raw: dict[str, Any], path: str) -> Part:
    """Text, or Thinking when ``thought`` is true, each with its ``thoughtSignature``."""
    text: str = required(raw, "text", str, path)
    signature = field(raw, "thoughtSignature", str, path)
    if field(raw, "thought", bool, path):
        return Thinking(text, signature=signature)
    return Text(text, signature=signature)


def _call_part(raw: dict[str, Any], path: str) -> Part:
    """A functionCall with its sibling ``thoughtSignature``; absent args stay None."""
    call = required(raw, "functionCall", dict, path)
    call_path = join_path(path, "functionCall")
    return FunctionCall(
        name=required(call, "name", str, call_path),
        args=freeze(call.get("args")),
        id=field(call, "id", str, call_path),
        signature=field(raw, "thoughtSignature", str, path),
        extra=_extras(
            part=(raw, ("functionCall", "thoughtSignature")),
            call=(call, ("id", "name", "args")),
        ),
    )


def _response_part(raw: dict[str, Any], path: str) -> Part:
    """A functionResponse; a lone ``error`` key marks an error, a lone ``output`` key around a
    non-object is unwrapped (both are Gemini's documented response conventions)."""
    response = required(raw, "functionResponse", dict, path)
    response_path = join_path(path, "functionResponse")
    if "response" not in response:
        raise DialectError("response is required", path=join_path(response_path, "response"))
    value, is_error = _unwrap_response(freeze(response["response"]))
    return FunctionResponse(
        name=required(response, "name", str, response_path),
        response=value,
        id=field(response, "id", str, response_path),
        is_error=is_error,
        extra=_extras(
            part=(raw, ("functionResponse",)),
            response=(response, ("id", "name", "response")),
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


def _image_part(raw: dict[str, Any], path: str) -> Part:
    """inlineData (base64) or fileData (URI) as an Image; mediaResolution gives its detail."""
    if "inlineData" in raw:
        blob, blob_path = required(raw, "inlineData", dict, path), join_path(path, "inlineData")
        data, url = required(blob, "data", str, blob_path), None
    else:
        blob, blob_path = required(raw, "fileData", dict, path), join_path(path, "fileData")
        data, url = None, required(blob, "fileUri", str, blob_path)
    return Image(
        mime_type=field(blob, "mimeType", str, blob_path),
        data=data,
        url=url,
        detail=_detail(raw, path),
    )


def _detail(raw: dict[str, Any], path: str) -> str | None:
    """``mediaResolution.level`` as a neutral detail: ``MEDIA_RESOLUTION_HIGH`` -> ``high``."""
    resolution = field(raw, "mediaResolution", dict, path)
    if resolution is None:
        return None
    level: str = required(resolution, "level", str, join_path(path, "mediaResolution"))
    return level.removeprefix(_RESOLUTION).lower()


_PART_READERS: Final[dict[str, Callable[[dict[str, Any], str], Part]]] = {
    "text": _text_part,
    "functionCall": _call_part,
    "functionResponse": _response_part,
    "inlineData": _image_part,
    "fileData": _image_part,
}


def render_part(part: Part) -> Mapping[str, Any]:
    """One part in its wire form; redacted thinking becomes thought text, another dialect's
    opaque block a text of its JSON."""
    if isinstance(part, Text):
        return _with_signature({"text": part.text}, part.signature)
    if isinstance(part, Opaque):
        own = part.own_block(NAME)
        return own if own is not None else {"text": part.as_text}
    if isinstance(part, Thinking):
        thought: dict[str, Any] = {"text": part.text, "thought": True}
        return _with_signature(thought, part.signature)
    if isinstance(part, FunctionCall):
        call: dict[str, Any] = {"id": part.id} if part.id is not None else {}
        call["name"] = part.name
        if part.args is not None:
            call["args"] = part.args
        call.update(_own_fields(part.extra, "call"))
        out = _with_signature({"functionCall": call}, part.signature)
        return out | _own_fields(part.extra, "part")
    if isinstance(part, FunctionResponse):
        response: dict[str, Any] = {"id": part.id} if part.id is not None else {}
        response["name"] = part.name
        response["response"] = _wrap_response(part.response, part.is_error)
        response.update(_own_fields(part.extra, "response"))
        return {"functionResponse": response} | _own_fields(part.extra, "part")
    return _render_image(part)


def _own_fields(extra: Extra | None, group: str) -> dict[str, Any]:
    own = FrozenDict() if extra is None else extra.of(NAME)
    kept = own.get(group)
    return thaw(kept) if isinstance(kept, FrozenDict) else {}


def _with_signature(raw: dict[str, Any], signature: str | None) -> dict[str, Any]:
    """Add the part-level ``thoughtSignature`` when there is one."""
    if signature is not None:
        raw["thoughtSignature"] = signature
    return raw


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
