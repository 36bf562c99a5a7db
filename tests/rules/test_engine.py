from dataclasses import dataclass

from harness.rules import catalog, evaluate, run_subject
from harness.scenarios import Lifecycle, Scenario
from harness.subjects import Outcome

from .scenarios import BY_ID, SCENARIOS
from .support import REFERENCE


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
    assert len(reports) == len(SCENARIOS) * 3
    assert [(r.scenario_id, r.dialect) for r in reports[:3]] == [
        ("fork-model-calls", "anthropic"),
        ("fork-model-calls", "gemini"),
        ("fork-model-calls", "openai"),
    ]
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
