"""The prefix stream: what a provider's cache sees, as comparable bytes (SPEC §4).

Each segment is re-encoded compactly by orjson with its key order kept, so whitespace and
string escapes of the original body drop out while key order stays significant. A frame
``<name>=<json>\\n`` makes every segment boundary visible; ``\\n`` never occurs inside
compact JSON, so frames cannot run into each other.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from ..dialects import ParsedBody

__all__ = ["Frame", "PrefixStream", "StreamError", "prefix_stream"]


class StreamError(ValueError):
    """A segment orjson cannot re-encode (nested deeper than it allows)."""


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
    """The frames of one request in cache order; ``bytes(stream)`` joins them."""

    __slots__ = ("frames", "length")

    def __init__(self, frames: tuple[Frame, ...]) -> None:
        self.frames = frames
        self.length = frames[-1].end if frames else 0

    def __bytes__(self) -> bytes:
        return b"".join(f.data for f in self.frames)

    def __len__(self) -> int:
        return self.length

    def __iter__(self) -> Iterator[Frame]:
        return iter(self.frames)

    def frame_at(self, offset: int) -> Frame | None:
        """The frame holding byte ``offset``, or None past the end."""
        lo, hi = 0, len(self.frames)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.frames[mid].end <= offset:
                lo = mid + 1
            else:
                hi = mid
        return self.frames[lo] if lo < len(self.frames) else None


def prefix_stream(parsed: ParsedBody) -> PrefixStream:
    """Encode a parsed body's segments as its prefix stream."""
    frames: list[Frame] = []
    start = 0
    dumps = orjson.dumps
    for segment in parsed.segments:
        try:
            encoded = dumps(segment.value)
        except orjson.JSONEncodeError as e:
            raise StreamError(
                f"{segment.name} cannot be re-encoded ({e}): nested too deeply"
            ) from None
        frames.append(Frame(segment.name, segment.value, start, encoded))
        start += len(segment.name.encode()) + len(encoded) + 2
    return PrefixStream(tuple(frames))
