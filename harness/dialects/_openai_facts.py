"""OpenAI's (and DeepSeek's, through its OpenAI-compatible chat) cache facts per model, dated
(docs/cache-model.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._cache_facts import CacheFacts, ModelFacts, Prices, Source

__all__ = [
    "CACHING",
    "DEEPSEEK_CACHE",
    "MISS_REASONS",
    "OPENAI_CACHE",
    "PRICING",
    "deepseek_facts",
    "is_deepseek",
]

CACHING: Final = Source(
    "https://developers.openai.com/api/docs/guides/prompt-caching",
    "OpenAI: Prompt caching (lookup boundaries, minimum, routing key, cache writes)",
    "2026-09-10",
)
PRICING: Final = Source(
    "https://developers.openai.com/api/docs/pricing",
    "OpenAI: Pricing (input, cached input and cache write per model)",
    "2026-09-03",
)
DEEPSEEK: Final = Source(
    "https://api-docs.deepseek.com/guides/kv_cache",
    "DeepSeek: Context caching (prefix units on disk)",
    "2026-10-27",
)
DEEPSEEK_PRICING: Final = Source(
    "https://api-docs.deepseek.com/quick_start/pricing",
    "DeepSeek: Models and pricing (cache hit and miss per model)",
    "2026-10-27",
)
_CHARS = 4.0
"""An estimate where the tokenizer is not installed: the ``tokens`` extra counts exactly."""


def _model(pattern: str, label: str, prices: Prices, encoding: str = "o200k_base") -> ModelFacts:
    return ModelFacts(pattern, label, 1024, _CHARS, prices, CACHING, encoding)


_TERRA = _model(r"gpt-5\.6-terra", "GPT-5.6 Terra", Prices(2, 0.2, 2.5))

OPENAI_CACHE: Final = CacheFacts(
    provider="OpenAI",
    models=(
        _model(r"gpt-6-astra", "GPT-6 Astra (prices third-party)", Prices(10, 1, 12.5)),
        _model(r"gpt-6-sol", "GPT-6 Sol (prices third-party)", Prices(2, 0.2, 2.5)),
        _model(r"gpt-6-luna", "GPT-6 Luna (prices third-party)", Prices(0.1, 0.01, 0.125)),
        _model(r"gpt-5\.6-sol", "GPT-5.6 Sol", Prices(4, 0.4, 5)),
        _TERRA,
        _model(r"gpt-5\.6-luna", "GPT-5.6 Luna", Prices(0.2, 0.02, 0.25)),
        _model(r"gpt-5\.5", "GPT-5.5", Prices(5, 0.5)),
        _model(r"gpt-5\.4-mini", "GPT-5.4 mini", Prices(0.75, 0.075)),
        _model(r"gpt-5\.4-nano", "GPT-5.4 nano", Prices(0.2, 0.02)),
        _model(r"gpt-5\.4", "GPT-5.4", Prices(2.5, 0.25)),
        _model(r"gpt-5\.2", "GPT-5.2", Prices(1.75, 0.175)),
        _model(r"gpt-5-mini", "GPT-5 mini", Prices(0.25, 0.025)),
        _model(r"gpt-5(\.1)?(?![.\d])", "GPT-5 / GPT-5.1", Prices(1.25, 0.125)),
        _model(r"gpt-4\.1", "GPT-4.1", Prices(2, 0.5)),
        _model(r"gpt-4o", "GPT-4o", Prices(2.5, 1.25)),
        _model(r"o4-mini", "o4-mini", Prices(1.1, 0.275)),
        _model(r"^o3", "o3", Prices(2, 0.5)),
        _model(r"gpt-4|gpt-3\.5", "GPT-4 / GPT-3.5", Prices(2.5, 1.25), "cl100k_base"),
    ),
    reference=_TERRA,
    sources=(CACHING, PRICING),
)

_FLASH = ModelFacts(
    r"deepseek-(flash|chat|v4\.1-flash)",
    "DeepSeek V4.1 Flash",
    0,
    3.3,
    Prices(0.3, 0.006),
    DEEPSEEK,
)
DEEPSEEK_CACHE: Final = CacheFacts(
    provider="DeepSeek",
    models=(
        ModelFacts(
            r"deepseek-(v4-pro|reasoner)", "DeepSeek V4 Pro", 0, 3.3, Prices(1.32, 0.044), DEEPSEEK
        ),
        _FLASH,
    ),
    reference=_FLASH,
    sources=(DEEPSEEK, DEEPSEEK_PRICING),
)


def is_deepseek(model: object) -> bool:
    """Whether a request to an OpenAI-compatible endpoint names a DeepSeek model."""
    return isinstance(model, str) and "deepseek" in model.lower()


MISS_REASONS: Final = {
    "tools": "tools_changed",
    "system": "input_changed",
    "history": "input_changed",
    "settings": "text_format_changed",
    "model": "model_changed",
    "prompt_cache_key": "prompt_cache_key_changed",
    "reasoning_effort": "reasoning_effort_changed",
    "reasoning": "reasoning_effort_changed",
    "service_tier": "service_tier_changed",
    "verbosity": "verbosity_changed",
    "text.format": "text_format_changed",
    "text.verbosity": "verbosity_changed",
}
"""The prompt-caching guide's miss reasons (CACHING), by family or keyed setting: the same
for both OpenAI wires."""


def deepseek_facts(body: Mapping[str, Any]) -> tuple[CacheFacts, ModelFacts, bool] | None:
    """DeepSeek's facts and model row for a request naming a DeepSeek model; None otherwise."""
    if not is_deepseek(body.get("model")):
        return None
    model, known = DEEPSEEK_CACHE.model(body.get("model"))
    return DEEPSEEK_CACHE, model, known
