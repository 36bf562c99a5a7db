"""Messages and their parts: the provider-neutral conversation history (SPEC §3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from ._json import Json

__all__ = [
    "FunctionCall",
    "FunctionResponse",
    "Image",
    "Message",
    "Part",
    "Role",
    "Text",
    "Thinking",
]

Role: TypeAlias = Literal["user", "model", "system"]
"""``system`` only for dialects that allow system messages inside the history (openai)."""


@dataclass(frozen=True, slots=True)
class Text:
    text: str


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


@dataclass(frozen=True, slots=True)
class FunctionResponse:
    name: str
    response: Json
    id: str | None = None
    is_error: bool = False


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


Part: TypeAlias = Text | Thinking | FunctionCall | FunctionResponse | Image


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    parts: tuple[Part, ...]

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
