import orjson
from hypothesis import example, given, settings

from harness.check import CheckRun, Expectations
from harness.reports import check_json, log_outcomes, outcomes_json, rules_json
from harness.reports._rules_json import FORMAT_VERSION, rules_document
from harness.rules import Finding, ScenarioReport

from ..rules.bad_subjects import CASES
from ..rules.support import REFERENCE, report
from .formats import assert_valid_report
from .strategies import RULES, runs

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


USAGE_KEYS = [
    "body",
    "total",
    "read",
    "written",
    "uncached",
    "tokens_exact",
    "fields",
    "caching",
    "below_minimum",
    "minimum",
    "model",
    "notes",
]


def test_every_report_and_finding_has_the_same_keys() -> None:
    reports = [
        report(CASES["tool-order"].subject, "fork-model-calls", "openai"),
        report(REFERENCE, "continuable-filtered", "openai"),
    ]
    document = orjson.loads(rules_json(reports))
    assert list(document) == ["format_version", "summary", "reports"]
    assert document["format_version"] == FORMAT_VERSION == 2
    summary = document["summary"]
    assert (summary["runs"], summary["failed"]) == (2, 1)
    assert summary["counts"] == {
        status: reports[0].counts[status] + reports[1].counts[status]
        for status in ("fail", "warning", "note", "pass", "not-applicable")
    }
    assert summary["counts"]["warning"] == 2
    for entry in document["reports"]:
        assert list(entry) == [
            "subject",
            "dialect",
            "scenario",
            "failed",
            "counts",
            "findings",
            "usage",
        ]
        for usage in entry["usage"]:
            assert list(usage) == USAGE_KEYS
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
    assert evidence["path"] == "tools[0].function.name"  # a declaration keeps its key order
    assert set(evidence["window"]) == {"text", "caret"}
    assert evidence["structural_diff"]
    cost = tools["cost"]
    assert list(cost) == [
        "cause",
        "tokens",
        "tokens_exact",
        "tokens_encoding",
        "prefix_tokens",
        "share_of_child",
        "lost_bytes",
        "child_bytes",
        "reference_parent_tokens",
        "reference_tokens",
        "reference_usd",
        "model",
        "miss_reason",
    ]
    assert cost["cause"] == "divergence"
    assert cost["miss_reason"] == "tools_changed"
    assert cost["reference_parent_tokens"] == 50_000
    assert 0 < cost["tokens"] <= cost["prefix_tokens"]
    assert cost["model"] == "GPT-5.6 Terra"  # the reference model: the scenario's is unknown
    usage = {u["body"]: u for u in entry["usage"]}
    assert set(usage) == {"parent", "children[0]"}
    assert usage["children[0]"]["fields"]["prompt_tokens"] == usage["children[0]"]["total"]
    assert usage["parent"]["read"] > 0  # the earlier turns' entries: implicit caching


def test_the_document_is_deterministic() -> None:
    reports = [report(REFERENCE, "siblings", "anthropic")]
    assert rules_json(reports) == rules_json(reports)
    assert rules_json(reports).endswith(b"}\n")


SURROGATE = ScenarioReport(
    "a\ud800", "openai", "s\udcff", tuple(Finding(r, "fail", "\udfff") for r in RULES)
)


@settings(max_examples=25)
@given(runs())
@example(((SURROGATE,), Expectations()))
def test_every_report_of_any_run_follows_the_schema(
    run_of: tuple[tuple[ScenarioReport, ...], Expectations],
) -> None:
    """check's and check-log's JSON of arbitrary reports and expectations: valid, each failure
    marked expected exactly when an entry covers it, one entry per failure. A lone surrogate
    (found by this test) is written as U+FFFD."""
    reports, expect = run_of
    dialects = tuple(dict.fromkeys(r.dialect for r in reports))
    run = CheckRun("s", dialects, reports, 0, (), (), expect)
    document = orjson.loads(check_json(run))
    assert_valid_report(document)
    for one, shown in zip(reports, document["reports"], strict=True):
        for finding, entry in zip(one.findings, shown["findings"], strict=True):
            known = expect.expected(one.subject, one.scenario_id, one.dialect, finding.rule)
            assert entry["expected"] == (finding.status == "fail" and known is not None)
    failures = sum(r.counts["fail"] for r in reports)
    assert len(document["unexpected_failures"]) + len(document["expected_failures"]) == failures
    outcomes = log_outcomes("check-log", "s", reports, [("spawn", "why")], expect, [], 0)
    base = rules_document(reports)
    base.update(verdict="passed", inconclusive=[], grouping=GROUPING, cache_usage=None)
    assert_valid_report(orjson.loads(outcomes_json(outcomes, base)))


GROUPING = {"requests": 0, "conversations": [], "checks": [], "not_checked": [], "left_out": []}
