"""The OpenAI chat completions dialect: its facts, its hooks and its capture wire together."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...model import Request
from .._base import Dialect, Segment
from .._cache_facts import CacheFacts, ModelFacts
from .._cache_plan import CachePlan
from .._openai_cache import deepseek_plan, openai_plan
from .._openai_facts import DEEPSEEK_CACHE, is_deepseek
from .._unit import Unit
from . import _detect, _prefix, _read, _render, _settings, _units
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

    def units(self, body: Mapping[str, Any]) -> tuple[Unit, ...]:
        return _units.units(body)

    def cache_plan(
        self, units: Sequence[Unit], body: Mapping[str, Any], model: ModelFacts
    ) -> CachePlan:
        if is_deepseek(body.get("model")):
            return deepseek_plan(units, body, model)
        return openai_plan(units, body, model)

    def model_facts(self, body: Mapping[str, Any]) -> tuple[CacheFacts, ModelFacts, bool]:
        """DeepSeek's facts for a request naming a DeepSeek model (its OpenAI-compatible
        chat), OpenAI's otherwise."""
        if is_deepseek(body.get("model")):
            model, known = DEEPSEEK_CACHE.model(body.get("model"))
            return DEEPSEEK_CACHE, model, known
        return super().model_facts(body)

    def usage_fields(
        self, total: int, read: int, written: int, body: Mapping[str, Any]
    ) -> dict[str, int]:
        """Chat completions' ``usage`` (DeepSeek's hit and miss counts for a DeepSeek model)."""
        if is_deepseek(body.get("model")):
            return {"prompt_cache_hit_tokens": read, "prompt_cache_miss_tokens": total - read}
        return {
            "prompt_tokens": total,
            "prompt_tokens_details.cached_tokens": read,
            "prompt_tokens_details.cache_write_tokens": written,
        }

    def to_request(self, body: Mapping[str, Any]) -> Request:
        return _read.read_request(body)

    def render(self, request: Request) -> bytes:
        return _render.render(request)


DIALECT = OpenAIChat()
