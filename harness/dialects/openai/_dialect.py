"""The OpenAI chat completions dialect: its facts, its hooks and its capture wire together."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...model import Request
from .._base import Dialect, Segment
from . import _detect, _prefix, _read, _render, _settings
from ._facts import FACTS
from ._wire import WIRE

__all__ = ["DIALECT", "OpenAIChat"]


class OpenAIChat(Dialect):
    """The chat completions body: ``messages``, function ``tools``, ``response_format``."""

    facts = FACTS
    wire = WIRE

    def detect(self, body: Mapping[str, Any]) -> int:
        return _detect.detect(body)

    def segments(self, body: Mapping[str, Any]) -> tuple[Segment, ...]:
        return _prefix.segments(body)

    def settings(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return _settings.cache_settings(body)

    def to_request(self, body: Mapping[str, Any]) -> Request:
        return _read.read_request(body)

    def render(self, request: Request) -> bytes:
        return _render.render(request)


DIALECT = OpenAIChat()
