"""A provider's prompt-cache facts, dated and sourced: per model, the minimum an entry must
hold, how text turns into tokens, and what cached and uncached tokens cost.

Every figure comes from the provider's documentation as read on ``as_of`` (the address is
``source``); a model name the table does not know takes the dialect's ``reference`` model,
and the report says so. docs/cache-model.md lists them all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["CacheFacts", "ModelFacts", "Prices", "Source"]


@dataclass(frozen=True, slots=True)
class Source:
    """A document a fact comes from, and the day it was read."""

    url: str
    title: str
    as_of: str


@dataclass(frozen=True, slots=True)
class Prices:
    """US dollars per million input tokens: uncached, read from the cache, written to it
    (``write`` None: writes cost the uncached price)."""

    uncached: float
    cached: float
    write: float | None = None

    def saved(self, tokens: int) -> float:
        """What reading ``tokens`` from the cache saves against sending them uncached."""
        return tokens * (self.uncached - self.cached) / 1_000_000


@dataclass(frozen=True, slots=True)
class ModelFacts:
    """The facts of the models whose names match ``pattern`` (a regular expression searched
    in the lowercased name without any ``provider/`` prefix)."""

    pattern: str
    label: str
    minimum_tokens: int
    chars_per_token: float
    prices: Prices
    source: Source
    encoding: str | None = None
    """An offline tokenizer's encoding for the model (``o200k_base``); None: estimated."""

    def matches(self, model: str) -> bool:
        return re.search(self.pattern, model) is not None


@dataclass(frozen=True, slots=True)
class CacheFacts:
    """A dialect's cache facts: its models, the one assumed for a name none matches, and the
    documents they come from."""

    provider: str
    models: tuple[ModelFacts, ...]
    reference: ModelFacts
    sources: tuple[Source, ...] = field(default=())

    def model(self, name: object) -> tuple[ModelFacts, bool]:
        """The facts of model ``name`` and whether the table knows it (else the reference
        model's facts, ``False``)."""
        if isinstance(name, str):
            bare = name.rsplit("/", 1)[-1].lower()
            for facts in self.models:
                if facts.matches(bare):
                    return facts, True
        return self.reference, False
