"""The Gemini generateContent dialect: its facts, its hooks and its capture wire together."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...model import FunctionCall, FunctionResponse, Request
from .._base import Dialect, Segment
from .._cache_facts import ModelFacts
from .._cache_plan import CachePlan
from .._unit import Unit
from .._usage import ReportedUsage, count_field, reported_fields, required_field
from . import _cache, _detect, _prefix, _read, _render, _settings, _units
from ._facts import FACTS
from ._wire import WIRE

__all__ = ["DIALECT", "GeminiDialect"]

_KEY, _PROMPT, _CACHED = "usageMetadata", "promptTokenCount", "cachedContentTokenCount"
"""Where a Gemini response carries its usage, the prompt (cached tokens included), read."""


class GeminiDialect(Dialect):
    """The Google Gemini API ``generateContent`` REST body, camelCase as sent on the wire."""

    facts = FACTS
    wire = WIRE

    def calls_answered(
        self, calls: Sequence[FunctionCall], responses: Sequence[FunctionResponse]
    ) -> bool:
        """Call ids are optional in Gemini: pair by id where both sides carry one, else by
        name and position (the k-th response named N answers the k-th call named N still
        open). Each call has exactly one response and no response answers nothing."""
        open_calls = list(calls)
        by_position: list[FunctionResponse] = []
        for response in responses:
            match = next(
                (c for c in open_calls if response.id is not None and c.id == response.id), None
            )
            if match is None:
                by_position.append(response)
            elif match.name != response.name:
                return False
            else:
                open_calls.remove(match)
        for response in by_position:
            match = next((c for c in open_calls if c.name == response.name), None)
            if match is None or (match.id is not None and response.id is not None):
                return False
            open_calls.remove(match)
        return not open_calls

    def detect(self, body: Mapping[str, Any]) -> int:
        return _detect.detect(body)

    def segments(self, body: Mapping[str, Any]) -> tuple[Segment, ...]:
        return _prefix.segments(body)

    def settings(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return _settings.cache_settings(body)

    def units(self, body: Mapping[str, Any]) -> tuple[Unit, ...]:
        return _units.units(body)

    def cache_plan(
        self, units: Sequence[Unit], body: Mapping[str, Any], model: ModelFacts
    ) -> CachePlan:
        return _cache.plan(units, body, model)

    def usage_fields(
        self, total: int, read: int, written: int, body: Mapping[str, Any]
    ) -> dict[str, int]:
        """Gemini's ``usageMetadata``: the prompt (cached tokens included) and the cached part."""
        return {f"{_KEY}.{_PROMPT}": total, f"{_KEY}.{_CACHED}": read}

    usage_key = _KEY

    def reported_usage(self, usage: Mapping[str, Any], body: Mapping[str, Any]) -> ReportedUsage:
        """Gemini's ``usageMetadata`` read back. Gemini leaves ``cachedContentTokenCount``
        out when nothing was read from its cache: with the prompt's count there, it is 0."""
        total, read = count_field(usage, _PROMPT), count_field(usage, _CACHED)
        if read is None:
            read = 0 if total is not None else required_field(usage, _CACHED)
        return ReportedUsage(total, read, None, reported_fields(usage, (_PROMPT, _CACHED)))

    def to_request(self, body: Mapping[str, Any]) -> Request:
        return _read.read_request(body)

    def render(self, request: Request) -> bytes:
        return _render.render(request)


DIALECT = GeminiDialect()
