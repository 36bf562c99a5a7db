"""The Anthropic messages dialect: its facts, its hooks and its capture wire together."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...model import Request
from .._base import CacheMarker, Dialect, Segment
from .._cache_facts import ModelFacts
from .._cache_plan import CachePlan
from .._unit import Unit
from .._usage import ReportedUsage, count_field, reported_fields, required_field
from . import _cache, _detect, _prefix, _read, _render, _settings, _units
from ._facts import FACTS
from ._markers import marked_blocks
from ._wire import WIRE

__all__ = ["DIALECT", "AnthropicDialect"]

_INPUT, _WRITTEN, _READ = "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"
"""Anthropic's usage fields: the input after the last breakpoint, written, read."""


class AnthropicDialect(Dialect):
    """The Anthropic messages body; cache order is tools, system, messages."""

    facts = FACTS
    wire = WIRE

    def detect(self, body: Mapping[str, Any]) -> int:
        return _detect.detect(body)

    def segments(self, body: Mapping[str, Any]) -> tuple[Segment, ...]:
        return _prefix.segments(body)

    def settings(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return _settings.cache_settings(body)

    def cache_marks(self, body: Mapping[str, Any]) -> tuple[CacheMarker, ...]:
        """Every marker with its block index in cache order (``_facts``)."""
        return tuple(
            CacheMarker(segment, block, self.marker_ttl(marker), marker)
            for segment, block, marker, _ in marked_blocks(body)
        )

    def units(self, body: Mapping[str, Any]) -> tuple[Unit, ...]:
        return _units.units(body)

    def cache_plan(
        self, units: Sequence[Unit], body: Mapping[str, Any], model: ModelFacts
    ) -> CachePlan:
        markers = self.facts.markers
        lookback = _cache.LOOKBACK if markers is None else markers.lookback
        return _cache.plan(units, body, model, lookback)

    def usage_fields(
        self, total: int, read: int, written: int, body: Mapping[str, Any]
    ) -> dict[str, int]:
        """Anthropic's ``usage``: the input after the last breakpoint, what was written and
        what was read (the three add up to the prompt)."""
        return {_INPUT: max(0, total - read - written), _WRITTEN: written, _READ: read}

    def reported_usage(self, usage: Mapping[str, Any], body: Mapping[str, Any]) -> ReportedUsage:
        """Anthropic's ``usage`` read back: the prompt is the three counts together."""
        read, written = required_field(usage, _READ), count_field(usage, _WRITTEN)
        uncached = count_field(usage, _INPUT)
        total = None if uncached is None else uncached + read + (written or 0)
        return ReportedUsage(
            total, read, written, reported_fields(usage, (_INPUT, _WRITTEN, _READ))
        )

    def to_request(self, body: Mapping[str, Any]) -> Request:
        return _read.read_request(body)

    def render(self, request: Request) -> bytes:
        return _render.render(request)


DIALECT = AnthropicDialect()
