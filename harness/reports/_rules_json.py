"""Rule reports for machines: JSON whose keys are always present (null when empty), in a fixed
order, so consumers can index without checks and diffs of two runs line up."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from ..prefix import Window
from ..rules import BYTES_PER_TOKEN, STATUSES, Cost, Evidence, Finding, ScenarioReport, rule_info

__all__ = ["rules_json"]


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


def _cost(c: Cost | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {
        "lost_bytes": c.lost_bytes,
        "child_bytes": c.child_bytes,
        "share_of_child": round(c.share, 6),
        "tokens_estimate": c.tokens,
        "bytes_per_token": BYTES_PER_TOKEN,
    }


def _finding(f: Finding) -> dict[str, Any]:
    return {
        "rule": f.rule,
        "severity": rule_info(f.rule).severity,
        "status": f.status,
        "message": f.message,
        "evidence": _evidence(f.evidence),
        "cost": _cost(f.cost),
    }


def rules_json(reports: Sequence[ScenarioReport]) -> bytes:
    """All reports and a summary; indented, ending in a newline."""
    document = {
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
            }
            for r in reports
        ],
    }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
