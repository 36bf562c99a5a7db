"""A request as its provider's cache sees it: its rendered units, its cache plan and the facts
of its model, by dialect."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._cache_anthropic import anthropic_plan
from ._cache_facts import CacheFacts, ModelFacts
from ._cache_gemini import gemini_plan
from ._cache_openai import deepseek_plan, openai_plan
from ._cache_plan import CachePlan
from ._equivalence import Equivalence
from ._facts_anthropic import ANTHROPIC_FACTS
from ._facts_gemini import GEMINI_FACTS
from ._facts_openai import DEEPSEEK_FACTS, OPENAI_FACTS, is_deepseek
from ._unit import Unit
from ._units_anthropic import ANTHROPIC_EQUIVALENCES, anthropic_units
from ._units_gemini import GEMINI_EQUIVALENCES, gemini_units
from ._units_openai import OPENAI_EQUIVALENCES, openai_units, responses_units

__all__ = ["CacheView", "cache_view"]

_Units = Callable[[Mapping[str, Any]], tuple[Unit, ...]]
_Plan = Callable[[Sequence[Unit], Mapping[str, Any], ModelFacts], CachePlan]


@dataclass(frozen=True, slots=True)
class CacheView:
    """A body's units, the facts of its model (``known_model`` False: the dialect's reference
    model, the name being unknown) and where it writes and reads cache entries."""

    units: tuple[Unit, ...]
    plan: CachePlan
    model: ModelFacts
    known_model: bool
    facts: CacheFacts
    equivalences: Mapping[str, Equivalence]


_DIALECTS: dict[str, tuple[_Units, CacheFacts, _Plan, Mapping[str, Equivalence]]] = {
    "anthropic": (anthropic_units, ANTHROPIC_FACTS, anthropic_plan, ANTHROPIC_EQUIVALENCES),
    "openai": (openai_units, OPENAI_FACTS, openai_plan, OPENAI_EQUIVALENCES),
    "openai-responses": (responses_units, OPENAI_FACTS, openai_plan, OPENAI_EQUIVALENCES),
    "gemini": (gemini_units, GEMINI_FACTS, gemini_plan, GEMINI_EQUIVALENCES),
}


def cache_view(dialect: str, body: Mapping[str, Any]) -> CacheView:
    """The cache view of a body the dialect has read."""
    units_of, facts, plan_of, equivalences = _DIALECTS[dialect]
    if dialect == "openai" and is_deepseek(body.get("model")):
        facts, plan_of = DEEPSEEK_FACTS, deepseek_plan
    units = units_of(body)
    model, known = facts.model(body.get("model"))
    return CacheView(units, plan_of(units, body, model), model, known, facts, equivalences)
