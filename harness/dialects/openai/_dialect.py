"""The OpenAI chat completions dialect: its facts, its hooks and its capture wire together."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...model import Request
from .._base import Dialect, Segment
from .._cache_facts import CacheFacts, ModelFacts
from .._cache_plan import CachePlan
from .._openai_cache import family_plan
from .._openai_facts import deepseek_facts, is_deepseek
from .._unit import Unit
from .._usage import ReportedUsage, count_field, reported_fields, required_field
from . import _detect, _prefix, _read, _render, _settings, _units
from ._facts import FACTS
from ._wire import WIRE

__all__ = ["DIALECT", "OpenAIChat"]

_PROMPT, _CACHED, _WRITTEN = (
    "prompt_tokens",
    "prompt_tokens_details.cached_tokens",
    "prompt_tokens_details.cache_write_tokens",
)
"""Chat completions' usage fields: the prompt (cached tokens included), read, written."""
_HIT, _MISS = "prompt_cache_hit_tokens", "prompt_cache_miss_tokens"
"""DeepSeek's: the prompt's tokens read from its cache, and the rest."""


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
        """Chat completions' ``usage`` (DeepSeek's hit and miss counts for a DeepSeek model)."""
        if is_deepseek(body.get("model")):
            return {_HIT: read, _MISS: total - read}
        return {_PROMPT: total, _CACHED: read, _WRITTEN: written}

    def reported_usage(self, usage: Mapping[str, Any], body: Mapping[str, Any]) -> ReportedUsage:
        """Chat completions' ``usage`` read back (DeepSeek's hit and miss counts for a
        DeepSeek model, whose sum is the prompt)."""
        if is_deepseek(body.get("model")):
            read, miss = required_field(usage, _HIT), count_field(usage, _MISS)
            total = None if miss is None else read + miss
            return ReportedUsage(total, read, None, reported_fields(usage, (_HIT, _MISS)))
        total, read = count_field(usage, _PROMPT), required_field(usage, _CACHED)
        written = count_field(usage, _WRITTEN)
        return ReportedUsage(
            total, read, written, reported_fields(usage, (_PROMPT, _CACHED, _WRITTEN))
        )

    def to_request(self, body: Mapping[str, Any]) -> Request:
        return _read.read_request(body)

    def render(self, request: Request) -> bytes:
        return _render.render(request)


DIALECT = OpenAIChat()
