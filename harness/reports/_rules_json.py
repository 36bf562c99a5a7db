"""Rule reports for machines: JSON whose keys are always present (null when empty), in a fixed
order, so consumers can index without checks and diffs of two runs line up.

Every report starts with ``format_version`` (``FORMAT_VERSION``); its shape is the JSON Schema
``schemas/report.schema.json`` (``docs/reports.md`` says what changes the version).
``outcomes_json`` completes a document with what ``check``, ``check-log`` and ``capture``
share: the command, the exit code, failures expected or not, expectations that did not hold
and skipped scenarios. Every report is encoded by ``encode``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import orjson

from ..prefix import Window
from ..rules import (
    STATUSES,
    Evidence,
    Finding,
    RequestUsage,
    ScenarioReport,
    rule_info,
)
from ._cost import cost_json

if TYPE_CHECKING:
    from ._outcomes import Outcomes

__all__ = [
    "FORMAT_VERSION",
    "encode",
    "outcomes_json",
    "report_bytes",
    "rules_document",
    "rules_json",
]

FORMAT_VERSION: Final = 2
"""The version of the JSON reports' shape: raised when a key is removed, renamed or changes
meaning; a new key does not raise it."""


def _window(window: Window | None) -> dict[str, Any] | None:
    return None if window is None else {"text": window.text, "caret": window.caret}


def _evidence(e: Evidence | None) -> dict[str, Any] | None:
    if e is None:
        return None
    return {
        "body": e.body,
        "against": e.against,
        "offset": e.offset,
        "segment": e.segment,
        "against_segment": e.against_segment,
        "path": e.path,
        "reason": e.reason,
        "window": _window(e.window),
        "against_window": _window(e.against_window),
        "structural_diff": list(e.diff),
    }


def _usage(u: RequestUsage) -> dict[str, Any]:
    return {
        "body": u.body,
        "total": u.total,
        "read": u.read,
        "written": u.written,
        "uncached": u.uncached,
        "tokens_exact": u.exact,
        "fields": dict(u.fields),
        "caching": u.caching,
        "below_minimum": u.below_minimum,
        "minimum": u.minimum,
        "model": u.model,
        "notes": list(u.notes),
    }


def _finding(f: Finding) -> dict[str, Any]:
    return {
        "rule": f.rule,
        "severity": rule_info(f.rule).severity,
        "status": f.status,
        "message": f.message,
        "evidence": _evidence(f.evidence),
        "cost": cost_json(f.cost),
        "expected": False,
        "expected_reason": None,
    }


_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_without_surrogates(v) for v in value]
    return value


def encode(document: dict[str, Any]) -> bytes:
    """A report document as bytes: indented, ending in a newline. A lone surrogate (a body
    read with one, quoted in a message) cannot be UTF-8: it is written as U+FFFD."""
    option = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
    try:
        return orjson.dumps(document, option=option)
    except TypeError:
        return orjson.dumps(_without_surrogates(document), option=option)


def rules_document(reports: Sequence[ScenarioReport]) -> dict[str, Any]:
    """All reports and a summary, under ``format_version``."""
    return {
        "format_version": FORMAT_VERSION,
        "summary": {
            "runs": len(reports),
            "failed": sum(r.failed for r in reports),
            "counts": {s: sum(r.counts[s] for r in reports) for s in STATUSES},
        },
        "reports": [
            {
                "subject": r.subject,
                "dialect": r.dialect,
                "scenario": r.scenario_id,
                "failed": r.failed,
                "counts": r.counts,
                "findings": [_finding(f) for f in r.findings],
                "usage": [_usage(u) for u in r.usage],
            }
            for r in reports
        ],
    }


def rules_json(reports: Sequence[ScenarioReport]) -> bytes:
    """``rules_document`` encoded."""
    return encode(rules_document(reports))


def outcomes_json(outcomes: Outcomes, document: dict[str, Any]) -> bytes:
    """``document`` (a ``rules_document`` with a command's own keys) completed from
    ``outcomes`` and encoded: each failed finding says whether it was ``expected`` (and why);
    ``unexpected_failures``, ``expected_failures`` and ``unexpected_passes`` are lists of
    entries with the same keys; ``skipped`` lists what no rule judged."""
    reasons = {(e.dialect, e.scenario, e.rule): e.reason for e in outcomes.expected_failures}
    for report in document["reports"]:
        for finding in report["findings"]:
            key = (report["dialect"], report["scenario"], finding["rule"])
            reason = reasons.get(key) if finding["status"] == "fail" else None
            finding["expected"] = reason is not None
            finding["expected_reason"] = reason
    document["summary"].update(
        accepted_divergences=len(outcomes.accepted),
        warnings=len(outcomes.warnings),
        skipped=len(outcomes.skipped),
        lost_tokens=outcomes.lost_tokens,
    )
    head = {
        "format_version": FORMAT_VERSION,
        "command": outcomes.command,
        "subject": outcomes.subject,
        "dialects": list(outcomes.dialects),
        "exit_code": outcomes.exit_code,
    }
    tail = {
        "expectations": outcomes.expectations,
        "unexpected_failures": [e.to_json() for e in outcomes.unexpected_failures],
        "expected_failures": [e.to_json() for e in outcomes.expected_failures],
        "unexpected_passes": [e.to_json() for e in outcomes.unexpected_passes],
        "skipped": [s.to_json() for s in outcomes.skipped],
    }
    return report_bytes({**head, **document, **tail})


def report_bytes(document: dict[str, Any]) -> bytes:
    """A finished report encoded: the one place every command's JSON report goes through
    (the tests check each against the schema here)."""
    return encode(document)
