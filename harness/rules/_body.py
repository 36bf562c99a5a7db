"""One body of an outcome read through its dialect: its prefix stream, its neutral request, the
family of each frame, and how the provider's cache sees it.

The prefix stream is the body's *rendered* prefix by default: the units its provider renders,
each in the canonical form the provider's documented equivalences give (docs/cache-model.md),
so two spellings of one prompt frame alike. With ``strict`` it is the byte view instead: the
prefix segments as sent, compact JSON with every key order kept.

Reading is all-or-nothing: a body that is no JSON, no request of the dialect, or whose parts do
not convert to the neutral model yields one sentence for the well-formed rule, never an
exception.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import orjson

from ..dialects import Dialect, ParsedBody, Segment, Unit
from ..model import Message, Preset, Request
from ..prefix import Frame, PrefixStream, Priced, priced
from ._layout import Family

__all__ = ["Body", "message_frame", "message_frames", "read_body"]

_ITEM = re.compile(r"^[A-Za-z_]+\[(\d+)\]")


@dataclass(frozen=True, eq=False)
class Body:
    """A body that parsed: ``label`` names it in the outcome (``children[0]``). ``strict``:
    its stream is the byte view rather than the rendered prefix."""

    label: str
    parsed: ParsedBody
    stream: PrefixStream
    request: Request
    families: tuple[Family, ...]
    raw: bytes = b""
    """The body's bytes as read."""
    paths: tuple[str, ...] = ()
    """Where in the body each frame was read from (a frame's name is its place in the
    rendered prompt, which Anthropic's combined turns renumber)."""
    strict: bool = False

    @property
    def frames(self) -> tuple[Frame, ...]:
        return self.stream.frames

    @property
    def frame_count(self) -> int:
        """How many frames the body has."""
        return len(self.stream.frames)

    def frames_in(self, start: int, stop: int) -> tuple[Frame, ...]:
        """Frames ``start`` to ``stop`` (exclusive, cut to the body's)."""
        return self.frames[max(start, 0) : stop]

    def frames_of(self, *wanted: Family) -> tuple[Frame, ...]:
        """The frames of the given families, in stream order."""
        return tuple(f for f, fam in zip(self.frames, self.families, strict=True) if fam in wanted)

    @cached_property
    def history_start(self) -> int:
        """Index of the first history frame (the number of head frames before it)."""
        families = self.families
        return next((i for i, f in enumerate(families) if f == "history"), len(families))

    def frame_index(self, name: str) -> int | None:
        """The index of the frame called ``name``."""
        return next((i for i, f in enumerate(self.frames) if f.name == name), None)

    def path_of(self, index: int) -> str:
        """Where in the body frame ``index`` was read from."""
        return self.paths[index] if index < len(self.paths) else self.frames[index].name

    @cached_property
    def items(self) -> tuple[int | None, ...]:
        """For each frame, the index of the history item (body message, item or content) it
        was read from; None for a frame of the head."""
        out: list[int | None] = []
        for i, family in enumerate(self.families):
            found = _ITEM.match(self.path_of(i)) if i >= self.history_start else None
            if found is None and i >= self.history_start and family == "history":
                out.append(0)  # a history given whole (a Responses input string)
            else:
                out.append(int(found.group(1)) if found else None)
        return tuple(out)

    @cached_property
    def priced(self) -> Priced:
        """The body as its provider's cache sees it, with its tokens counted."""
        return priced(self.parsed.cache)


def read_body(
    label: str,
    raw: bytes,
    dialect: Dialect,
    *,
    strict: bool = False,
) -> Body | str:
    """The body, or one sentence saying why it cannot be read."""
    try:
        parsed = dialect.parse(orjson.loads(raw))
        request = parsed.request
        if strict:
            segments = parsed.segments
            families = dialect.families(segments)
            paths = tuple(s.name for s in segments)
        else:
            units = parsed.cache.units
            segments = tuple(Segment(u.name, u.value) for u in units)
            families = unit_families(dialect, units)
            paths = tuple(u.path for u in units)
        stream = PrefixStream(segments)
    except orjson.JSONDecodeError as e:
        return f"{label} is not JSON: {e}"
    except ValueError as e:  # DialectError, StreamError, or a part the model refuses
        return f"{label} is not a request of the {dialect.name} dialect: {e}"
    except RecursionError:
        return f"{label} is nested too deeply to read"
    return Body(label, parsed, stream, request, families, raw, paths, strict)


def unit_families(dialect: Dialect, units: Sequence[Unit]) -> tuple[Family, ...]:
    """The family of each unit: its own, the leading run of history messages in one of the
    dialect's system roles counted as the system (``Dialect.families`` does the same for
    segments)."""
    out: list[Family] = [u.family for u in units]
    roles = dialect.facts.system_roles
    for i, unit in enumerate(units):
        if unit.family != "history":
            continue
        if unit.role not in roles:
            break
        out[i] = "system"
    return tuple(out)


def message_frames(dialect: Dialect, history: Sequence[Message]) -> tuple[int, ...]:
    """How many body items each message was read from (one, or a run of several where the
    dialect reads one message from several items, as OpenAI does with tool results); a
    message the dialect did not read from a body is rendered alone and its items counted."""
    counts = []
    for m in history:
        count = dialect.read_segments(m)
        if count is None:
            rendered = orjson.loads(dialect.render(Request(Preset(), (m,))))
            count = len(dialect.segments(rendered))
        counts.append(count)
    return tuple(counts)


def message_starts(dialect: Dialect, body: Body) -> tuple[int, ...]:
    """The index of each history message's first frame in ``body``, and after them the index
    past the last message's frames: a message starts at the first frame read from one of its
    body items (counted from the first item of the history: leading items read as the system
    instruction are not in it)."""
    counts = message_frames(dialect, body.request.history)
    items = body.items
    out = []
    first = body.history_start
    item = (items[first] or 0) if first < len(items) else 0  # items read as the system
    for count in (*counts, 0):
        start = next(
            (i for i in range(body.history_start, len(items)) if (items[i] or 0) >= item),
            len(items),
        )
        out.append(start)
        item += count
    out[-1] = len(items)
    return tuple(out)


def message_frame(dialect: Dialect, body: Body, k: int) -> Frame | None:
    """The first frame of message ``k`` of ``body``'s history; None past the end."""
    starts = message_starts(dialect, body)
    index = starts[k] if k < len(starts) else len(body.frames)
    return body.frames[index] if index < len(body.frames) else None
