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

import orjson

from ..dialects import Dialect, ParsedBody
from ..model import Message, Preset, Request
from ..prefix import Frame, PrefixStream, prefix_stream
from ._layout import Family, families

__all__ = ["Body", "message_frame", "message_frames", "read_body"]


@dataclass(frozen=True, eq=False)
class Body:
    """A body that parsed: ``label`` names it in the outcome (``children[0]``)."""

    label: str
    parsed: ParsedBody
    stream: PrefixStream
    request: Request
    families: tuple[Family, ...]
    raw: bytes = b""
    """The body's bytes as read."""

    @property
    def frames(self) -> tuple[Frame, ...]:
        return self.stream.frames

    @property
    def frame_count(self) -> int:
        """How many frames the body has (one per segment)."""
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


def read_body(label: str, raw: bytes, dialect: Dialect) -> Body | str:
    """The body, or one sentence saying why it cannot be read."""
    try:
        parsed = dialect.parse(orjson.loads(raw))
        stream = prefix_stream(parsed)
        request = parsed.request
    except orjson.JSONDecodeError as e:
        return f"{label} is not JSON: {e}"
    except ValueError as e:  # DialectError, StreamError, or a part the model refuses
        return f"{label} is not a request of the {dialect.name} dialect: {e}"
    except RecursionError:
        return f"{label} is nested too deeply to read"
    return Body(label, parsed, stream, request, families(dialect.name, parsed.segments), raw)


def message_frames(dialect: Dialect, history: Sequence[Message]) -> tuple[int, ...]:
    """How many prefix segments each message renders to (one, or more in some dialects).

    A message the dialect read from a body counts the body items it was read from
    (``Dialect.read_segments``); any other message is rendered alone and its segments
    counted."""
    counts = []
    for m in history:
        count = dialect.read_segments(m)
        if count is None:
            rendered = orjson.loads(dialect.render(Request(Preset(), (m,))))
            count = len(dialect.segments(rendered))
        counts.append(count)
    return tuple(counts)


def message_frame(dialect: Dialect, body: Body, k: int) -> Frame | None:
    """The first frame of message ``k`` of ``body``'s history; None past the end."""
    index = body.history_start + sum(message_frames(dialect, body.request.history[:k]))
    return body.frames[index] if index < len(body.frames) else None
