"""Content blocks both ways: a block read as a neutral part, and a part rendered as a block.

text, thinking, redacted_thinking, image (base64 or url source), tool_use and tool_result
blocks map to their neutral parts. A tool_result is a FunctionResponse named after the
earlier tool_use with its id ("" when none), its content string or block list (images,
documents) as the response; unknown fields of a tool_use or tool_result (``caller``) are the
part's ``Extra``. Every other block (``document``, ``search_result``, ``server_tool_use``,
``web_search_tool_result``, ``mcp_tool_use``, ``container_upload``, an image with a ``file``
source, a text block with ``citations``, any type not known at all) is an ``Opaque`` part
holding the block verbatim: a block maps to a neutral part only when that part renders back
to the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
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
    dumps,
    freeze,
    join_path,
    json_kind,
    thaw,
)
from .._base import DialectError
from ._facts import NAME
from ._fields import compact, field, required_str, same

__all__ = ["part", "parts", "render_part"]

_CALL_KEYS: Final = ("type", "id", "name", "input")
_RESPONSE_KEYS: Final = ("type", "tool_use_id", "content", "is_error")


def parts(content: str | list[Any], k: int, names: dict[str, str]) -> tuple[Part, ...]:
    """The parts of ``messages[k]``'s (unmarked) content; ``names`` maps the ids of the calls
    read so far to their names, and learns the calls read here."""
    if isinstance(content, str):
        return (Text(content),)
    return tuple(
        part(block, f"messages[{k}].content[{j}]", names) for j, block in enumerate(content)
    )


def part(block: Any, path: str, names: dict[str, str]) -> Part:
    """The neutral part of an unmarked block: a known one only when it renders back to the
    same bytes (calls and responses keep their unknown fields as their ``Extra``), else
    Opaque."""
    if not isinstance(block, dict):
        raise DialectError(f"a content block must be an object, not {json_kind(block)}", path=path)
    kind = block.get("type")
    if not isinstance(kind, str):
        reason = f"a content block's type must be a string, not {json_kind(kind)}"
        raise DialectError(reason, path=join_path(path, "type"))
    reader = _READERS.get(kind)
    read = None if reader is None else reader(block, path, names)
    if read is None or not (
        isinstance(read, FunctionCall | FunctionResponse) or same(render_part(read), block)
    ):
        return Opaque(kind, freeze(block), NAME)
    return read


def _extras(block: dict[str, Any], known: tuple[str, ...]) -> Extra | None:
    """The block's fields outside ``known``, in body order."""
    rest = {key: freeze(value) for key, value in block.items() if key not in known}
    return Extra(NAME, FrozenDict(rest)) if rest else None


def _text(block: dict[str, Any], path: str, names: dict[str, str]) -> Part | None:
    return Text(required_str(block, "text", path))


def _tool_use(block: dict[str, Any], path: str, names: dict[str, str]) -> Part | None:
    name = required_str(block, "name", path)
    call_id: str | None = field(block, "id", path, (str,), "a string")
    if "input" not in block:
        raise DialectError("the input field is missing", path=join_path(path, "input"))
    if call_id is not None:
        names[call_id] = name
    return FunctionCall(name, freeze(block["input"]), call_id, extra=_extras(block, _CALL_KEYS))


def _tool_result(block: dict[str, Any], path: str, names: dict[str, str]) -> Part | None:
    call_id: str | None = field(block, "tool_use_id", path, (str,), "a string")
    content = field(block, "content", path, (str, list), "a string or an array of blocks")
    is_error = field(block, "is_error", path, (bool,), "a boolean")
    return FunctionResponse(
        names.get(call_id, "") if call_id is not None else "",
        "" if content is None else freeze(content),
        call_id,
        bool(is_error),
        _extras(block, _RESPONSE_KEYS),
    )


def _thinking(block: dict[str, Any], path: str, names: dict[str, str]) -> Part | None:
    signature = field(block, "signature", path, (str,), "a string")
    return Thinking(required_str(block, "thinking", path), signature)


def _redacted_thinking(block: dict[str, Any], path: str, names: dict[str, str]) -> Part | None:
    return Thinking(required_str(block, "data", path), redacted=True)


def _image(block: dict[str, Any], path: str, names: dict[str, str]) -> Part | None:
    """A base64 or url source; another source (``file``) has no neutral form: None."""
    source = field(block, "source", path, (dict,), "an object")
    path = join_path(path, "source")
    kind = None if source is None else source.get("type")
    if kind == "base64":
        mime_type = field(source, "media_type", path, (str,), "a string")
        return Image(mime_type=mime_type, data=required_str(source, "data", path))
    if kind == "url":
        return Image(url=required_str(source, "url", path))
    return None


_Reader = Callable[[dict[str, Any], str, dict[str, str]], Part | None]
"""A block's reader: the block, its path, the call names so far."""

_READERS: Final[dict[str, _Reader]] = {
    "text": _text,
    "tool_use": _tool_use,
    "tool_result": _tool_result,
    "thinking": _thinking,
    "redacted_thinking": _redacted_thinking,
    "image": _image,
}


def render_part(part: Part) -> dict[str, Any]:
    """The block of a part; another dialect's opaque block as a text block of its JSON."""
    if isinstance(part, Text):
        return {"type": "text", "text": part.text}
    if isinstance(part, Opaque):
        own = part.own_block(NAME)
        return own if own is not None else {"type": "text", "text": part.as_text}
    if isinstance(part, Thinking):
        if part.redacted:
            return {"type": "redacted_thinking", "data": part.text}
        return compact(type="thinking", thinking=part.text, signature=part.signature)
    if isinstance(part, FunctionCall):
        args = {} if part.args is None else thaw(part.args)
        call = compact(type="tool_use", id=part.id, name=part.name, input=args)
        return call | _own_fields(part.extra)
    if isinstance(part, FunctionResponse):
        content = _render_response(part.response)
        error = True if part.is_error else None
        result = compact(type="tool_result", tool_use_id=part.id, content=content, is_error=error)
        return result | _own_fields(part.extra)
    return {"type": "image", "source": _render_source(part)}


def _own_fields(extra: Extra | None) -> FrozenDict:
    return FrozenDict() if extra is None else extra.of(NAME)


def _render_response(response: Json) -> Any:
    """A string or a block list as is; any other JSON as its compact encoding."""
    if isinstance(response, str | tuple):
        return thaw(response)
    return dumps(response).decode()


def _render_source(image: Image) -> dict[str, Any]:
    if image.url is not None:
        return {"type": "url", "url": image.url}
    return compact(type="base64", media_type=image.mime_type, data=image.data)
