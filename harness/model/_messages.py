"""Messages and their parts: the provider-neutral conversation history (docs/protocol.md#fields).

The model names no provider, but for three records of what one dialect sent, each naming
that dialect and rendered verbatim by it alone: a message's ``Source`` (the body items it was
read from), a call's or a response's ``Extra`` (fields of its block that no field names) and
an ``Opaque`` part (a block the model has no name for). Every other dialect renders the
neutral fields (an opaque block as text). ``Settings.extra`` holds the top-level fields each
dialect sends beyond the named settings (docs/protocol.md#fields).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import orjson

from ._json import FrozenDict, Json, dumps

__all__ = [
    "Extra",
    "FunctionCall",
    "FunctionResponse",
    "Image",
    "Message",
    "Opaque",
    "Part",
    "Role",
    "Source",
    "Text",
    "Thinking",
]

Role: TypeAlias = Literal["user", "model", "system"]
"""``system`` for system messages inside the history (openai, and anthropic's in-conversation
system messages)."""

_NOTHING = FrozenDict()


@dataclass(frozen=True, slots=True)
class Extra:
    """Fields of a call or a response as ``dialect`` sent it that no field of the part names
    (an anthropic ``tool_use``'s ``caller``, a gemini call's ``willContinue``), kept so that
    the dialect renders them back; every other dialect leaves them out."""

    dialect: str
    fields: FrozenDict

    def of(self, dialect: str) -> FrozenDict:
        """The fields when ``dialect`` is the one that sent them; none otherwise."""
        return self.fields if dialect == self.dialect else _NOTHING


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
    extra: Extra | None = None
    """Fields of the call as one dialect sent it that no field above names."""


@dataclass(frozen=True, slots=True)
class FunctionResponse:
    name: str
    response: Json
    id: str | None = None
    is_error: bool = False
    extra: Extra | None = None
    """Fields of the response as one dialect sent it that no field above names."""


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

    def own_block(self, dialect: str) -> FrozenDict | None:
        """The block as sent when it is ``dialect``'s own object; None for another's."""
        if self.dialect != dialect or not isinstance(self.value, FrozenDict):
            return None
        return self.value

    @property
    def as_text(self) -> str:
        """The block's compact JSON: how a dialect it is foreign to carries it, as text."""
        return orjson.dumps(self.value).decode()


Part: TypeAlias = Text | Thinking | FunctionCall | FunctionResponse | Image | Opaque


@dataclass(frozen=True, slots=True)
class Source:
    """The wire form a message was read from: ``items``, the body items of ``dialect`` it
    was read from (one body message, or the run OpenAI splits a turn into: tool messages
    and the user message after them), each as its compact JSON (``dumps``: the bytes a
    rendering sends for it, key order kept); ``role`` and ``parts``, what they were read
    as.

    The dialect renders the items verbatim while the message's role and parts are still
    these (``Message.kept``), so that forms the parts do not say (a one-text content as a
    string or a block list, a message's ``name``, key order) survive ``render(parse(body))``;
    a message whose role or parts differ from them (a copy made with other parts) renders
    from its parts."""

    dialect: str
    items: tuple[bytes, ...]
    role: Role
    parts: tuple[Part, ...]


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    parts: tuple[Part, ...]
    source: Source | None = field(default=None, compare=False, repr=False)
    """Where the message was read from, if it was: a rendering hint, not content (equality
    ignores it)."""

    @classmethod
    def read(
        cls, dialect: str, items: Sequence[Any], role: Role, parts: tuple[Part, ...]
    ) -> Message:
        """A message read as ``role`` and ``parts`` from ``items`` (decoded JSON) of
        ``dialect``'s body."""
        encoded = tuple(dumps(item) for item in items)
        return cls(role, parts, Source(dialect, encoded, role, parts))

    def kept(self, dialect: str) -> tuple[bytes, ...] | None:
        """The compact JSON of the body items the message was read from, while it is what
        they were read as and ``dialect`` is theirs; None otherwise (see ``Source``)."""
        source = self.source
        if (
            source is None
            or source.dialect != dialect
            or source.role != self.role
            or source.parts != self.parts
        ):
            return None
        return source.items

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
