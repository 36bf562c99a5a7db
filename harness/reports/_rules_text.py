"""Rule reports for a terminal: one line per rule per scenario, failures expanded below it.

Every text a subject or a fixture supplies (messages, ids, names, evidence) is shown through
``printable``: a control character in it is escaped, never sent to the terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..prefix import Window
from ..rules import REFERENCE_PARENT_TOKENS, STATUSES, Cost, Finding, ScenarioReport, Status
from ._escape import caret_pad, printable

if TYPE_CHECKING:
    from ._outcomes import Outcomes

__all__ = ["MARKS", "attention_lines", "cost_text", "finding_details", "rules_text", "status_cell"]

MARKS: dict[Status, str] = {
    "fail": "✗",
    "warning": "!",
    "note": "i",
    "pass": "✓",
    "not-applicable": "-",
}


def cost_text(cost: Cost) -> str:
    """``~1,234 tokens of cached prefix lost to a divergence = 35.0% of the child's prefix
    (estimate); at a 50,000-token parent ~20,000 tokens, $0.0540 a child (Claude Sonnet 5
    prices); the provider calls it tools_changed``."""
    tokens = f"{cost.tokens:,}" if cost.exact else f"~{cost.tokens:,}"
    counted = f"in {cost.encoding}" if cost.exact and cost.encoding else "estimate"
    text = (
        f"{tokens} tokens of cached prefix lost to {_CAUSES[cost.cause]} = {cost.share:.1%} "
        f"of the child's prefix ({counted})"
    )
    if cost.reference_tokens is not None:
        text += f"; at a {REFERENCE_PARENT_TOKENS:,}-token parent ~{cost.reference_tokens:,} tokens"
        if cost.reference_usd and cost.model:
            text += f", ${cost.reference_usd:.4f} a child ({cost.model} prices)"
    if cost.miss_reason:
        text += f"; the provider calls it {cost.miss_reason}"
    return text


_CAUSES = {
    "divergence": "a divergence",
    "settings": "a changed setting",
    "boundaries": "the child's cache boundaries",
}


def _window(label: str, window: Window, width: int) -> list[str]:
    before = printable(window.text[: window.caret])
    after = printable(window.text[window.caret :])
    pad = caret_pad(before + after, len(before))
    return [f"{label:<{width}}  {before}{after}", f"{'':<{width}}  {pad}^"]


def finding_details(finding: Finding) -> list[str]:
    """The evidence and cost of a finding, one fact a line: where, why, both sides, structure;
    each line printable (control characters escaped, the carets still under their byte)."""
    lines: list[str] = []
    e = finding.evidence
    if e is not None:
        against = f" (against {e.against})" if e.against else ""
        lines.append(printable(f"body     {e.body}{against}"))
        if e.offset is not None:
            lines.append(f"offset   byte {e.offset:,} of the body's prefix stream")
        if e.segment or e.against_segment:
            other = e.against_segment if e.against_segment not in (None, e.segment) else None
            theirs = f" ({e.against}: {other})" if other else ""
            lines.append(printable(f"segment  {e.segment or '(none)'}{theirs}"))
        if e.path:
            lines.append(printable(f"path     {e.path}"))
        if e.reason and e.reason not in finding.message:
            lines.append(printable(f"why      {e.reason}"))
    if finding.cost is not None:
        lines.append(f"cost     {cost_text(finding.cost)}")
    if e is not None and (e.window or e.against_window):
        body, against_name = printable(e.body), printable(e.against or "")
        width = max(len(body), len(against_name))
        lines.append("")
        if e.against_window is not None and e.against:
            lines += _window(against_name, e.against_window, width)
        if e.window is not None:
            lines += _window(body, e.window, width)
    if e is not None and e.diff:
        lines += ["", "structure:", *(f"  {printable(line)}" for line in e.diff)]
    return lines


def _counts(counts: dict[Status, int]) -> str:
    return ", ".join(f"{n} {status}" for status, n in counts.items() if n)


def rules_text(reports: Sequence[ScenarioReport]) -> str:
    """Every report, then a summary; failures expanded, warnings with their cost."""
    lines: list[str] = []
    for report in reports:
        verdict = "FAILED" if report.failed else "ok"
        lines.append(
            printable(f"{report.subject} · {report.dialect} · {report.scenario_id}")
            + f": {verdict} ({_counts(report.counts)})"
        )
        width = max((len(f.rule) for f in report.findings), default=0)
        for f in report.findings:
            lines.append(
                f"  {MARKS[f.status]} {printable(f.rule):<{width}}  {printable(f.message)}"
            )
            if f.status == "fail":
                lines += [f"      {line}".rstrip() for line in finding_details(f)]
            elif f.status == "warning" and f.cost is not None:
                lines.append(f"      cost     {cost_text(f.cost)}")
        lines.append("")
    total = {s: sum(r.counts[s] for r in reports) for s in STATUSES}
    failed = sum(r.failed for r in reports)
    lines.append(
        f"{len(reports)} scenario runs, {failed} failed; findings: {_counts(total) or 'none'}"
    )
    return "\n".join(lines) + "\n"


def status_cell(reports: Sequence[ScenarioReport], rule: str) -> str:
    """How the runs of ``reports`` judged ``rule``: ``3✓ 1!``; ``-`` when it never applied."""
    counts = dict.fromkeys(STATUSES, 0)
    for report in reports:
        for finding in report.findings:
            if finding.rule == rule:
                counts[finding.status] += 1
    shown = [f"{n}{MARKS[s]}" for s, n in counts.items() if n and s != "not-applicable"]
    return " ".join(shown) or MARKS["not-applicable"]


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def attention_lines(outcomes: Outcomes, *, verbose: bool = False) -> list[str]:
    """One line counting accepted divergences, warnings and skipped scenarios; with
    ``verbose``, each of them on a line of its own below it (escaped)."""
    accepted, warnings, skipped = outcomes.accepted, outcomes.warnings, outcomes.skipped
    counts = (
        f"{_plural(len(accepted), 'accepted divergence')}, {_plural(len(warnings), 'warning')},"
        f" {_plural(len(skipped), 'skipped scenario')}"
    )
    hint = " (-v lists them)" if not verbose and (accepted or warnings or skipped) else ""
    lines = [f"also: {counts}{hint}"]
    if not verbose:
        return lines
    for title, found in (("accepted divergences", accepted), ("warnings", warnings)):
        if found:
            lines.append(f"{title} ({len(found)}):")
            lines += [
                f"  {MARKS['warning']} "
                + printable(f"{r.dialect} · {r.scenario_id} · {f.rule}: {f.message}")
                + (f" — cost {f.cost.tokens:,} tokens" if f.cost is not None else "")
                for r, f in found
            ]
    if skipped:
        lines.append(f"skipped scenarios ({len(skipped)}):")
        lines += [
            f"  {MARKS['not-applicable']} "
            + printable(f"{s.dialect or '(group)'} · {s.scenario}: {s.reason}")
            for s in skipped
        ]
    return lines
