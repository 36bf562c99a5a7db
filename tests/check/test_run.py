"""run_check, the run loop (harness/check/_run.py): each scenario in every dialect in a row,
the reports by dialect, progress, a dialect's generated runs ending at its first failure, and
a run stopped by hangs in a row or its deadline."""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest

from harness.check import generate, run_check
from harness.rules import catalog
from harness.scenarios import ACTIONS
from harness.subjects import (
    InProcessSubject,
    ReferenceSubject,
    SubprocessOptions,
    SubprocessSubject,
)
from tests.rules.bad_subjects import CASES, Mutant

from .support import (
    DIALECTS,
    FAKES,
    REFERENCE,
    Hanging,
    Recording,
    corpus,
    fixture,
    oneshot,
)


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


def test_a_subject_that_closes_its_stdout_on_everything_stops_as_a_hanging_one() -> None:
    fork = fixture("fork-ends-user")
    scenarios = [replace(fork, id=f"bad-{i}") for i in range(8)]
    argv = [sys.executable, str(FAKES / "closer.py")]
    with SubprocessSubject(argv, SubprocessOptions(timeout=30)) as subject:
        run = run_check(subject, scenarios, dialects=["openai"], examples=5)
    assert run.exit_code == 3
    assert [(f.scenario, f.kind) for f in run.failures] == [
        ("bad-0", "crash"),
        ("bad-1", "crash"),
        ("bad-2", "crash"),
    ]
    assert run.stopped == (
        "the subject hung or closed its stdout on 3 scenarios in a row: the run is stopped,"
        " up to 10 scenario runs not run"
    )
    assert (run.failures[-1].message or "").endswith(f"; {run.stopped}")


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
