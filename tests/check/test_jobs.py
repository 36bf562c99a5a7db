"""check --jobs: scenario runs in worker processes give the report of one process, the same
failures shrunk the same way; a subject that crashes, or a worker that dies, is named."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import replace
from functools import cache, partial
from pathlib import Path

import pytest

from harness.check import CheckRun, bundled_fixtures, cpu_count, run_check
from harness.scenarios import Lifecycle, Scenario, load_fixtures
from harness.subjects import (
    InProcessSubject,
    Outcome,
    ReferenceSubject,
    SubprocessOptions,
    SubprocessSubject,
)
from tests.rules.bad_subjects import CASES

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "subjects" / "fakes"
DIALECTS = ("anthropic", "openai")


@cache
def oneshot() -> tuple[Scenario, ...]:
    return tuple(load_fixtures(bundled_fixtures() / "oneshot.json"))


def same(one: CheckRun, two: CheckRun) -> None:
    assert two.reports == one.reports
    assert two.shrunk == one.shrunk
    assert two.failures == one.failures
    assert two.generated == one.generated
    assert two.scenario_ids == one.scenario_ids
    assert two.exit_code == one.exit_code


def check(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "harness", "check", "--no-progress", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )


def test_two_jobs_give_the_report_of_one_on_the_reference() -> None:
    runs = [
        run_check(
            InProcessSubject(ReferenceSubject()),
            oneshot(),
            dialects=DIALECTS,
            examples=6,
            rng_seed=1,
            jobs=jobs,
            spawn=lambda: InProcessSubject(ReferenceSubject()),
        )
        for jobs in (1, 2)
    ]
    assert runs[0].exit_code == 0
    assert runs[0].generated == 2 * 6
    same(*runs)


def test_two_jobs_find_and_shrink_the_same_failure_of_a_broken_subject() -> None:
    case = CASES["tool-order"]
    runs = [
        run_check(
            InProcessSubject(case.subject),
            oneshot(),
            dialects=case.dialects,
            examples=10,
            jobs=jobs,
            spawn=lambda: InProcessSubject(case.subject),
        )
        for jobs in (1, 2)
    ]
    assert runs[0].exit_code == 1
    assert {s.dialect for s in runs[0].shrunk} == set(case.dialects)
    assert all(s.unshrunk is None for s in runs[0].shrunk)
    same(*runs)


def test_the_cli_prints_the_same_text_and_json_for_one_and_two_jobs() -> None:
    for extra in ((), ("--json",)):
        one = check("--examples", "5", "--seed", "2", "--dialect", "openai", *extra)
        two = check("--examples", "5", "--seed", "2", "--dialect", "openai", "--jobs", "2", *extra)
        assert one.returncode == two.returncode == 0, one.stderr + two.stderr
        assert two.stdout == one.stdout


def test_the_cli_fails_a_broken_subject_the_same_way_with_two_jobs() -> None:
    subject = "python:tests.cli.check_subjects:tool_order"
    one = check("--subject", subject, "--examples", "5")
    two = check("--subject", subject, "--examples", "5", "--jobs", "2")
    assert one.returncode == two.returncode == 1, one.stderr + two.stderr
    assert "tools-identical" in one.stdout
    assert two.stdout == one.stdout


@pytest.mark.parametrize("value", ["0", "x", "-1", "1.5", "257", ""])
def test_a_bad_jobs_value_exits_2_with_one_sentence(value: str) -> None:
    done = check("--jobs", value, "--examples", "0")
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "--jobs must be a whole number from 1 to 256, or auto" in line


def test_jobs_auto_is_one_per_cpu() -> None:
    assert cpu_count() >= 1
    done = check("--jobs", "auto", "--examples", "1", "--dialect", "openai")
    assert done.returncode == 0, done.stderr


def test_a_process_subject_crashing_in_a_worker_exits_3_naming_the_scenario() -> None:
    fork = next(s for s in oneshot() if s.id == "fork-ends-user")
    scenarios = [fork, replace(fork, id="bad-crash"), replace(fork, id="after")]
    spawn = partial(
        SubprocessSubject, [sys.executable, str(FAKES / "crash.py")], SubprocessOptions(timeout=5)
    )
    with spawn() as subject:
        run = run_check(subject, scenarios, dialects=["openai"], jobs=2, spawn=spawn)
    assert run.exit_code == 3
    (failure,) = run.failures
    assert failure.kind == "crash"
    assert failure.scenario == "bad-crash"
    assert failure.exit_code == 7
    assert [r.scenario_id for r in run.reports] == ["fork-ends-user", "bad-crash", "after"]


class Exiting:
    """Ends its own process (the worker's) on a scenario whose id starts with "bad"."""

    name = "exiting"
    lifecycles: tuple[Lifecycle, ...] = ("one-shot",)
    dialects: tuple[str, ...] = ("openai",)

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        if scenario.id.startswith("bad") and os.getpid() != PARENT:
            os._exit(9)
        return ReferenceSubject().assemble(scenario, dialect)


PARENT = os.getpid()


def test_a_worker_that_dies_is_a_crash_of_its_scenario_and_the_run_goes_on() -> None:
    fork = next(s for s in oneshot() if s.id == "fork-ends-user")
    scenarios = [replace(fork, id="bad-exit"), *(replace(fork, id=f"ok-{i}") for i in range(3))]
    run = run_check(Exiting(), scenarios, dialects=["openai"], jobs=2, spawn=Exiting)
    assert run.exit_code == 3
    (failure,) = run.failures
    assert failure.kind == "crash"
    assert failure.scenario == "bad-exit"
    assert failure.exit_code == 9
    assert "worker process" in (failure.message or "")
    assert [r.scenario_id for r in run.reports] == [s.id for s in scenarios]
    assert not any(r.failed for r in run.reports[1:])


def dying() -> Exiting:
    os._exit(4)


def test_workers_that_die_as_they_start_are_crashes_of_each_scenario_not_an_error() -> None:
    fork = next(s for s in oneshot() if s.id == "fork-ends-user")
    scenarios = [replace(fork, id=f"s-{i}") for i in range(3)]
    run = run_check(Exiting(), scenarios, dialects=["openai"], jobs=2, spawn=dying)
    assert run.exit_code == 3
    assert [f.scenario for f in run.failures] == [s.id for s in scenarios]
    assert {f.exit_code for f in run.failures} == {4}


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux /proc")
def test_terminated_workers_end_their_subjects_and_exit_quietly(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a run ended by a signal does: each worker gets SIGTERM, ends its subject (and what
    that started) and exits 128 + 15, with no traceback."""
    from harness.check._jobs import Workers
    from harness.check._one import run_one
    from tests.faults.procs import MARKER, left_behind, marked, new_marker

    marker = new_marker()
    monkeypatch.setenv(MARKER, marker)  # the subjects the workers start carry it
    fork = replace(oneshot()[0], id="bad-hang")
    argv = [sys.executable, str(FAKES / "hang.py")]
    factory = partial(SubprocessSubject, argv, SubprocessOptions(timeout=60))
    pool = Workers(2, factory, [(fork, "openai")] * 4, run_one, "hang", lambda _: True)
    pool._dispatch(0)  # both workers busy with a scenario their subject will never answer
    deadline = time.monotonic() + 60
    while len(marked(marker)) < 2 and time.monotonic() < deadline:  # a subject per worker
        time.sleep(0.05)
    assert len(marked(marker)) == 2
    pool.terminate()
    assert [w.process.exitcode for w in pool._workers] == [143, 143]
    assert left_behind(marker) == []
    _, err = capfd.readouterr()
    assert "Traceback" not in err
    assert err == ""
