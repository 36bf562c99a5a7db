"""The prefix stream: what a provider's cache sees, as comparable bytes (README, "The prefix
stream").

Each segment is re-encoded compactly by orjson with its key order kept, so whitespace and
string escapes of the original body drop out while key order stays significant. A segment
orjson refuses (nested more than 254 levels deep, or holding an integer beyond 64 bits) is
encoded piece by piece to the same bytes (``harness.model._json.dumps``), integers exactly. A frame
``<name>=<json>\\n`` makes every segment boundary visible; ``\\n`` never occurs inside
compact JSON, so frames cannot run into each other.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from ..dialects import ParsedBody, Segment
from ..model._json import dumps

__all__ = ["Frame", "PrefixStream", "StreamError", "common_segments", "prefix_stream"]


class StreamError(ValueError):
    """A segment that cannot be re-encoded as JSON (an integer too long to print)."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One segment in the stream, starting at byte ``start``: ``<name>=<json>\\n``.

    The frame's bytes are kept as the name and the encoded JSON, not joined, so that
    building a stream copies each segment's encoding once only.
    """

    name: str
    value: Any
    start: int
    json: bytes

    @property
    def data(self) -> bytes:
        """The whole frame as it stands in the stream."""
        return b"".join((self.name.encode(), b"=", self.json, b"\n"))

    @property
    def end(self) -> int:
        return self.start + len(self.name.encode()) + len(self.json) + 2


class PrefixStream:
    """A request's segments in cache order, each encoded when first needed.

    Two streams are compared segment by segment (``common_segments``), each segment's
    encoding made, compared and dropped, and the comparison stops at the first segment that
    differs: the stream is never joined into one blob, so a comparison holds one segment's
    encoding at a time besides the decoded bodies. Frame sizes are remembered as segments
    are encoded, for ``length`` and for the offsets of a frame built alone (``frame``, a
    divergence's). ``frames`` encodes and keeps every frame, for the rules' evidence; a frame
    built alone before is reused there, so frames stay the same objects.
    """

    __slots__ = ("_alone", "_ends", "_frames", "segments")

    def __init__(self, segments: tuple[Segment, ...]) -> None:
        self.segments = segments
        self._frames: tuple[Frame, ...] | None = None
        self._alone: dict[int, Frame] = {}
        self._ends: list[int] = []
        """The end offsets of the first ``len(_ends)`` frames."""

    @property
    def frames(self) -> tuple[Frame, ...]:
        if self._frames is None:
            frames: list[Frame] = []
            start = 0
            for i, segment in enumerate(self.segments):
                frame = self._alone.get(i) or Frame(
                    segment.name, segment.value, start, _encode(segment)
                )
                frames.append(frame)
                start = frame.end
            self._frames = tuple(frames)
            self._alone = {}
        return self._frames

    def encoded(self, index: int) -> bytes:
        """Segment ``index``'s compact JSON; kept only where its frame is."""
        frames = self._frames
        if frames is not None:
            data = frames[index].json
        else:
            frame = self._alone.get(index)
            data = _encode(self.segments[index]) if frame is None else frame.json
        ends = self._ends
        if index == len(ends):
            name = self.segments[index].name
            ends.append((ends[-1] if ends else 0) + len(name.encode()) + len(data) + 2)
        return data

    def frame(self, index: int) -> Frame:
        """The frame of segment ``index``, built alone unless ``frames`` has been."""
        if self._frames is not None:
            return self._frames[index]
        frame = self._alone.get(index)
        if frame is None:
            self._measure(index)
            segment = self.segments[index]
            start = self._ends[index - 1] if index else 0
            frame = Frame(segment.name, segment.value, start, self.encoded(index))
            self._alone[index] = frame
        return frame

    def _measure(self, count: int) -> None:
        """Learn the sizes of the first ``count`` frames, encoding those not yet encoded."""
        for i in range(len(self._ends), count):
            self.encoded(i)

    @property
    def length(self) -> int:
        """The stream's length in bytes (each segment encoded once to learn it, not kept)."""
        if self._frames is not None:
            return self._frames[-1].end if self._frames else 0
        self._measure(len(self.segments))
        return self._ends[-1] if self._ends else 0

    def starts_with(self, other: PrefixStream) -> bool:
        """Whether this stream starts with ``other``'s whole stream."""
        count = len(other.segments)
        if count > len(self.segments):
            return False
        if any(a.name != b.name for a, b in zip(self.segments, other.segments, strict=False)):
            return False  # names first: they cost no encoding
        return common_segments(other, self) == count

    def __bytes__(self) -> bytes:
        return b"".join(f.data for f in self.frames)

    def __len__(self) -> int:
        return self.length

    def __iter__(self) -> Iterator[Frame]:
        return iter(self.frames)

    def frame_at(self, offset: int) -> Frame | None:
        """The frame holding byte ``offset``, or None past the end."""
        frames = self.frames
        lo, hi = 0, len(frames)
        while lo < hi:
            mid = (lo + hi) // 2
            if frames[mid].end <= offset:
                lo = mid + 1
            else:
                hi = mid
        return frames[lo] if lo < len(frames) else None


def common_segments(a: PrefixStream, b: PrefixStream) -> int:
    """How many leading segments frame identically in both streams (same name, same
    encoding), comparing in cache order and stopping at the first that differs."""
    start = _fresh_common_segments(a, b)
    for i, (x, y) in enumerate(zip(a.segments[start:], b.segments[start:], strict=False), start):
        if x.name != y.name or a.encoded(i) != b.encoded(i):
            return i
    return min(len(a.segments), len(b.segments))


def _fresh_common_segments(a: PrefixStream, b: PrefixStream) -> int:
    """``common_segments`` of two streams nothing has been encoded of yet, in one tight
    loop: each pair of segments encoded, measured (``_ends``) and compared, then dropped.

    Returns where the general loop goes on: the first segment that differs (measured), one
    orjson refuses (not measured), or the end of the shorter stream.
    """
    if a._frames is not None or b._frames is not None or a._ends or b._ends:
        return 0
    if a._alone or b._alone:
        return 0
    ends_a, ends_b, dumps_ = a._ends, b._ends, orjson.dumps
    end_a = end_b = 0
    for i, (x, y) in enumerate(zip(a.segments, b.segments, strict=False)):
        try:
            json_a, json_b = dumps_(x.value), dumps_(y.value)
        except orjson.JSONEncodeError:
            return i
        name_a, name_b = x.name, y.name
        named = len(name_a.encode()) + 2
        end_a += named + len(json_a)
        end_b += (named if name_a == name_b else len(name_b.encode()) + 2) + len(json_b)
        ends_a.append(end_a)
        ends_b.append(end_b)
        if json_a != json_b or name_a != name_b:
            return i
    return min(len(a.segments), len(b.segments))


def _encode(segment: Segment) -> bytes:
    try:
        return orjson.dumps(segment.value)  # the common case, without a call more
    except orjson.JSONEncodeError:
        pass
    try:
        return dumps(segment.value)
    except (TypeError, ValueError) as e:
        raise StreamError(f"{segment.name} cannot be re-encoded as JSON: {e}") from None


def prefix_stream(parsed: ParsedBody) -> PrefixStream:
    """The prefix stream of a parsed body (segments are encoded when first needed)."""
    return PrefixStream(parsed.segments)
