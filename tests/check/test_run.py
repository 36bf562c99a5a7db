"""run_check: a subject over fixtures and generated scenarios in each dialect, with the rules
on every outcome, expectations applied, generated failures shrunk and subject failures kept."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from harness.check import (
    _run,
    generate,
    run_check,
)
from harness.check._run import _LONG as LONG
from harness.rules import catalog, evaluate
from harness.rules._checks import CHECKS
from harness.scenarios import ACTIONS, Lifecycle, Scenario
from harness.strategies import scenarios
from harness.subjects import (
    InProcessSubject,
    Outcome,
    ReferenceSubject,
    SubjectFailure,
    SubprocessOptions,
    SubprocessSubject,
)
from tests.rules.bad_subjects import CASES, Mutant

from .support import DIALECTS, FAKES, REFERENCE, corpus, fixture, oneshot

# --- subjects ---------------------------------------------------------------------------------


@dataclass
class Recording:
    """The reference, remembering every scenario it was asked for; ``fail`` picks scenarios
    to answer with an unparsable child body (the first ``times`` times only)."""

    name: str = "recording"
    lifecycles: tuple[Lifecycle, ...] = ("one-shot", "continuable", "spawn")
    dialects: tuple[str, ...] = DIALECTS
    fail_actions: tuple[str, ...] = ()
    times: int | None = None
    asked: list[Scenario] = field(default_factory=list)
    fail_longer_than: int | None = None
    fail_in: str | None = None
    """The one dialect ``fail_longer_than`` fails in (None: every dialect)."""
    asked_in: list[str] = field(default_factory=list)

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        self.asked.append(scenario)
        self.asked_in.append(dialect)
        outcome = REFERENCE.assemble(scenario, dialect)
        long = self.fail_longer_than is not None and len(scenario.history) > self.fail_longer_than
        if long and self.fail_in in (None, dialect):
            return replace(outcome, children=tuple(b"{" for _ in outcome.children))
        if scenario.action in self.fail_actions and (self.times is None or self.times > 0):
            self.times = None if self.times is None else self.times - 1
            return replace(outcome, children=tuple(b"{" for _ in outcome.children))
        return outcome


@dataclass
class Hanging:
    """Answers like a process subject that hangs: a ``hang`` failure for every fork."""

    name: str = "hanging"
    lifecycles: tuple[Lifecycle, ...] = ("one-shot",)
    dialects: tuple[str, ...] = ("openai",)
    asked: int = 0

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        self.asked += 1
        return SubjectFailure.of("hang", scenario.id, "no reply to seq 1 within 0.1 s")


@dataclass
class Raising:
    """Raises for spawns, the way a subject's own bug would."""

    name: str = "raising"
    lifecycles: tuple[Lifecycle, ...] = ("one-shot", "continuable", "spawn")
    dialects: tuple[str, ...] = DIALECTS

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        if scenario.action == "spawn":
            raise RuntimeError("spawn is not implemented yet")
        return REFERENCE.assemble(scenario, dialect)


# --- conforming -------------------------------------------------------------------------------


def test_the_reference_conforms_on_the_corpus_and_generated_scenarios() -> None:
    run = run_check(InProcessSubject(REFERENCE), corpus(), dialects=DIALECTS, examples=2)
    assert run.exit_code == 0
    assert run.unexpected_failures == []
    assert run.unexpected_passes == []
    assert run.shrunk == ()
    assert run.failures == ()
    assert run.subject == "reference"
    assert run.dialects == DIALECTS
    assert run.generated == 2 * len(DIALECTS)
    assert len(run.reports) == len(corpus()) * len(DIALECTS) + 2 * len(DIALECTS)
    for dialect in DIALECTS:
        ids = [r.scenario_id for r in run.reports if r.dialect == dialect]
        assert ids[: len(corpus())] == [s.id for s in corpus()]
        assert len(ids) == len(corpus()) + 2
    rules = [info.id for info in catalog()]
    assert all([f.rule for f in r.findings] == rules for r in run.reports)


def test_no_examples_runs_the_fixtures_only() -> None:
    run = run_check(REFERENCE, oneshot(), dialects=["gemini"], examples=0)
    assert run.exit_code == 0
    assert run.generated == 0
    assert [r.scenario_id for r in run.reports] == [s.id for s in oneshot()]


# --- failing rules ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["tool-order", "memory", "key-order", "model-switched", "tool-choice"]
)
def test_a_known_bad_subject_fails_its_rule(name: str) -> None:
    case = CASES[name]
    run = run_check(InProcessSubject(case.subject), oneshot(), dialects=case.dialects)
    assert run.exit_code == 1
    assert run.failures == ()
    for dialect in case.dialects:
        found = {
            (r.scenario_id, f.rule) for r, f in run.unexpected_failures if r.dialect == dialect
        }
        assert ("fork-ends-model-calls", case.rule) in found, dialect
    # the reference passes there: the rule caught this subject's bug, not the scenario
    reference = run_check(REFERENCE, [fixture("fork-ends-model-calls")], dialects=case.dialects)
    assert reference.exit_code == 0


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


# --- subject failures -------------------------------------------------------------------------


def test_a_crashing_process_subject_exits_3_and_the_run_goes_on() -> None:
    fork = fixture("fork-ends-user")
    scenarios = [replace(fork, id="bad-crash"), fork]
    argv = [sys.executable, str(FAKES / "crash.py")]
    with SubprocessSubject(argv, SubprocessOptions(timeout=5)) as subject:
        run = run_check(subject, scenarios, dialects=["openai"])
        assert subject.restarts == 1
    assert run.exit_code == 3
    (failure,) = run.failures
    assert failure.kind == "crash"
    assert failure.scenario == "bad-crash"
    assert failure.exit_code == 7
    assert "giving up" in failure.stderr_tail
    assert [r.scenario_id for r in run.reports] == ["bad-crash", "fork-ends-user"]
    assert run.reports[0].finding("subject-error").status == "fail"


def test_a_subject_that_raises_exits_3_over_failed_rules() -> None:
    run = run_check(InProcessSubject(Raising()), corpus(), dialects=["openai"])
    assert run.exit_code == 3
    assert {f.kind for f in run.failures} == {"crash"}
    assert {f.scenario for f in run.failures} == {s.id for s in corpus() if s.action == "spawn"}
    assert all(
        "RuntimeError: spawn is not implemented yet" in (f.message or "") for f in run.failures
    )


def test_a_bare_subject_that_raises_is_a_crash_not_an_exception() -> None:
    run = run_check(Raising(), [fixture("spawn-delegation-prompt")], dialects=["openai"])
    assert run.exit_code == 3
    (failure,) = run.failures
    assert failure.kind == "crash"
    assert "RuntimeError" in (failure.message or "")


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


# --- progress ---------------------------------------------------------------------------------


@pytest.mark.parametrize("subject", [REFERENCE, CASES["tool-order"].subject], ids=["good", "bad"])
def test_progress_counts_up_to_a_fixed_total(subject: ReferenceSubject | Mutant) -> None:
    calls: list[tuple[int, int, str]] = []
    run_check(
        subject,
        oneshot(),
        dialects=["anthropic", "openai"],
        examples=4,
        progress=lambda done, total, what: calls.append((done, total, what)),
    )
    total = (len(oneshot()) + 4) * 2
    assert {t for _, t, _ in calls} == {total}
    dones = [d for d, _, _ in calls]
    assert dones == sorted(set(dones))
    assert dones[-1] == total  # the bar ends full, even when generation stopped early
    assert calls[0][2] == f"anthropic {oneshot()[0].id}"
    assert any(what.startswith("openai") for _, _, what in calls)


# --- what the subject lacks -------------------------------------------------------------------


def test_fixtures_of_a_lifecycle_the_subject_lacks_are_not_applicable() -> None:
    subject = Recording(name="one-shot-only", lifecycles=("one-shot",))
    run = run_check(subject, corpus(), dialects=["openai"], examples=4)
    assert run.exit_code == 0
    assert {s.lifecycle for s in subject.asked} == {"one-shot"}
    lacking = [s for s in corpus() if s.lifecycle != "one-shot"]
    assert lacking
    by_id = {r.scenario_id: r for r in run.reports}
    for scenario in lacking:
        report = by_id[scenario.id]
        assert {f.status for f in report.findings} == {"not-applicable"}
        assert f"has no {scenario.lifecycle} lifecycle" in report.findings[0].message
    generated = run.reports[len(corpus()) :]
    assert len(generated) == 4
    assert all(r.scenario_id.startswith(("fork-", "siblings-")) for r in generated)


def test_a_dialect_the_subject_lacks_is_not_applicable() -> None:
    subject = Recording(name="openai-only", dialects=("openai",))
    run = run_check(subject, oneshot(), dialects=["gemini", "openai"], examples=3)
    assert run.exit_code == 0
    assert run.generated == 3
    gemini = [r for r in run.reports if r.dialect == "gemini"]
    assert len(gemini) == len(oneshot())
    assert all(f.status == "not-applicable" for r in gemini for f in r.findings)
    assert "does not speak gemini" in gemini[0].findings[0].message
    assert len(subject.asked) == len(oneshot()) + 3


# --- subjects that crash or fool check --------------------------------------------------------


def test_an_outcome_the_rules_cannot_evaluate_is_that_scenarios_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a check that trips on what a subject sent (here: recursion on a 500-deep body)
    real = CHECKS["well-formed"]

    def tripping(ctx: Any) -> Any:
        if ctx.scenario.id.startswith("bad"):
            raise RecursionError("maximum recursion depth exceeded")
        return real(ctx)

    monkeypatch.setitem(CHECKS, "well-formed", tripping)
    fork = fixture("fork-ends-user")
    scenarios = [replace(fork, id="bad-deep"), fork]
    argv = [sys.executable, str(FAKES / "deep.py")]
    with SubprocessSubject(argv, SubprocessOptions(timeout=5)) as subject:
        run = run_check(subject, scenarios, dialects=["openai"])
    assert run.exit_code == 3
    (failure,) = run.failures
    assert (failure.kind, failure.scenario) == ("protocol", "bad-deep")
    assert failure.detail == (
        "the harness cannot evaluate the bodies it returned: rule well-formed raised "
        "RecursionError: maximum recursion depth exceeded"
    )
    assert [r.scenario_id for r in run.reports] == ["bad-deep", "fork-ends-user"]
    assert run.reports[0].finding("subject-error").status == "fail"
    assert run.reports[1].finding("byte-prefix").status == "pass"  # the run went on


def test_a_subject_that_hangs_on_everything_stops_after_three_in_a_row() -> None:
    fork = fixture("fork-ends-user")
    scenarios = [replace(fork, id=f"bad-{i}") for i in range(8)]
    argv = [sys.executable, str(FAKES / "hang.py")]
    with SubprocessSubject(argv, SubprocessOptions(timeout=0.3)) as subject:
        run = run_check(subject, scenarios, dialects=["openai"], examples=5)
    assert run.exit_code == 3
    assert [f.scenario for f in run.failures] == ["bad-0", "bad-1", "bad-2"]
    assert run.stopped == (
        "the subject hung on 3 scenarios in a row: the run is stopped, up to 10 scenario runs "
        "not run"
    )
    assert (run.failures[-1].message or "").endswith(f"; {run.stopped}")
    assert len(run.reports) == 3


def test_hangs_that_are_not_in_a_row_do_not_stop_the_run() -> None:
    fork = fixture("fork-ends-user")
    ids = ["bad-0", "bad-1", "ok-0", "bad-2", "bad-3", "ok-1"]
    argv = [sys.executable, str(FAKES / "hang.py")]
    with SubprocessSubject(argv, SubprocessOptions(timeout=0.2)) as subject:
        run = run_check(subject, [replace(fork, id=i) for i in ids], dialects=["openai"])
    assert run.stopped is None
    assert len(run.reports) == 6
    assert [f.scenario for f in run.failures] == ["bad-0", "bad-1", "bad-2", "bad-3"]
    unbounded = run_check(
        Hanging(), [replace(fork, id=i) for i in ids], dialects=["openai"], max_hangs=0
    )
    assert unbounded.stopped is None
    assert len(unbounded.failures) == 6


def test_the_deadline_stops_a_run_that_goes_on_too_long() -> None:
    fork = fixture("fork-ends-user")
    scenarios = [replace(fork, id=f"bad-{i}") for i in range(20)]  # 0.3 s each
    argv = [sys.executable, str(FAKES / "slow.py")]
    with SubprocessSubject(argv, SubprocessOptions(timeout=5)) as subject:
        run = run_check(subject, scenarios, dialects=["openai"], examples=3, deadline=0.5)
    assert run.exit_code == 3
    assert 1 <= len(run.reports) <= 4
    assert run.stopped is not None
    assert run.stopped.startswith("the run's deadline of 0.5 s has passed: the run is stopped")
    (failure,) = run.failures
    assert failure.kind == "hang"
    assert failure.scenario == f"bad-{len(run.reports)}"  # the first one not run


def test_a_second_reply_to_the_last_request_fails_the_run() -> None:
    fork = fixture("fork-ends-user")
    scenarios = [fork, replace(fork, id="bad-late")]
    argv = [sys.executable, str(FAKES / "twice.py")]
    with SubprocessSubject(argv, SubprocessOptions(timeout=5)) as subject:
        run = run_check(subject, scenarios, dialects=["openai"])
    assert run.exit_code == 3
    (failure,) = run.failures
    assert (failure.kind, failure.scenario) == ("protocol", "bad-late")
    assert "before it exited, the subject wrote another line" in failure.detail


# --- generation once, shrinking by replay -------------------------------------------------------


def test_generation_is_the_same_every_time_and_for_every_dialect() -> None:
    first = generate(ACTIONS, 8)
    assert len(first) == 8
    assert generate(ACTIONS, 8) == first
    assert generate(ACTIONS, 8, rng_seed=3) == generate(ACTIONS, 8, rng_seed=3)
    subject = Recording()
    run = run_check(subject, [], dialects=DIALECTS, examples=8)
    assert run.exit_code == 0
    assert subject.asked == [s for s in first for _ in DIALECTS]  # drawn once, run per dialect


def test_each_scenario_runs_in_every_dialect_in_a_row_and_reports_by_dialect() -> None:
    subject = Recording(dialects=("gemini", "openai"))
    corpus = oneshot()[:3]
    run = run_check(subject, corpus, dialects=["anthropic", "gemini", "openai"], examples=2)
    drawn = generate(ACTIONS, 2)
    scenarios = [*corpus, *drawn]
    # asked one after the other in the dialects it speaks (anthropic's fixtures are not run)
    assert subject.asked == [s for s in scenarios for _ in ("gemini", "openai")]
    assert [(r.dialect, r.scenario_id) for r in run.reports] == [
        *(("anthropic", s.id) for s in corpus),
        *((d, s.id) for d in ("gemini", "openai") for s in scenarios),
    ]
    assert run.scenario_ids == tuple(s.id for s in scenarios)


def test_a_dialects_generated_runs_stop_at_its_first_failure_and_not_the_others() -> None:
    drawn = generate(ACTIONS, 8)
    longest = max(len(s.history) for s in drawn)
    first = next(i for i, s in enumerate(drawn) if len(s.history) == longest)
    assert first < len(drawn) - 1, "the draw must go on after its longest history"
    subject = Recording(dialects=("gemini", "openai"), fail_longer_than=longest - 1)
    subject.fail_in = "openai"
    run = run_check(subject, [], dialects=["gemini", "openai"], examples=8)
    before_shrinking = list(zip(subject.asked, subject.asked_in, strict=True))[: first * 2 + 2]
    assert before_shrinking == [(s, d) for s in drawn[: first + 1] for d in ("gemini", "openai")]
    assert [r.dialect for r in run.reports] == ["gemini"] * 8 + ["openai"] * (first + 1)
    assert [r.scenario_id for r in run.reports][:8] == [s.id for s in drawn]
    assert [f.dialect for f in run.shrunk] == ["openai"]
    assert run.exit_code == 1


def test_the_generation_ends_at_its_last_scenario_without_drawing_it_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hypothesis replays the example a test failed on, drawing it again; the generation's
    stop is not a failure, so the last scenario drawn is the very one kept last."""
    seen: list[Scenario] = []

    def counted(**options: Any) -> Any:
        return scenarios(**options).map(lambda s: seen.append(s) or s)

    monkeypatch.setattr(_run, "scenarios", counted)
    drawn = generate(ACTIONS, 5)
    assert len(drawn) == 5
    assert seen[-1] is drawn[-1]
    assert drawn == generate(ACTIONS, 5)


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


def _with_long(examples: int) -> tuple[int | None, tuple[Scenario, ...]]:
    """The first seed (the default first) whose draw of ``examples`` has a long history, and
    that draw: which draws hold one depends on what Hypothesis draws, so find one, do not
    assume it."""
    for rng_seed in (None, 1, 2, 3):
        drawn = generate(ACTIONS, examples, rng_seed=rng_seed)
        if any(len(s.history) > LONG for s in drawn):
            return rng_seed, drawn
    raise AssertionError(f"no long history among {examples} drawn scenarios of four seeds")


def test_near_copies_of_a_long_history_are_passed_over() -> None:
    """Hypothesis mutates each example it draws into a few near-copies: a long history comes
    back several times at the same length, and those are not run again."""
    _, drawn = _with_long(100)
    assert len(drawn) == 100
    long = [(s.action, len(s.history)) for s in drawn if len(s.history) > LONG]
    assert len(long) == len(set(long))
    assert any(len(s.history) <= LONG for s in drawn)


def test_a_failing_long_history_is_replayed_where_it_was_drawn_and_shrunk() -> None:
    """The replay passes over the draws the generation passed over, so the failing scenario
    is found at its place, and the shrink ends at the least long history that fails."""
    rng_seed, drawn = _with_long(100)
    first = next(i for i, s in enumerate(drawn) if len(s.history) > LONG)
    subject = Recording(fail_longer_than=LONG)
    run = run_check(subject, [], dialects=["openai"], examples=100, rng_seed=rng_seed)
    assert run.generated == first + 1
    (shrunk,) = run.shrunk
    assert shrunk.unshrunk is None  # replayed where it was drawn
    assert LONG < len(shrunk.scenario.history) <= len(drawn[first].history)
    assert subject.asked[first + 1] == drawn[first]
