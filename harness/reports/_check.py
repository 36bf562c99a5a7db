"""Reports of a whole ``check`` run: a rules × dialects table, then what needs attention.

What a subject or a fixture supplies (messages, ids, the subject's stderr) is shown through
``printable`` (``printable_lines`` for a stderr tail): escaped, never sent to the terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import orjson

from ..check import CheckRun, ShrunkFailure
from ..rules import Finding, ScenarioReport, catalog
from ..scenarios import scenario_to_json
from ..subjects import SubjectFailure
from ._cost import divergence_key
from ._escape import printable, printable_json, printable_lines
from ._outcomes import check_outcomes
from ._rules_json import outcomes_json, rules_document
from ._rules_text import attention_lines, failure_lines, legend, status_cell, verdict_line

__all__ = [
    "check_item_text",
    "check_json",
    "check_junit",
    "check_text",
    "fixture_of",
    "generated_counts",
]


def generated_counts(run: CheckRun) -> str:
    """How many scenario runs were generated, and in each dialect: ``100 generated: 25 in each
    dialect`` when every dialect ran as many, else each dialect's count (a dialect the
    subject does not speak, a run stopped early); ``0 generated`` when none was."""
    counts = [run.generated_by_dialect.get(d, 0) for d in run.dialects]
    if not run.generated or not counts:
        return f"{run.generated:,} generated"
    if len(set(counts)) == 1:
        each = "in each dialect" if len(counts) > 1 else f"in {run.dialects[0]}"
        return f"{run.generated:,} generated: {counts[0]:,} {each}"
    shown = ", ".join(f"{d} {n:,}" for d, n in zip(run.dialects, counts, strict=True))
    return f"{run.generated:,} generated: {shown}"


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
    lines.append(legend())
    return lines


def _shrunk_lines(shrunk: ShrunkFailure) -> list[str]:
    """A failing generated scenario, shrunk when it could be, as fixture JSON to commit."""
    failed = ", ".join(f.rule for f in shrunk.report.findings if f.status == "fail")
    what, why = "minimal failing", ""
    if shrunk.unshrunk is not None:
        what, why = "failing", f"; not shrunk: {shrunk.unshrunk}"
    return [
        printable(
            f"{what} generated scenario ({shrunk.dialect};"
            f" fails {failed or 'subject-error'}{why}), ready to commit as a fixture:"
        ),
        printable_json(orjson.dumps(fixture_of(shrunk), option=orjson.OPT_INDENT_2).decode()),
    ]


def fixture_of(shrunk: ShrunkFailure) -> dict[str, Any]:
    """The fixture file of a failing generated scenario."""
    return {
        "description": "found by prefix-harness check",
        "scenarios": [scenario_to_json(shrunk.scenario)],
    }


def check_text(run: CheckRun, *, verbose: bool = False, fail_on: str = "failure") -> str:
    """The run's size, its unexpected failures (``failure_lines``), what the subject did
    wrong, the rules table, expectations, shrunk scenarios, a line counting accepted
    divergences, warnings and skipped scenarios (each listed with ``verbose``), and the
    verdict: the rules that failed and the exit code."""
    lines = [
        printable(f"subject: {run.subject}    dialects: {', '.join(run.dialects)}"),
        f"{len(run.reports)} scenario runs ({generated_counts(run)})",
    ]
    failures = run.unexpected_failures
    if failures:
        divergences = len(set(_divergences(failures)))
        counted = f"; {divergences} divergences" if divergences < len(failures) else ""
        lines += ["", f"FAILURES ({len(failures)}{counted})"]
        lines += failure_lines(failures, verbose=verbose)
    if run.failures:
        lines += [
            "",
            f"SUBJECT FAILURES ({len(run.failures)}): crashed, hung or broke the protocol",
        ]
        lines += [f"  {_failure_report(f)}" for f in run.failures]
    if verbose or run.reports:
        lines += ["", *_table(run)]
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
            f"  {printable(f'{f.rule} · {r.dialect} · {r.scenario_id}: {e.reason}')}"
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
            f"  {printable(f'{e.rule} · {where}: expected to fail ({e.reason})')}"
            for e, where in stale
        ]
    for shrunk in run.shrunk:
        lines += ["", *_shrunk_lines(shrunk)]
    outcomes = check_outcomes(run, fail_on=fail_on)
    lines += ["", *attention_lines(outcomes, verbose=verbose)]
    lines += [f"inconclusive: {printable(reason)}" for reason in run.inconclusive]
    lines.append(verdict_line(outcomes, subject_failures=len(run.failures)))
    return "\n".join(lines) + "\n"


def check_item_text(
    run: CheckRun, *, rerun: str | None = None, shrunk: ShrunkFailure | None = None
) -> str:
    """The report of one failing item of the pytest suite (one scenario in one dialect): its
    first failure as ``rule: message``, how to run it again (``rerun``), the scenario shrunk
    when it was generated, then its failures and the verdict as ``check_text`` says them."""
    failures = run.unexpected_failures
    if failures:
        first = f"{failures[0][1].rule}: {failures[0][1].message}"
    elif run.failures:
        first = f"subject-error: {run.failures[0].message or run.failures[0].kind}"
    elif run.unexpected_passes:
        entry, where = run.unexpected_passes[0]
        first = f"{entry.rule}: expected to fail ({entry.reason}), passed in {where}"
    else:
        first = f"{run.exit_code}: {run.inconclusive[0] if run.inconclusive else 'failed'}"
    lines = [printable(first)]
    if rerun is not None:
        lines.append(printable(f"rerun: {rerun}"))
    if shrunk is not None:
        lines += _shrunk_lines(shrunk)
    if failures:
        lines += ["", *failure_lines(failures, verbose=True)]
    if run.failures:
        lines += [
            "",
            f"SUBJECT FAILURES ({len(run.failures)}): crashed, hung or broke the protocol",
        ]
        lines += [f"  {_failure_report(f)}" for f in run.failures]
    if run.unexpected_passes:
        lines += [
            "",
            f"UNEXPECTED PASSES ({len(run.unexpected_passes)}): remove these from "
            f"{run.expectations.source or 'the expectations'}",
        ]
        lines += [
            f"  {printable(f'{e.rule} · {where}: expected to fail ({e.reason})')}"
            for e, where in run.unexpected_passes
        ]
    outcomes = check_outcomes(run)
    lines += ["", verdict_line(outcomes, subject_failures=len(run.failures))]
    return "\n".join(lines) + "\n"


def _divergences(found: Sequence[tuple[ScenarioReport, Finding]]) -> list[object]:
    """One key per divergence of the findings (a finding naming none is one of its own)."""
    return [divergence_key(r, f) or id(f) for r, f in found]


def _failure_report(failure: SubjectFailure) -> str:
    """The failure's report with what the subject wrote escaped, its stderr tail still one
    line a line (a carriage return or form feed in it starts no line of its own)."""
    shown = replace(
        failure,
        message=printable(failure.message or ""),
        stderr_tail=printable_lines(failure.stderr_tail),
    )
    return shown.report()


def check_json(run: CheckRun, *, fail_on: str = "failure") -> bytes:
    """The rule reports as ``rules_json`` gives them, completed by ``outcomes_json``, plus
    the check's own findings: generated and shrunk scenarios, subject failures."""
    document = rules_document(run.reports)
    document["generated"] = run.generated
    document["generated_by_dialect"] = {d: run.generated_by_dialect.get(d, 0) for d in run.dialects}
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
