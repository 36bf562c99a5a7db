"""Showing a divergence to a person: both sides in a short byte window, and a structural diff."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..model._json import shown
from ._locate import Divergence
from ._stream import Frame

__all__ = ["Window", "byte_window", "structural_diff"]

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


@dataclass(frozen=True, slots=True)
class Window:
    """A printable excerpt of a frame; ``caret`` is the index in ``text`` of the character
    holding the first differing byte (a character index: a renderer counts the columns up to
    it by display width, ``harness.reports._escape.caret_pad``)."""

    text: str
    caret: int


def byte_window(frame: Frame | None, offset: int, *, context: int = 40) -> Window:
    """Up to ``context`` bytes either side of stream ``offset`` within ``frame``."""
    if frame is None:
        return Window("(the prefix ends here)", 0)
    data = frame.data
    local = _char_start(data, offset - frame.start)  # bytes may part inside a character
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


def structural_diff(divergence: Divergence, *, max_lines: int = 12) -> list[str]:
    """DeepDiff's account of the two differing segments, one change a line, values shortened.

    DeepDiff compares objects as mappings, so a pure key-order change shows up only in the
    divergence's own reason; this view adds what was added, removed or changed.
    """
    if divergence.parent_frame is None or divergence.fork_frame is None:
        return []
    from deepdiff import DeepDiff  # imported late: it costs ~0.2 s and most runs never need it

    root = divergence.parent_frame.name
    try:
        tree = DeepDiff(
            divergence.parent_frame.value,
            divergence.fork_frame.value,
            view="tree",
            threshold_to_diff_deeper=0,
        )
        lines = [
            _describe(kind, _path(level.path(), root), level.t1, level.t2)
            for kind, levels in sorted(tree.items())
            for level in sorted(levels, key=lambda lv: str(lv.path()))
        ]
    except RecursionError:
        return ["(the segment is nested too deeply for a structural diff)"]
    if len(lines) > max_lines:
        lines = [*lines[:max_lines], f"... and {len(lines) - max_lines} more changes"]
    return lines


_KEY = re.compile(r"\['([A-Za-z_][A-Za-z0-9_]*)'\]")


def _path(deepdiff_path: str, root: str) -> str:
    return _KEY.sub(r".\1", deepdiff_path.replace("root", root, 1))


def _describe(kind: str, path: str, parent: Any, fork: Any) -> str:
    if kind.endswith("_added"):
        return f"added    {path} = {_short(fork)}"
    if kind.endswith("_removed"):
        return f"removed  {path} (was {_short(parent)})"
    if isinstance(parent, str) and isinstance(fork, str):
        at = next(
            (i for i, (x, y) in enumerate(zip(parent, fork, strict=False)) if x != y),
            min(len(parent), len(fork)),
        )
        return f"changed  {path}: {_short(parent, at)} -> {_short(fork, at)}"
    return f"changed  {path}: {_short(parent)} -> {_short(fork)}"


def _short(value: Any, around: int = 0, width: int = 48) -> str:
    """A value's JSON, cut to ``width`` characters kept near character ``around``."""
    if isinstance(value, str) and len(value) > width:
        start = max(0, around - width // 2)
        cut = value[start : start + width]
        tail = "…" if start + width < len(value) else ""
        return f'"{"…" if start else ""}{_printable(cut)}{tail}"'
    text = _printable(shown(value, width + 1)) if _is_json(value) else type(value).__name__
    return text if len(text) <= width else text[: width - 1] + "…"


def _is_json(value: Any) -> bool:
    return value is None or isinstance(value, dict | list | tuple | str | int | float | bool)
