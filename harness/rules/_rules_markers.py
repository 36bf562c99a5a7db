"""cache-markers: whether a child's own cache boundaries can read its parent's entry, as the
provider's cache model says (docs/cache-model.md), and whether what the child writes serves
its siblings and its next turn.

The simulator answers the first part: a child that repeats its parent's rendered prefix but
whose breakpoints (Anthropic: each checks 20 positions back) or lookup boundaries (OpenAI:
message endings and explicit breakpoints) cannot reach where the parent wrote, reads less
than it repeats; that loss is this rule's, in tokens. Markers are also checked against the
dialect's facts: at most its limit, a ttl read the same as the parent's (a changed ttl writes
an entry of its own), and at least one marker at or after the end of the inherited prefix
that is not only the volatile trailing block (the task, a per-turn reminder), so that
siblings and the child's next turn can read what it writes.
"""

from __future__ import annotations

from collections.abc import Callable

from ..dialects import Unit
from ..prefix import Frame
from ._body import Body
from ._context import Context
from ._evidence import at
from ._report import Finding, combine

__all__ = ["CHECKS"]

RULE = "cache-markers"


def cache_markers(ctx: Context) -> Finding:
    why = ctx.prefix_unexpected()
    if why is not None:
        return Finding(RULE, "not-applicable", why)
    findings = [_child(ctx, c) for c in ctx.children]
    return combine(RULE, findings, none="no child body to check")


def _child(ctx: Context, child: Body) -> Finding:
    assert ctx.parent is not None
    units = child.priced.view.units
    marked = [i for i, u in enumerate(units) if u.marker is not None]
    markers = ctx.dialect.facts.markers
    if markers is not None and len(marked) > markers.limit:
        reason = f"{len(marked)} cache markers where the dialect allows {markers.limit}"
        return _fail(ctx, child, marked[markers.limit], reason)
    ttl = _changed_ttl(ctx, child, marked)
    if ttl is not None:
        return ttl
    judged = ctx.judged(child)
    if judged.structural and not marked:
        note = "; ".join(ctx.parent.priced.view.plan.notes) or "no caching asked for"
        return Finding(RULE, "not-applicable", f"{child.label} sets no cache markers ({note})")
    if judged.lost_to_boundaries:
        return _unreachable(ctx, child, marked)
    if markers is None or not marked:
        read = judged.child.read
        approx = "" if child.priced.exact else "~"
        where = (
            ctx.parent.priced.view.units[judged.reachable - 1].name if judged.reachable else None
        )
        message = (
            f"{child.label} reads the parent's entry"
            + (f" up to {where}" if where else "")
            + f" ({approx}{read:,} tokens)"
            if read
            else f"{child.label} has nothing of the parent's to read"
        )
        return Finding(RULE, "pass", message)
    return _placement(ctx, child, marked)


def _changed_ttl(ctx: Context, child: Body, marked: list[int]) -> Finding | None:
    """A child marker that reads an entry the parent wrote (the parent's marked block lies
    within its reach, in what the child repeats) with another effective ttl: it writes an
    entry of its own instead of keeping the parent's for as long."""
    assert ctx.parent is not None
    ttl = ctx.dialect.marker_ttl
    parent_units = ctx.parent.priced.view.units
    common = ctx.judged(child).common
    entries = [j for j, u in enumerate(parent_units) if u.marker is not None and j < common]
    units = child.priced.view.units
    for i in marked:
        for j in entries:
            if not _reaches(ctx, units[i], parent_units[j], i, j):
                continue
            mine, before = ttl(units[i].marker), ttl(parent_units[j].marker)
            if mine != before:
                reason = (
                    f"the marker on {units[i].name} has ttl {mine} where the parent's on "
                    f"{parent_units[j].name} has {before}: a changed ttl writes a separate entry"
                )
                return _fail(ctx, child, i, reason)
    return None


def _reaches(ctx: Context, mine: Unit, theirs: Unit, i: int, j: int) -> bool:
    """Whether a child marker on ``mine`` (unit ``i``) can read the entry at the parent's
    ``theirs`` (unit ``j``): at or before it, within the lookback where there is one."""
    markers = ctx.dialect.facts.markers
    lookback = None if markers is None else markers.lookback
    if mine.block is not None and theirs.block is not None:
        distance = mine.block - theirs.block
    else:
        distance = i - j
    return distance >= 0 and (lookback is None or distance < lookback)


def _unreachable(ctx: Context, child: Body, marked: list[int]) -> Finding:
    """The child repeats what the parent cached but its boundaries do not reach it."""
    assert ctx.parent is not None
    judged = ctx.judged(child)
    parent_units = ctx.parent.priced.view.units
    entry = parent_units[judged.reachable - 1].name if judged.reachable else "the start"
    cost = ctx.boundary_cost(child)
    units = child.priced.view.units
    if marked:
        listed = ", ".join(_where(units[i]) for i in marked)
        lookback = _lookback(ctx)
        reason = (
            f"no breakpoint reads the parent's entry at {entry}, which the child repeats: "
            f"its breakpoints ({listed}) {lookback}"
        )
        index = marked[-1]
    else:
        reason = (
            f"no lookup boundary of the child falls where the parent wrote its entry (the end "
            f"of {entry}), though the child repeats it: the child extends that message or "
            "ends no eligible message there"
        )
        index = min(judged.reachable, len(units)) - 1 if judged.reachable else 0
    finding = _fail(ctx, child, max(index, 0), reason)
    return Finding(RULE, "fail", finding.message, finding.evidence, cost)


def _lookback(ctx: Context) -> str:
    markers = ctx.dialect.facts.markers
    if markers is not None and markers.lookback is not None:
        return (
            f"each check {markers.lookback} positions back, themselves counted, and none reaches it"
        )
    return "come before it or are not lookup boundaries"


def _window(ctx: Context) -> str:
    markers = ctx.dialect.facts.markers
    if markers is None or markers.lookback is None:
        return "(no lookback limit)"
    return f"within the {markers.lookback}-position lookback window"


def _where(unit: Unit) -> str:
    return unit.name if unit.block is None else f"{unit.name} at block {unit.block}"


def _placement(ctx: Context, child: Body, marked: list[int]) -> Finding:
    """Whether what the child writes serves its siblings and its next turn: a marker at or
    after the end of the inherited prefix, short of the volatile trailing block."""
    units = child.priced.view.units
    last = len(units) - 1
    end = _unit_index(child, ctx.inherited_end(child)) - 1
    good = [i for i in marked if end <= i < last]
    limit = ctx.dialect.facts.markers
    count = f"{len(marked)} of {limit.limit} markers" if limit else f"{len(marked)} markers"
    if good:
        message = (
            f"{child.label} marks {units[good[0]].name}, at or after the end of the inherited "
            f"prefix ({count})"
        )
        return Finding(RULE, "pass", message)
    judged = ctx.judged(child)
    parent_units = ctx.parent.priced.view.units if ctx.parent is not None else ()
    reads_last = judged.child.hit is not None and judged.child.hit >= judged.deepest
    lookups = child.priced.view.plan.lookups
    # a child that leaves the parent before its entry reads nothing of it, wherever it marks:
    # the loss is the divergence's; what counts here is whether its marker would reach it
    entry_name = parent_units[judged.deepest - 1].name if judged.deepest else None
    same = next((i + 1 for i, u in enumerate(units) if u.name == entry_name), None)
    diverged = judged.common < judged.deepest and any(same in lk for lk in lookups)
    if last in marked and not judged.structural and (reads_last or diverged):
        # its only marker is on the task, but that marker reaches the parent's last entry
        entry = parent_units[judged.deepest - 1].name if judged.deepest else "the start"
        verb = "reads" if reads_last else "reaches"
        message = (
            f"{child.label}'s marker on {units[last].name} {verb} the parent's entry on "
            f"{entry} {_window(ctx)}"
        )
        if not reads_last:
            message += "; the child leaves the parent before it (its loss is the divergence's)"
        return Finding(RULE, "pass", message)
    boundary = units[end].name if end >= 0 else "the start"
    parent_writes = [w.position for w in ctx.parent.priced.view.plan.writes] if ctx.parent else []
    if not judged.structural and parent_writes and max(parent_writes) <= marked[-1] + 1:
        # no later than its last marker: the child caches as far as its parent does
        entry = parent_units[max(parent_writes) - 1].name
        message = (
            f"{child.label} marks {units[marked[-1]].name}, no earlier than the parent's last"
            f" entry ({entry}): it caches as far as its parent does ({count})"
        )
        return Finding(RULE, "pass", message)
    if last in marked:
        history = child.request.history
        if history and history[-1].role == "system":
            trailing = "trailing system-role message, which no later request repeats"
        else:
            trailing = "trailing task block"
        reason = f"the only marker at or after {boundary} is on the {trailing}"
    else:
        reason = f"every marker comes before the end of the inherited prefix ({boundary})"
    return _fail(ctx, child, marked[-1], reason)


def _unit_index(child: Body, frame_index: int) -> int:
    """The unit at a frame index (the same index, but in the byte view, whose frames are
    segments: the first unit read from that segment)."""
    if not child.strict:
        return frame_index
    if frame_index >= len(child.frames):
        return len(child.priced.view.units)
    name = child.frames[frame_index].name
    units = child.priced.view.units
    return next(
        (i for i, u in enumerate(units) if u.path == name or u.path.startswith(name + ".")),
        len(units),
    )


def _frame(child: Body, unit_index: int) -> Frame | None:
    """The frame showing unit ``unit_index`` (in the byte view, its segment)."""
    if not child.frames:
        return None
    if not child.strict:
        return child.frames[min(unit_index, len(child.frames) - 1)]
    units = child.priced.view.units
    path = units[min(unit_index, len(units) - 1)].path if units else ""
    for frame in child.frames:
        if path == frame.name or path.startswith(frame.name + "."):
            return frame
    return child.frames[-1]


def _fail(ctx: Context, child: Body, unit_index: int, reason: str) -> Finding:
    frame = _frame(child, unit_index)
    evidence = at(frame, frame.start if frame else None, body=child.label, reason=reason)
    return Finding(RULE, "fail", f"{child.label}: {reason}", evidence)


CHECKS: dict[str, Callable[[Context], Finding]] = {"cache-markers": cache_markers}
"""The rule's check (``harness.rules._checks`` collects them)."""
