"""Reports of a whole ``check`` run: a rules × dialects table, then what needs attention.

What a subject or a fixture supplies (messages, ids, the subject's stderr) is shown through
``printable`` (``printable_lines`` for a stderr tail): escaped, never sent to the terminal.
"""

from __future__ import annotations

from dataclasses import replace

import orjson

from ..check import CheckRun
from ..rules import Finding, ScenarioReport, catalog
from ..scenarios import scenario_to_json
from ..subjects import SubjectFailure
from ._escape import printable, printable_json, printable_lines
from ._outcomes import check_outcomes
from ._rules_json import outcomes_json, rules_document
from ._rules_text import MARKS, attention_lines, finding_details, status_cell

__all__ = ["check_json", "check_junit", "check_text"]


def _table(run: CheckRun) -> list[str]:
    by_dialect = {d: [r for r in run.reports if r.dialect == d] for d in run.dialects}
    rows = [
        (info.id, [status_cell(by_dialect[d], info.id) for d in run.dialects]) for info in catalog()
    ]
    rule_width = max(len(rule) for rule, _ in rows)
    widths = [
        max(len(d), *(len(cells[i]) for _, cells in rows)) for i, d in enumerate(run.dialects)
    ]
    header = "  ".join(
        [
            f"{'rule':<{rule_width}}",
            *(f"{d:<{w}}" for d, w in zip(run.dialects, widths, strict=True)),
        ]
    )
    lines = [header.rstrip()]
    for rule, cells in rows:
        lines.append(
            "  ".join(
                [
                    f"{rule:<{rule_width}}",
                    *(f"{c:<{w}}" for c, w in zip(cells, widths, strict=True)),
                ]
            ).rstrip()
        )
    legend = ", ".join(f"{m} {s}" for s, m in MARKS.items())
    lines.append(f"({legend}; counts are scenario runs)")
    return lines


def check_text(run: CheckRun, *, verbose: bool = False, fail_on: str = "failure") -> str:
    """The table, unexpected failures expanded, expectations, shrunk scenarios, a line
    counting accepted divergences, warnings and skipped scenarios (each listed with
    ``verbose``), the verdict; then why ``--fail-on warning`` fails the run, if it does."""
    lines = [
        printable(f"subject: {run.subject}    dialects: {', '.join(run.dialects)}"),
        f"{len(run.reports)} scenario runs ({run.generated} of them generated)",
        "",
        *_table(run),
    ]
    failures = run.unexpected_failures
    if failures:
        lines += ["", f"FAILURES ({len(failures)})"]
        for report, finding in failures:
            where = f"{report.dialect} · {report.scenario_id} · {finding.rule}"
            lines.append(f"{MARKS['fail']} {printable(f'{where}: {finding.message}')}")
            lines += [f"    {line}".rstrip() for line in finding_details(finding)]
    expected = [
        (r, f, e)
        for r in run.reports
        for f in r.findings
        if f.status == "fail" and (e := run.expected_failure(r, f)) is not None
    ]
    if expected:
        source = f", from {run.expectations.source}" if run.expectations.source else ""
        lines += ["", f"expected failures ({len(expected)}{source}):"]
        lines += [
            f"  {printable(f'{r.dialect} · {r.scenario_id} · {f.rule}: {e.reason}')}"
            for r, f, e in expected
        ]
    stale = run.unexpected_passes
    if stale:
        lines += [
            "",
            f"UNEXPECTED PASSES ({len(stale)}): remove these from "
            f"{run.expectations.source or 'the expectations'}",
        ]
        lines += [
            f"  {printable(f'{where} · {e.rule}: expected to fail ({e.reason})')}"
            for e, where in stale
        ]
    for shrunk in run.shrunk:
        failed = ", ".join(f.rule for f in shrunk.report.findings if f.status == "fail")
        fixture = {
            "description": "found by prefix-harness check",
            "scenarios": [scenario_to_json(shrunk.scenario)],
        }
        what, why = "minimal failing", ""
        if shrunk.unshrunk is not None:
            what, why = "failing", f"; not shrunk: {shrunk.unshrunk}"
        lines += [
            "",
            printable(
                f"{what} generated scenario ({shrunk.dialect};"
                f" fails {failed or 'subject-error'}{why}), ready to commit as a fixture:"
            ),
            printable_json(orjson.dumps(fixture, option=orjson.OPT_INDENT_2).decode()),
        ]
    if run.failures:
        lines += [
            "",
            f"SUBJECT FAILURES ({len(run.failures)}): crashed, hung or broke the protocol",
        ]
        lines += [f"  {_failure_report(f)}" for f in run.failures]
    outcomes = check_outcomes(run, fail_on=fail_on)
    gated = outcomes.failed_on_warning
    verdict = _verdict(run) if gated is None else f"verdict: NOT conforming, {printable(gated)}"
    lines += ["", *attention_lines(outcomes, verbose=verbose), verdict]
    return "\n".join(lines) + "\n"


def _failure_report(failure: SubjectFailure) -> str:
    """The failure's report with what the subject wrote escaped, its stderr tail still one
    line a line (a carriage return or form feed in it starts no line of its own)."""
    shown = replace(
        failure,
        message=printable(failure.message or ""),
        stderr_tail=printable_lines(failure.stderr_tail),
    )
    return shown.report()


def _verdict(run: CheckRun) -> str:
    if run.failures:
        return f"verdict: subject failed ({len(run.failures)} crash/hang/protocol errors) — exit 3"
    problems = len(run.unexpected_failures) + len(run.unexpected_passes)
    if problems:
        return f"verdict: NOT conforming ({problems} unexpected results) — exit 1"
    reasons = run.inconclusive
    if reasons:
        detail = "".join(f"\n  {printable(reason)}" for reason in reasons)
        return f"verdict: INCONCLUSIVE, nothing was checked — exit 4{detail}"
    return "verdict: conforming — exit 0"


def check_json(run: CheckRun, *, fail_on: str = "failure") -> bytes:
    """The rule reports as ``rules_json`` gives them, completed by ``outcomes_json``, plus
    the check's own findings: generated and shrunk scenarios, subject failures."""
    document = rules_document(run.reports)
    document["generated"] = run.generated
    document["inconclusive"] = list(run.inconclusive)
    document["stopped"] = run.stopped
    document["shrunk"] = [
        {"dialect": s.dialect, "scenario": scenario_to_json(s.scenario), "unshrunk": s.unshrunk}
        for s in run.shrunk
    ]
    document["subject_failures"] = [
        {"kind": f.kind, "scenario": f.scenario, "message": f.message, "stderr_tail": f.stderr_tail}
        for f in run.failures
    ]
    return outcomes_json(check_outcomes(run, fail_on=fail_on), document)


def _junit_finding(run: CheckRun, report: ScenarioReport, finding: Finding) -> Finding:
    entry = run.expected_failure(report, finding)
    if entry is None or finding.status == "not-applicable":
        return finding
    if finding.status == "fail":
        return replace(
            finding, status="not-applicable", message=f"expected failure: {entry.reason}"
        )
    message = (
        f"unexpected pass: expected to fail ({entry.reason}); remove the entry from "
        f"{run.expectations.source or 'the expectations'}: {finding.message}"
    )
    return replace(finding, status="fail", message=message)


def check_junit(run: CheckRun) -> bytes:
    """JUnit XML of every rule run; an expected failure is a skipped case saying so, and an
    unexpected pass a failed one (the command exits 1 for it)."""
    from ._rules_junit import rules_junit  # XML only for --junit-xml

    reports = [
        replace(r, findings=tuple(_junit_finding(run, r, f) for f in r.findings))
        for r in run.reports
    ]
    return rules_junit(reports)
