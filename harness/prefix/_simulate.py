"""A provider's prompt cache, simulated over a sequence of requests.

Each request comes as its units' bytes, the running token count after each unit and its
``CachePlan`` (the dialect's cache model). An entry is keyed by a digest of the request's
cache keys and of its units up to the entry's position, so a later request reads an entry
only where its own prefix, settings and routing key are the same. What each request reads,
writes and sends uncached comes back as a ``Usage``, in tokens.

One simulator is one cache: a check makes one per scenario run (the parent, then its
children in order), a capture one per run, a log one per file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from ..dialects import CachePlan

__all__ = ["CacheSimulator", "Usage", "prefix_digests"]


@dataclass(frozen=True, slots=True)
class Usage:
    """What one request does with the cache, in tokens.

    ``total`` is the request's prefix; ``read`` came from the cache (at position ``hit``),
    ``written`` was written to it beyond what was read, and the rest was sent uncached.
    ``below_minimum`` counts the writes the plan asked for that held fewer tokens than the
    provider's minimum (and so were not written)."""

    total: int
    read: int
    written: int
    hit: int | None = None
    below_minimum: int = 0

    @property
    def uncached(self) -> int:
        return self.total - self.read - self.written


def prefix_digests(units: Sequence[bytes], plan: CachePlan) -> list[bytes]:
    """The digest of each position's prefix (``len(units) + 1`` of them, the empty one first),
    with every keyed setting of the plan folded in from its position on."""
    digest = hashlib.sha256(b"prefix-harness cache v1\n")
    keyed = sorted(plan.keyed, key=lambda k: (k.position, k.name))
    j = 0
    out = []
    for i in range(len(units) + 1):
        out.append(digest.digest())
        while j < len(keyed) and keyed[j].position <= i:  # keys the units from ``i`` on
            k = keyed[j]
            digest.update(b"K%d:%s=%s\n" % (len(k.value), k.name.encode(), k.value))
            j += 1
        if i < len(units):
            digest.update(b"U%d:" % len(units[i]))
            digest.update(units[i])
    return out


class CacheSimulator:
    """The entries written so far, by prefix digest: what each entry holds (tokens) and when
    it expires (None: never). ``minimums`` False ignores the providers' minimum lengths: a
    verdict judges structure, whatever the scenario's size (see docs/cache-model.md)."""

    def __init__(self, *, minimums: bool = True) -> None:
        self.minimums = minimums
        self._entries: dict[bytes, tuple[int, float | None]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def prime(self, units: Sequence[bytes], tokens: Sequence[int], plan: CachePlan) -> None:
        """Write the entries the request's earlier turns wrote (``plan.assumed``), as if they
        had been sent just before it."""
        digests = prefix_digests(units, plan)
        for position in plan.assumed:
            self._write(digests[position], tokens[position], plan.minimum, None, None)

    def send(
        self,
        units: Sequence[bytes],
        tokens: Sequence[int],
        plan: CachePlan,
        *,
        at: float | None = None,
    ) -> Usage:
        """Send one request at time ``at`` (seconds; None: time is not modelled): what it
        reads, then the entries it writes. ``tokens[k]`` is the count of the first ``k``
        units."""
        if len(tokens) != len(units) + 1:
            raise ValueError(f"{len(tokens)} token counts for {len(units)} units")
        digests = prefix_digests(units, plan)
        total = tokens[-1]
        hit: int | None = None
        for walk in plan.lookups:
            for position in walk:
                if self._alive(digests[position], at):
                    if hit is None or position > hit:
                        hit = position
                    break
        read = 0
        if hit is not None:
            read = tokens[hit] - tokens[hit] % max(plan.rounding, 1)
            self._refresh(digests[hit], at, plan)
        below, deepest = 0, 0
        for write in plan.writes:
            if self._write(
                digests[write.position], tokens[write.position], plan.minimum, at, write.ttl
            ):
                deepest = max(deepest, tokens[write.position])
            elif write.position and tokens[write.position] < self._minimum(plan.minimum):
                below += 1
        written = max(0, deepest - read)
        return Usage(total, read, written, hit, below)

    def _minimum(self, minimum: int) -> int:
        return minimum if self.minimums else 0

    def _alive(self, digest: bytes, at: float | None) -> bool:
        held = self._entries.get(digest)
        if held is None:
            return False
        expires = held[1]
        return expires is None or at is None or at <= expires

    def _refresh(self, digest: bytes, at: float | None, plan: CachePlan) -> None:
        """A read keeps the entry for another ttl (the longest the plan writes with)."""
        held = self._entries[digest]
        ttl = max((w.ttl for w in plan.writes if w.ttl is not None), default=None)
        if at is not None and ttl is not None and held[1] is not None:
            self._entries[digest] = (held[0], max(held[1], at + ttl))

    def _write(
        self, digest: bytes, tokens: int, minimum: int, at: float | None, ttl: float | None
    ) -> bool:
        """Keep an entry of ``tokens`` (not below the minimum, never an empty one); whether
        it is kept."""
        if tokens <= 0 or tokens < self._minimum(minimum):
            return False
        expires = None if at is None or ttl is None else at + ttl
        held = self._entries.get(digest)
        if held is not None and held[1] is not None and expires is not None:
            expires = max(expires, held[1])
        elif held is not None and held[1] is None:
            expires = None
        self._entries[digest] = (tokens, expires)
        return True
