"""The equivalences the rendered prefix applies: two spellings of a request that the provider
renders as one prompt. Each one is documented by the provider (the address says where) or
inferred (the reasoning says why); a report names the one that made two units the same.

Candidates are spellings no provider documents as the same: the rendered prefix keeps them
apart, and a report that finds one as the only difference says so ("possibly the same to the
cache; undocumented").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ["Equivalence", "EquivalenceStatus"]

EquivalenceStatus: TypeAlias = Literal["documented", "inferred", "undocumented"]


@dataclass(frozen=True, slots=True)
class Equivalence:
    """Two spellings the prefix comparison takes as one (``documented`` or ``inferred``), or
    a candidate it keeps apart (``undocumented``). ``says`` is the sentence a report shows
    ("a string is shorthand for one text block"), ``why`` the source's words or the
    reasoning, ``source`` the address."""

    id: str
    says: str
    status: EquivalenceStatus
    why: str
    source: str

    @property
    def applied(self) -> bool:
        """Whether the rendered prefix applies it (documented or inferred)."""
        return self.status != "undocumented"

    def sentence(self) -> str:
        """How a report names it."""
        if self.status == "undocumented":
            return f"possibly the same to the cache ({self.says}); undocumented: {self.why}"
        label = "" if self.status == "documented" else " (inferred)"
        return f"same to the cache{label}: {self.says} — {self.source}"
