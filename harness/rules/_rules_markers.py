"""cache-markers: where a child sets its cache markers, read as the provider's cache reads them.

The facts are the dialect's (``Facts.markers``: the limit, the lookback, the default ttl, and
its block counting in ``cache_marks``). A read looks back from each marker for the longest
cached prefix over at most ``lookback`` blocks, so a child reads the parent's entry when a
position where the parent wrote one (a parent marker) lies in the window of a child marker:
the marker's own block and the ``lookback`` blocks before it. A dialect whose markers have no
lookback limit (``lookback`` None: OpenAI's explicit breakpoints) reads any entry at or before
a marker's block. A marker at or after the end of
the inherited prefix, short of the trailing block, also lets siblings and the child's next turn
read what this request writes.
"""

from __future__ import annotations

from collections.abc import Callable

from ..dialects import CacheMarker, Markers
from ._body import Body
from ._context import Context
from ._evidence import at
from ._report import Finding, combine

__all__ = ["CHECKS"]

RULE = "cache-markers"


def cache_markers(ctx: Context) -> Finding:
    markers = ctx.dialect.facts.markers
    if markers is None:
        return Finding(RULE, "not-applicable", f"the {ctx.dialect.name} dialect has no markers")
    why = ctx.prefix_unexpected()
    if why is not None:
        return Finding(RULE, "not-applicable", why)
    findings = [_markers(ctx, c, markers) for c in ctx.children]
    return combine(RULE, findings, none="no child body to check")


def _fail(
    ctx: Context, child: Body, marker: CacheMarker | None, reason: str, message: str
) -> Finding:
    index = None if marker is None else child.frame_index(marker.segment) or 0
    frame = None if index is None else child.frames[index]
    evidence = at(frame, frame.start if frame else None, body=child.label, reason=reason)
    return Finding(RULE, "fail", message, evidence)


def _readable(ctx: Context, child: Body) -> tuple[CacheMarker, ...]:
    """The parent's markers whose entries the child could read at all: those on segments the
    child repeats byte for byte. Past the first difference no marker can help (that
    difference is byte-prefix's finding, or an accepted one), so "no marker reads the
    parent's cache" is asked only of these; placement is judged as if they were read."""
    if ctx.parent is None:
        return ()
    d = ctx.divergence(child)
    shared = ctx.parent.stream.length if d is None else d.offset
    out = []
    for marker in ctx.parent.parsed.markers:
        index = ctx.parent.frame_index(marker.segment)
        if index is not None and ctx.parent.frames[index].end <= shared:
            out.append(marker)
    return tuple(out)


def _markers(ctx: Context, child: Body, markers: Markers) -> Finding:
    names, marks = child.parsed.cache_markers, child.parsed.markers
    if not names:
        return Finding(RULE, "not-applicable", f"{child.label} sets no cache markers at all")
    limit = markers.limit
    if len(marks) > limit:
        reason = f"{len(marks)} cache markers where the dialect allows {limit}"
        return _fail(ctx, child, marks[limit], reason, f"{child.label} sets {reason}")
    parent = ctx.parent.parsed.markers if ctx.parent is not None else ()
    lookback = markers.lookback
    reads = [(p, c) for p in parent for c in marks if _reaches(c, p, lookback)]
    for p, c in reads:
        if p.ttl != c.ttl:
            reason = (
                f"the marker on {c.segment} has ttl {c.ttl} where the parent's on {p.segment} "
                f"has {p.ttl}: a changed ttl writes a separate entry"
            )
            return _fail(ctx, child, c, reason, f"{child.label}: {reason}")
    if _readable(ctx, child) and not reads:
        if lookback is None:
            where = (
                f"comes after every child marker ({_blocks(marks)}), and a marker reads only "
                "entries at or before its own block (there is no lookback limit)"
            )
        else:
            where = (
                f"lies outside the {lookback}-block lookback window of every child marker "
                f"({_blocks(marks)})"
            )
        reason = (
            f"no marker reads the parent's cache: every parent entry ({_blocks(parent)}) {where}"
        )
        return _fail(ctx, child, marks[-1], reason, f"{child.label}: {reason}")
    return _placement(ctx, child, markers, parent, reads)


def _reaches(child: CacheMarker, parent: CacheMarker, lookback: int | None) -> bool:
    """Whether ``child``'s read can find the entry written at ``parent``'s block: at or before
    its own block, at most ``lookback`` blocks back (None: at any distance)."""
    distance = child.block - parent.block
    return distance >= 0 and (lookback is None or distance <= lookback)


def _window(lookback: int | None) -> str:
    if lookback is None:
        return "(no lookback limit)"
    return f"within the {lookback}-block lookback window"


def _blocks(marks: tuple[CacheMarker, ...]) -> str:
    return ", ".join(f"{m.segment} at block {m.block}" for m in marks)


def _placement(
    ctx: Context,
    child: Body,
    markers: Markers,
    parent: tuple[CacheMarker, ...],
    reads: list[tuple[CacheMarker, CacheMarker]],
) -> Finding:
    names = child.parsed.cache_markers
    found = (child.frame_index(name) for name in names)
    indexes = sorted(i for i in found if i is not None)
    segments = child.stream.segments  # a frame's name is its segment's: none is built
    last, end = len(segments) - 1, ctx.inherited_end(child) - 1
    good = [i for i in indexes if end <= i < last]
    if good:
        message = (
            f"{child.label} marks {segments[good[0]].name}, at or after the end of the inherited "
            f"prefix ({len(names)} of {markers.limit} markers)"
        )
        return Finding(RULE, "pass", message)
    furthest = max((p for p, _ in reads), key=lambda m: m.block, default=None)
    parent_last = max(parent, key=lambda m: m.block, default=None)
    if furthest is not None and furthest == parent_last and last in indexes:
        reader = next(c for p, c in reads if p == furthest)
        message = (
            f"{child.label}'s marker on {reader.segment} reads the parent's entry on "
            f"{furthest.segment} {_window(markers.lookback)}"
        )
        return Finding(RULE, "pass", message)
    boundary = segments[end].name if end >= 0 else "the start"
    if last in indexes:
        history = child.request.history
        if history and history[-1].role == "system":
            trailing = "trailing system-role message, which no later request repeats"
        else:
            trailing = "trailing task block"
        reason = f"the only marker at or after {boundary} is on the {trailing}"
    else:
        reason = f"every marker comes before the end of the inherited prefix ({boundary})"
    marked = child.frames[indexes[-1]] if indexes else None
    evidence = at(marked, marked.start if marked else None, body=child.label, reason=reason)
    return Finding(RULE, "fail", f"{child.label}: {reason}", evidence)


CHECKS: dict[str, Callable[[Context], Finding]] = {"cache-markers": cache_markers}
