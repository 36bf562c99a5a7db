"""A run as GitHub-flavoured Markdown, fit for a CI step summary (``--summary-md``).

A verdict line naming the rules that failed, a rules × dialects table, then the failures
nobody expected, the expected ones and the expectations that did not hold, each with rule id,
dialect, scenario, the one-line reason and the cost in cached tokens lost,
counted once per divergence: a second rule finding the same divergence says so instead.

What a subject or a fixture supplies (scenario ids, messages, reasons) is escaped by
``md_text``: controls as ``printable`` shows them (no line break can end a row), then every
character that can start inline Markdown or end a table cell backslash-escaped, so that no text
can close a cell, open a link, an image or an HTML tag; GFM renders such an escape as the
character itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..rules import ScenarioReport, catalog
from ._cost import cost_markdown, per_divergence
from ._escape import printable
from ._outcomes import Entry, Outcomes
from ._rules_text import failing_rules, legend, status_cell

__all__ = ["md_text", "outcomes_markdown"]

_ACTIVE = re.compile(r"([\\`*_\[\]<>|&~$#!@])")
"""The characters that can start inline Markdown in GFM (code, emphasis, links, images, HTML,
entities, strikethrough, math, mentions) or end a table cell."""
_ICONS = {0: "✅", 1: "❌", 3: "💥", 4: "❔"}
_SHOWN = 50
"""Rows shown per list of entries; a summary must stay readable (the JSON report has all)."""


def md_text(text: str) -> str:
    """``text`` for a Markdown table cell or line: controls escaped, punctuation inert."""
    return _ACTIVE.sub(r"\\\1", printable(text))


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return [_row(header), _row(["---"] * len(header)), *(_row(r) for r in rows)]


def _rules_table(outcomes: Outcomes) -> list[str]:
    dialects = outcomes.dialects
    by_dialect = {d: [r for r in outcomes.reports if r.dialect == d] for d in dialects}
    rows = [
        [f"`{info.id}`", *(md_text(status_cell(by_dialect[d], info.id)) for d in dialects)]
        for info in catalog()
    ]
    return _table(["rule", *(md_text(d) for d in dialects)], rows)


def _costs(reports: Sequence[ScenarioReport]) -> dict[tuple[str, str, str], str]:
    """The cost cell per (dialect, scenario, rule) of the failures: the bytes lost, once per
    divergence; a later finding of the same divergence names the rule that counted it."""
    cells: dict[tuple[str, str, str], str] = {}
    failed = ((r, f) for r in reports for f in r.findings if f.status == "fail")
    for r, f, earlier in per_divergence(failed):
        if f.cost is None:
            continue
        cell = cost_markdown(f.cost) if earlier is None else f"as `{earlier.rule}`"
        cells.setdefault((r.dialect, r.scenario_id, f.rule), cell)
    return cells


def _entries(
    title: str,
    entries: Sequence[Entry],
    costs: dict[tuple[str, str, str], str] | None,
    *,
    because: bool = True,
) -> list[str]:
    """A section of ``entries``: rule, dialect, scenario, the one-line reason, the
    expectation's reason (``because``) and the bytes lost (with ``costs``)."""
    if not entries:
        return []
    header = ["rule", "dialect", "scenario", "reason"]
    header += ["expected because"] if because else []
    header += ["bytes lost (share)"] if costs is not None else []
    rows = []
    for e in entries[:_SHOWN]:
        row = [f"`{e.rule}`", md_text(e.dialect or "every dialect"), md_text(e.scenario)]
        row.append(md_text(e.message))
        if because:
            row.append(md_text(e.reason or ""))
        if costs is not None:
            row.append(costs.get((e.dialect or "", e.scenario, e.rule), ""))
        rows.append(row)
    more = len(entries) - _SHOWN
    tail = ["", f"… and {more} more (the JSON report has every one)"] if more > 0 else []
    return ["", f"### {title} ({len(entries)})", "", *_table(header, rows), *tail]


def outcomes_markdown(outcomes: Outcomes) -> str:
    """The summary: verdict line, counts, rules × dialects table, failures and expectations."""
    icon = _ICONS.get(outcomes.exit_code, "❔")
    runs = len(outcomes.reports)
    rules = failing_rules(e.rule for e in outcomes.unexpected_failures)
    failed = f": {md_text(', '.join(rules))} failed" if rules else ""
    lines = [
        f"## {icon} prefix-harness {outcomes.command}: {outcomes.verdict}{failed}"
        f" (exit {outcomes.exit_code})",
        "",
        f"subject {md_text(outcomes.subject)} · {runs} scenario run{'' if runs == 1 else 's'}"
        f" · {len(outcomes.unexpected_failures)} unexpected failures"
        f" · {len(outcomes.expected_failures)} expected failures"
        f" · {len(outcomes.unexpected_passes)} unexpected passes"
        f" · {len(outcomes.accepted)} accepted divergences · {len(outcomes.warnings)} warnings"
        f" · {len(outcomes.skipped)} skipped · {outcomes.lost_tokens:,} tokens of cached prefix"
        " lost (each divergence counted once)",
    ]
    if outcomes.failed_on_warning is not None:
        lines += ["", md_text(outcomes.failed_on_warning)]
    if outcomes.dialects:
        lines += ["", *_rules_table(outcomes), "", md_text(legend())]
    costs = _costs(outcomes.reports)
    lines += _entries("Failures", outcomes.unexpected_failures, costs, because=False)
    lines += _entries("Expected failures", outcomes.expected_failures, costs)
    lines += _entries("Unexpected passes", outcomes.unexpected_passes, None)
    return "\n".join(lines) + "\n"
