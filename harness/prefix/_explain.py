"""Showing a divergence to a person: both sides in a short byte window, and a structural diff."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._locate import Divergence
from ._stream import Frame

__all__ = ["Window", "byte_window", "structural_diff"]

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


@dataclass(frozen=True, slots=True)
class Window:
    """A printable excerpt of a frame; ``caret`` is the column of the first differing byte."""

    text: str
    caret: int


def byte_window(frame: Frame | None, offset: int, *, context: int = 40) -> Window:
    """Up to ``context`` bytes either side of stream ``offset`` within ``frame``."""
    if frame is None:
        return Window("(the prefix ends here)", 0)
    local = offset - frame.start
    data = frame.data
    start = _char_start(data, max(0, local - context))
    end = _char_start(data, min(len(data), local + context))
    before = _printable(data[start:local].decode("utf-8", "replace"))
    after = _printable(data[local:end].decode("utf-8", "replace"))
    lead = "…" if start > 0 else ""
    tail = "…" if end < len(data) else ""
    return Window(f"{lead}{before}{after}{tail}", len(lead) + len(before))


def _char_start(data: bytes, i: int) -> int:
    """Move ``i`` back to the first byte of the UTF-8 character it falls in."""
    while 0 < i < len(data) and data[i] & 0xC0 == 0x80:
        i -= 1
    return i


def _printable(text: str) -> str:
    return "".join(
        _ESCAPES.get(c, f"\\x{ord(c):02x}" if ord(c) < 0x20 or ord(c) == 0x7F else c) for c in text
    )


def structural_diff(divergence: Divergence, *, max_lines: int = 12, width: int = 160) -> list[str]:
    """DeepDiff's account of the two differing segments, one change a line, shortened.

    DeepDiff compares objects as mappings, so a pure key-order change shows up only in the
    divergence's own reason; this view adds what was added, removed or changed.
    """
    if divergence.parent_frame is None or divergence.fork_frame is None:
        return []
    from deepdiff import DeepDiff  # imported late: it costs ~0.2 s and most runs never need it

    lines = _pretty(DeepDiff(divergence.parent_frame.value, divergence.fork_frame.value))
    root = divergence.parent_frame.name
    lines = [line.replace("root", root, 1) for line in lines]
    shown = [line if len(line) <= width else line[: width - 1] + "…" for line in lines[:max_lines]]
    if len(lines) > max_lines:
        shown.append(f"… and {len(lines) - max_lines} more changes")
    return shown


def _pretty(diff: Any) -> list[str]:
    text: str = diff.pretty() if diff else ""
    return [line for line in text.splitlines() if line.strip()]
