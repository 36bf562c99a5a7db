"""What a dialect states about its provider: the facts the rules judge by, each from the
provider's documentation (``Facts.links``, each with the date it was read).

A dialect's facts are one value (``Dialect.facts``), so that the rules, the capture side, the
command line and the documentation read them from one place. A later fact (a cache
simulator's minimum cacheable prefix, ttls, prices) is one more field with its link.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from ._cache_facts import CacheFacts
from ._equivalence import Equivalence

__all__ = ["CacheScope", "ConsecutiveTurns", "Facts", "Family", "Link", "Markers"]

Family: TypeAlias = Literal["system", "tools", "settings", "history"]
"""Which part of the request head a prefix segment belongs to."""

CacheScope: TypeAlias = Literal["request", "system", "tools", "history"]
"""What a change of a setting the provider's cache is keyed on invalidates: the whole
``request`` (the model, a routing key), or the cached prefix from the first segment of a
family on (``history``: the messages)."""


ConsecutiveTurns: TypeAlias = Literal["alternate", "combined", "accepted"]
"""What a provider does with consecutive turns of one role (two user messages in a row):
``alternate``, it wants user and model turns to alternate (nothing documents more);
``combined``, it combines them into one turn (Anthropic's Messages API); ``accepted``, it
reads them as they are (the Responses API's input items)."""


@dataclass(frozen=True, slots=True)
class Link:
    """A page of the provider's documentation a fact comes from: what it documents
    (``topic``: ``"request"`` for the request reference, ``"caching"`` for prompt caching),
    its address, and the date it was read (ISO ``YYYY-MM-DD``)."""

    topic: str
    url: str
    read: str


@dataclass(frozen=True, slots=True)
class Markers:
    """How the provider's cache reads the cache markers a request carries."""

    limit: int
    """How many markers one request may carry."""
    lookback: int | None
    """How many blocks before a marker a read looks back for a cached entry; None for no
    limit (any entry at or before the marker's block)."""
    default_ttl: str
    """The time to live of a marker that names none."""


@dataclass(frozen=True, slots=True)
class Facts:
    """One dialect's facts.

    ``segments`` names the roots of the prefix segments (``tools`` for ``tools[3]``) in cache
    order, each with its family; ``system_roles`` the roles of history messages that, in a
    leading run, are the system instruction; ``markers`` how markers are read (None in a
    dialect without markers); ``cache_keys`` the settings (by ``ParsedBody.settings`` name)
    the provider's cache is keyed on and what a change of one invalidates (a setting not
    named has no cache effect); ``tokenizer`` the family of encodings whose token counts the
    ``tokens`` extra knows for this provider (``"openai"``), None where none."""

    name: str
    """The dialect's name: ``--dialect``, report and snapshot folder names."""
    title: str
    """A short human name, e.g. ``"OpenAI chat completions"``."""
    provider: str
    """The provider's name as a sentence says it (``"OpenAI"``). Dialects of one provider
    are served by one fake provider under capture."""
    segments: Mapping[str, Family]
    system_roles: tuple[str, ...] = ()
    markers: Markers | None = None
    cache_keys: Mapping[str, CacheScope] = field(default_factory=dict)
    tokenizer: str | None = None
    links: tuple[Link, ...] = ()
    consecutive_turns: ConsecutiveTurns = "alternate"
    """What the provider does with consecutive turns of one role (``ConsecutiveTurns``),
    from its request reference: what ``alternation`` holds a request to."""
    cache: CacheFacts | None = None
    """The provider's cache facts per model (minimums, tokens, prices; docs/cache-model.md);
    None where the dialect states none: its prefix is then judged by structure alone."""
    equivalences: tuple[Equivalence, ...] = ()
    """The spellings the rendered prefix takes as one (documented or inferred), and the
    candidates it keeps apart (undocumented)."""
    miss_reasons: Mapping[str, str] = field(default_factory=dict)
    """The provider's own name for a cache miss (its diagnostics' vocabulary), by the family
    of the first unit that differs (``tools``, ``system``, ``history``, ``settings``) or the
    name of a keyed setting (``model``); ``"*"`` for any other keyed setting."""

    def equivalence(self, id: str) -> Equivalence | None:
        """The equivalence called ``id``, if the dialect states it."""
        return next((e for e in self.equivalences if e.id == id), None)

    def miss_reason(self, key: str) -> str | None:
        """The provider's name for a miss caused by ``key`` (a family or a setting)."""
        head = key.split(".", 1)[0]
        for name in (key, head):
            if name in self.miss_reasons:
                return self.miss_reasons[name]
        families = ("tools", "system", "history", "settings")
        return None if key in families else self.miss_reasons.get("*")

    def link(self, topic: str) -> Link | None:
        """The first documentation link about ``topic``, if any."""
        return next((link for link in self.links if link.topic == topic), None)

    @property
    def cache_guide(self) -> str:
        """The address of the provider's prompt-caching documentation ("" when none)."""
        found = self.link("caching")
        return "" if found is None else found.url
