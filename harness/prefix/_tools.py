"""What happened to the tools between two bodies, matched by name, not by position.

A tool removed from the front shifts every later one: comparing ``tools[0]`` with ``tools[0]``
would then report each of them as changed. Matched by name instead, the account says what a
person would: ``tool `agent` removed``, ``tool `x` added at 2``, ``tool `x` moved from 3 to 0``,
``tool `x` changed: ...``, ``only the key order of tool `x` changed``. Positions count the
tool declarations of the body in cache order, from 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..model import dumps
from ._locate import first_difference
from ._stream import Frame

__all__ = ["ToolChange", "is_tool_frame", "tool_changes"]

ChangeKind = Literal["removed", "added", "moved", "changed", "key-order"]


@dataclass(frozen=True, slots=True)
class ToolChange:
    """One thing that happened to the tool called ``name``; ``parent``/``fork`` are its frames
    on either side (None on the side that lacks it) and ``sentence`` says it."""

    kind: ChangeKind
    name: str
    sentence: str
    parent: Frame | None
    fork: Frame | None


def is_tool_frame(frame: Frame) -> bool:
    """Whether the frame declares a tool (``tools[3]``, ``tools[0].functionDeclarations[2]``):
    every dialect names its tool segments from a root ``tools``."""
    return frame.name.split("[", 1)[0] == "tools"


def tool_name(value: Any) -> str | None:
    """The name a tool declaration goes by: its ``name``, or that of the one object it wraps
    (``{"type": "function", "function": {"name": ...}}``), or a built-in tool's ``type`` or
    single key; None when it has none."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("name"), str):
        return str(value["name"])
    for inner in value.values():
        if isinstance(inner, dict) and isinstance(inner.get("name"), str):
            return str(inner["name"])
    if isinstance(value.get("type"), str):
        return str(value["type"])
    return next(iter(value)) if len(value) == 1 else None


def tool_changes(parent: Sequence[Frame], fork: Sequence[Frame]) -> tuple[ToolChange, ...] | None:
    """Every change from the parent's tool frames to the fork's, matched by name: removals in
    the parent's order, then additions, moves and changes in the fork's. None when a tool has
    no name or a name is declared twice (then only positions can be compared)."""
    ours = [tool_name(f.value) for f in parent]
    theirs = [tool_name(f.value) for f in fork]
    if None in ours or None in theirs or _twice(ours) or _twice(theirs):
        return None
    mine = {n: i for i, n in enumerate(ours) if n is not None}
    yours = {n: i for i, n in enumerate(theirs) if n is not None}
    changes = [
        ToolChange("removed", n, f"tool `{n}` removed", parent[i], None)
        for n, i in mine.items()
        if n not in yours
    ]
    kept = set(_common_order([n for n in ours if n in yours], [n for n in theirs if n in mine]))
    for j, name in enumerate(theirs):
        assert name is not None
        if name not in mine:
            changes.append(ToolChange("added", name, f"tool `{name}` added at {j}", None, fork[j]))
            continue
        i = mine[name]
        if name not in kept:
            moved = f"tool `{name}` moved from {i} to {j}"
            changes.append(ToolChange("moved", name, moved, parent[i], fork[j]))
        changed = _changed(name, parent[i], fork[j])
        if changed is not None:
            changes.append(changed)
    return tuple(changes)


def _twice(names: list[str | None]) -> bool:
    return len(set(names)) < len(names)


def _changed(name: str, parent: Frame, fork: Frame) -> ToolChange | None:
    if parent.json == fork.json:
        return None
    try:
        a, b = _sorted(parent.value), _sorted(fork.value)
        same = dumps(a) == dumps(b)
        found = None if same else first_difference(a, b, fork.name)
    except RecursionError:
        same, found = False, None
    if same:
        sentence = f"only the key order of tool `{name}` changed"
        return ToolChange("key-order", name, sentence, parent, fork)
    where, why = found or (fork.name, "the declaration differs")
    inside = where[len(fork.name) :].lstrip(".") or "the declaration"
    return ToolChange("changed", name, f"tool `{name}` changed: {inside}: {why}", parent, fork)


def _sorted(value: Any) -> Any:
    """``value`` with every object's keys in sorted order, so that key order drops out."""
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list | tuple):
        return [_sorted(v) for v in value]
    return value


_MOST_PAIRS = 250_000
"""A bound on the search for the tools that stayed put (500 tools on either side)."""


def _common_order(a: list[str], b: list[str]) -> list[str]:
    """A longest run of names in the same relative order in both lists (the tools that
    stayed put; the others moved). Of several such runs, the one keeping most names at the
    same rank: in a reversed list the middle tool stays and the outer two move."""
    if len(a) * len(b) > _MOST_PAIRS:  # too many tools to search: those at their rank stay
        return [x for x, y in zip(a, b, strict=False) if x == y]
    zero = (0, 0)
    score = [[zero] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            best = max(score[i + 1][j], score[i][j + 1])
            if a[i] == b[j]:
                length, same = score[i + 1][j + 1]
                best = max(best, (length + 1, same + (i == j)))
            score[i][j] = best
    out: list[str] = []
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            length, same = score[i + 1][j + 1]
            if score[i][j] == (length + 1, same + (i == j)):
                out.append(a[i])
                i, j = i + 1, j + 1
                continue
        if score[i + 1][j] >= score[i][j + 1]:
            i += 1
        else:
            j += 1
    return out
