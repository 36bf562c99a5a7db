"""Anthropic's cache facts per model, dated (docs/cache-model.md)."""

from __future__ import annotations

from typing import Final

from .._cache_facts import CacheFacts, ModelFacts, Prices, Source

__all__ = ["CACHE", "CACHING", "MODELS", "PRICING"]

CACHING: Final = Source(
    "https://platform.claude.com/docs/en/build-with-claude/prompt-caching",
    "Anthropic: Prompt caching (minimum cacheable length, cache reads and writes, lookback)",
    "2026-08-21",
)
PRICING: Final = Source(
    "https://platform.claude.com/docs/en/about-claude/pricing",
    "Anthropic: Pricing (base input, cache writes and cache hits per model)",
    "2026-08-21",
)
MODELS: Final = Source(
    "https://platform.claude.com/docs/en/about-claude/models/overview",
    "Anthropic: Models overview (context windows in words and characters per tokenizer)",
    "2026-08-21",
)
_NEW = 2.5
"""Characters per token of the tokenizer of Claude Opus 4.7 and later models (about 2.5M
characters in a million tokens, against 3.4M for the earlier one)."""
_OLD = 3.4


def _model(pattern: str, label: str, minimum: int, chars: float, prices: Prices) -> ModelFacts:
    return ModelFacts(pattern, label, minimum, chars, prices, CACHING)


_SONNET_5 = _model(r"claude-sonnet-5(?!-5)", "Claude Sonnet 5", 1024, _NEW, Prices(2, 0.2, 2.5))

CACHE: Final = CacheFacts(
    provider="Anthropic",
    models=(
        _model(
            r"claude-opus-5-5",
            "Claude Opus 5.5 (minimum assumed: not yet documented)",
            512,
            _NEW,
            Prices(4, 0.2, 5),
        ),
        _model(r"claude-opus-5", "Claude Opus 5", 512, _NEW, Prices(5, 0.5, 6.25)),
        _model(
            r"claude-(fable|mythos)-5", "Claude Fable 5 / Mythos 5", 512, _NEW, Prices(10, 1, 12.5)
        ),
        _model(r"claude-mythos", "Claude Mythos Preview", 2048, _NEW, Prices(10, 1, 12.5)),
        _model(
            r"claude-sonnet-5-5",
            "Claude Sonnet 5.5 (minimum assumed: not yet documented)",
            1024,
            _NEW,
            Prices(2, 0.2, 2.5),
        ),
        _SONNET_5,
        _model(r"claude-opus-4-8", "Claude Opus 4.8", 1024, _NEW, Prices(5, 0.5, 6.25)),
        _model(r"claude-opus-4-7", "Claude Opus 4.7", 2048, _NEW, Prices(5, 0.5, 6.25)),
        _model(r"claude-opus-4-[56]", "Claude Opus 4.5 / 4.6", 4096, _OLD, Prices(5, 0.5, 6.25)),
        _model(r"claude-opus-4", "Claude Opus 4 / 4.1", 1024, _OLD, Prices(15, 1.5, 18.75)),
        _model(
            r"claude-sonnet-4|claude-3-7-sonnet",
            "Claude Sonnet 4.x / 3.7",
            1024,
            _OLD,
            Prices(3, 0.3, 3.75),
        ),
        _model(r"claude-haiku-4", "Claude Haiku 4.5", 4096, _OLD, Prices(1, 0.1, 1.25)),
        _model(r"claude-3-5-haiku", "Claude Haiku 3.5", 2048, _OLD, Prices(0.8, 0.08, 1)),
        _model(r"claude-3-haiku", "Claude Haiku 3", 2048, _OLD, Prices(0.25, 0.03, 0.3)),
    ),
    reference=_SONNET_5,
    sources=(CACHING, PRICING, MODELS),
)
