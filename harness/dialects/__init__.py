"""Provider wire formats: each parses a body into prefix segments, settings and the neutral
model, and renders the neutral model back. Adding a dialect means adding one module."""

from ._base import (
    CacheMarker,
    CacheScope,
    Dialect,
    DialectError,
    Family,
    ParsedBody,
    Segment,
    answered_one_to_one,
)
from ._cache_facts import CacheFacts, ModelFacts, Prices, Source
from ._cache_plan import CachePlan, Keyed, Write
from ._cache_view import CacheView, cache_view
from ._equivalence import Equivalence
from ._registry import all_dialects, detect_dialect, get_dialect
from ._unit import Unit

__all__ = [
    "CacheFacts",
    "CacheMarker",
    "CachePlan",
    "CacheScope",
    "CacheView",
    "Dialect",
    "DialectError",
    "Equivalence",
    "Family",
    "Keyed",
    "ModelFacts",
    "ParsedBody",
    "Prices",
    "Segment",
    "Source",
    "Unit",
    "Write",
    "all_dialects",
    "answered_one_to_one",
    "cache_view",
    "detect_dialect",
    "get_dialect",
]
