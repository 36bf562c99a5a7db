"""The OpenAI Responses dialect: its facts, its hooks and its capture wire together."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...model import Message, Request
from .._base import CacheMarker, Dialect, Segment
from .._cache_facts import CacheFacts, ModelFacts
from .._cache_plan import CachePlan
from .._openai_cache import family_plan
from .._openai_facts import deepseek_facts
from .._unit import Unit
from .._usage import ReportedUsage, count_field, reported_fields, required_field
from . import _continue, _detect, _prefix, _read, _render, _settings, _units
from ._facts import FACTS
from ._markers import marked_blocks
from ._wire import WIRE

__all__ = ["DIALECT", "OpenAIResponses"]

_INPUT, _CACHED, _WRITTEN = (
    "input_tokens",
    "input_tokens_details.cached_tokens",
    "input_tokens_details.cache_write_tokens",
)
"""The Responses API's usage fields: the input (cached tokens included), read, written."""


class OpenAIResponses(Dialect):
    """The Responses body: ``instructions``, ``input`` items, flat function ``tools``."""

    facts = FACTS
    wire = WIRE

    def detect(self, body: Mapping[str, Any]) -> int:
        return _detect.detect(body)

    def segments(self, body: Mapping[str, Any]) -> tuple[Segment, ...]:
        return _prefix.segments(body)

    def settings(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return _settings.cache_settings(body)

    def cache_marks(self, body: Mapping[str, Any]) -> tuple[CacheMarker, ...]:
        """Every breakpoint with its block index in cache order (``_facts``). A marker's
        ttl defaults to the request's ``prompt_cache_options.ttl``, else the dialect's."""
        options = body.get("prompt_cache_options")
        default = options.get("ttl") if isinstance(options, dict) else None
        ttl = default if isinstance(default, str) else self.marker_ttl(None)
        out = []
        for segment, block, marker in marked_blocks(body):
            own = marker.get("ttl") if isinstance(marker, dict) else None
            out.append(CacheMarker(segment, block, own if isinstance(own, str) else ttl, marker))
        return tuple(out)

    def continued(self, body: Mapping[str, Any]) -> str | None:
        return _continue.continued(body)

    def expand(
        self, body: Mapping[str, Any], before: Mapping[str, Any], answer: Sequence[Message]
    ) -> dict[str, Any]:
        return _continue.expand(body, before, answer)

    def units(self, body: Mapping[str, Any]) -> tuple[Unit, ...]:
        return _units.units(body)

    def cache_plan(
        self, units: Sequence[Unit], body: Mapping[str, Any], model: ModelFacts
    ) -> CachePlan:
        return family_plan(units, body, model)

    def model_facts(self, body: Mapping[str, Any]) -> tuple[CacheFacts, ModelFacts, bool]:
        """DeepSeek's facts for a request naming a DeepSeek model (its OpenAI-compatible
        API), OpenAI's otherwise."""
        return deepseek_facts(body) or super().model_facts(body)

    def usage_fields(
        self, total: int, read: int, written: int, body: Mapping[str, Any]
    ) -> dict[str, int]:
        """The Responses API's ``usage``."""
        return {_INPUT: total, _CACHED: read, _WRITTEN: written}

    def reported_usage(self, usage: Mapping[str, Any], body: Mapping[str, Any]) -> ReportedUsage:
        """The Responses API's ``usage`` read back."""
        total, read = count_field(usage, _INPUT), required_field(usage, _CACHED)
        written = count_field(usage, _WRITTEN)
        return ReportedUsage(
            total, read, written, reported_fields(usage, (_INPUT, _CACHED, _WRITTEN))
        )

    def to_request(self, body: Mapping[str, Any]) -> Request:
        return _read.read_request(body)

    def render(self, request: Request) -> bytes:
        return _render.render(request)


DIALECT = OpenAIResponses()
