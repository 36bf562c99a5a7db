"""Dialect facts the rules read, asked of the dialect itself.

Which part of the request head each prefix segment belongs to (``Dialect.families``) and how
many cache markers a request may carry (``Facts.markers``) are the dialect's facts and
live on ``Dialect``; this module only keeps the names the rules import.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..dialects import Family, Segment, get_dialect

__all__ = ["Family", "families", "marker_limit"]


def families(dialect: str, segments: Sequence[Segment]) -> tuple[Family, ...]:
    """The family of each segment, in order (``Dialect.families``)."""
    return get_dialect(dialect).families(segments)


def marker_limit(dialect: str) -> int | None:
    """How many cache markers a request of ``dialect`` may carry; None without markers."""
    markers = get_dialect(dialect).facts.markers
    return None if markers is None else markers.limit
