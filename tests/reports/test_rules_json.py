import orjson

from harness.reports import rules_json
from harness.reports._rules_json import FORMAT_VERSION

from ..rules.bad_subjects import CASES
from ..rules.support import REFERENCE, report

FINDING_KEYS = [
    "rule",
    "severity",
    "status",
    "message",
    "evidence",
    "cost",
    "expected",
    "expected_reason",
]
EVIDENCE_KEYS = [
    "body",
    "against",
    "offset",
    "segment",
    "against_segment",
    "path",
    "reason",
    "window",
    "against_window",
    "structural_diff",
]


def test_every_report_and_finding_has_the_same_keys() -> None:
    reports = [
        report(CASES["tool-order"].subject, "fork-model-calls", "openai"),
        report(REFERENCE, "continuable-filtered", "openai"),
    ]
    document = orjson.loads(rules_json(reports))
    assert list(document) == ["format_version", "summary", "reports"]
    assert document["format_version"] == FORMAT_VERSION == 1
    summary = document["summary"]
    assert (summary["runs"], summary["failed"]) == (2, 1)
    assert summary["counts"] == {
        status: reports[0].counts[status] + reports[1].counts[status]
        for status in ("fail", "warning", "note", "pass", "not-applicable")
    }
    assert summary["counts"]["warning"] == 2
    for entry in document["reports"]:
        assert list(entry) == ["subject", "dialect", "scenario", "failed", "counts", "findings"]
        for finding in entry["findings"]:
            assert list(finding) == FINDING_KEYS
            assert (finding["expected"], finding["expected_reason"]) == (False, None)
            if finding["evidence"] is not None:
                assert list(finding["evidence"]) == EVIDENCE_KEYS


def test_failure_evidence_and_cost_are_complete() -> None:
    reports = [report(CASES["tool-order"].subject, "fork-model-calls", "openai")]
    (entry,) = orjson.loads(rules_json(reports))["reports"]
    tools = next(f for f in entry["findings"] if f["rule"] == "tools-identical")
    assert tools["severity"] == "error"
    assert tools["status"] == "fail"
    evidence = tools["evidence"]
    assert (evidence["body"], evidence["against"]) == ("children[0]", "parent")
    assert evidence["segment"] == "tools[0]"
    assert evidence["path"] == "tools[0].function.name"
    assert set(evidence["window"]) == {"text", "caret"}
    assert evidence["structural_diff"]
    cost = tools["cost"]
    assert list(cost) == [
        "lost_bytes",
        "child_bytes",
        "share_of_child",
        "tokens_estimate",
        "bytes_per_token",
    ]
    assert cost["tokens_estimate"] == -(-cost["lost_bytes"] // 4)


def test_the_document_is_deterministic() -> None:
    reports = [report(REFERENCE, "siblings", "anthropic")]
    assert rules_json(reports) == rules_json(reports)
    assert rules_json(reports).endswith(b"}\n")
