"""What Google documents about the Gemini API's context caching, as the rules judge by it.

Implicit caching matches the prefix per model (the model is in the URL, not the body); a
request naming another explicit ``cachedContent`` reads another cache. ``toolConfig`` is a
prefix segment itself; ``generationConfig`` has no documented effect. Gemini has no cache
markers.
"""

from __future__ import annotations

from .._facts import Facts, Link
from ._equivalences import EQUIVALENCES
from ._models import CACHE

__all__ = ["FACTS", "NAME"]

NAME = "gemini"

FACTS = Facts(
    name=NAME,
    title="Gemini generateContent",
    provider="Gemini",
    segments={
        "systemInstruction": "system",
        "tools": "tools",
        "toolConfig": "settings",
        "contents": "history",
    },
    cache_keys={"cachedContent": "request"},
    links=(
        Link("request", "https://ai.google.dev/api/generate-content", "2026-12-01"),
        Link("request", "https://ai.google.dev/api/caching#Content", "2026-12-01"),
        Link("caching", "https://ai.google.dev/gemini-api/docs/caching", "2026-10-13"),
    ),
    cache=CACHE,
    equivalences=EQUIVALENCES,
)
