"""Gemini's implicit-cache facts per model, dated (docs/cache-model.md)."""

from __future__ import annotations

from typing import Final

from .._cache_facts import CacheFacts, ModelFacts, Prices, Source

__all__ = ["CACHE", "CACHING", "PRICING", "TOKENS"]

CACHING: Final = Source(
    "https://ai.google.dev/gemini-api/docs/caching",
    "Gemini API: Context caching (implicit caching, minimum tokens per model)",
    "2026-10-13",
)
PRICING: Final = Source(
    "https://ai.google.dev/gemini-api/docs/pricing",
    "Gemini API: Pricing (input per model; cached tokens at a 90% discount)",
    "2026-10-07",
)
TOKENS: Final = Source(
    "https://ai.google.dev/gemini-api/docs/tokens",
    "Gemini API: Understand and count tokens (about 4 characters a token)",
    "2026-10-13",
)


def _model(pattern: str, label: str, minimum: int, uncached: float) -> ModelFacts:
    return ModelFacts(pattern, label, minimum, 4.0, Prices(uncached, uncached / 10), CACHING)


_FLASH_3_8 = _model(r"gemini-3\.8-flash", "Gemini 3.8 Flash", 4096, 0.75)

CACHE: Final = CacheFacts(
    provider="Google",
    models=(
        _model(r"gemini-4", "Gemini 4 Argon (price assumed as 3.8 Flash)", 4096, 0.75),
        _FLASH_3_8,
        _model(r"gemini-3\.[67]-flash", "Gemini 3.6 / 3.7 Flash", 4096, 0.75),
        _model(r"gemini-3\.5-flash", "Gemini 3.5 Flash", 4096, 1.5),
        _model(r"gemini-3(\.1)?-pro", "Gemini 3.1 Pro", 4096, 2.0),
        _model(r"gemini-2\.5-pro", "Gemini 2.5 Pro", 2048, 1.25),
        _model(r"gemini-2\.5-flash", "Gemini 2.5 Flash", 2048, 0.3),
    ),
    reference=_FLASH_3_8,
    sources=(CACHING, PRICING, TOKENS),
)
