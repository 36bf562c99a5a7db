"""Messages and their parts: the provider-neutral conversation history (docs/protocol.md#fields)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import orjson

from ._json import FrozenDict, Json, thaw

__all__ = [
    "FunctionCall",
    "FunctionResponse",
    "Image",
    "Message",
    "Opaque",
    "Part",
    "Role",
    "Text",
    "Thinking",
]

Role: TypeAlias = Literal["user", "model", "system"]
"""``system`` for system messages inside the history (openai, and anthropic's in-conversation
system messages)."""


@dataclass(frozen=True, slots=True)
class Text:
    text: str
    signature: str | None = None
    """An opaque signature some dialects attach to any part (gemini ``thoughtSignature``)."""


@dataclass(frozen=True, slots=True)
class Thinking:
    """Model reasoning kept in the history; ``redacted`` holds opaque data in ``text``."""

    text: str
    signature: str | None = None
    redacted: bool = False


@dataclass(frozen=True, slots=True)
class FunctionCall:
    name: str
    args: Json
    id: str | None = None
    signature: str | None = None
    """An opaque signature some dialects attach to a call (gemini ``thoughtSignature``)."""
    extra: FrozenDict = field(default_factory=FrozenDict)
    """Fields of the call as sent that no field above names, keyed by dialect (like
    ``Settings.extra``): ``{"anthropic": {"caller": ...}}``. Only that dialect renders them."""


@dataclass(frozen=True, slots=True)
class FunctionResponse:
    name: str
    response: Json
    id: str | None = None
    is_error: bool = False
    extra: FrozenDict = field(default_factory=FrozenDict)
    """Fields of the response as sent that no field above names, keyed by dialect
    (``{"gemini": {"willContinue": true}}``). Only that dialect renders them."""


@dataclass(frozen=True, slots=True)
class Image:
    """An image given inline (base64 ``data`` with ``mime_type``) or by ``url``."""

    mime_type: str | None = None
    data: str | None = None
    url: str | None = None
    detail: str | None = None

    def __post_init__(self) -> None:
        if (self.data is None) == (self.url is None):
            raise ValueError("an Image has exactly one of data or url")


@dataclass(frozen=True, slots=True)
class Opaque:
    """A part the neutral model has no name for, kept verbatim so that it reaches the prefix
    stream and renders back byte for byte: a content block of an unknown type (``document``,
    ``search_result``, ``web_search_tool_result``, ``input_audio``, ``executableCode``), or a
    known one carrying fields the neutral part cannot express (a text block with ``citations``).

    ``kind`` is the block's type as the dialect names it (its ``type``, or its single data key
    in gemini); ``value`` is the whole block as sent, frozen with its key order; ``dialect``
    is whose wire form ``value`` is. Another dialect renders it as the nearest form it has: a
    text part holding the block's compact JSON.
    """

    kind: str
    value: Json
    dialect: str | None = None

    def own_block(self, dialect: str) -> dict[str, Any] | None:
        """The block as sent when it is ``dialect``'s own object; None for another's."""
        if self.dialect != dialect or not isinstance(self.value, dict):
            return None
        block: dict[str, Any] = thaw(self.value)
        return block

    @property
    def as_text(self) -> str:
        """The block's compact JSON: how a dialect it is foreign to carries it, as text."""
        return orjson.dumps(self.value).decode()


Part: TypeAlias = Text | Thinking | FunctionCall | FunctionResponse | Image | Opaque


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    parts: tuple[Part, ...]
    wire: FrozenDict = field(default_factory=FrozenDict, compare=False, repr=False)
    """A rendering hint, not content: the message as a dialect read it, keyed by dialect
    (the body message, or for openai the run of body messages it was read from). A dialect
    renders it verbatim while it still reads back as this message's role and parts, so that
    forms the parts do not say (a one-text content as a string or a block list, a message's
    ``name``, its key order) survive ``render(parse(body))``. Ignored by equality."""

    @property
    def function_calls(self) -> tuple[FunctionCall, ...]:
        return tuple(p for p in self.parts if isinstance(p, FunctionCall))

    @property
    def function_responses(self) -> tuple[FunctionResponse, ...]:
        return tuple(p for p in self.parts if isinstance(p, FunctionResponse))

    @property
    def text(self) -> str:
        """The concatenated text parts (thinking excluded)."""
        return "".join(p.text for p in self.parts if isinstance(p, Text))
