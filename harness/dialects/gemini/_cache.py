"""Gemini's implicit cache, as its context-caching guide describes it (docs/cache-model.md).

Implicit caching is on for Gemini 2.5 and later: a request whose prefix repeats a recent
request's is served from the cache, at least the model's minimum. The guide names no boundary
at which prefixes are matched, so any unit boundary is taken as one (inferred, said so in the
report); the cache is per model. A request naming an explicit cache (``cachedContent``) reads
what that cache holds, which is not in the request: it is noted, not simulated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._cache_facts import ModelFacts
from .._cache_plan import CachePlan, Write
from .._unit import Unit

__all__ = ["plan"]


def plan(units: Sequence[Unit], body: Mapping[str, Any], model: ModelFacts) -> CachePlan:
    """The cache plan of a Gemini request read into ``units``."""
    every = tuple(range(len(units), 0, -1))
    notes = ["implicit caching: no boundary is documented, any unit boundary is taken as one"]
    if isinstance(body.get("cachedContent"), str):
        notes.append(f"reads the explicit cache {body['cachedContent']}, not simulated")
    return CachePlan(
        writes=(Write(len(units)),) if units else (),
        lookups=(every,) if every else (),
        assumed=every[1:],
        minimum=model.minimum_tokens,
        notes=tuple(notes),
    )
