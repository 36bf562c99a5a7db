"""The session machine: the reference plays whole sessions in every dialect without a finding,
and known-bad subjects fail it, including two that only a whole session shows."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import run_state_machine_as_test

from harness.dialects import all_dialects
from harness.model import Preset
from harness.rules import evaluate
from harness.scenarios import Lifecycle, Scenario
from harness.strategies import (
    SessionMachine,
    SessionViolation,
    depth,
    fork_scenarios,
    session_machine,
)
from harness.subjects import Outcome, ReferenceSubject

from ..rules.bad_subjects import CASES

DIALECTS = tuple(all_dialects())


def _runs(examples: int, steps: int, **options: object) -> settings:
    """Settings for one machine: the counts times the depth (4 under the nightly profile)."""
    return settings(
        max_examples=examples * depth(),
        stateful_step_count=steps * depth(),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        **options,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_reference_plays_whole_sessions_in_every_dialect(dialect: str) -> None:
    run_state_machine_as_test(session_machine(dialect=dialect), settings=_runs(8, 25))


class TestSubclassedMachine(SessionMachine.TestCase):  # the subclassing path of the docs
    settings = _runs(4, 20)


# --- known-bad subjects ---------------------------------------------------------------------


@dataclass(frozen=True)
class ScenarioEdit:
    """The reference, given an edited scenario: parent and children stay consistent with each
    other, so the rules of any one scenario pass, and only the whole session shows the bug."""

    name: str
    kind: str
    base: ReferenceSubject = field(default_factory=ReferenceSubject)

    @property
    def dialects(self) -> tuple[str, ...]:
        return self.base.dialects

    @property
    def lifecycles(self) -> tuple[Lifecycle, ...]:
        return self.base.lifecycles

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        preset = scenario.preset
        model = any(m.role == "model" for m in scenario.history)
        if self.kind == "clock" and model:  # the time in the system prompt, refreshed each turn
            minute = len(scenario.history)
            first, *rest = preset.system or ("",)
            # the time in circled numbers, which no short drawn directive is likely to be
            system = (f"{first} Now: ⑩:{chr(0x2460 + minute % 20)}.", *rest)
            preset = Preset(system, preset.tools, preset.settings)
        else:  # "sorted": tools kept in a dict by name, whatever order the server gave
            preset = Preset(preset.system, tuple(sorted(preset.tools, key=lambda t: t.name)))
            preset = replace(preset, settings=scenario.preset.settings)
        return self.base.assemble(replace(scenario, preset=preset), dialect)


BAD = [
    pytest.param(
        CASES["timestamp"].subject,
        # a dated child's system breaks its prefix, or its next turn when it is woken
        ("system-identical", "append-only"),
        id="date-in-fork-system",
    ),
    pytest.param(
        CASES["byte-drift"].subject,
        # a rewritten old message breaks the child's prefix, or its next turn when it is woken
        ("byte-prefix", "append-only"),
        id="old-message-rewritten",
    ),
    pytest.param(
        ScenarioEdit("clock", "clock"),
        "the parent's requests are not append-only",
        id="clock-in-parent-system",
    ),
    pytest.param(
        ScenarioEdit("sorted", "sorted"), "after the tools changed", id="tools-sorted-by-name"
    ),
]


@pytest.mark.parametrize(("subject", "caught_by"), BAD)
@pytest.mark.parametrize("dialect", ["gemini", "openai"])
def test_a_known_bad_subject_fails_the_session(
    subject: object, caught_by: str | tuple[str, ...], dialect: str
) -> None:
    machine = session_machine(subject, dialect)  # type: ignore[arg-type]
    with pytest.raises(SessionViolation) as caught:
        run_state_machine_as_test(
            machine, settings=_runs(40, 20, phases=[Phase.generate], database=None)
        )
    report = str(caught.value)
    if isinstance(caught_by, tuple):  # rules: one of them is a failure of the report
        failed = re.findall(r"^✗ ([\w-]+): ", report, re.MULTILINE)
        assert set(failed) & set(caught_by), report[:2000]
    else:
        assert caught_by in report
    assert "as fixture JSON" in report


@settings(max_examples=10)
@given(fork_scenarios(), st.sampled_from(DIALECTS))
def test_each_scenario_of_the_clock_subject_passes(scenario: Scenario, dialect: str) -> None:
    """The clock is consistent within every scenario: no rule of one scenario sees it, only
    the parent's successive requests in a session do."""
    subject = ScenarioEdit("clock", "clock")
    report = evaluate(scenario, dialect, subject.assemble(scenario, dialect))
    assert not report.failed, [(f.rule, f.message) for f in report.findings if f.status == "fail"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: session_machine(dialect="klingon"), "dialect='klingon' is not one of"),
        (lambda: session_machine(object()), "is not a harness.subjects.Subject"),  # type: ignore[arg-type]
    ],
)
def test_bad_machine_options_fail_early_and_clearly(make, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        make()
