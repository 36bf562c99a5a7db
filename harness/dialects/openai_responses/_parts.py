"""Content parts both ways: a message item's content read as neutral parts, and parts
rendered as content (``input_text`` from the user, ``output_text`` from the model,
``input_image``). A part the neutral model has no name for (a text part with annotations, an
``input_file``, a ``refusal``) is an ``Opaque`` part holding it verbatim."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from ...model import (
    FunctionCall,
    FunctionResponse,
    Image,
    Opaque,
    Part,
    Text,
    Thinking,
    freeze,
    join_path,
)
from .._base import DialectError
from .._openai_reading import obj, show, string
from ._facts import NAME
from ._markers import unmarked_part

__all__ = ["content_parts", "is_content", "render_part", "texts"]

_TEXT_PARTS: Final = ("input_text", "output_text")


def texts(content: Any, path: str) -> list[str]:
    """The texts of a string content or of an array of text parts."""
    if isinstance(content, str):
        return [content]
    return [
        str(string(p, "text", join_path(path, i), required=True)) for i, p in enumerate(content)
    ]


def content_parts(content: Any, path: str) -> tuple[Part, ...]:
    """The parts of a message's content: a string is one text."""
    if isinstance(content, str):
        return (Text(content),)
    return tuple(_content_part(part, join_path(path, i)) for i, part in enumerate(content))


def _content_part(part: Any, path: str) -> Part:
    """Text and image parts that render back as sent; anything else as Opaque."""
    part = unmarked_part(obj(part, path))
    kind = part.get("type")
    read: Part | None = None
    if kind in _TEXT_PARTS:
        read = Text(str(string(part, "text", path, required=True)))
        plain = {
            k: v for k, v in part.items() if not (k in ("annotations", "logprobs") and v == [])
        }
        if plain != {"type": kind, "text": read.text}:
            read = None
    elif kind == "input_image":
        read = _image(part, path)
        if read is not None and render_part(read, "user") != part:
            read = None
    if read is not None:
        return read
    if not isinstance(kind, str):
        raise DialectError(f"a content part's type must be a string, not {show(kind)}", path=path)
    return Opaque(kind, freeze(part), NAME)


def _image(part: dict[str, Any], path: str) -> Image | None:
    """An ``input_image`` part by URL (a base64 ``data:`` URL is inline data); one that
    names a ``file_id`` has no neutral form."""
    url = string(part, "image_url", path)
    detail = string(part, "detail", path)
    if url is None:
        return None
    head, comma, data = url.partition(",")
    if comma and head.startswith("data:") and head.endswith(";base64"):
        return Image(mime_type=head[5:-7] or None, data=data, detail=detail)
    return Image(url=url, detail=detail)


def is_content(part: Part) -> bool:
    """Whether a part renders inside a message's content (not as an item of its own)."""
    if isinstance(part, FunctionCall | FunctionResponse | Thinking):
        return False
    return not (isinstance(part, Opaque) and _is_item(part))


def _is_item(part: Opaque) -> bool:
    """An Opaque part that is a whole item of this dialect (not a content part)."""
    own = part.own_block(NAME)
    return own is not None and ("call_id" in own or not _is_part_type(part.kind))


def _is_part_type(kind: str) -> bool:
    return kind.startswith(("input_", "output_")) or kind == "refusal"


def render_part(part: Part, side: Literal["user", "model"]) -> Mapping[str, Any]:
    """A text part (``input_text`` from the user, ``output_text`` from the model), an
    ``input_image``, an Opaque part as sent (another dialect's as a text of its JSON)."""
    text_type = "output_text" if side == "model" else "input_text"
    if isinstance(part, Opaque):
        own = part.own_block(NAME)
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
