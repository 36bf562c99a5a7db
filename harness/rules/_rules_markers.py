"""cache-markers: where a child sets its cache markers, in dialects that have them.

A marker at or after the end of the inherited prefix lets siblings and the child's next turn
read what this request writes; one on the trailing task block alone helps nobody, since no
other request repeats that block. The markers are the dialect's parsed ones (segment names).
"""

from __future__ import annotations

from collections.abc import Callable

from ._body import Body
from ._context import Context
from ._evidence import at
from ._layout import marker_limit
from ._report import Finding, combine

__all__ = ["CHECKS"]


def cache_markers(ctx: Context) -> Finding:
    rule, limit = "cache-markers", marker_limit(ctx.dialect.name)
    if limit is None:
        return Finding(rule, "not-applicable", f"the {ctx.dialect.name} dialect has no markers")
    why = ctx.prefix_unexpected()
    if why is not None:
        return Finding(rule, "not-applicable", why)
    findings = [_markers(ctx, c, limit) for c in ctx.children]
    return combine(rule, findings, none="no child body to check")


def _markers(ctx: Context, child: Body, limit: int) -> Finding:
    rule, names = "cache-markers", child.parsed.cache_markers
    if not names:
        return Finding(rule, "not-applicable", f"{child.label} sets no cache markers at all")
    indexes = sorted(i for i in map(child.frame_index, names) if i is not None)
    frames = child.frames
    if len(names) > limit:
        extra = frames[indexes[limit]] if len(indexes) > limit else None
        reason = f"{len(names)} cache markers where the dialect allows {limit}"
        evidence = at(extra, extra.start if extra else None, body=child.label, reason=reason)
        return Finding(rule, "fail", f"{child.label} sets {reason}", evidence)
    last, end = len(frames) - 1, ctx.inherited_end(child) - 1
    good = [i for i in indexes if end <= i < last]
    if good:
        message = (
            f"{child.label} marks {frames[good[0]].name}, at or after the end of the inherited "
            f"prefix ({len(names)} of {limit} markers)"
        )
        return Finding(rule, "pass", message)
    boundary = frames[end].name if end >= 0 else "the start"
    if last in indexes:
        reason = f"the only marker at or after {boundary} is on the trailing task block"
    else:
        reason = f"every marker comes before the end of the inherited prefix ({boundary})"
    marked = frames[indexes[-1]] if indexes else None
    evidence = at(marked, marked.start if marked else None, body=child.label, reason=reason)
    return Finding(rule, "fail", f"{child.label}: {reason}", evidence)


CHECKS: dict[str, Callable[[Context], Finding]] = {"cache-markers": cache_markers}
