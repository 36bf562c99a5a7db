"""The prefix stream: what a provider's cache sees, as comparable bytes (README, "The prefix
stream").

Each segment is re-encoded compactly by orjson with its key order kept, so whitespace and
string escapes of the original body drop out while key order stays significant. A segment
orjson refuses (nested more than 254 levels deep, or holding an integer beyond 64 bits) is
encoded piece by piece to the same bytes (``harness.model._json.dumps``), integers exactly. A frame
``<name>=<json>\\n`` makes every segment boundary visible; ``\\n`` never occurs inside
compact JSON, so frames cannot run into each other.

A stream may know its body's ``Layout`` (``harness._bodies``): a segment that is an item of
a top-level array of a body that is its own compact encoding has an encoding as long as its
bytes there, so it is measured without being encoded; and two streams whose layouts say the
fork repeats the parent's items byte for byte compare those items without encoding either.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from operator import add, is_
from typing import TYPE_CHECKING, Any

import orjson

from ..dialects import ParsedBody, Segment
from ..model import dumps

if TYPE_CHECKING:
    from .._bodies import Layout

__all__ = [
    "Frame",
    "PrefixStream",
    "StreamError",
    "common_segments",
    "common_via",
    "prefix_stream",
]


KEPT_BYTES = 4 << 20
"""The most bytes of segment encodings one stream keeps for comparisons and frames to come."""


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
    encoding made (or taken from those kept) and compared, and the comparison stops at the
    first segment that differs: the stream is never joined into one blob, and beyond the
    encodings kept (at most ``KEPT_BYTES``) a comparison holds one segment's encoding at a
    time besides the decoded bodies. Frame sizes are remembered as segments
    are encoded, or read from the body's ``layout`` for segments that are its own array
    items, for ``length`` and for the offsets of a frame built alone (``frame``, a
    divergence's). ``frames`` encodes and keeps every frame, for the rules' evidence; a frame
    built alone before is reused there, so frames stay the same objects.

    Encodings made to compare or measure are kept up to ``KEPT_BYTES`` per stream
    (``_kept``), so that the next comparison with another stream, and ``frames``, do not
    encode those segments again; past that, each is made and dropped as before.
    """

    __slots__ = ("_alone", "_ends", "_frames", "_kept", "_layout", "_room", "segments")

    def __init__(self, segments: tuple[Segment, ...], layout: Layout | None = None) -> None:
        self.segments = segments
        self._layout = layout
        """The layout of the body the segments were read from, if it is compact."""
        self._frames: tuple[Frame, ...] | None = None
        self._alone: dict[int, Frame] = {}
        self._ends: list[int] = []
        """The end offsets of the first ``len(_ends)`` frames."""
        self._kept: dict[int, bytes] = {}
        """Segment encodings made lately, by index (``keep``)."""
        self._room = KEPT_BYTES
        """How many more bytes of encodings ``_kept`` may hold."""

    @property
    def layout(self) -> Layout | None:
        """The layout of the body the segments were read from, if known."""
        return self._layout

    def adopt(self, layout: Layout) -> None:
        """Take ``layout``, the layout of the very body the segments were read from (the
        caller's to know), as the stream's where it has none: measuring and comparing then
        read its array items' sizes from it. Its bounds serve a segment only where the
        segment's value is the layout's item object itself (``_item``)."""
        if self._layout is None:
            self._layout = layout

    def keep(self, index: int, data: bytes) -> None:
        """Keep segment ``index``'s encoding ``data`` while there is room for it (none once
        ``frames`` holds every encoding)."""
        if len(data) <= self._room and self._frames is None:
            self._kept[index] = data
            self._room -= len(data)

    @property
    def frames(self) -> tuple[Frame, ...]:
        if self._frames is None:
            frames: list[Frame] = []
            start = 0
            alone, kept = self._alone, self._kept
            for i, segment in enumerate(self.segments):
                frame = alone.get(i)
                if frame is None:
                    data = kept.get(i)
                    if data is None:
                        data = _encode(segment)
                    frame = Frame(segment.name, segment.value, start, data)
                    start += len(segment.name.encode()) + len(data) + 2  # its ``end``
                else:
                    start = frame.end
                frames.append(frame)
            self._frames = tuple(frames)
            self._alone, self._kept = {}, {}
        return self._frames

    def encoded(self, index: int) -> bytes:
        """Segment ``index``'s compact JSON, kept (``keep``) for the next time."""
        frames = self._frames
        if frames is not None:
            data = frames[index].json
        else:
            frame = self._alone.get(index)
            if frame is not None:
                data = frame.json
            else:
                kept = self._kept.get(index)
                if kept is None:
                    kept = _encode(self.segments[index])
                    self.keep(index, kept)
                data = kept
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
        """Learn the sizes of the first ``count`` frames, encoding those not yet encoded
        (but runs of array items the layout measures)."""
        i = len(self._ends)
        if i < count and self._layout is None:
            self._measure_plain(i, count)
            return
        while i < count:
            run = _run(self, i, count)
            if run is None:
                self.encoded(i)
                i += 1
            else:
                _, bounds, k, n = run
                _extend_ends(self, [s.name for s in self.segments[i : i + n]], bounds, k)
                i += n

    def _measure_plain(self, i: int, count: int) -> None:
        """``_measure`` from frame ``i`` of a stream without a layout: each segment's
        encoding as ``encoded`` gives it (and keeps it), in one loop."""
        segments, ends, alone, kept = self.segments, self._ends, self._alone, self._kept
        end, dumps_ = (ends[-1] if ends else 0), orjson.dumps
        for k in range(i, count):
            segment = segments[k]
            held = kept.get(k)
            if held is None:
                frame = alone.get(k)
                if frame is not None:
                    held = frame.json
                else:
                    try:
                        held = dumps_(segment.value)  # ``_encode``'s common case, inline
                    except orjson.JSONEncodeError:
                        held = _encode(segment)
                    if len(held) <= self._room:
                        kept[k] = held
                        self._room -= len(held)
            end += len(segment.name.encode()) + len(held) + 2
            ends.append(end)

    @property
    def length(self) -> int:
        """The stream's length in bytes (each segment encoded once to learn it)."""
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


def common_segments(a: PrefixStream, b: PrefixStream, *, known: int = 0) -> int:
    """How many leading segments frame identically in both streams (same name, same
    encoding), comparing in cache order and stopping at the first that differs.

    ``known`` leading segments are taken as identical without a look: a count the caller
    has proven (each stream frames them as a third one does, ``common_via``)."""
    start = max(known, 0)
    shared = _shared(a, b)
    if shared:
        start = _laid_out_common_segments(a, b, shared, start)
    else:
        start = _tight_common_segments(a, b, start)
    for i, (x, y) in enumerate(zip(a.segments[start:], b.segments[start:], strict=False), start):
        if x.name != y.name or a.encoded(i) != b.encoded(i):
            return i
    return min(len(a.segments), len(b.segments))


def common_via(a: PrefixStream, b: PrefixStream, shared_a: int, shared_b: int) -> int:
    """``common_segments(a, b)`` from ``shared_a`` and ``shared_b``, the counts of leading
    segments ``a`` and ``b`` frame as a third stream does. Framing identically is equality
    of names and bytes, so both frame the first ``min`` of the two counts as each other;
    where the counts differ, the one that stops sooner stops at a segment the other frames
    as the third (or at its own end): there they part. Only equal counts need a look past
    them, at segments neither comparison has settled."""
    if shared_a != shared_b:
        return min(shared_a, shared_b)
    return common_segments(a, b, known=shared_a)


def _tight_common_segments(a: PrefixStream, b: PrefixStream, start: int) -> int:
    """``common_segments`` from ``start`` in one tight loop: names compared first, then
    each pair of segments encoded (as ``encoded`` would: the same bytes, whatever a stream
    keeps) unless a stream has it already, measured where a stream's ``_ends`` reach it and
    compared, and kept where the stream has room (``keep``).

    Returns where the general loop goes on: the first segment that differs, one orjson
    refuses (not measured), or the end of the shorter stream.
    """
    sa, sb = a.segments, b.segments
    ends_a, ends_b, dumps_ = a._ends, b._ends, orjson.dumps
    kept_a, kept_b, frames_a, frames_b = a._kept, b._kept, a._frames, b._frames
    count = min(len(sa), len(sb))
    for i in range(start, count):
        x, y = sa[i], sb[i]
        name = x.name
        if name != y.name:
            return i
        if x.value is y.value:  # one object (a reader's, for bytes both bodies share)
            if len(ends_a) == i == len(ends_b):  # the usual case, inline: one encoding
                try:
                    size = len(name.encode()) + 2 + len(dumps_(x.value))
                except orjson.JSONEncodeError:
                    return i
                ends_a.append((ends_a[-1] if i else 0) + size)
                ends_b.append((ends_b[-1] if i else 0) + size)
            elif not _measure_same(ends_a, ends_b, i, name, x.value):
                return i
            continue
        json_a = kept_a.get(i) if frames_a is None else frames_a[i].json
        json_b = kept_b.get(i) if frames_b is None else frames_b[i].json
        try:
            if json_a is None:
                json_a = dumps_(x.value)
                if len(json_a) <= a._room:
                    kept_a[i] = json_a
                    a._room -= len(json_a)
            if json_b is None:
                json_b = dumps_(y.value)
                if len(json_b) <= b._room:
                    kept_b[i] = json_b
                    b._room -= len(json_b)
        except orjson.JSONEncodeError:
            return i
        if len(ends_a) == i:
            ends_a.append((ends_a[-1] if i else 0) + len(name.encode()) + 2 + len(json_a))
        if len(ends_b) == i:
            ends_b.append((ends_b[-1] if i else 0) + len(name.encode()) + 2 + len(json_b))
        if json_a != json_b:
            return i
    return count


def _measure_same(ends_a: list[int], ends_b: list[int], i: int, name: str, value: Any) -> bool:
    """Measure frame ``i`` of two streams whose segment ``i`` is one name and one value
    object, so one encoding: a size one stream has measured is the other's too, and else
    the value is encoded once for both. False where orjson refuses it (nothing measured)."""
    known_a, known_b = len(ends_a) > i, len(ends_b) > i
    if known_a and len(ends_b) == i:
        ends_b.append((ends_b[-1] if i else 0) + ends_a[i] - (ends_a[i - 1] if i else 0))
    elif known_b and len(ends_a) == i:
        ends_a.append((ends_a[-1] if i else 0) + ends_b[i] - (ends_b[i - 1] if i else 0))
    elif not (known_a and known_b) and (len(ends_a) == i or len(ends_b) == i):
        try:
            size = len(name.encode()) + 2 + len(orjson.dumps(value))
        except orjson.JSONEncodeError:
            return False
        for ends in (ends_a, ends_b):
            if len(ends) == i:
                ends.append((ends[-1] if i else 0) + size)
    return True


def _shared(a: PrefixStream, b: PrefixStream) -> dict[str, int] | None:
    """How many leading items of each top-level array one stream's body repeats from the
    other's, byte for byte (``Layout.shared``); None unless one's layout was read against
    the other's."""
    la, lb = a._layout, b._layout
    if la is None or lb is None:
        return None
    if lb.parent is la:
        return lb.shared
    if la.parent is lb:
        return la.shared
    return None


def _laid_out_common_segments(
    a: PrefixStream, b: PrefixStream, shared: dict[str, int], start: int
) -> int:
    """``_tight_common_segments`` of two streams whose layouts say which array items the
    fork repeats from the parent: a run of such items, the same items of the same array on
    both sides under the same names, is equal and measured without encoding anything; any
    other pair of segments is encoded and compared (and measured) as usual."""
    sa, sb = a.segments, b.segments
    count = min(len(sa), len(sb))
    i = start
    while i < count:
        if sa[i].name != sb[i].name:
            return i
        same = _shared_run(a, b, i, count, shared)
        if same:
            i += same
        elif a.encoded(i) != b.encoded(i):
            return i
        else:
            i += 1
    return count


def _shared_run(a: PrefixStream, b: PrefixStream, i: int, stop: int, shared: dict[str, int]) -> int:
    """How many segments from ``i`` (before ``stop``) are, in both streams, the same items of
    one array that the fork repeats from the parent, under the same names; both streams
    measured over them."""
    found = _item(a, i)
    if found is None:
        return 0
    key, bounds, k, items = found
    n = min(stop - i, shared.get(key, 0) - k)
    theirs = _item(b, i) if n > 0 else None
    if theirs is None or theirs[0] != key or theirs[2] != k:
        return 0
    n = _identical(a.segments, i, items, k, n)
    n = _identical(b.segments, i, theirs[3], k, n)
    names = [s.name for s in a.segments[i : i + n]]
    other = [s.name for s in b.segments[i : i + n]]
    if names != other:
        n = _leading(list(map(str.__eq__, names, other)))
        del names[n:]
    _measure_run(a, i, names, bounds, k)
    _measure_run(b, i, names, theirs[1], k)
    return n


def _measure_run(stream: PrefixStream, i: int, names: list[str], bounds: list[int], k: int) -> None:
    """Measure the frames of a run of array items from segment ``i`` (``_extend_ends``) that
    the stream has not measured yet; none if its ``_ends`` stop short of ``i``."""
    done = len(stream._ends) - i
    if 0 <= done < len(names):
        _extend_ends(stream, names[done:], bounds, k + done)


def _leading(flags: list[bool]) -> int:
    """How many of ``flags`` are true before the first false."""
    try:
        return flags.index(False)
    except ValueError:
        return len(flags)


def _run(stream: PrefixStream, i: int, stop: int) -> tuple[str, list[int], int, int] | None:
    """The run of segments from ``i`` (before ``stop``) that are consecutive items of one
    top-level array of a compact body: the array's key, its item offsets
    (``Layout.items``), the first item's index and the run's length; None if segment ``i``
    is not such an item."""
    found = _item(stream, i)
    if found is None:
        return None
    key, bounds, k, items = found
    return key, bounds, k, _identical(stream.segments, i, items, k, stop - i)


def _item(stream: PrefixStream, i: int) -> tuple[str, list[int], int, list[Any]] | None:
    """Where segment ``i`` is an item of a top-level array of a compact body: the array's
    key, its item offsets, the item's index and the array. The segment's name (``messages[7]``) says
    where to look; only the identity of the values decides."""
    layout = stream._layout
    if layout is None:
        return None
    segment = stream.segments[i]
    key, _, index = segment.name.partition("[")
    bounds = layout.items.get(key)
    digits = index[:-1]
    if bounds is None or not index.endswith("]") or not (digits.isascii() and digits.isdigit()):
        return None
    k = int(digits)
    items = layout.body[key]
    if k >= len(items) or items[k] is not segment.value:
        return None
    return key, bounds, k, items


_FIRST_LOOK = 64
"""Segments looked at first for a run; each look after takes twice as many, so a run
costs its length however short it is."""


def _identical(segments: tuple[Segment, ...], i: int, items: list[Any], k: int, n: int) -> int:
    """How many of the (at most ``n``) segments from ``i`` are, by identity, ``items`` from
    ``k`` on."""
    n = min(n, len(items) - k)
    done, step = 0, _FIRST_LOOK
    while done < n:
        m = min(step, n - done)
        values = [s.value for s in segments[i + done : i + done + m]]
        same = _leading(list(map(is_, values, items[k + done : k + done + m])))
        done += same
        if same < m:
            break
        step *= 2
    return done


def _extend_ends(stream: PrefixStream, names: list[str], bounds: list[int], k: int) -> None:
    """Measure the next ``len(names)`` frames, named ``names``, items ``k`` on of an array
    laid out at ``bounds``: a frame is its name, ``=``, the item's bytes (``bounds[k + 1] -
    bounds[k] - 1``) and ``\\n``, so the ``j``-th frame of the run ends at ``end + bounds[k +
    j + 1] - bounds[k] + (j + 1) +`` the names' lengths so far."""
    ends = stream._ends
    n = len(names)
    base = (ends[-1] if ends else 0) - bounds[k]
    sizes = map(len, names) if all(map(str.isascii, names)) else map(len, map(str.encode, names))
    ends.extend(
        map(
            add,
            map(add, bounds[k + 1 : k + n + 1], range(base + 1, base + n + 1)),
            accumulate(sizes),
        )
    )


def _encode(segment: Segment) -> bytes:
    try:
        return orjson.dumps(segment.value)  # the common case, without a call more
    except orjson.JSONEncodeError:
        pass
    try:
        return dumps(segment.value)
    except (TypeError, ValueError) as e:
        raise StreamError(f"{segment.name} cannot be re-encoded as JSON: {e}") from None


def prefix_stream(parsed: ParsedBody, layout: Layout | None = None) -> PrefixStream:
    """The prefix stream of a parsed body (segments are encoded when first needed); with
    the layout of its body's bytes (``harness._bodies.decode_pair``) if it has one."""
    if layout is not None and layout.body is not parsed.body:
        layout = None  # the layout of other bytes than these
    return PrefixStream(parsed.segments, layout)
