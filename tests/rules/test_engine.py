from dataclasses import dataclass

import pytest

from harness.rules import Cost, Finding, catalog, evaluate, run_subject
from harness.rules._checks import CHECKS
from harness.rules._context import Context
from harness.rules._engine import EvaluationError, by_cost
from harness.scenarios import Lifecycle, Scenario
from harness.subjects import Outcome

from .bad_subjects import CASES
from .scenarios import BY_ID, SCENARIOS
from .support import REFERENCE, report


@dataclass(frozen=True)
class Narrow:
    """The reference, claiming one dialect and one lifecycle only."""

    name: str = "narrow"
    dialects: tuple[str, ...] = ("openai",)
    lifecycles: tuple[Lifecycle, ...] = ("one-shot",)

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        return REFERENCE.assemble(scenario, dialect)


def test_one_finding_per_catalog_rule_in_catalog_order() -> None:
    scenario = BY_ID["fork-model"]
    result = evaluate(scenario, "gemini", REFERENCE.assemble(scenario, "gemini"))
    assert [f.rule for f in result.findings] == [r.id for r in catalog()]
    assert (result.scenario_id, result.dialect, result.subject) == (
        "fork-model",
        "gemini",
        "subject",
    )


def test_a_skipped_outcome_makes_every_rule_not_applicable() -> None:
    result = evaluate(BY_ID["spawn"], "openai", Outcome("skipped", message="no spawn tool"))
    assert {f.status for f in result.findings} == {"not-applicable"}
    assert {f.message for f in result.findings} == {"skipped by the subject: no spawn tool"}
    silent = evaluate(BY_ID["spawn"], "openai", Outcome("skipped"))
    assert silent.findings[0].message == "skipped by the subject: no reason given"


def test_run_subject_covers_every_scenario_and_dialect() -> None:
    reports = run_subject(REFERENCE, SCENARIOS)
    dialects = REFERENCE.dialects
    assert len(reports) == len(SCENARIOS) * len(dialects)
    assert [(r.scenario_id, r.dialect) for r in reports[: len(dialects)]] == [
        ("fork-model-calls", d) for d in dialects
    ]
    assert {"anthropic", "gemini", "openai", "openai-responses"} <= set(dialects)
    assert {r.subject for r in reports} == {"reference"}
    assert not any(r.failed for r in reports)


def test_run_subject_honours_the_subjects_dialects_and_lifecycles() -> None:
    scenarios = [BY_ID["fork-model"], BY_ID["continuable"]]
    reports = run_subject(Narrow(), scenarios, ["openai", "gemini"])
    by_key = {(r.scenario_id, r.dialect): r for r in reports}
    assert by_key[("fork-model", "openai")].finding("byte-prefix").status == "pass"
    gemini = by_key[("fork-model", "gemini")]
    assert {f.message for f in gemini.findings} == {"the subject narrow does not speak gemini"}
    continuable = by_key[("continuable", "openai")]
    assert {f.message for f in continuable.findings} == {
        "the subject narrow has no continuable lifecycle"
    }
    assert len(run_subject(Narrow(), scenarios)) == 2  # its own dialects by default


def test_a_failure_that_costs_no_cached_prefix_is_a_warning() -> None:
    costly = Finding("byte-prefix", "fail", "children[0] leaves it", cost=Cost(10, 100))
    free = Finding("byte-prefix", "fail", "children[0] leaves it", cost=Cost(0, 100))
    content = Finding("history-inherited", "fail", "a message is lost")
    assert by_cost(costly) == costly
    assert by_cost(content) == content  # no cache claim: content, still an error
    downgraded = by_cost(free)
    assert downgraded.status == "warning"
    assert downgraded.cost is None
    assert downgraded.message == "children[0] leaves it (no cached prefix is lost by it)"


def test_no_reported_error_claims_zero_bytes_lost() -> None:
    for case in CASES.values():
        for scenario in case.scenarios:
            for dialect in case.dialects:
                for f in report(case.subject, scenario, dialect).findings:
                    if f.status == "fail" and f.cost is not None:
                        assert 0 < f.cost.lost_bytes <= f.cost.child_bytes, (f.rule, f.message)


def test_a_rule_that_raises_is_one_evaluation_error_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def tripping(ctx: object) -> Finding:
        raise TypeError("unhashable type: 'list'\n(somewhere deep)")

    monkeypatch.setitem(CHECKS, "tools-identical", tripping)
    scenario = BY_ID["fork-model"]
    outcome = REFERENCE.assemble(scenario, "openai")
    with pytest.raises(EvaluationError) as caught:
        evaluate(scenario, "openai", outcome)
    assert str(caught.value) == (
        "rule tools-identical raised TypeError: unhashable type: 'list' (somewhere deep)"
    )
    # run_subject reports it as the subject's error instead of raising
    (result,) = run_subject(Narrow(), [scenario])
    assert result.finding("subject-error").status == "fail"
    assert "the harness cannot evaluate its bodies: rule tools-identical raised TypeError" in (
        result.finding("subject-error").message
    )


def test_reading_bodies_that_raises_is_an_evaluation_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unreadable(*args: object, **kwargs: object) -> object:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(Context, "read", unreadable)
    scenario = BY_ID["fork-model"]
    with pytest.raises(EvaluationError, match=r"^reading the bodies raised RecursionError: max"):
        evaluate(scenario, "openai", REFERENCE.assemble(scenario, "openai"))
