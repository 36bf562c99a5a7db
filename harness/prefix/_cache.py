"""A child against its parent, judged by the provider's cache: what the parent cached, what
the child repeats of it, and what the child reads.

The parent is sent first (after the entries its conversation's earlier turns wrote, where the
provider caches implicitly), then the child; the simulator answers what each reads. A loss is
split by cause, so that each cause is counted once:

- ``lost_to_divergence``: the parent's entries that lie past the first unit the child does not
  repeat (the prefix rules);
- ``lost_to_settings``: what a setting the cache is keyed on costs beyond that
  (settings-identical);
- ``lost_to_boundaries``: what the child's own breakpoints or lookup boundaries fail to read
  of what it repeats (cache-markers).

Minimum lengths are ignored for the verdict (scenarios are far smaller than any provider's
minimum, and a structural divergence fails at any size); ``at_size`` is the child's usage with
them, as the provider would bill the request as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..dialects import CacheView, Write
from ._count import count_units
from ._simulate import CacheSimulator, Usage

__all__ = ["PrefixCache", "Priced", "judge_pair", "priced"]


@dataclass(frozen=True, slots=True)
class Priced:
    """A cache view with the running token count of its units (``exact``: counted by the
    provider's tokenizer, else estimated)."""

    view: CacheView
    tokens: tuple[int, ...]
    exact: bool

    @property
    def data(self) -> list[bytes]:
        return [u.data for u in self.view.units]

    @property
    def total(self) -> int:
        return self.tokens[-1]


def priced(view: CacheView) -> Priced:
    """``view`` with its tokens counted."""
    tokens, exact = count_units(view.units, view.model)
    return Priced(view, tokens, exact)


@dataclass(frozen=True, slots=True)
class PrefixCache:
    """The cache judgement of a child against its parent (positions count units)."""

    common: int
    """Leading units the child repeats byte for byte."""
    entries: tuple[int, ...]
    """Where the parent's entries are: its writes and its conversation's earlier ones."""
    deepest: int
    """The parent's deepest entry (its end when it writes none: ``structural``)."""
    reachable: int
    """The parent's deepest entry within what the child repeats (0: none)."""
    structural: bool
    """The parent asks for no caching: judged as if every prefix of it were cached (what
    caching turned on later would serve), so a loss is what lies past the first change."""
    lost_to_divergence: int
    lost_to_settings: int
    """What the child's settings alone lose (``settings_at``): counted apart from the
    divergence, which may lose the same entries for its own reason."""
    lost_to_boundaries: int
    read_same: int
    """Where the child would read with the parent's settings (the boundaries' loss lies
    between it and ``reachable``)."""
    settings_at: int
    """Where the parent's own request reads with the child's settings: the settings' loss
    lies between it and ``deepest``, whatever else the child changes (so a changed model is
    said even after an accepted divergence of the head)."""
    parent: Usage
    child: Usage
    at_size: Usage
    """The child's usage with the provider's minimum lengths applied."""


def judge_pair(parent: Priced, child: Priced) -> PrefixCache:
    """Judge ``child`` against ``parent`` (sent just before it)."""
    common = _common(parent, child)
    plan = parent.view.plan
    structural = not plan.caching
    if structural:  # as if every prefix of it were cached: a loss is what lies past a change
        entries = tuple(range(1, len(parent.view.units) + 1))
    else:
        entries = tuple(sorted({*plan.assumed, *(w.position for w in plan.writes)} - {0}))
    deepest = max(entries, default=0)
    reachable = max((p for p in (*entries, deepest) if p <= common), default=0)
    _, at_size = _simulate(parent, child, minimums=True)  # as the provider would bill it
    if structural:  # as if both cached every prefix, their keyed settings as they are
        parent, child = _structural(parent), _structural(child)
    usage_parent, usage_child = _simulate(parent, child, minimums=False)
    same_settings = replace(child.view, plan=replace(child.view.plan, keyed=plan.keyed))
    _, usage_same = _simulate(parent, replace(child, view=same_settings), minimums=False)
    # the settings alone: the parent's own request sent again with the child's settings
    # reads what a child that changed nothing else would (whatever else it changes)
    probe = replace(parent.view, plan=replace(parent.view.plan, keyed=child.view.plan.keyed))
    _, usage_probe = _simulate(parent, replace(parent, view=probe), minimums=False)
    tokens = parent.tokens
    lost_divergence = tokens[deepest] - tokens[reachable]
    # by position, in the parent's tokens: a child of another model counts its own
    same_at = _position(tokens, usage_same.hit, reachable)
    if structural:
        same_at = reachable  # as if cached: no boundary of its own loses anything
    settings_at = _position(tokens, usage_probe.hit, deepest)
    lost_boundaries = tokens[reachable] - tokens[same_at]
    if reachable == common < deepest:
        # the child leaves the parent right where its read would end: whether a boundary of
        # its own falls there depends on what it sends next, so the divergence decides it
        lost_divergence, lost_boundaries = tokens[deepest] - tokens[same_at], 0
    lost_settings = tokens[deepest] - tokens[settings_at]
    return PrefixCache(
        common=common,
        entries=entries,
        deepest=deepest,
        reachable=reachable,
        structural=structural,
        lost_to_divergence=lost_divergence,
        lost_to_settings=lost_settings,
        lost_to_boundaries=lost_boundaries,
        read_same=same_at,
        settings_at=settings_at,
        parent=usage_parent,
        child=usage_child,
        at_size=at_size,
    )


def _structural(request: Priced) -> Priced:
    """``request`` as if it wrote its whole prefix and looked up every prefix of it: the
    plan a structural judgement assumes (its keyed settings kept)."""
    count = len(request.view.units)
    every = tuple(range(count, 0, -1))
    plan = replace(
        request.view.plan,
        writes=(Write(count),) if count else (),
        lookups=(every,) if every else (),
        assumed=every[1:],
        caching=True,
    )
    return replace(request, view=replace(request.view, plan=plan))


def _position(tokens: tuple[int, ...], hit: int | None, reachable: int) -> int:
    """Where in the parent a child's read ends: none past what it could reach of the
    parent (a position of the child's own beyond that was never the parent's)."""
    return 0 if hit is None else min(hit, reachable, len(tokens) - 1)


def _common(parent: Priced, child: Priced) -> int:
    """How many leading units the two requests share (name and bytes)."""
    count = 0
    for a, b in zip(parent.view.units, child.view.units, strict=False):
        if a.name != b.name or a.data != b.data:
            break
        count += 1
    return count


def _simulate(parent: Priced, child: Priced, *, minimums: bool) -> tuple[Usage, Usage]:
    sim = CacheSimulator(minimums=minimums)
    sim.prime(parent.data, parent.tokens, parent.view.plan)
    first = sim.send(parent.data, parent.tokens, parent.view.plan)
    return first, sim.send(child.data, child.tokens, child.view.plan)
