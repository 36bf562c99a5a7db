"""Content parts both ways: a message's content read as neutral parts, and parts rendered as
content.

text and ``image_url`` parts (a base64 ``data:`` URL is inline data) map to their neutral
parts when they render back as sent; every other part (``input_audio``, ``file``,
``refusal``, a text part with fields of its own, any unknown type) is an ``Opaque`` part
holding it verbatim.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...model import (
    FunctionCall,
    FunctionResponse,
    Image,
    Opaque,
    Part,
    Text,
    Thinking,
    dumps,
    freeze,
    join_path,
)
from .._base import DialectError
from .._openai_reading import obj, show, string
from ._facts import NAME

__all__ = ["content_parts", "render_content", "render_part", "texts"]


def texts(content: Any, path: str) -> list[str]:
    """The texts of a string content or of an array of text parts."""
    if isinstance(content, str):
        return [content]
    return [_text_part(part, join_path(path, i)) for i, part in enumerate(content or ())]


def _text_part(part: Any, path: str) -> str:
    """The text of a ``{"type": "text", "text": ...}`` part."""
    kind = obj(part, path).get("type")
    if kind != "text":
        raise DialectError(f"expected a text part, not type {show(kind)}", path=f"{path}.type")
    return str(string(part, "text", path, required=True))


def content_parts(content: Any, path: str) -> tuple[Part, ...]:
    """The parts of a message's content: a string is one text."""
    if isinstance(content, str):
        return (Text(content),)
    return tuple(_content_part(part, join_path(path, i)) for i, part in enumerate(content or ()))


def _content_part(part: Any, path: str) -> Part:
    """A text or image_url part when it renders back as sent, else Opaque."""
    kind = obj(part, path).get("type")
    read: Part | None = None
    if kind == "image_url":
        read = _image(part, path)
    elif kind == "text":
        read = Text(_text_part(part, path))
    if read is not None and dumps(render_part(read)) == dumps(part):
        return read
    if not isinstance(kind, str):
        raise DialectError(f"a content part's type must be a string, not {show(kind)}", path=path)
    return Opaque(kind, freeze(part), NAME)


def _image(part: dict[str, Any], path: str) -> Image:
    """An ``image_url`` part: a base64 ``data:`` URL becomes inline data, others stay URLs."""
    spec = obj(part.get("image_url"), f"{path}.image_url")
    url = str(string(spec, "url", f"{path}.image_url", required=True))
    detail = string(spec, "detail", f"{path}.image_url")
    head, comma, data = url.partition(",")
    if comma and head.startswith("data:") and head.endswith(";base64"):
        return Image(mime_type=head[5:-7] or None, data=data, detail=detail)
    return Image(url=url, detail=detail)


def render_content(parts: Sequence[Part]) -> str | list[Mapping[str, Any]]:
    """A lone text as a string, anything else as an array of parts."""
    if len(parts) == 1 and isinstance(parts[0], Text):
        return parts[0].text
    return [render_part(p) for p in parts if not isinstance(p, FunctionCall | FunctionResponse)]


def render_part(part: Part) -> Mapping[str, Any]:
    """A text part, an ``image_url`` part (inline data as a base64 ``data:`` URL), or an
    Opaque part as sent (another dialect's as a text part of its JSON); thinking as text."""
    if isinstance(part, Opaque):
        own = part.own_block(NAME)
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
