"""Running a subject over the fixture corpus and generated scenarios, rules on every outcome:
the run loop.

The scenarios are generated first (``_generate``); each runs in every dialect one after the
other (``_one``), in this process or spread over workers (``_jobs``); the first generated
scenario that fails in a dialect ends that dialect's generated runs and is shrunk at the end
(``_shrink``). A subject that hangs on everything does not cost every scenario a timeout:
the run stops after ``max_hangs`` hangs in a row, or when its ``deadline`` has passed
(checked between scenarios), and says so in the failure it stops at. At the end a subject
with a ``finish()`` (a process) is stopped, and what it wrote after its last reply is a
failure too. What the run found is a ``CheckRun`` (``_results``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Final

from ..protocol import Subject
from ..rules import ScenarioReport
from ..scenarios import ACTIONS, Scenario, lifecycle_of
from ..subjects import SubjectFailure
from ._expect import Expectations
from ._generate import generate
from ._jobs import Workers
from ._one import not_run, run_one, subject_name
from ._results import CheckRun
from ._shrink import Found, shrink

__all__ = ["MAX_HANGS", "Progress", "run_check"]

Progress = Callable[[int, int, str], None]
"""Called as ``progress(done, total, what)`` after each scenario run; ``total`` is fixed and
the last call has ``done == total``."""

MAX_HANGS: Final = 3
"""Hangs in a row after which a run stops (``max_hangs``; 0 never stops)."""


class _Budget:
    """Hangs in a row and the deadline: whether the run goes on (``spent`` says why not)."""

    def __init__(self, max_hangs: int, deadline: float | None) -> None:
        self.max_hangs = max_hangs
        self.deadline = deadline
        self.ends = None if deadline is None else time.monotonic() + deadline
        self.hangs = 0
        self.closed = False
        """Whether a stall of the current row was a closed stdout rather than a hang."""
        self.spent: str | None = None

    def over(self) -> bool:
        """Whether the run must stop before the next scenario (the deadline is checked here)."""
        if self.spent is None and self.ends is not None and time.monotonic() >= self.ends:
            self.spent = f"the run's deadline of {self.deadline:g} s has passed"
        return self.spent is not None

    def count(self, crashed: Sequence[SubjectFailure]) -> None:
        """Count a hang, or a subject that stopped answering without exiting (its stdout
        closed): each try costs a timeout or a restart."""
        stalls = [f for f in crashed if f.kind == "hang" or f.stalled]
        self.hangs = self.hangs + 1 if stalls else 0
        self.closed = bool(stalls) and (self.closed or any(f.kind != "hang" for f in stalls))
        if self.max_hangs and self.hangs >= self.max_hangs and self.spent is None:
            what = "hung or closed its stdout" if self.closed else "hung"
            self.spent = f"the subject {what} on {self.hangs} scenarios in a row"


@dataclass(frozen=True, slots=True)
class _Item:
    """One scenario run of the plan: ``generated`` is its place among the generated scenarios
    (None for a fixture); ``report`` is given when the subject cannot run it; ``rank`` is its
    place in the report (dialect by dialect)."""

    scenario: Scenario
    dialect: str
    rank: int
    generated: int | None = None
    report: ScenarioReport | None = None


def _plan(
    subject: Subject,
    fixtures: Sequence[Scenario],
    dialects: Sequence[str],
    drawn: Sequence[Scenario],
) -> list[_Item]:
    """The run's order, whatever the number of jobs: each scenario in every dialect, one
    after the other (the fixtures, then the generated scenarios; none in a dialect the
    subject does not speak), so that a subject reads each scenario once (``same-scenario``
    in docs/protocol.md). ``rank`` orders the reports per dialect: its fixtures, then its
    generated scenarios."""
    spoken = [d in subject.dialects for d in dialects]
    size = len(fixtures) + len(drawn)
    plan = []
    for j, scenario in enumerate([*fixtures, *drawn]):
        generated = j - len(fixtures) if j >= len(fixtures) else None
        for i, dialect in enumerate(dialects):
            rank = i * size + j
            if generated is None:
                report = not_run(subject, scenario, dialect)
                plan.append(_Item(scenario, dialect, rank, report=report))
            elif spoken[i]:
                plan.append(_Item(scenario, dialect, rank, generated=generated))
    return plan


def run_check(
    subject: Subject,
    fixtures: Sequence[Scenario],
    *,
    dialects: Sequence[str],
    examples: int = 0,
    rng_seed: int | None = None,
    expectations: Expectations | None = None,
    progress: Progress | None = None,
    max_hangs: int = MAX_HANGS,
    deadline: float | None = None,
    jobs: int = 1,
    spawn: Callable[[], Subject] | None = None,
    strict: bool = False,
) -> CheckRun:
    """Every fixture, then up to ``examples`` generated scenarios, in each of ``dialects``:
    each scenario in every dialect one after the other, the reports dialect by dialect.

    The scenarios are generated once, before any is run, and are the same in every dialect.
    Generation in a dialect stops at its first failure, so fewer may run; ``progress`` then
    skips ahead, so that its last call is at the total. The run stops after ``max_hangs``
    hangs in a row (0: never) or once ``deadline`` seconds have passed (checked between
    scenarios: one under way runs to its end or its timeout); the failure it stops at says
    so, and the run exits 3. A subject with a ``finish()`` is stopped at the end, and its
    failures (output after its last reply) are the run's too.

    With ``jobs`` above 1 the scenario runs are spread over that many processes, each with
    the subject ``spawn()`` gives; results are read in the run's order, so the report is the
    same. Failures are shrunk afterwards with ``subject``, as with one job.

    ``strict``: the prefix rules compare the bytes as sent (``--strict-bytes``), not the
    rendered prefix (docs/cache-model.md).
    """
    one = partial(run_one, strict=strict)
    if jobs > 1 and spawn is None:
        raise ValueError("run_check: jobs above 1 need spawn, a factory of the subject")
    per_dialect = len(fixtures) + max(examples, 0)
    total = per_dialect * len(dialects)
    done = 0

    def tick(what: str, *, upto: int | None = None) -> None:
        nonlocal done
        before = done
        done = min(total, done + 1 if upto is None else max(done, upto))
        if progress is not None and done > before:
            progress(done, total, what)

    actions = [a for a in ACTIONS if lifecycle_of(a) in subject.lifecycles]
    speaks = any(d in subject.dialects for d in dialects)
    drawn = generate(actions, examples, rng_seed) if speaks else ()
    plan = _plan(subject, fixtures, dialects, drawn)
    work = [(item.scenario, item.dialect) for item in plan]
    ranked: dict[int, ScenarioReport] = {}
    failures: list[SubjectFailure] = []
    found: dict[str, Found] = {}
    generated_ids: dict[str, None] = {}
    budget = _Budget(max_hangs, deadline)

    def passed_over(item: _Item) -> bool:
        first = found.get(item.dialect)
        return first is not None and item.generated is not None and item.generated > first.index

    def wanted(position: int) -> bool:
        item = plan[position]
        return item.report is None and not passed_over(item) and budget.spent is None

    pool = None
    runnable = sum(1 for item in plan if item.report is None)
    if jobs > 1 and spawn is not None and runnable > 1:
        pool = Workers(min(jobs, runnable), spawn, work, one, subject_name(subject), wanted)
    try:
        for position, item in enumerate(plan):
            what = (
                f"{item.dialect} {'generated' if item.generated is not None else item.scenario.id}"
            )
            if passed_over(item):
                tick(what)
                continue
            if item.report is not None:
                if budget.spent is not None:
                    break
                ranked[item.rank] = item.report
                tick(what)
                continue
            if budget.over():
                break
            if pool is None:
                report, crashed = one(subject, item.scenario, item.dialect)
            else:
                report, crashed = pool.result(position)
            ranked[item.rank] = report
            failures.extend(crashed)
            budget.count(crashed)
            if item.generated is not None:
                generated_ids[report.scenario_id] = None
                if report.failed or crashed:  # later runs of the dialect are passed over
                    found[item.dialect] = Found(item.generated, item.scenario, report, crashed)
            tick(what)
            if budget.spent is not None:
                break
        if pool is not None:
            pool.close()
    except BaseException:  # a signal ends the run (or the harness failed): workers end now
        if pool is not None:
            pool.terminate()
        raise
    reports = [ranked[rank] for rank in sorted(ranked)]
    ids = {**dict.fromkeys(s.id for s in fixtures), **generated_ids}
    generated_runs = sum(1 for item in plan if item.generated is not None and item.rank in ranked)
    shrunk = [
        shrink(subject, dialect, actions, examples, rng_seed, found[dialect], strict=strict)
        for dialect in dialects
        if dialect in found
    ]
    stopped: str | None = None
    if budget.over():
        stopped = f"{budget.spent}: the run is stopped, up to {total - done} scenario runs not run"
        failures = _stop_at(failures, stopped, fixtures, reports)
        tick("stopped", upto=total)
    tick("done", upto=total)  # the generated scenarios not drawn, the passed-over ones
    finish = getattr(subject, "finish", None)
    if callable(finish):
        failures.extend(f for f in finish() if isinstance(f, SubjectFailure))
    if pool is not None:
        failures.extend(pool.failures)
    return CheckRun(
        subject=subject.name,
        dialects=tuple(dialects),
        reports=tuple(reports),
        generated=generated_runs,
        shrunk=tuple(shrunk),
        failures=tuple(failures),
        expectations=expectations or Expectations(),
        scenario_ids=tuple(ids),
        stopped=stopped,
    )


def _stop_at(
    failures: list[SubjectFailure],
    why: str,
    fixtures: Sequence[Scenario],
    reports: Sequence[ScenarioReport],
) -> list[SubjectFailure]:
    """The failures, the last hang saying that the run stops there; with no hang to stop at
    (the deadline passed on a subject that answers), a hang of the run itself is added, in
    the first scenario not run."""
    last_stalled = bool(failures) and (failures[-1].kind == "hang" or failures[-1].stalled)
    if last_stalled and why.startswith("the subject hung"):
        last = failures[-1]
        return [*failures[:-1], replace(last, message=f"{last.message}; {why}")]
    ran = {r.scenario_id for r in reports}
    next_id = next((s.id for s in fixtures if s.id not in ran), "(generated)")
    return [*failures, SubjectFailure.of("hang", next_id, why)]
