"""The prefix stream: what a provider's cache sees, as comparable bytes (README, "The prefix
stream").

Each segment is re-encoded compactly by orjson with its key order kept, so whitespace and
string escapes of the original body drop out while key order stays significant. A segment
orjson refuses (nested more than 254 levels deep, or holding an integer beyond 64 bits) is
encoded piece by piece to the same bytes (``harness.model.dumps``), integers exactly. A
frame ``<name>=<json>\\n`` makes every segment boundary visible; ``\\n`` never occurs inside
compact JSON, so frames cannot run into each other.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .._bodies import Encodings, kept_encoding
from ..dialects import ParsedBody, Segment

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
    """A request's segments in cache order, each encoded once into its frame (or taken from
    ``known``, ``Encodings`` made already).

    ``StreamError`` when a segment cannot be encoded."""

    __slots__ = ("frames", "length", "segments")

    def __init__(self, segments: tuple[Segment, ...], known: Encodings | None = None) -> None:
        self.segments = segments
        frames = []
        start = 0
        for segment in segments:
            encoded = known.get(segment.value) if known is not None else None
            if encoded is None:
                encoded = _encode(segment)
            frame = Frame(segment.name, segment.value, start, encoded)
            frames.append(frame)
            start = frame.end
        self.frames: tuple[Frame, ...] = tuple(frames)
        self.length = start
        """The stream's length in bytes."""

    def starts_with(self, other: PrefixStream) -> bool:
        """Whether this stream starts with ``other``'s whole stream."""
        return common_segments(other, self) == len(other.frames)

    def __bytes__(self) -> bytes:
        return b"".join(f.data for f in self.frames)

    def __len__(self) -> int:
        return self.length

    def __iter__(self) -> Iterator[Frame]:
        return iter(self.frames)


def common_segments(a: PrefixStream, b: PrefixStream) -> int:
    """How many leading segments frame identically in both streams (same name, same
    encoding), compared in cache order up to the first that differs."""
    count = 0
    for x, y in zip(a.frames, b.frames, strict=False):
        if x.name != y.name or x.json != y.json:
            break
        count += 1
    return count


def _encode(segment: Segment) -> bytes:
    try:
        return kept_encoding(segment.value)
    except (TypeError, ValueError) as e:
        raise StreamError(f"{segment.name} cannot be re-encoded as JSON: {e}") from None


def prefix_stream(parsed: ParsedBody, known: Encodings | None = None) -> PrefixStream:
    """The prefix stream of a parsed body (segments in ``known`` framed with its encodings)."""
    return PrefixStream(parsed.segments, known)
