"""How one request meets its provider's prompt cache, as the provider documents it.

A dialect's cache model reads a request's units and says where the request writes cache
entries and where it looks them up; the simulator (``harness.prefix``) keeps the entries of
the requests sent so far and answers what each request reads. Positions count units: position
``k`` is the prefix made of the first ``k`` units, so an entry written at ``k`` is read by a
later request whose first ``k`` units are the same (and whose cache keys are).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CachePlan", "Keyed", "Write"]


@dataclass(frozen=True, slots=True)
class Write:
    """An entry the request writes: the prefix up to ``position``, kept ``ttl`` seconds after
    its last use (None: no expiry is modelled)."""

    position: int
    ttl: float | None = None


@dataclass(frozen=True, slots=True)
class Keyed:
    """A setting the cache is keyed on: ``value`` (its compact JSON) is part of every entry
    from ``position`` on (0: the whole request, as a model or a routing key is)."""

    name: str
    value: bytes
    position: int = 0


@dataclass(frozen=True, slots=True)
class CachePlan:
    """Where a request writes and looks up entries.

    ``lookups`` are walks: each is tried position by position, longest prefix first, and a
    walk ends at its first hit; the request reads the longest hit of all its walks. ``assumed``
    are positions the conversation's earlier turns wrote by the provider's rules (implicit
    caching writes one at each of a conversation's boundaries), primed when a request is judged
    without them (``CacheSimulator.prime``). An entry holds at least ``minimum`` tokens, and a
    read counts whole multiples of ``rounding`` tokens. ``caching`` is False where the request
    asks for no caching at all (Anthropic without a marker); ``notes`` say what the plan
    assumed, for the report.
    """

    writes: tuple[Write, ...] = ()
    lookups: tuple[tuple[int, ...], ...] = ()
    keyed: tuple[Keyed, ...] = ()
    assumed: tuple[int, ...] = ()
    minimum: int = 0
    rounding: int = 1
    caching: bool = True
    notes: tuple[str, ...] = ()

    @property
    def deepest_write(self) -> int:
        """The longest prefix the request writes (0: none)."""
        return max((w.position for w in self.writes), default=0)
