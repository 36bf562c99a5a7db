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
from ._registry import all_dialects, detect_dialect, get_dialect

__all__ = [
    "CacheMarker",
    "CacheScope",
    "Dialect",
    "DialectError",
    "Family",
    "ParsedBody",
    "Segment",
    "all_dialects",
    "answered_one_to_one",
    "detect_dialect",
    "get_dialect",
]
