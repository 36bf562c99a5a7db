"""Reports of one parent/fork comparison: terminal text and JSON."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import orjson

from ..model import dumps, shown
from ..prefix import MISSING, PrefixComparison, byte_window, structural_diff
from ._escape import caret_pad, printable

__all__ = ["DIFF_FORMAT_VERSION", "DiffSubjects", "diff_json", "diff_text"]

DIFF_FORMAT_VERSION: Final = 1
"""The version of ``diff --json``'s shape (docs/reports.md, "diff --json"): raised when a key
is removed or renamed, or a value changes type or meaning, not when a key is added."""


@dataclass(frozen=True, slots=True)
class DiffSubjects:
    """Where the two bodies came from, and how the dialect was chosen."""

    parent: str
    fork: str
    dialect_guessed: bool = False


def _n(value: int) -> str:
    return f"{value:,}"


def _setting(value: Any) -> str:
    if value is MISSING:
        return "(absent)"
    return shown(value, 60)


def diff_text(comparison: PrefixComparison, subjects: DiffSubjects, *, context: int = 40) -> str:
    """A report readable at a glance: verdict first, then where and why, then settings."""
    c = comparison
    guess = " (guessed: pass --dialect to choose)" if subjects.dialect_guessed else ""
    width = max(len(subjects.parent), len(subjects.fork))
    lines = [
        f"dialect: {c.dialect}{guess}",
        f"parent:  {subjects.parent:<{width}}  {len(c.parent.segments)} segments,"
        f" {_n(c.parent.length)} bytes of prefix",
        f"fork:    {subjects.fork:<{width}}  {len(c.fork.segments)} segments,"
        f" {_n(c.fork.length)} bytes of prefix",
        "",
    ]
    shared = (
        f"{_n(c.shared)} bytes = {c.share:.1%} of the fork's prefix ({_n(c.fork.length)} bytes)"
    )
    d = c.divergence
    if d is None:
        lines += [
            "PREFIX KEPT: the fork's prefix starts with the parent's whole prefix",
            f"  shared   {shared}",
        ]
    else:
        p_name = d.parent_frame.name if d.parent_frame else "(ended)"
        f_name = d.fork_frame.name if d.fork_frame else "(ended)"
        segment = p_name if p_name == f_name else f"{p_name} in the parent, {f_name} in the fork"
        p_win = byte_window(d.parent_frame, d.offset, context=context)
        f_win = byte_window(d.fork_frame, d.offset, context=context)
        lines += [
            f"PREFIX BROKEN at byte {_n(d.offset)} of the prefix stream",
            f"  shared   {shared}",
            f"  segment  {printable(segment)}",
            f"  path     {printable(str(d.path))}",
            f"  why      {printable(d.reason)}",
            "",
            f"  parent   {p_win.text}",
            f"           {caret_pad(p_win.text, p_win.caret)}^",
            f"  fork     {f_win.text}",
            f"           {caret_pad(f_win.text, f_win.caret)}^",
        ]
        changes = structural_diff(d, parent=c.parent.frames, fork=c.fork.frames)
        if changes:
            lines += ["", "structure:"] + [f"  {printable(x)}" for x in changes]
    lines.append("")
    if c.settings_changed:
        lines.append(f"settings: {len(c.settings_changed)} of {len(c.settings_compared)} differ")
        name_width = max(len(s.name) for s in c.settings_changed)
        for s in c.settings_changed:
            lines.append(
                printable(f"  {s.name:<{name_width}}  {_setting(s.parent)} -> {_setting(s.fork)}")
            )
    else:
        lines.append(f"settings: identical ({len(c.settings_compared)} compared)")
    return "\n".join(lines) + "\n"


def diff_json(comparison: PrefixComparison, subjects: DiffSubjects) -> bytes:
    """The same report for machines; stable keys, indented, ending in a newline, starting
    with ``format_version``.

    A setting orjson cannot encode inside the report (nested too deeply, or an integer
    beyond 64 bits) is written as its own compact JSON, exactly.
    """
    try:
        return _diff_json(comparison, subjects, lambda value: value)
    except orjson.JSONEncodeError:
        return _diff_json(comparison, subjects, lambda value: orjson.Fragment(dumps(value)))


def _diff_json(
    comparison: PrefixComparison, subjects: DiffSubjects, setting: Callable[[Any], Any]
) -> bytes:
    c = comparison
    d = c.divergence
    divergence = None
    if d is not None:
        divergence = {
            "offset": d.offset,
            "parent_segment": d.parent_frame.name if d.parent_frame else None,
            "fork_segment": d.fork_frame.name if d.fork_frame else None,
            "path": d.path,
            "reason": d.reason,
            "parent_window": byte_window(d.parent_frame, d.offset).text,
            "fork_window": byte_window(d.fork_frame, d.offset).text,
            "structural_diff": structural_diff(
                d, max_lines=50, parent=c.parent.frames, fork=c.fork.frames
            ),
        }
    report = {
        "format_version": DIFF_FORMAT_VERSION,
        "dialect": c.dialect,
        "dialect_guessed": subjects.dialect_guessed,
        "preserved": c.preserved,
        "parent": {
            "source": subjects.parent,
            "segments": len(c.parent.segments),
            "bytes": c.parent.length,
        },
        "fork": {"source": subjects.fork, "segments": len(c.fork.segments), "bytes": c.fork.length},
        "shared_bytes": c.shared,
        "share_of_fork": round(c.share, 6),
        "divergence": divergence,
        "settings": {
            "compared": list(c.settings_compared),
            "changed": [
                {
                    "name": s.name,
                    "parent": None if s.parent is MISSING else setting(s.parent),
                    "fork": None if s.fork is MISSING else setting(s.fork),
                    "parent_present": s.parent is not MISSING,
                    "fork_present": s.fork is not MISSING,
                }
                for s in c.settings_changed
            ],
        },
    }
    return orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
