from dataclasses import replace

import pytest

from harness.scenarios import Scenario
from harness.subjects import Outcome

from .bad_subjects import CASES
from .scenarios import SCENARIOS
from .support import DIALECTS, REFERENCE, edited, finding, report


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_reference_outcome_is_well_formed(dialect: str) -> None:
    for scenario in SCENARIOS:
        assert finding(REFERENCE, scenario.id, dialect, "well-formed").status == "pass"
        assert finding(REFERENCE, scenario.id, dialect, "subject-error").status == "pass"
    found = finding(REFERENCE, "continuable-follow-ups", dialect, "well-formed")
    assert found.message == f"4 bodies read as {dialect} requests; the outcome is complete"


def test_a_body_that_does_not_parse_fails_and_silences_the_other_rules() -> None:
    result = report(CASES["body-truncated"].subject, "fork-model-calls", "openai")
    found = result.finding("well-formed")
    assert found.status == "fail"
    assert found.message.startswith("children[0] is not JSON: ")
    assert found.evidence is not None
    assert found.evidence.body == "children[0]"
    others = [f for f in result.findings if f.rule != "well-formed"]
    assert {f.status for f in others} == {"not-applicable"}
    assert result.finding("byte-prefix").message == "a body does not parse; see well-formed"


def _outcome(**changes: object):  # type: ignore[no-untyped-def]
    def edit(result: Outcome, scenario: Scenario, dialect: str) -> Outcome:
        return replace(result, **changes)  # type: ignore[arg-type]

    return edit


@pytest.mark.parametrize(
    ("scenario", "changes", "message"),
    [
        ("siblings", {"children": ()}, "0 child bodies where the siblings makes 2"),
        (
            "continuable-follow-ups",
            {"follow_ups": ()},
            "0 follow-up bodies for 2 scripted exchanges",
        ),
        (
            "spawn",
            {"parent_next": None},
            "no parent_next body: the parent's request after the spawn's answer is missing",
        ),
        ("continuable", {"status": "rejected", "children": ()}, "a continuable is rejected"),
    ],
)
def test_an_incomplete_outcome_fails(
    scenario: str, changes: dict[str, object], message: str
) -> None:
    subject = edited(f"incomplete-{scenario}", outcome=_outcome(**changes))
    found = finding(subject, scenario, "anthropic", "well-formed")
    assert found.status == "fail"
    assert found.message.startswith(message)


def test_an_errored_subject_fails_subject_error_only() -> None:
    result = report(CASES["subject-crashes"].subject, "fork-model-calls", "gemini")
    found = result.finding("subject-error")
    assert (found.status, found.message) == (
        "fail",
        "the subject errored: RuntimeError: fork tool not registered",
    )
    others = [f for f in result.findings if f.rule != "subject-error"]
    assert {f.status for f in others} == {"not-applicable"}
    assert result.finding("byte-prefix").message == "the subject errored; see subject-error"
