"""Building evidence: where two bodies part, or where a body holds something, in bytes.

Every helper returns offsets in the *body's* prefix stream, with a byte window around them, so
a report can show the place the same way whichever rule found it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..prefix import (
    Divergence,
    Frame,
    byte_window,
    common_prefix_length,
    first_difference,
    structural_diff,
)
from ._report import Evidence

__all__ = ["at", "between", "from_divergence", "json_start", "occurrences"]


def json_start(frame: Frame) -> int:
    """The stream offset of the frame's first JSON byte (after ``name=``)."""
    return frame.start + len(frame.name.encode()) + 1


def from_divergence(
    d: Divergence,
    *,
    body: str,
    against: str,
    frames: Sequence[Frame] = (),
    against_frames: Sequence[Frame] = (),
) -> Evidence:
    """Evidence of the prefix locator's divergence (both streams agree up to its offset).

    Given the two bodies' frames, the structural diff matches tools by name and says a
    segment inserted or removed (``structural_diff``)."""
    return Evidence(
        body=body,
        against=against,
        offset=d.offset,
        segment=d.fork_frame.name if d.fork_frame else None,
        against_segment=d.parent_frame.name if d.parent_frame else None,
        path=d.path,
        reason=d.reason,
        window=byte_window(d.fork_frame, d.offset),
        against_window=byte_window(d.parent_frame, d.offset),
        diff=tuple(structural_diff(d, parent=against_frames, fork=frames)),
    )


def between(
    expected: Sequence[Frame], actual: Sequence[Frame], *, body: str, against: str, what: str
) -> Evidence | None:
    """The first place where two runs of frames differ in their JSON, or None if they agree.

    Frame names are positions and may differ when earlier parts of the two bodies do; only the
    encoded values are compared. ``what`` names the run in a sentence (``system instruction``).
    """
    for e, a in zip(expected, actual, strict=False):
        if e.json == a.json:
            continue
        local = common_prefix_length(e.json, a.json)
        found = first_difference(e.value, a.value, a.name) or (a.name, "the segment differs")
        split = Divergence(json_start(a) + local, e, a, *found)
        return Evidence(
            body=body,
            against=against,
            offset=split.offset,
            segment=a.name,
            against_segment=e.name,
            path=found[0],
            reason=found[1],
            window=byte_window(a, split.offset),
            against_window=byte_window(e, json_start(e) + local),
            diff=tuple(structural_diff(split, parent=expected, fork=actual)),
        )
    if len(expected) == len(actual):
        return None
    if len(expected) > len(actual):
        missing = expected[len(actual)]
        return Evidence(
            body=body,
            against=against,
            offset=actual[-1].end if actual else None,
            against_segment=missing.name,
            path=missing.name,
            reason=f"{body}'s {what} ends before this segment of the {against}'s",
            window=byte_window(None, 0),
            against_window=byte_window(missing, missing.start),
            diff=(f"removed  {missing.name}",),
        )
    extra = actual[len(expected)]
    return Evidence(
        body=body,
        against=against,
        offset=extra.start,
        segment=extra.name,
        path=extra.name,
        reason=f"{body} adds this segment to the {against}'s {what}",
        window=byte_window(extra, extra.start),
        against_window=byte_window(None, 0),
        diff=(f"added    {extra.name}",),
    )


def occurrences(frames: Sequence[Frame], needle: bytes) -> Iterator[tuple[Frame, int]]:
    """Each frame holding ``needle`` in its JSON, with the stream offset of the first one."""
    if not needle:
        return
    for frame in frames:
        at_ = frame.json.find(needle)
        if at_ >= 0:
            yield frame, json_start(frame) + at_


def at(
    frame: Frame | None,
    offset: int | None,
    *,
    body: str,
    reason: str,
    path: str | None = None,
    against: str | None = None,
) -> Evidence:
    """Evidence pointing at one place of one body (``frame`` None: the body as a whole)."""
    return Evidence(
        body=body,
        against=against,
        offset=offset,
        segment=frame.name if frame else None,
        path=path or (frame.name if frame else None),
        reason=reason,
        window=byte_window(frame, offset) if frame is not None and offset is not None else None,
    )
