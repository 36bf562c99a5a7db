"""Anthropic's prompt cache, as its prompt-caching guide describes it (docs/cache-model.md).

- Entries are written only at breakpoints: a block carrying ``cache_control`` (at most 4), or,
  with ``cache_control`` at the top level of the body (automatic caching), the last cacheable
  block. A request without either caches nothing.
- A breakpoint reads the longest entry among at most 20 positions, itself counted first: the
  blocks from its own back to the 19th before it.
- The cache is per model; a changed ``tool_choice``, thinking or effort configuration
  invalidates the message blocks; a changed output format, the whole conversation.
- An entry holds at least the model's minimum cacheable length; the default ttl is 5 minutes,
  ``"ttl": "1h"`` an hour.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from .._cache_facts import ModelFacts
from .._cache_plan import CachePlan, Write
from .._unit import Unit

__all__ = ["LOOKBACK", "MARKER_LIMIT", "plan"]

LOOKBACK: Final = 20
"""Positions a breakpoint checks, itself included."""
MARKER_LIMIT: Final = 4
_TTL: Final = {"5m": 300.0, "1h": 3600.0}
_NOT_CACHEABLE: Final = frozenset({"thinking", "redacted_thinking"})


def plan(
    units: Sequence[Unit],
    body: Mapping[str, Any],
    model: ModelFacts,
    lookback: int | None = LOOKBACK,
) -> CachePlan:
    """The cache plan of an Anthropic request read into ``units``; ``lookback`` the
    positions a breakpoint checks (the dialect's facts say 20; None: no limit)."""
    positions = _block_positions(units)
    breakpoints = [(i + 1, u.marker) for i, u in enumerate(units) if u.marker is not None]
    notes: list[str] = []
    top = body.get("cache_control")
    if isinstance(top, dict):
        last = _last_cacheable(units)
        if last is not None and all(p != last + 1 for p, _ in breakpoints):
            breakpoints.append((last + 1, top))
            notes.append(
                "automatic caching (cache_control at the top level): a breakpoint on "
                f"the last cacheable block, {units[last].name}"
            )
    if not breakpoints:
        notes.append("no cache_control anywhere: Anthropic caches nothing for this request")
        return CachePlan(
            minimum=model.minimum_tokens,
            caching=False,
            notes=tuple(notes),
        )
    breakpoints.sort(key=lambda b: b[0])
    writes = tuple(Write(p, _ttl(marker)) for p, marker in breakpoints)
    lookups = tuple(_walk(units, p, positions, lookback) for p, _ in breakpoints)
    return CachePlan(
        writes=writes,
        lookups=lookups,
        minimum=model.minimum_tokens,
        notes=tuple(notes),
    )


def _block_positions(units: Sequence[Unit]) -> dict[int, int]:
    """The position after each block (by block index)."""
    return {u.block: i + 1 for i, u in enumerate(units) if u.block is not None}


def _walk(
    units: Sequence[Unit], position: int, blocks: dict[int, int], lookback: int | None
) -> tuple[int, ...]:
    """The positions a breakpoint at ``position`` checks: its block's and those of the
    blocks before it, ``lookback`` in all (every block before it without a limit), longest
    first."""
    block = units[position - 1].block
    if block is None:
        return (position,)
    stop = -1 if lookback is None else max(block - lookback, -1)
    return tuple(blocks[b] for b in range(block, stop, -1) if b in blocks)


def _last_cacheable(units: Sequence[Unit]) -> int | None:
    """The index of the last block that can carry a breakpoint (not a thinking block, not an
    empty text)."""
    for i in range(len(units) - 1, -1, -1):
        unit = units[i]
        if unit.block is None:
            continue
        value = unit.value if isinstance(unit.value, dict) else {}
        if value.get("type") in _NOT_CACHEABLE or value.get("text") == "":
            continue
        return i
    return None


def _ttl(marker: Any) -> float:
    ttl = marker.get("ttl") if isinstance(marker, dict) else None
    return _TTL.get(ttl, _TTL["5m"]) if isinstance(ttl, str) else _TTL["5m"]
