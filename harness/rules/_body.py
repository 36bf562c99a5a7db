"""One body of an outcome read through its dialect: prefix stream, neutral request, families.

Reading is all-or-nothing: a body that is no JSON, no request of the dialect, or whose parts do
not convert to the neutral model yields one sentence for the well-formed rule, never an
exception. ``message_frames`` says how many prefix segments each neutral message renders to,
which maps a message index to the frames of a body (the dialect can render one message into
several, as OpenAI does with tool results).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import orjson

from .._bodies import Layout, _common_length, _layout, _reusing
from ..dialects import Dialect, ParsedBody
from ..dialects._memo import on_forget, vouched
from ..model import Message, Preset, Request
from ..prefix import Frame, PrefixStream, prefix_stream
from ._layout import Family, families

__all__ = ["Body", "message_frame", "message_frames", "read_body"]


@dataclass(frozen=True, eq=False)
class Body:
    """A body that parsed: ``label`` names it in the outcome (``children[0]``). Its decoded
    JSON is read-only: the next body read in its dialect may hold its items (``_decoded``)."""

    label: str
    parsed: ParsedBody
    stream: PrefixStream
    request: Request
    families: tuple[Family, ...]
    raw: bytes = b""
    """The body's bytes as read: equal bytes read to an equal body, with no reading again."""

    @property
    def frames(self) -> tuple[Frame, ...]:
        return self.stream.frames

    @property
    def frame_count(self) -> int:
        """How many frames the body has (one per segment), with none built to count them."""
        return len(self.stream.segments)

    def frames_in(self, start: int, stop: int) -> tuple[Frame, ...]:
        """Frames ``start`` to ``stop`` (exclusive, cut to the body's), each built alone."""
        frame = self.stream.frame
        return tuple(frame(i) for i in range(max(start, 0), min(stop, self.frame_count)))

    def frames_of(self, *wanted: Family) -> tuple[Frame, ...]:
        """The frames of the given families, in stream order: each built alone (the head's
        frames, which most rules want, need no frame of the history built)."""
        frame = self.stream.frame
        return tuple(frame(i) for i, fam in enumerate(self.families) if fam in wanted)

    @cached_property
    def history_start(self) -> int:
        """Index of the first history frame (the number of head frames before it)."""
        families = self.families
        return next((i for i, f in enumerate(families) if f == "history"), len(families))

    def frame_index(self, name: str) -> int | None:
        """The index of the frame called ``name``."""
        return next((i for i, f in enumerate(self.frames) if f.name == name), None)


def read_body(label: str, raw: bytes, dialect: Dialect, like: Body | None = None) -> Body | str:
    """The body, or one sentence saying why it cannot be read. ``like`` is a body read
    before that this one may repeat more of than the last one read (a parent's next
    request repeats the parent's, not its child's): ``_decoded`` may take its items."""
    try:
        decoded, layout = _decoded(raw, dialect.name, like)
        arrays = decoded.values() if type(decoded) is dict else ()
        with vouched(value for value in arrays if type(value) is list):
            parsed = dialect.parse(decoded)
            stream = prefix_stream(parsed, layout)
            request = parsed.request
    except orjson.JSONDecodeError as e:
        return f"{label} is not JSON: {e}"
    except ValueError as e:  # DialectError, StreamError, or a part the model refuses
        return f"{label} is not a request of the {dialect.name} dialect: {e}"
    except RecursionError:
        return f"{label} is nested too deeply to read"
    return Body(label, parsed, stream, request, families(dialect.name, parsed.segments), raw)


_LAST: dict[str, tuple[bytes, Any, Layout | None]] = {}
"""Per dialect, the last body decoded (its bytes, its JSON) and its layout once known."""
_LAST_MAX_BYTES = 16 << 20
"""A larger body is not kept: memory stays bounded."""
_MIN_SHARED = 4096
"""Bytes a body must share with the last one read before its decoding takes that body's
items: below this the reuse costs more than it saves (a layout, a second pass)."""
on_forget(_LAST.clear)


_LIKE: dict[str, tuple[Any, Layout]] = {}
"""Per dialect, the layout of the last ``like`` body a body was decoded against, by its
decoded JSON (a parent's, for each of its children): found once for all of them."""
on_forget(_LIKE.clear)


def _decoded(raw: bytes, dialect: str, like: Body | None = None) -> tuple[Any, Layout | None]:
    """``orjson.loads(raw)``, raising as it does, and the body's layout where it has taken
    items; the leading array items whose bytes are those of the last body decoded for
    ``dialect``, or of ``like``'s (where it shares enough of them, or more), are that body's
    item objects (as ``harness._bodies.decode_pair`` reads a fork), so a child costs the
    decoding of its own tail and the dialect's readers find the parent's items again by
    object (``Leading``). Taken from ``like``, the layout's parent is ``like``'s stream's
    layout: the two streams then compare those items by their layouts, encoding none.

    Exact: ``_reusing`` checks every byte of the body against the compact encoding of what
    it gives, and a body it cannot read so is decoded whole. The last body's layout is
    found only when a body shares enough of its bytes to be worth it."""
    last = _LAST.get(dialect)
    reused: tuple[Any, Layout] | None = None
    if last is not None or like is not None:
        data, before, layout = last or (b"", None, None)
        common = _common_length(data, raw) if last is not None else 0
        if like is not None:
            theirs = common if like.raw is data else _common_length(like.raw, raw)
            if theirs >= _MIN_SHARED or theirs > common:
                data, before, common = like.raw, like.parsed.body, theirs
                layout = _like_layout(dialect, like)
        if common >= _MIN_SHARED:
            layout = layout or _layout(data, before, None, 0)
            if layout is not None and like is not None and before is like.parsed.body:
                _LIKE[dialect] = (before, layout)
                like.stream.adopt(layout)
            reused = None if layout is None else _reusing(raw, layout, common)
    found: Layout | None = None
    taken: Layout | None = None
    if reused is None:
        decoded = orjson.loads(raw)
    else:
        decoded, taken = reused
        found = Layout(taken.body, taken.items)  # no chain of parents
    if len(raw) <= _LAST_MAX_BYTES:
        _LAST[dialect] = (raw, decoded, found)
    else:
        _LAST.pop(dialect, None)
    return decoded, taken


def _like_layout(dialect: str, like: Body) -> Layout | None:
    """The layout of ``like``'s bytes if known: its stream's, or the one found last time."""
    body = like.parsed.body
    layout = like.stream.layout
    if layout is not None and layout.body is body:
        return layout
    held = _LIKE.get(dialect)
    return held[1] if held is not None and held[0] is body else None


_COUNTS: dict[tuple[str, Message, object], int] = {}
"""Segments per (dialect, message), as rendered alone: a fork's bodies repeat the same
messages, and every rule that maps a message to its frames asks again."""
_COUNTS_MAX = 10_000


def message_frames(dialect: Dialect, history: Sequence[Message]) -> tuple[int, ...]:
    """How many prefix segments each message renders to (one, or more in some dialects).

    A message the dialect read from a body counts the body items it was read from (its wire
    form, ``Dialect.read_segments``): exactly its segments there, with nothing rendered. Any
    other message is rendered alone and its segments counted; that depends on its parts and
    its wire form in the dialect alone (which equality ignores, so it is part of the key) and
    is computed once per message and dialect, since it costs more than a rule."""
    counts = []
    read_segments = dialect.read_segments
    for m in history:
        count = read_segments(m)
        if count is None:
            count = _rendered_count(dialect, m)
        counts.append(count)
    return tuple(counts)


def _rendered_count(dialect: Dialect, m: Message) -> int:
    """The segments of ``m`` rendered alone by ``dialect`` (remembered in ``_COUNTS``)."""
    key = (dialect.name, m, m.source)
    count = _COUNTS.get(key)
    if count is None:
        if len(_COUNTS) >= _COUNTS_MAX:
            _COUNTS.clear()
        rendered = orjson.loads(dialect.render(Request(Preset(), (m,))))
        count = _COUNTS[key] = len(dialect.segments(rendered))
    return count


def message_frame(dialect: Dialect, body: Body, k: int) -> Frame | None:
    """The first frame of message ``k`` of ``body``'s history; None past the end."""
    index = body.history_start + sum(message_frames(dialect, body.request.history[:k]))
    return body.frames[index] if index < len(body.frames) else None
