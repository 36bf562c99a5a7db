"""A check of recorded requests (``capture``, ``check-log``) as text, JSON and JUnit XML: how
the requests were grouped, then the rules reports, then what could not be checked and why."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any

import orjson

from ..rules import STATUSES
from ._escape import printable, xml_safe
from ._outcomes import Outcomes, log_outcomes
from ._rules_json import rules_json
from ._rules_junit import finish_junit, rules_junit
from ._rules_text import (
    MARKS,
    attention_lines,
    failing_rules,
    failure_lines,
    rule_lines,
    verdict_line,
)

if TYPE_CHECKING:
    from ..capture import CheckResult, Roles, UsageComparison

__all__ = [
    "capture_counts_line",
    "capture_json",
    "capture_junit",
    "capture_text",
    "capture_verdict",
]

_SUITE = "prefix-harness.grouping"
_VERDICT = "prefix-harness.verdict"


def _conversation_lines(roles: Roles) -> list[str]:
    lines = []
    for conv in roles.conversations:
        seqs = ", ".join(str(s) for s in conv.seqs)
        marks = list(dict.fromkeys(r.mark for r in conv.requests if r.mark is not None))
        shown = f" · marks {', '.join(marks)}" if marks else ""
        noun = "request" if len(conv.seqs) == 1 else "requests"
        line = f"  {conv.name} ({roles.role(conv.index)}): {noun} {seqs}{shown}"
        lines.append(printable(line))
    return lines


def capture_verdict(result: CheckResult) -> str:
    """``failed``, ``inconclusive`` or ``passed``: the verdict the exit code gives."""
    if result.failed:
        return "failed"
    return "inconclusive" if result.inconclusive else "passed"


def capture_counts_line(result: CheckResult) -> str:
    """How many groups were checked, failed and not checked, and conversations' turns; for an
    inconclusive check, why, one reason a line after it."""
    failed = sum(c.report.failed for c in result.checks)
    counts = (
        f"checked: {len(result.checks)} group{'' if len(result.checks) == 1 else 's'}, "
        f"{failed} failed, {len(result.not_checked)} not checked"
    )
    if result.turns:
        broken = sum(c.report.failed for c in result.turns)
        count = len(result.turns)
        counts += (
            f"; turns of {count} conversation{'' if count == 1 else 's'}, {broken} not append-only"
        )
    reasons = "".join(f"\ninconclusive: {printable(reason)}" for reason in result.inconclusive)
    return counts + reasons


def _check_lines(result: CheckResult, unexpected: set[tuple[str, str]]) -> list[str]:
    """A line per check: its mark, id and what it checks, a failed one naming its rules;
    under it, the evidence that decided how its group is judged."""
    shown = (*result.checks, *result.turns)
    if not shown:
        return []
    width = max(len(c.id) for c in shown)
    lines = ["checks:"]
    for c in shown:
        failed = failing_rules(f.rule for f in c.report.findings if f.status == "fail")
        mark = MARKS["fail"] if failed else MARKS["pass"]
        line = f"  {mark} {c.id:<{width}}  {c.what}"
        if failed:
            how = "failed" if (c.report.dialect, c.id) in unexpected else "failed as expected"
            line += f" — {how}: {', '.join(failed)}"
        lines.append(printable(line))
        lines += [printable(f"    {'':<{width}}    {said}") for said in c.evidence]
    return lines


def _expectation_lines(outcomes: Outcomes) -> list[str]:
    lines: list[str] = []
    source = outcomes.expectations or "the expectations"
    if outcomes.expected_failures:
        lines.append(f"expected failures ({len(outcomes.expected_failures)}, from {source}):")
        lines += [
            printable(f"  {e.rule} · {e.scenario}: {e.reason}") for e in outcomes.expected_failures
        ]
    if outcomes.unexpected_passes:
        count = len(outcomes.unexpected_passes)
        lines.append(f"UNEXPECTED PASSES ({count}): remove these from {source}")
        lines += [
            printable(f"  {e.rule} · {e.scenario}: {e.message} ({e.reason})")
            for e in outcomes.unexpected_passes
        ]
    return lines


def capture_text(
    result: CheckResult,
    *,
    outcomes: Outcomes | None = None,
    verbose: bool = False,
    exit_code: int | None = None,
    problem: str | None = None,
) -> str:
    """The grouping, a line per check, the failures (``failure_lines``), what was not
    checked, every rule of every check with ``verbose``, the counts, and the verdict: the
    rules that failed and the exit code. ``outcomes`` holds the expectations and
    ``--fail-on`` (none by default); ``exit_code`` and ``problem`` are the command's when
    something other than the rules decides it (a capture's time-out)."""
    if outcomes is None:
        outcomes = _plain_outcomes(result)
    count = sum(len(r.conversations) for r in result.roles)
    dialects = ", ".join(r.conversations[0].first.dialect for r in result.roles)
    lines = [
        f"grouping: {result.requests} request{'' if result.requests == 1 else 's'} "
        f"in {count} conversation{'' if count == 1 else 's'}"
        + (f" ({dialects})" if dialects else "")
    ]
    for roles in result.roles:
        lines += _conversation_lines(roles)
    lines += [f"  left out: request {i.seq}: {printable(i.reason)}" for i in result.ignored]
    if not count and not result.ignored:
        lines.append("  (no model call was recorded)")
    lines += [printable(f"note: {note}") for note in result.unmatched]
    keys = {(e.dialect, e.scenario, e.rule) for e in outcomes.unexpected_failures}
    lines += _check_lines(result, {(d or "", s) for d, s, _ in keys})
    if result.not_checked:
        lines.append("not checked:")
        for n in result.not_checked:
            lines += [printable(f"  {n.what}"), printable(f"    {n.reason}")]
            lines += [printable(f"    {said}") for said in n.evidence]
    failures = [
        (r, f)
        for r in result.reports
        for f in r.findings
        if f.status == "fail" and (r.dialect, r.scenario_id, f.rule) in keys
    ]
    if failures:
        lines += ["", f"FAILURES ({len(failures)})", *failure_lines(failures, verbose=verbose)]
    if verbose:
        for report in result.reports:
            lines += ["", *rule_lines(report)]
    reports = result.reports
    if reports:
        total = {s: sum(r.counts[s] for r in reports) for s in STATUSES}
        counted = ", ".join(f"{n} {s}" for s, n in total.items() if n)
        hint = "" if verbose else " (-v lists every rule)"
        lines += ["", f"findings: {counted}{hint}"]
    else:
        lines.append("")
    if result.usage is not None:
        lines += [*_usage_text(result.usage).rstrip("\n").split("\n"), ""]
    lines += attention_lines(outcomes, verbose=verbose)
    lines += _expectation_lines(outcomes)
    lines.append(capture_counts_line(result))
    line = verdict_line(outcomes, exit_code=exit_code, problem=problem)
    return "\n".join([*lines, line]) + "\n"


def _plain_outcomes(result: CheckResult) -> Outcomes:
    """The outcomes of a check without expectations, as ``check-log`` reports it."""
    from ..check import Expectations

    not_checked = [(n.what, n.reason) for n in result.not_checked]
    return log_outcomes(
        "check-log", "", result.reports, not_checked, Expectations(), [], result.exit_code
    )


def _usage_text(usage: UsageComparison) -> str:
    """The section "cache usage: predicted vs reported": one line per request that reports
    usage, then how many were compared and how many disagree."""
    estimated = sorted({r.dialect for r in usage.rows if r.compared and r.scale is not None})
    how = "tokens, predicted/reported"
    if estimated:
        how += f"; {', '.join(estimated)} counts are estimates, scaled (×) to each reported prompt"
    lines = [f"cache usage: predicted vs reported ({how})"]
    for row in usage.rows:
        where = f"  request {row.seq} ({row.conversation or 'not grouped'}, {row.dialect}): "
        if row.reported is None:
            lines.append(printable(f"{where}not compared: {row.problem}"))
            continue
        r, p = row.reported, row.predicted
        figures = [f"read {row.scaled(p.read):,}/{r.read:,}"]
        if r.written is not None:
            figures.append(f"written {row.scaled(p.written):,}/{r.written:,}")
        if r.total is not None:
            figures.append(f"prompt {p.total:,}/{r.total:,}")
        if row.scale is not None:
            figures.append(f"×{row.scale:.2f}")
        if row.disagreements:
            figures.append("DISAGREES: " + "; ".join(row.disagreements))
        lines.append(printable(where + " · ".join(figures)))
    count, compared, differ = len(usage.rows), usage.compared, usage.disagreements
    lines.append(
        f"  {count} request{'' if count == 1 else 's'} report{'s' if count == 1 else ''} usage:"
        f" {compared} compared, {differ} disagree{'s' if differ == 1 else ''}"
        f" (tolerance: {usage.share:.0%} of the larger + {usage.tokens} tokens;"
        " 0 against more than 0 always disagrees)"
    )
    return "\n".join(lines) + "\n"


def capture_json(result: CheckResult) -> bytes:
    """The rules JSON report (``rules_json``) with a ``grouping`` object added."""
    document: dict[str, Any] = orjson.loads(rules_json(result.reports))
    document["verdict"] = capture_verdict(result)
    document["inconclusive"] = list(result.inconclusive)
    document["grouping"] = {
        "requests": result.requests,
        "conversations": [
            {
                "name": conv.name,
                "dialect": conv.first.dialect,
                "role": roles.role(conv.index),
                "requests": list(conv.seqs),
                "marks": [r.mark for r in conv.requests],
            }
            for roles in result.roles
            for conv in roles.conversations
        ],
        "checks": [
            {
                "scenario": c.id,
                "dialect": c.report.dialect,
                "what": c.what,
                "failed": c.report.failed,
                "evidence": list(c.evidence),
            }
            for c in (*result.checks, *result.turns)
        ],
        "not_checked": [
            {"what": n.what, "reason": n.reason, "evidence": list(n.evidence)}
            for n in result.not_checked
        ],
        "unmatched": list(result.unmatched),
        "left_out": [
            {"request": i.seq, "kind": i.kind, "reason": i.reason} for i in result.ignored
        ],
    }
    document["cache_usage"] = None if result.usage is None else _usage_json(result.usage)
    return orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


def _usage_json(usage: UsageComparison) -> dict[str, Any]:
    """The ``cache_usage`` object of the report (its schema: ``$defs/cache_usage``)."""
    return {
        "tolerance": {"share": usage.share, "tokens": usage.tokens},
        "compared": usage.compared,
        "disagreements": usage.disagreements,
        "requests": [
            {
                "request": row.seq,
                "dialect": row.dialect,
                "conversation": row.conversation,
                "predicted": {
                    "total": row.predicted.total,
                    "read": row.predicted.read,
                    "written": row.predicted.written,
                    "fields": dict(row.fields),
                },
                "tokens_exact": row.exact,
                "scale": row.scale,
                "reported": None
                if row.reported is None
                else {
                    "total": row.reported.total,
                    "read": row.reported.read,
                    "written": row.reported.written,
                    "fields": dict(row.reported.fields),
                },
                "not_compared": row.problem,
                "disagreements": list(row.disagreements),
            }
            for row in usage.rows
        ],
    }


def capture_junit(result: CheckResult) -> bytes:
    """The rules JUnit XML (``rules_junit``) of the rules that applied to each group, plus
    one suite whose skipped cases are the groups that could not be checked (``finish_junit``
    counts and times them)."""
    root = ET.fromstring(rules_junit(result.reports, applicable=True))
    if result.inconclusive:
        attributes = {"name": _VERDICT, "tests": "1", "failures": "0", "errors": "1"}
        suite = ET.SubElement(root, "testsuite", attributes)
        case = ET.SubElement(suite, "testcase", classname=_VERDICT, name="inconclusive")
        error = ET.SubElement(case, "error", message=xml_safe(result.inconclusive[0]))
        error.text = xml_safe("\n".join(result.inconclusive))
    if result.not_checked:
        count = str(len(result.not_checked))
        attributes = {"name": _SUITE, "tests": count, "failures": "0", "errors": "0"}
        suite = ET.SubElement(root, "testsuite", {**attributes, "skipped": count})
        for item in result.not_checked:
            case = ET.SubElement(suite, "testcase", classname=_SUITE, name=xml_safe(item.what))
            ET.SubElement(case, "skipped", message=xml_safe(f"not checked: {item.reason}"))
    return finish_junit(root)
