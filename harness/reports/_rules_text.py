"""Rule reports for a terminal, failures first.

A failure is a few lines: ``✗ rule: message``, then where it is (dialect, scenario, the child
and what it was compared with; the byte, segment and path) and what it cost; the first
failure of a rule in a dialect (every one with ``verbose``) adds both sides in context and
the structural diff. A second finding of the same divergence (``_cost.per_divergence``)
says so instead of its evidence, and its cost is not counted again. Passing and
not-applicable rules are counted, and listed only with ``verbose``. The last line of a
command's report is its verdict (``verdict_line``): the rules that failed and the exit code.

Every text a subject or a fixture supplies (messages, ids, names, evidence) is shown through
``printable``: a control character in it is escaped, never sent to the terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ..prefix import Window
from ..rules import STATUSES, Finding, ScenarioReport, Status, catalog
from ._cost import cost_text, per_divergence
from ._escape import caret_pad, printable

if TYPE_CHECKING:
    from ._outcomes import Outcomes

__all__ = [
    "ACCEPTED_MARK",
    "MARKS",
    "attention_lines",
    "cost_text",
    "failing_rules",
    "failure_lines",
    "finding_details",
    "legend",
    "rule_lines",
    "rules_text",
    "status_cell",
    "verdict_line",
]

MARKS: dict[Status, str] = {
    "fail": "✗",
    "warning": "!",
    "note": "i",
    "pass": "✓",
    "not-applicable": "-",
}
ACCEPTED_MARK = "~"
"""The mark of an accepted divergence: a warning the README accepts, counted apart from the
other warnings (which ``--fail-on warning`` fails on)."""


def legend(what: str = "scenario runs") -> str:
    """What each mark of a rules table counts."""
    return (
        f"(✗ failed, ! warning, {ACCEPTED_MARK} accepted divergence, i note, ✓ passed,"
        f" - not applicable; counts are {what})"
    )


def _window(label: str, window: Window, width: int) -> list[str]:
    before = printable(window.text[: window.caret])
    after = printable(window.text[window.caret :])
    pad = caret_pad(before + after, len(before))
    return [f"{label:<{width}}  {before}{after}", f"{'':<{width}}  {pad}^"]


def _where(finding: Finding) -> str | None:
    """``byte 48, tools[0] (parent: tools[1]), path tools[0].function.name: why``."""
    e = finding.evidence
    if e is None:
        return None
    parts = []
    if e.offset is not None:
        parts.append(f"byte {e.offset:,}")
    if e.segment or e.against_segment:
        other = e.against_segment if e.against_segment not in (None, e.segment) else None
        theirs = f" ({e.against}: {other})" if other else ""
        parts.append(f"{e.segment or '(none)'}{theirs}")
    if e.path:
        parts.append(f"path {e.path}")
    why = e.reason if e.reason and e.reason not in finding.message else None
    if not parts and why is None:
        return None
    shown = ", ".join(parts)
    if why is not None:
        shown = f"{shown}: {why}" if shown else why
    return shown


def finding_details(finding: Finding, *, evidence: bool = True) -> list[str]:
    """Where a finding is and what it cost, a line each; with ``evidence`` both sides in
    context (the caret under the first differing character) and the structural diff. Each
    line is printable (control characters escaped, the carets still under their byte)."""
    lines: list[str] = []
    e = finding.evidence
    where = _where(finding)
    if where is not None:
        lines.append(printable(f"where  {where}"))
    if finding.cost is not None:
        lines.append(f"cost   {cost_text(finding.cost)}")
    if not evidence or e is None:
        return lines
    if e.window or e.against_window:
        body, against_name = printable(e.body), printable(e.against or "")
        width = max(len(body), len(against_name))
        lines.append("")
        if e.against_window is not None and e.against:
            lines += _window(against_name, e.against_window, width)
        if e.window is not None:
            lines += _window(body, e.window, width)
    if e.diff:
        lines += ["", "structure:", *(f"  {printable(line)}" for line in e.diff)]
    return lines


def _in(report: ScenarioReport, finding: Finding, *, subject: bool) -> str:
    where = [report.dialect, report.scenario_id]
    if subject:
        where.insert(0, report.subject)
    e = finding.evidence
    if e is not None:
        where.append(f"{e.body} against {e.against}" if e.against else e.body)
    return printable(f"in     {' · '.join(where)}")


def failure_lines(
    found: Iterable[tuple[ScenarioReport, Finding]],
    *,
    verbose: bool = False,
    subject: bool = False,
    indent: str = "    ",
) -> list[str]:
    """Each failed finding, rule by rule in the catalog's order: ``✗ rule: message``, where
    (``subject`` names the subject too), cost; the evidence for the first failure of its
    rule in its dialect, or for each with ``verbose``; a finding of a divergence already
    shown says so in one line."""
    order = {info.id: i for i, info in enumerate(catalog())}
    ordered = sorted(found, key=lambda pair: order.get(pair[1].rule, len(order)))
    lines: list[str] = []
    shown: set[tuple[str, str]] = set()
    for report, finding, earlier in per_divergence(ordered):
        lines.append(f"{MARKS['fail']} {printable(f'{finding.rule}: {finding.message}')}")
        lines.append(indent + _in(report, finding, subject=subject))
        if earlier is not None:
            lines.append(
                f"{indent}cost   the divergence {printable(earlier.rule)} found above"
                " (its tokens counted once)"
            )
            continue
        first = (finding.rule, report.dialect) not in shown
        shown.add((finding.rule, report.dialect))
        details = finding_details(finding, evidence=verbose or first)
        lines += [f"{indent}{line}".rstrip() for line in details]
    return lines


def _counts(counts: dict[Status, int]) -> str:
    return ", ".join(f"{n} {status}" for status, n in counts.items() if n)


def rule_lines(report: ScenarioReport) -> list[str]:
    """Every rule's line of one report, as ``-v`` lists them."""
    verdict = "FAILED" if report.failed else "ok"
    lines = [
        printable(f"{report.subject} · {report.dialect} · {report.scenario_id}")
        + f": {verdict} ({_counts(report.counts)})"
    ]
    width = max((len(f.rule) for f in report.findings), default=0)
    lines += [
        f"  {MARKS[f.status]} {printable(f.rule):<{width}}  {printable(f.message)}"
        for f in report.findings
    ]
    return lines


def rules_text(reports: Sequence[ScenarioReport], *, verbose: bool = False) -> str:
    """The failures (``failure_lines``, the subject named), then every rule's line of every
    report with ``verbose``, then a line counting the runs and the findings."""
    lines = failure_lines(
        ((r, f) for r in reports for f in r.findings if f.status == "fail"),
        verbose=verbose,
        subject=True,
    )
    if verbose:
        for report in reports:
            lines += ["", *rule_lines(report)] if lines else rule_lines(report)
    total = {s: sum(r.counts[s] for r in reports) for s in STATUSES}
    failed = sum(r.failed for r in reports)
    hint = "" if verbose or not reports else " (-v lists every rule)"
    summary = (
        f"{len(reports)} scenario runs, {failed} failed; findings: {_counts(total) or 'none'}{hint}"
    )
    return "\n".join([*lines, *([""] if lines else []), summary]) + "\n"


def status_cell(reports: Sequence[ScenarioReport], rule: str) -> str:
    """How the runs of ``reports`` judged ``rule``: ``3✓ 1! 2~``; ``-`` when it never applied.
    An accepted divergence (``~``) is counted apart from the other warnings (``!``)."""
    from ._outcomes import ACCEPTED

    counts = dict.fromkeys(STATUSES, 0)
    accepted = 0
    for report in reports:
        for finding in report.findings:
            if finding.rule != rule:
                continue
            if finding.status == "warning" and ACCEPTED in finding.message:
                accepted += 1
            else:
                counts[finding.status] += 1
    shown = [
        f"{n}{MARKS[s]}"
        for s, n in counts.items()
        if n and s != "not-applicable" and s not in ("note", "pass")
    ]
    shown += [f"{accepted}{ACCEPTED_MARK}"] if accepted else []
    shown += [f"{counts[s]}{MARKS[s]}" for s in ("note", "pass") if counts[s]]
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
    for title, found, mark in (
        ("accepted divergences", accepted, ACCEPTED_MARK),
        ("warnings", warnings, MARKS["warning"]),
    ):
        if found:
            lines.append(f"{title} ({len(found)}):")
            lines += [
                f"  {mark} "
                + printable(f"{r.dialect} · {r.scenario_id} · {f.rule}: {f.message}")
                + (f" — cost {cost_text(f.cost)}" if f.cost is not None else "")
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


def failing_rules(rules: Iterable[str]) -> list[str]:
    """The rules named, each once, in the catalog's order."""
    order = {info.id: i for i, info in enumerate(catalog())}
    return sorted(dict.fromkeys(rules), key=lambda r: order.get(r, len(order)))


def verdict_line(
    outcomes: Outcomes,
    *,
    exit_code: int | None = None,
    subject_failures: int = 0,
    problem: str | None = None,
) -> str:
    """The report's last line: the verdict, the rules that failed and the exit code.

    ``exit_code`` is the command's when something other than the rules decides it (a
    capture's time-out: ``problem`` says what); ``subject_failures`` counts a subject's
    crashes, hangs and protocol errors (exit 3)."""
    if outcomes.failed_on_warning is not None and exit_code is None:
        return f"verdict: NOT conforming, {printable(outcomes.failed_on_warning)}"
    code = outcomes.exit_code if exit_code is None else exit_code
    rules = failing_rules(e.rule for e in outcomes.unexpected_failures)
    failed = f"{', '.join(rules)} failed" if rules else None
    passes = len(outcomes.unexpected_passes)
    held = (
        f"{_plural(passes, 'expected failure')} did not happen (passed or never matched)"
        if passes
        else None
    )
    said = "; ".join(x for x in (failed, held) if x)
    if code == 0:
        known = len(outcomes.expected_failures)
        expected = f", {_plural(known, 'expected failure')}" if known else ""
        return f"verdict: conforming{expected} — exit 0"
    if code == 1:
        return f"verdict: NOT conforming: {said or 'a rule failed'} — exit 1"
    if code == 3:
        rules = [r for r in rules if r != "subject-error"]  # the subject failures say it
        said = "; ".join(x for x in (f"{', '.join(rules)} failed" if rules else None, held) if x)
        why = problem or (
            f"subject failed ({subject_failures} crash/hang/protocol"
            f" error{'' if subject_failures == 1 else 's'})"
        )
        return f"verdict: {printable(why)}{f'; {said}' if said else ''} — exit 3"
    if code == 4:
        return "verdict: INCONCLUSIVE, no verdict either way (why: above) — exit 4"
    return f"verdict: {printable(problem or outcomes.verdict)} — exit {code}"
