"""The HTML report's capture part: a timeline of requests per conversation and how much of
each the provider's cache could serve.

A provider caches a request's prefix for the next request that starts with it. So each
request is measured against the request it extends: its conversation's previous request,
or, for a conversation's first request, the request it branched from (a fork child's
parent request; the request whose answer spawned a child). The bytes of prefix stream the
two share are what the cache could serve; the rest of the request is sent anew. A first
request that extends nothing is sent anew in full.

The grouping and the roles are ``harness.capture``'s (``CheckResult.roles``); this module
only reads them, and measures each request's prefix stream as its dialect reads the raw
body (``harness.prefix``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import orjson

from ..dialects import get_dialect
from ..prefix import PrefixStream, locate, rendered_stream
from ._html_page import anchor, bar, esc, percent

if TYPE_CHECKING:  # harness.capture reports through harness.reports: no import at run time
    from ..capture import CheckResult, Observed, Roles

__all__ = ["Lane", "Measured", "lanes", "left_out", "shared_bytes", "timeline"]


@dataclass(frozen=True, slots=True)
class Measured:
    """One request: its sequence number, its prefix stream's size in bytes (None: its body
    cannot be read), the bytes the cache could serve, and the request it extends."""

    seq: int
    size: int | None
    cached: int
    base: int | None
    body_bytes: int
    mark: str | None

    @property
    def new(self) -> int:
        """The bytes of prefix sent anew (not served by the cache)."""
        return max(0, (self.size or 0) - self.cached)


@dataclass(frozen=True, slots=True)
class Lane:
    """One conversation: its name, dialect, role (``kind`` is ``parent``, ``child`` or
    ``other``; ``role`` the grouping's words) and its requests in order."""

    name: str
    dialect: str
    kind: str
    role: str
    requests: tuple[Measured, ...]


class _Streams:
    """Prefix streams of the requests, the last few read kept: a request is measured against
    the one before it, so a conversation reads each body once, and memory holds a few
    bodies' streams whatever the number of requests."""

    KEPT = 4

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[str, int], tuple[PrefixStream | None, int]] = OrderedDict()

    def of(self, request: Observed) -> tuple[PrefixStream | None, int]:
        """The request's prefix stream (None: unreadable) and its body's size in bytes."""
        key = (request.dialect, request.seq)
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        body = request.body
        found = (_stream(request.dialect, body), len(body))
        self._kept[key] = found
        if len(self._kept) > self.KEPT:
            self._kept.popitem(last=False)
        return found


def _stream(dialect: str, body: bytes) -> PrefixStream | None:
    try:
        stream = rendered_stream(get_dialect(dialect).parse(orjson.loads(body)))
    except (KeyError, ValueError, RecursionError):
        return None
    return stream


def shared_bytes(base: PrefixStream, stream: PrefixStream) -> int:
    """The bytes of prefix stream ``stream`` shares with ``base`` from the start."""
    divergence = locate(base, stream)
    shared = base.length if divergence is None else divergence.offset
    return max(0, min(shared, stream.length))


def _bases(roles: Roles) -> dict[int, Observed]:
    """The request each conversation's first request extends, by conversation index."""
    convs = roles.conversations
    found: dict[int, Observed] = {}
    for conv in convs:
        if conv.origin is not None:
            found[conv.index] = convs[conv.origin.conversation].requests[conv.origin.turn]
    for link in roles.spawns:
        found.setdefault(link.child, convs[link.source].requests[link.turn])
    return found


def _kind(roles: Roles, index: int) -> str:
    if index == roles.parent:
        return "parent"
    if index in roles.fork_children or any(link.child == index for link in roles.spawns):
        return "child"
    return "other"


def lanes(result: CheckResult) -> list[Lane]:
    """Every conversation of the check, each request measured against what it extends."""
    streams = _Streams()
    out = []
    for roles in result.roles:
        bases = _bases(roles)
        for conv in roles.conversations:
            measured = []
            previous: Observed | None = bases.get(conv.index)
            for request in conv.requests:
                stream, body_bytes = streams.of(request)
                base = None if previous is None else streams.of(previous)[0]
                cached = 0 if stream is None or base is None else shared_bytes(base, stream)
                measured.append(
                    Measured(
                        request.seq,
                        None if stream is None else stream.length,
                        cached,
                        None if previous is None else previous.seq,
                        body_bytes,
                        request.mark,
                    )
                )
                previous = request
            out.append(
                Lane(
                    conv.name,
                    conv.first.dialect,
                    _kind(roles, conv.index),
                    roles.role(conv.index),
                    tuple(measured),
                )
            )
    return out


def _request(m: Measured, largest: int) -> str:
    mark = f" · mark {m.mark}" if m.mark is not None else ""
    if m.size is None:
        what = f"{m.body_bytes:,} bytes of body; its prefix cannot be read{mark}"
        track = '<div class="bar"></div>'
    else:
        against = (
            f"extends request {m.base}: {m.cached:,} bytes served by the cache"
            f" ({percent(m.cached, m.size):.1f}%), {m.new:,} sent anew"
            if m.base is not None
            else "extends no earlier request: all sent anew"
        )
        what = f"{m.size:,} bytes of prefix; {against}{mark}"
        pieces = [("kept", m.cached), ("new", m.new)]
        width = percent(m.size, largest)
        inner = bar(pieces, m.size, title=what)
        track = f'<div class="track" style="width:{max(width, 0.5):g}%">{inner}</div>'
    return (
        f'<div class="request" id="{anchor("request", str(m.seq))}" data-seq="{m.seq}"'
        f' data-size="{m.size if m.size is not None else ""}" data-cached="{m.cached}">'
        f'<div class="mono">request {m.seq}</div><div>{track}</div>'
        f'<div class="muted">{esc(what)}</div></div>'
    )


def timeline(result: CheckResult) -> str:
    """The conversations in order, each request a bar: served by the cache, then new; bar
    lengths are the requests' sizes against the largest request of the capture."""
    found = lanes(result)
    if not found:
        return '<p class="muted">no model call was recorded.</p>'
    sizes = [m.size for lane in found for m in lane.requests if m.size is not None]
    largest = max(sizes, default=0)
    blocks = []
    for lane in found:
        rows = "".join(_request(m, largest) for m in lane.requests)
        blocks.append(
            f'<div class="conversation" data-kind="{lane.kind}" data-name="{esc(lane.name)}">'
            f'<h3><span class="badge {lane.kind}">{lane.kind}</span>{esc(lane.name)}'
            f' <span class="role">· {esc(lane.dialect)} · {esc(lane.role)}</span></h3>'
            f"{rows}</div>"
        )
    total = sum(sizes)
    served = sum(m.cached for lane in found for m in lane.requests if m.size is not None)
    summary = (
        f'<p class="total" data-total="{total}" data-served="{served}">{len(sizes):,} requests,'
        f" {total:,} bytes of prefix in all: {served:,} ({percent(served, total):.1f}%) could"
        f" be served by the cache, {total - served:,} were sent anew.</p>"
    )
    legend = (
        '<p class="legend"><i class="swatch kept"></i>served by the cache: the prefix shared'
        ' with the request it extends <i class="swatch new"></i>sent anew'
        ' <span class="muted">(bar lengths: size against the largest request)</span></p>'
    )
    return summary + legend + "\n" + "\n".join(blocks)


def left_out(result: CheckResult) -> Sequence[str]:
    """One line per request left out of the check, with why."""
    return [f"request {i.seq} ({i.kind}): {i.reason}" for i in result.ignored]
