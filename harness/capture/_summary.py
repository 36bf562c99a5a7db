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
    """``recorded N requests`` with the count of each mark and each status, in first-seen
    order (and of each dialect when a provider served more than one), on one line; marks of
    refused requests count under ``(not a model call)``; then a line per refusal and note
    (the first five), and key-shaped strings replaced in bodies counted."""
    total = len(records)
    head = f"recorded {total} request{'' if total == 1 else 's'}"
    if not records:
        return head + "\n"
    marks = Counter(_mark(r) for r in records)
    statuses = Counter(r.status for r in records)
    dialects = Counter(r.dialect for r in records)
    head += ": " + ", ".join(f"{m} {n}" for m, n in marks.items())
    head += " · status " + ", ".join(f"{s} {n}" for s, n in statuses.items())
    if len(dialects) > 1:
        head += " · " + ", ".join(f"{d} {n}" for d, n in dialects.items())
    lines = [head]
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
