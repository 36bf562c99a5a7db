"""What every dialect provides: parse a body into segments, settings and the neutral model,
and render the neutral model back to a body."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from ..model import Request, json_kind

__all__ = ["Dialect", "DialectError", "ParsedBody", "Segment"]


class DialectError(ValueError):
    """The body is valid JSON but not a request of the dialect.

    ``path`` is where in the body the problem is (``messages[3].content``), when known.
    """

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message if path is None else f"{path}: {message}")
        self.reason = message
        self.path = path


@dataclass(frozen=True, slots=True)
class Segment:
    """One piece of the cached prefix, as sent: its parsed value keeps the body's key order.

    ``name`` is the segment's JSON path in the body (``tools[3]``, ``system``,
    ``messages[7]``, ``tools[0].functionDeclarations[2]``); cache markers are already
    removed from ``value``.
    """

    name: str
    value: Any


class ParsedBody:
    """A request body read through one dialect.

    ``segments`` and ``settings`` are computed eagerly (cheap, and they validate the
    envelope); the neutral ``request`` is built on first use because a long history
    costs real time to convert and a byte comparison does not need it.
    """

    def __init__(
        self,
        dialect: Dialect,
        body: dict[str, Any],
        segments: tuple[Segment, ...],
        settings: Mapping[str, Any],
        cache_markers: tuple[str, ...] = (),
    ) -> None:
        self.dialect = dialect
        self.body = body
        self.segments = segments
        self.settings = settings
        self.cache_markers = cache_markers

    @cached_property
    def request(self) -> Request:
        """The body in the neutral model; raises ``DialectError`` if a part is malformed."""
        return self.dialect.to_request(self.body)

    def __repr__(self) -> str:
        return f"<ParsedBody {self.dialect.name} segments={len(self.segments)}>"


class Dialect(ABC):
    """A provider wire format. One module per dialect, exporting ``DIALECT``."""

    name: ClassVar[str]
    title: ClassVar[str]
    """A short human name, e.g. ``"OpenAI chat completions"``."""

    @abstractmethod
    def detect(self, body: Mapping[str, Any]) -> int:
        """How strongly the body looks like this dialect: 0 for not at all.

        Count features only this dialect has (a role name, a block type, a field).
        Never raises, whatever the body holds.
        """

    @abstractmethod
    def segments(self, body: Mapping[str, Any]) -> tuple[Segment, ...]:
        """The prefix segments in cache order, with cache markers removed.

        Validates the envelope (types of the top-level fields, that messages are objects
        with a known role) and raises ``DialectError`` otherwise.
        """

    @abstractmethod
    def settings(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Fields outside the prefix that still matter to the cache, by name, as sent:
        model, sampling, max tokens, thinking/effort, tool_choice, output schema."""

    def cache_markers(self, body: Mapping[str, Any]) -> tuple[str, ...]:
        """Names of the segments that carry a cache marker; none where the dialect has none."""
        return ()

    @abstractmethod
    def to_request(self, body: Mapping[str, Any]) -> Request:
        """The body in the neutral model. Raises ``DialectError`` naming the path."""

    @abstractmethod
    def render(self, request: Request) -> bytes:
        """The body an implementation would POST for ``request``: compact JSON bytes.

        What the dialect cannot express is dropped or mapped to its nearest form, so that
        ``render(parse(render(r)))`` equals ``render(r)`` byte for byte.
        """

    def parse(self, body: Any) -> ParsedBody:
        """Read an already decoded JSON body. Raises ``DialectError``."""
        if not isinstance(body, dict):
            raise DialectError(f"the body is {json_kind(body)}, not a JSON object")
        return ParsedBody(
            self,
            body,
            self.segments(body),
            self.settings(body),
            self.cache_markers(body),
        )
