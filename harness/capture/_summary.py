"""A short human summary of a capture: how many requests, per mark, status and dialect."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ._record import Record

__all__ = ["DEFAULT_MARK", "NO_SCRIPT", "summarize"]

DEFAULT_MARK = "(default reply)"
"""How a request answered by the script's default reply is counted."""
NO_SCRIPT = "(not a model call)"
"""How a request the script did not answer is counted (model listing, refusals)."""


def summarize(records: Sequence[Record]) -> str:
    """``recorded N requests`` then one line per mark and one for statuses, in first-seen
    order (and one per dialect when a provider served more than one); marks of refused
    requests count under ``(not a model call)``; key-shaped strings replaced in bodies are
    counted (``N secrets in bodies replaced``)."""
    total = len(records)
    lines = [f"recorded {total} request{'' if total == 1 else 's'}"]
    if not records:
        return lines[0] + "\n"
    marks = Counter(_mark(r) for r in records)
    statuses = Counter(r.status for r in records)
    lines.append("  by mark:   " + ", ".join(f"{m} {n}" for m, n in marks.items()))
    lines.append("  by status: " + ", ".join(f"{s} {n}" for s, n in statuses.items()))
    dialects = Counter(r.dialect for r in records)
    if len(dialects) > 1:
        lines.append("  by dialect: " + ", ".join(f"{d} {n}" for d, n in dialects.items()))
    errors = [r for r in records if r.error is not None]
    lines.extend(f"  #{r.seq} {r.method} {r.path}: {r.status} {r.error}" for r in errors[:5])
    if len(errors) > 5:
        lines.append(f"  ... and {len(errors) - 5} more refused")
    secrets = sum(r.body_secrets for r in records)
    if secrets:
        lines.append(f"  {secrets} secret{'' if secrets == 1 else 's'} in bodies replaced")
    notes = [r for r in records if r.note is not None]
    lines.extend(f"  #{r.seq} note: {r.note}" for r in notes[:5])
    return "\n".join(lines) + "\n"


def _mark(record: Record) -> str:
    if record.reply is None:
        return NO_SCRIPT
    return record.mark if record.mark is not None else DEFAULT_MARK
