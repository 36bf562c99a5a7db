from dataclasses import replace

from harness.model import Request

from .bad_subjects import CASES, GOOD_MARKERS
from .support import REFERENCE, edited, finding


def test_markers_at_the_end_of_the_inherited_prefix_pass() -> None:
    found = finding(GOOD_MARKERS, "fork-model-calls", "anthropic", "cache-markers")
    assert found.status == "pass"
    assert found.message == (
        "children[0] marks messages[3], at or after the end of the inherited prefix "
        "(1 of 4 markers)"
    )
    assert finding(GOOD_MARKERS, "fork-model-calls", "anthropic", "byte-prefix").status == "pass"


def test_not_applicable_without_markers_or_in_dialects_without_them() -> None:
    none = finding(REFERENCE, "fork-model-calls", "anthropic", "cache-markers")
    assert (none.status, none.message) == (
        "not-applicable",
        "children[0] sets no cache markers at all",
    )
    other = finding(GOOD_MARKERS, "fork-model-calls", "openai", "cache-markers")
    assert other.message == "applies to the anthropic dialect only, not openai"
    degraded = finding(GOOD_MARKERS, "degraded", "anthropic", "cache-markers")
    assert degraded.status == "not-applicable"


def test_a_marker_only_on_the_task_fails() -> None:
    found = finding(
        CASES["volatile-marker"].subject, "fork-model-calls", "anthropic", "cache-markers"
    )
    assert found.status == "fail"
    assert found.message == (
        "children[0]: the only marker at or after messages[3] is on the trailing task block"
    )


def test_markers_all_before_the_inherited_end_fail() -> None:
    def early(request: Request, *_: object) -> Request:
        return replace(request, cache_breakpoints=("tools[2]", "system[1]"))

    found = finding(edited("early", child=early), "fork-model-calls", "anthropic", "cache-markers")
    assert found.status == "fail"
    assert "every marker comes before the end of the inherited prefix (messages[3])" in (
        found.message
    )


def test_more_markers_than_the_dialect_allows_fail() -> None:
    found = finding(
        CASES["too-many-markers"].subject, "fork-model-calls", "anthropic", "cache-markers"
    )
    assert found.message == "children[0] sets 5 cache markers where the dialect allows 4"
    assert found.evidence is not None
    assert found.evidence.segment == "system[1]"
