"""A check of recorded requests (``capture``, ``check-log``) as text, JSON and JUnit XML: how
the requests were grouped, then the rules reports, then what could not be checked and why."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any

import orjson

from ._escape import printable, xml_safe
from ._rules_json import rules_json
from ._rules_junit import finish_junit, rules_junit
from ._rules_text import rules_text

if TYPE_CHECKING:
    from ..capture import CheckResult, Roles, UsageComparison

__all__ = [
    "capture_json",
    "capture_junit",
    "capture_text",
    "capture_verdict",
    "capture_verdict_line",
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


def capture_verdict_line(result: CheckResult) -> str:
    """The verdict: how many groups were checked, failed and not checked; for an
    inconclusive check, why, one reason a line."""
    failed = sum(c.report.failed for c in result.checks)
    counts = (
        f"{len(result.checks)} group{'' if len(result.checks) == 1 else 's'} "
        f"checked, {failed} failed, {len(result.not_checked)} not checked"
    )
    if result.turns:
        broken = sum(c.report.failed for c in result.turns)
        count = len(result.turns)
        counts += (
            f"; turns of {count} conversation{'' if count == 1 else 's'} checked, "
            f"{broken} not append-only"
        )
    word = capture_verdict(result)
    if word == "inconclusive":
        reasons = "".join(f"\n  {printable(reason)}" for reason in result.inconclusive)
        return f"check INCONCLUSIVE: {counts}{reasons}"
    return f"check {'FAILED' if result.failed else 'passed'}: {counts}"


def capture_text(result: CheckResult) -> str:
    """The grouping, the checks, the rules report, what was not checked, a verdict line."""
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
    shown = (*result.checks, *result.turns)
    if shown:
        width = max(len(c.id) for c in shown)
        lines.append("checks:")
        lines += [printable(f"  {c.id:<{width}}  {c.what}") for c in shown]
    text = "\n".join(lines) + "\n"
    if shown:
        text += "\n" + rules_text(result.reports)
    if result.not_checked:
        text += "\nnot checked:\n"
        text += "".join(
            f"  {printable(n.what)}\n    {printable(n.reason)}\n" for n in result.not_checked
        )
    if result.usage is not None:
        text += "\n" + _usage_text(result.usage)
    return text + "\n" + capture_verdict_line(result) + "\n"


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
            }
            for c in (*result.checks, *result.turns)
        ],
        "not_checked": [{"what": n.what, "reason": n.reason} for n in result.not_checked],
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
    """The rules JUnit XML (``rules_junit``), plus one suite whose skipped cases are
    the groups that could not be checked (``finish_junit`` counts and times them)."""
    root = ET.fromstring(rules_junit(result.reports))
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
