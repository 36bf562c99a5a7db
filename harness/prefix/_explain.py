"""Showing a divergence to a person: both sides in a short byte window, and a structural diff."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model import shown
from ._locate import Divergence
from ._stream import Frame
from ._tools import is_tool_frame, tool_changes

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


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
"""The characters ``_printable`` escapes: a text without any is printable as it is."""


def _printable(text: str) -> str:
    if _CONTROL.search(text) is None:
        return text
    return "".join(
        _ESCAPES.get(c, f"\\x{ord(c):02x}" if ord(c) < 0x20 or ord(c) == 0x7F else c) for c in text
    )


def structural_diff(
    divergence: Divergence,
    *,
    max_lines: int = 12,
    parent: Sequence[Frame] = (),
    fork: Sequence[Frame] = (),
) -> list[str]:
    """What differs at the divergence, one change a line, values shortened.

    Given both streams' frames (``parent``, ``fork``), tools are matched by name (``tool
    `agent` removed``, ``tool `x` moved from 3 to 0``: see ``tool_changes``) and a segment
    the fork inserts before the parent's continuation, or leaves out of it, is said as such;
    otherwise DeepDiff's account of the two differing segments. DeepDiff compares objects as
    mappings, so a pure key-order change shows up only in the divergence's own reason.
    """
    if divergence.parent_frame is None or divergence.fork_frame is None:
        return []
    lines = _tool_lines(divergence.parent_frame, divergence.fork_frame, parent, fork)
    if lines is None:
        lines = _spliced(divergence, parent, fork) or _deepdiff(
            divergence.parent_frame, divergence.fork_frame
        )
    if len(lines) > max_lines:
        lines = [*lines[:max_lines], f"... and {len(lines) - max_lines} more changes"]
    return lines


def _deepdiff(parent: Frame, fork: Frame) -> list[str]:
    """DeepDiff's changes from one segment to the other, with body paths (the fork's): found
    without it when ``_plain_changes`` can (DeepDiff and what it imports cost ~0.4 s)."""
    root = fork.name
    changes = _plain_changes(parent.value, fork.value)
    if changes is None:
        return _deepdiff_lines(parent.value, fork.value, root)
    return [_describe(kind, _path(path, root), t1, t2) for kind, path, t1, t2 in changes]


def _deepdiff_lines(parent: Any, fork: Any, root: str) -> list[str]:
    """DeepDiff's own account of ``parent`` to ``fork``, one line a change."""
    from deepdiff import DeepDiff  # imported late: most runs never need it

    try:
        tree = DeepDiff(parent, fork, view="tree", threshold_to_diff_deeper=0)
        return [
            _describe(kind, _path(level.path(), root), level.t1, level.t2)
            for kind, levels in sorted(tree.items())
            for level in sorted(levels, key=lambda lv: str(lv.path()))
        ]
    except RecursionError:
        return ["(the segment is nested too deeply for a structural diff)"]


Change = tuple[str, str, Any, Any]
"""A change as DeepDiff's tree reports it: its kind, its path (``root['a'][0]``), both values."""

_PLAIN_DEPTH = 16
"""The deepest nesting ``_plain_changes`` walks: far from where DeepDiff, which spends a few
frames a level, could run out of stack and say so instead."""
_SCALARS = frozenset({str, int, float, bool, type(None)})
_PLAIN = _SCALARS | {dict, list}


class _NotPlain(Exception):
    """A pair ``_plain_changes`` leaves to DeepDiff."""


def _plain_changes(parent: Any, fork: Any) -> list[Change] | None:
    """The changes DeepDiff (``threshold_to_diff_deeper=0``, in order) reports from ``parent``
    to ``fork``, in the order ``_deepdiff_lines`` gives them, for plain JSON values: objects
    with string keys, arrays, strings, numbers, booleans, null. None when DeepDiff is needed:
    another type, nesting deeper than ``_PLAIN_DEPTH``, or two arrays of scalars that differ
    (DeepDiff aligns those with difflib, which takes 1, 1.0 and true for one value)."""
    found: list[Change] = []
    try:
        _walk(parent, fork, "root", 0, found)
    except _NotPlain:
        return None
    return sorted(found, key=lambda c: (c[0], c[1]))


def _walk(a: Any, b: Any, path: str, depth: int, found: list[Change]) -> None:
    """DeepDiff's ``_diff`` for plain values (its dispatch by type, each branch as it is)."""
    if a is b:
        return
    kind = type(a)
    if kind not in _PLAIN or type(b) not in _PLAIN:
        raise _NotPlain
    if kind is not type(b):
        found.append(("type_changes", path, a, b))
    elif kind is dict:
        if depth >= _PLAIN_DEPTH or not all(type(k) is str for k in (*a, *b)):
            raise _NotPlain
        for key in b:
            if key not in a:
                found.append(("dictionary_item_added", path + _key(key), None, b[key]))
        for key in a:
            if key not in b:
                found.append(("dictionary_item_removed", path + _key(key), a[key], None))
        for key in b:
            if key in a:
                _walk(a[key], b[key], path + _key(key), depth + 1, found)
    elif kind is list:
        if depth >= _PLAIN_DEPTH:
            raise _NotPlain
        if all(type(x) in _SCALARS for x in a) and all(type(y) in _SCALARS for y in b):
            if len(a) == len(b) and all(x == y for x, y in zip(a, b, strict=True)):
                return  # difflib finds one equal block: nothing is reported
            raise _NotPlain
        for i in range(max(len(a), len(b))):
            if i >= len(b):
                found.append(("iterable_item_removed", f"{path}[{i}]", a[i], None))
            elif i >= len(a):
                found.append(("iterable_item_added", f"{path}[{i}]", None, b[i]))
            else:
                _walk(a[i], b[i], f"{path}[{i}]", depth + 1, found)
    elif a != b:
        found.append(("values_changed", path, a, b))


def _key(key: str) -> str:
    """DeepDiff's path step to a key (``stringify_element`` with its dict quotes)."""
    if "'" in key:
        return f'["{key}"]'
    return f"['{key}']"


def _tool_lines(
    here: Frame, there: Frame, parent: Sequence[Frame], fork: Sequence[Frame]
) -> list[str] | None:
    """The tool changes, by name, when the divergence (``here`` in the parent, ``there`` in
    the fork) lies in the tools; each changed tool's own structural diff below its sentence.
    None when tools are not involved or unnamed."""
    if not (is_tool_frame(here) and is_tool_frame(there)):
        return None
    changes = tool_changes(
        [f for f in parent if is_tool_frame(f)], [f for f in fork if is_tool_frame(f)]
    )
    if not changes:
        return None
    lines: list[str] = []
    for change in changes:
        lines.append(change.sentence)
        if change.kind == "changed" and change.parent and change.fork:
            lines += [f"  {line}" for line in _deepdiff(change.parent, change.fork)]
    return lines


_MOST_SPLICED = 16
"""How many segments in a row may be said inserted or removed (a bound on the search)."""


def _spliced(d: Divergence, parent: Sequence[Frame], fork: Sequence[Frame]) -> list[str]:
    """``segment messages[1] inserted`` when the fork holds segments the parent lacks and then
    goes on with the parent's (``removed`` the other way round); [] when it does not."""
    here, there = d.parent_frame, d.fork_frame
    assert here is not None
    assert there is not None
    at = next((i for i, f in enumerate(fork) if (f.name, f.start) == (there.name, there.start)), -1)
    if not 0 <= at < len(parent) or (parent[at].name, parent[at].start) != (here.name, here.start):
        return []
    for extra, (longer, shorter, verb) in itertools.product(
        range(1, min(_MOST_SPLICED, max(len(fork), len(parent)) - at - 1) + 1),
        ((fork, parent, "inserted"), (parent, fork, "removed")),
    ):
        if _continues(longer, at + extra, shorter, at):
            lines = [f"segment {f.name} {verb}: {_short(f.value)}" for f in longer[at : at + extra]]
            p_next, f_next = (shorter, longer) if verb == "inserted" else (longer, shorter)
            p_at, f_at = (at, at + extra) if verb == "inserted" else (at + extra, at)
            lines.append(
                f"then the fork goes on with the parent's {p_next[p_at].name} and on"
                f" (its {f_next[f_at].name})"
            )
            return lines
    return []


def _continues(longer: Sequence[Frame], i: int, shorter: Sequence[Frame], j: int) -> bool:
    """Whether ``longer`` from ``i`` repeats ``shorter`` from ``j`` for as long as both go."""
    if i >= len(longer) or j >= len(shorter):
        return False
    count = min(len(longer) - i, len(shorter) - j)
    return all(longer[i + k].json == shorter[j + k].json for k in range(count))


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
