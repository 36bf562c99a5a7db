"""A request as its provider's cache sees it (``ParsedBody.cache``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._cache_facts import CacheFacts, ModelFacts
from ._cache_plan import CachePlan
from ._unit import Unit

if TYPE_CHECKING:
    from ._facts import Facts

__all__ = ["CacheView"]


@dataclass(frozen=True, slots=True)
class CacheView:
    """A body's rendered units, where it writes and reads cache entries, the facts of its
    model (``known_model`` False: the reference model's, the name being unknown to the
    facts) and its dialect's facts (equivalences, miss reasons)."""

    units: tuple[Unit, ...]
    plan: CachePlan
    model: ModelFacts
    known_model: bool
    cache: CacheFacts
    facts: Facts
