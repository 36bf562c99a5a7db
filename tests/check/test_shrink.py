"""Shrinking a failing generated scenario (harness/check/_shrink.py): replayed where it was
drawn and shrunk to a minimal one that still fails, or shown as drawn, saying why."""

from __future__ import annotations

from harness.check import generate, run_check
from harness.check._generate import LONG
from harness.rules import evaluate
from harness.scenarios import ACTIONS, Scenario
from tests.rules.bad_subjects import CASES

from .support import (
    REFERENCE,
    Hanging,
    Recording,
    with_long,
)


def test_a_failing_generated_scenario_is_shrunk_and_still_fails() -> None:
    subject = CASES["tool-order"].subject
    run = run_check(subject, [], dialects=["openai"], examples=10)
    assert run.exit_code == 1
    (shrunk,) = run.shrunk
    assert shrunk.dialect == "openai"
    assert shrunk.unshrunk is None
    assert shrunk.report.finding("tools-identical").status == "fail"
    assert shrunk.report.scenario_id == shrunk.scenario.id
    scenario = shrunk.scenario
    # minimal: reversing the tools needs two, a fork one directive and a short history
    assert scenario.action == "fork"
    assert len(scenario.preset.tools) == 2
    assert len(scenario.history) <= 2
    assert all(len(d) == 1 for d in scenario.directives)
    # and it is a real failure: the subject fails it again, the reference passes it
    again = evaluate(scenario, "openai", subject.assemble(scenario, "openai"))
    assert again.finding("tools-identical").status == "fail"
    assert not evaluate(scenario, "openai", REFERENCE.assemble(scenario, "openai")).failed
    # generation stops at the first failure: what ran is what is counted
    assert run.generated == len(run.reports) <= 10
    assert run.reports[-1].failed


def test_a_failure_that_does_not_recur_is_reported_not_raised() -> None:
    # fails the first generated fork only: Hypothesis sees a flaky test when it replays it
    subject = Recording(fail_actions=("fork", "siblings"), times=1)
    run = run_check(subject, [], dialects=["openai"], examples=10)
    assert run.exit_code == 1
    (shrunk,) = run.shrunk
    assert shrunk.unshrunk is not None
    assert "did not fail again" in shrunk.unshrunk
    assert shrunk.report.failed
    assert shrunk.report in run.reports


def test_a_hang_in_a_generated_scenario_is_not_shrunk() -> None:
    # every try would cost a timeout: one hang ends the dialect's generation
    subject = Hanging()
    run = run_check(subject, [], dialects=["openai"], examples=10)
    assert subject.asked == 1
    assert run.exit_code == 3
    assert [f.kind for f in run.failures] == ["hang"]
    (shrunk,) = run.shrunk
    assert shrunk.unshrunk is not None
    assert "hung" in shrunk.unshrunk


def _first_late_action(drawn: tuple[Scenario, ...]) -> tuple[int, str] | None:
    """The first scenario after the first whose action none before it has."""
    for i, scenario in enumerate(drawn[1:], start=1):
        if all(s.action != scenario.action for s in drawn[:i]):
            return i, scenario.action
    return None


def test_a_failure_late_in_generation_is_replayed_there_and_shrunk() -> None:
    # which actions come first depends on what Hypothesis draws, and that on the constants of
    # the modules loaded (a whole test run loads more): find a late first one, do not assume it
    examples, found = 12, None
    while found is None and examples <= 96:
        drawn = generate(ACTIONS, examples)
        found = _first_late_action(drawn)
        examples *= 2 if found is None else 1
    assert found is not None, "every drawn scenario has the first one's action"
    late, action = found
    subject = Recording(fail_actions=(action,))
    run = run_check(subject, [], dialects=["openai"], examples=examples)
    assert run.generated == late + 1  # the dialect's runs end at its first failure
    (shrunk,) = run.shrunk
    assert shrunk.unshrunk is None
    assert shrunk.scenario.action == action
    assert len(shrunk.scenario.history) <= len(drawn[late].history)
    # the replay ran the subject from the failing scenario on, never on those before it
    replayed = subject.asked[late + 1 :]
    assert replayed[0] == drawn[late]
    assert not set(drawn[:late]) & set(replayed)


def test_a_failing_long_history_is_replayed_where_it_was_drawn_and_shrunk() -> None:
    """The replay passes over the draws the generation passed over, so the failing scenario
    is found at its place, and the shrink ends at the least long history that fails."""
    rng_seed, drawn = with_long(100)
    first = next(i for i, s in enumerate(drawn) if len(s.history) > LONG)
    subject = Recording(fail_longer_than=LONG)
    run = run_check(subject, [], dialects=["openai"], examples=100, rng_seed=rng_seed)
    assert run.generated == first + 1
    (shrunk,) = run.shrunk
    assert shrunk.unshrunk is None  # replayed where it was drawn
    assert LONG < len(shrunk.scenario.history) <= len(drawn[first].history)
    assert subject.asked[first + 1] == drawn[first]
