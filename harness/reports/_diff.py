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

DIFF_FORMAT_VERSION: Final = 2
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
    """A report readable at a glance: verdict first, then where and why, what the cache
    makes of it, then settings."""
    c = comparison
    guess = " (guessed: pass --dialect to choose)" if subjects.dialect_guessed else ""
    width = max(len(subjects.parent), len(subjects.fork))
    view = "bytes as sent (--strict-bytes)" if c.strict else "rendered prefix"
    pieces = "segments" if c.strict else "units"
    lines = [
        f"dialect: {c.dialect}{guess}",
        f"compared: {view}",
        f"parent:  {subjects.parent:<{width}}  {len(c.parent.segments)} {pieces},"
        f" {_n(c.parent.length)} bytes of prefix",
        f"fork:    {subjects.fork:<{width}}  {len(c.fork.segments)} {pieces},"
        f" {_n(c.fork.length)} bytes of prefix",
        "",
    ]
    shared = (
        f"{_n(c.shared)} bytes = {c.share:.1%} of the fork's prefix ({_n(c.fork.length)} bytes)"
    )
    d = c.divergence
    lines.append(_verdict(c))
    lines.append(f"  shared   {shared}")
    if d is not None:
        p_name = d.parent_frame.name if d.parent_frame else "(ended)"
        f_name = d.fork_frame.name if d.fork_frame else "(ended)"
        segment = p_name if p_name == f_name else f"{p_name} in the parent, {f_name} in the fork"
        p_win = byte_window(d.parent_frame, d.offset, context=context)
        f_win = byte_window(d.fork_frame, d.offset, context=context)
        lines += [
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
    lines += ["", *_cache_lines(c)]
    notes = _equivalences(c)
    if notes:
        lines += ["", "equivalences:"] + [f"  {printable(n)}" for n in notes]
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


def _verdict(c: PrefixComparison) -> str:
    d = c.divergence
    if c.strict:
        if d is None:
            return "PREFIX KEPT: the fork's prefix starts with the parent's whole prefix"
        return f"PREFIX BROKEN at byte {_n(d.offset)} of the prefix stream"
    lost = _tokens(c, c.lost_tokens)
    if not c.preserved:
        if d is not None and c.cache.lost_to_divergence:
            return f"PREFIX BROKEN at byte {_n(d.offset)}: {lost} cached tokens lost"
        if c.cache.lost_to_settings >= c.cache.lost_to_boundaries:
            keyed = ", ".join(c.keyed_changed) or "a setting"
            return f"CACHE MISSED: {lost} cached tokens lost, the cache is keyed on {keyed}"
        return (
            f"CACHE MISSED: {lost} cached tokens lost, no boundary of the fork falls where the"
            " parent wrote its entry"
        )
    if d is None:
        return "PREFIX KEPT: the fork's prefix starts with the parent's whole prefix"
    return (
        f"PREFIX KEPT to the cache: the fork leaves the parent at byte {_n(d.offset)}, past"
        " every entry the parent wrote (no cached token lost)"
    )


def _tokens(c: PrefixComparison, count: int) -> str:
    return f"{count:,}" if c.fork_priced.exact else f"~{count:,}"


def _counted(c: PrefixComparison) -> str:
    encoding = c.fork_priced.view.model.encoding
    if c.fork_priced.exact and encoding:
        return f"tokens counted in {encoding}"
    return "tokens estimated"


def _cache_lines(c: PrefixComparison) -> list[str]:
    """What the fork reads when sent right after the parent: the provider's usage fields,
    the losses by cause, what the provider's minimum does at this size."""
    j = c.cache
    used = j.child
    model = c.fork_priced.view.model
    fields = c.usage_fields
    structural = "; as if the parent cached every prefix: it asks for no caching"
    assumed = "" if c.fork_priced.view.known_model else "'s facts, the model being unknown"
    lines = [
        f"cache: the fork sent right after the parent ({model.label}{assumed}, {_counted(c)}):",
        "  usage    " + ", ".join(f"{k}={v:,}" for k, v in fields.items()),
        f"  judged   reads {_tokens(c, used.read)} of {_tokens(c, used.total)} tokens"
        f" (minimum lengths aside{structural if j.structural else ''})",
    ]
    causes = [
        (j.lost_to_divergence, "to the divergence", _miss(c, "divergence")),
        (j.lost_to_boundaries, "to the fork's cache boundaries", None),
        (j.lost_to_settings, "to its keyed settings", _miss(c, "settings")),
    ]
    for tokens, cause, reason in causes:
        if tokens:
            named = f" (the provider calls it {reason})" if reason else ""
            lines.append(f"  lost     {_tokens(c, tokens)} tokens {cause}{named}")
    if not j.structural and (j.at_size.read < used.read or j.at_size.below_minimum):
        lines.append(
            f"  at size  below the provider's minimum of {model.minimum_tokens:,} tokens an entry"
            " is not written: the usage above reads less than the structure would; the verdict"
            " judges the structure, whatever the size"
        )
    return lines


def _miss(c: PrefixComparison, cause: str) -> str | None:
    facts = c.fork_priced.view.facts
    if cause == "settings":
        keyed = c.keyed_changed
        return facts.miss_reason(keyed[0]) if keyed else None
    units = c.fork_priced.view.units
    index = c.cache.common
    unit = units[index] if index < len(units) else None
    if unit is None:
        mine = c.parent_priced.view.units
        unit = mine[index] if index < len(mine) else None
    return None if unit is None else facts.miss_reason(unit.family)


def _equivalences(c: PrefixComparison) -> list[str]:
    """The documented equivalences that made the two spellings one prompt where the fork
    repeats the parent (the rendered view only)."""
    if c.strict:
        return []
    facts = c.fork_priced.view.facts
    mine = c.parent_priced.view.units[: c.cache.common]
    theirs = c.fork_priced.view.units[: c.cache.common]
    ids: dict[str, None] = {}
    for a, b in zip(mine, theirs, strict=False):
        ids.update(dict.fromkeys(sorted(set(a.applied) ^ set(b.applied))))
    found = [e for e in map(facts.equivalence, ids) if e is not None and e.applied]
    return [e.sentence() for e in found]


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
        "view": "bytes" if c.strict else "rendered",
        "cache": _cache_json(c),
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


def _cache_json(c: PrefixComparison) -> dict[str, Any]:
    """The cache's judgement of the fork sent right after the parent, in tokens."""
    j = c.cache
    model = c.fork_priced.view.model
    return {
        "model": model.label,
        "exact": c.fork_priced.exact,
        "encoding": model.encoding if c.fork_priced.exact else None,
        "parent_tokens": c.parent_priced.total,
        "fork_tokens": c.fork_priced.total,
        "lost_tokens": c.lost_tokens,
        "lost_to_divergence": j.lost_to_divergence,
        "lost_to_boundaries": j.lost_to_boundaries,
        "lost_to_settings": j.lost_to_settings,
        "keyed_changed": list(c.keyed_changed),
        "miss_reason": _miss(c, "divergence" if j.lost_to_divergence else "settings")
        if c.lost_tokens
        else None,
        "structural": j.structural,
        "usage": {
            "total": j.at_size.total,
            "read": j.at_size.read,
            "written": j.at_size.written,
            "uncached": j.at_size.uncached,
            "fields": dict(c.usage_fields),
            "minimum": model.minimum_tokens,
        },
        "judged": {"total": j.child.total, "read": j.child.read, "written": j.child.written},
        "equivalences": _equivalences(c),
    }
