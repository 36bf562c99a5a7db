"""The prefix stream: what a provider's cache sees, as comparable bytes (SPEC §4).

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

__all__ = ["Frame", "PrefixStream", "StreamError", "prefix_stream"]


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
    """A request's segments in cache order, encoded on demand.

    Whole-stream questions (its length; whether another stream starts with it) are answered
    from one compact encoding of all segment values as a JSON array, a fraction of the cost
    of encoding each segment apart; ``frames`` encodes them one by one, for offsets and
    evidence, only when asked.
    """

    __slots__ = ("_blob", "_frames", "segments")

    def __init__(self, segments: tuple[Segment, ...]) -> None:
        self.segments = segments
        self._frames: tuple[Frame, ...] | None = None
        self._blob: bytes | None = None

    @property
    def frames(self) -> tuple[Frame, ...]:
        if self._frames is None:
            self._frames = _frames(self.segments)
        return self._frames

    @property
    def length(self) -> int:
        """The stream's length in bytes."""
        if self._frames is not None or not self.segments:
            return self.frames[-1].end if self.frames else 0
        values = len(self.blob()) - 2 - (len(self.segments) - 1)  # less "[", "]" and commas
        names = "".join(s.name for s in self.segments).encode()
        return values + len(names) + 2 * len(self.segments)  # "=" and "\n" per frame

    def blob(self) -> bytes:
        """All segment values encoded as one compact JSON array."""
        if self._blob is None:
            try:
                self._blob = orjson.dumps([s.value for s in self.segments])
            except orjson.JSONEncodeError:
                self._frames = _frames(self.segments)  # raises, naming the segment, if any
                self._blob = dumps([s.value for s in self.segments])
        return self._blob

    def starts_with(self, other: PrefixStream) -> bool:
        """Whether this stream starts with ``other``'s whole stream.

        Compact JSON values delimit themselves, so when this array's encoding starts with
        ``other``'s (less its closing bracket) and the next byte ends a value too, the first
        segments encode identically, one by one.
        """
        count = len(other.segments)
        if count > len(self.segments):
            return False
        if any(a.name != b.name for a, b in zip(self.segments, other.segments, strict=False)):
            return False
        if count == 0:
            return True
        mine, theirs = self.blob(), other.blob()
        cut = len(theirs) - 1
        # a memoryview, not a slice: a slice would copy tens of megabytes
        return mine[cut : cut + 1] in (b",", b"]") and mine.startswith(memoryview(theirs)[:cut])

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


def _frames(segments: tuple[Segment, ...]) -> tuple[Frame, ...]:
    frames: list[Frame] = []
    start = 0
    for segment in segments:
        try:
            encoded = dumps(segment.value)
        except (TypeError, ValueError) as e:
            raise StreamError(f"{segment.name} cannot be re-encoded as JSON: {e}") from None
        frames.append(Frame(segment.name, segment.value, start, encoded))
        start += len(segment.name.encode()) + len(encoded) + 2
    return tuple(frames)


def prefix_stream(parsed: ParsedBody) -> PrefixStream:
    """The prefix stream of a parsed body (segments are encoded when first needed)."""
    return PrefixStream(parsed.segments)
