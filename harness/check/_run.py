"""Running a subject over the fixture corpus and generated scenarios, rules on every outcome.

Generated scenarios come from ``harness.strategies.scenarios`` through Hypothesis, drawn once
before any is run (the same ones in every dialect, and whatever the number of jobs; near-copies
of a long history that Hypothesis's mutations draw again are passed over, ``_Novel``); the
first that fails in a dialect ends that dialect's generated runs, and is shrunk by Hypothesis
to a minimal scenario before it is shown: the generation is run again up to it, then it and
the smaller scenarios Hypothesis tries are run by the subject. A scenario the subject hung
on (or could not start for) is not shrunk, as every try would cost a timeout; nor is one
that did not fail when replayed.

A fixture whose lifecycle the subject lacks, or a dialect it does not speak, gives a report
whose every rule is not applicable, as ``harness.rules.run_subject`` does; the subject is not
asked.

Nothing a subject returns or raises ends the run: an exception of the subject (``sys.exit()``
included) is its crash on that scenario, and an outcome the rules cannot be evaluated on is
its failure on that scenario too (a protocol error naming what raised). A subject that hangs
on everything does not cost every scenario a timeout: the run stops after ``max_hangs``
hangs in a row, or when its ``deadline`` has passed (checked between scenarios), and says
so in the failure it stops at. At the end a subject with a ``finish()`` (a process) is
stopped, and what it wrote after its last reply is a failure too.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis.errors import Flaky, HypothesisWarning

from ..rules import Finding, ScenarioReport, catalog, evaluate
from ..rules._engine import EvaluationError
from ..scenarios import ACTIONS, Action, Scenario, lifecycle_of
from ..strategies import long_turns, scenarios
from ..subjects import Outcome, Subject, SubjectFailure, guarded_assemble
from ._constants import no_local_constants
from ._expect import Expectations, KnownFailure
from ._jobs import Workers

__all__ = ["CheckRun", "Progress", "ShrunkFailure", "generate", "run_check"]

Progress = Callable[[int, int, str], None]
"""Called as ``progress(done, total, what)`` after each scenario run; ``total`` is fixed and
the last call has ``done == total``."""

_UNSHRINKABLE: Final = {
    "hang": "the subject hung, and each try would cost a timeout",
    "start": "the subject could not be started",
}
_NOT_AGAIN: Final = "it did not fail again when replayed (the subject is not deterministic)"
_NOT_REDRAWN: Final = (
    "the generation did not draw it again (Hypothesis also draws constants of the local "
    "modules loaded, and one was loaded since)"
)
_REASONS_SHOWN: Final = 3
MAX_HANGS: Final = 3
"""Hangs in a row after which a run stops (``max_hangs``; 0 never stops)."""


@dataclass(frozen=True, slots=True)
class ShrunkFailure:
    """A generated scenario that failed, shrunk by Hypothesis, with its report.

    ``unshrunk`` says why the scenario is shown as generated rather than shrunk (the subject
    hung on it, or it did not fail again when replayed); None when it is the minimal one.
    """

    dialect: str
    scenario: Scenario
    report: ScenarioReport
    unshrunk: str | None = None


@dataclass(frozen=True, slots=True)
class CheckRun:
    """Everything a check found; ``exit_code`` follows the README's table (0 conforming,
    1 a rule failed, 3 the subject failed, 4 inconclusive: nothing was checked)."""

    subject: str
    dialects: tuple[str, ...]
    reports: tuple[ScenarioReport, ...]
    generated: int
    """How many of the reports are of generated scenarios."""
    shrunk: tuple[ShrunkFailure, ...]
    failures: tuple[SubjectFailure, ...]
    expectations: Expectations = field(default_factory=Expectations)
    scenario_ids: tuple[str, ...] | None = None
    """Every scenario id of the run, those not run included (None: the reports' ids)."""
    stopped: str | None = None
    """Why the run stopped before its end (hangs in a row, the deadline), or None."""

    def expected_failure(self, report: ScenarioReport, finding: Finding) -> KnownFailure | None:
        return self.expectations.expected(
            report.subject, report.scenario_id, report.dialect, finding.rule
        )

    @property
    def unexpected_failures(self) -> list[tuple[ScenarioReport, Finding]]:
        return [
            (r, f)
            for r in self.reports
            for f in r.findings
            if f.status == "fail" and self.expected_failure(r, f) is None
        ]

    @property
    def stale_expectations(self) -> list[tuple[KnownFailure, str]]:
        """Entries that can never match in this run, with why (see ``never_matching``)."""
        ids = self.scenario_ids
        if ids is None:
            ids = tuple(r.scenario_id for r in self.reports)
        return self.expectations.never_matching(
            scenarios=set(ids), dialects=self.dialects, subject=self.subject
        )

    @property
    def unexpected_passes(self) -> list[tuple[KnownFailure, str]]:
        """Entries whose rule passed where they expected a failure, then the stale ones
        (``where`` says which: ``stale, never matches: ...``); each makes the exit code 1."""
        return self.expectations.unexpected_passes(self.reports) + self.stale_expectations

    @property
    def inconclusive(self) -> tuple[str, ...]:
        """Why the run is no evidence either way, when no rule of any scenario run found
        anything (each was skipped by the subject or not run); empty when some rule did."""
        if any(f.status != "not-applicable" for r in self.reports for f in r.findings):
            return ()
        if not self.reports:
            return ("no scenario was run",)
        whys: dict[str, int] = {}
        for report in self.reports:
            why = report.findings[0].message if report.findings else "no finding"
            whys[why] = whys.get(why, 0) + 1
        shown = [f"{n} × {why}" for why, n in sorted(whys.items(), key=lambda kv: -kv[1])]
        more = len(shown) - _REASONS_SHOWN
        head = f"none of the {len(self.reports)} scenario runs was checked by any rule"
        return (head, *shown[:_REASONS_SHOWN], *([f"and {more} more reasons"] if more > 0 else []))

    @property
    def exit_code(self) -> int:
        if self.failures:
            return 3
        if self.unexpected_failures or self.unexpected_passes:
            return 1
        return 4 if self.inconclusive else 0


class _Failed(Exception):
    """Raised inside the Hypothesis probe so that it shrinks a failing scenario."""


class _Budget:
    """Hangs in a row and the deadline: whether the run goes on (``spent`` says why not)."""

    def __init__(self, max_hangs: int, deadline: float | None) -> None:
        self.max_hangs = max_hangs
        self.deadline = deadline
        self.ends = None if deadline is None else time.monotonic() + deadline
        self.hangs = 0
        self.spent: str | None = None

    def over(self) -> bool:
        """Whether the run must stop before the next scenario (the deadline is checked here)."""
        if self.spent is None and self.ends is not None and time.monotonic() >= self.ends:
            self.spent = f"the run's deadline of {self.deadline:g} s has passed"
        return self.spent is not None

    def count(self, crashed: Sequence[SubjectFailure]) -> None:
        self.hangs = self.hangs + 1 if any(f.kind == "hang" for f in crashed) else 0
        if self.max_hangs and self.hangs >= self.max_hangs and self.spent is None:
            self.spent = f"the subject hung on {self.hangs} scenarios in a row"


def _one(
    subject: Subject, scenario: Scenario, dialect: str
) -> tuple[ScenarioReport, Sequence[SubjectFailure]]:
    outcome: Outcome = guarded_assemble(subject, scenario, dialect)
    try:
        report = evaluate(scenario, dialect, outcome, subject=subject.name)
    except Exception as e:  # an EvaluationError, or a bare Subject's name that raised
        what = str(e) if isinstance(e, EvaluationError) else f"{type(e).__name__}: {e}"
        detail = f"the harness cannot evaluate the bodies it returned: {what}"
        outcome = SubjectFailure.of("protocol", scenario.id, detail)
        report = evaluate(scenario, dialect, outcome, subject=_name(subject))
    return report, [outcome] if isinstance(outcome, SubjectFailure) else []


def _name(subject: Subject) -> str:
    try:
        return str(subject.name)
    except Exception:
        return "subject"


def _not_run(subject: Subject, scenario: Scenario, dialect: str) -> ScenarioReport | None:
    """A report of every rule not applicable when the subject cannot run ``scenario``."""
    if dialect not in subject.dialects:
        why = f"the subject {subject.name} does not speak {dialect}"
    elif scenario.lifecycle not in subject.lifecycles:
        why = f"the subject {subject.name} has no {scenario.lifecycle} lifecycle"
    else:
        return None
    findings = tuple(Finding(info.id, "not-applicable", why) for info in catalog())
    return ScenarioReport(scenario.id, dialect, subject.name, findings)


_LONG: Final = long_turns()[0]
"""A history of more messages than this is a long one: ``harness.strategies`` draws at least
twice as many messages for those (``long_turns``), and short ones of a few turns."""
_HEADROOM: Final = 2
"""Hypothesis is asked for this many times the examples wanted: the draws passed over
(``_Novel``) are made up for from the rest."""


class _Novel:
    """Whether a drawn scenario is run. Hypothesis's generation mutates each example it draws
    a few times (it copies one part of the example over another), so one long history comes
    back as several near-copies of the same length: each a long run in every dialect, they
    were most of a default check's time, and they add next to nothing. A long history of an
    action and a length already drawn is passed over; short ones all run."""

    def __init__(self) -> None:
        self._seen: set[tuple[str, int]] = set()

    def __call__(self, scenario: Scenario) -> bool:
        if len(scenario.history) <= _LONG:
            return True
        key = (scenario.action, len(scenario.history))
        if key in self._seen:
            return False
        self._seen.add(key)
        return True


class _Enough(BaseException):
    """Raised by the generation's test once it has drawn every scenario wanted.

    Not an ``Exception``: Hypothesis takes those for a failure, and replays the example that
    raised one (drawing its scenario again and building its repr, for a report never shown)
    before it raises it; any other ``BaseException`` but ``SystemExit`` and ``GeneratorExit``
    stops the run at once, as ``KeyboardInterrupt`` does."""


def _hypothesis_run(
    actions: Sequence[Action],
    examples: int,
    rng_seed: int | None,
    visit: Callable[[Scenario], None],
    *,
    shrink: bool,
) -> None:
    """One Hypothesis run of ``visit`` over ``scenarios(actions=...)``: the same settings and
    the same test function each time (derandomized, Hypothesis seeds from the function's
    code), so that the same seed draws the same scenarios in the same order. Without
    ``shrink`` a failure ends the run at once; ``generate`` ends it with ``_Enough``, which
    Hypothesis does not take for a failure."""

    def probe(scenario: Scenario) -> None:
        visit(scenario)

    phases = (Phase.generate, Phase.shrink) if shrink else (Phase.generate,)
    test = settings(
        max_examples=examples * _HEADROOM,
        database=None,
        deadline=None,
        derandomize=rng_seed is None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
    )(given(scenarios(actions=actions))(probe))
    if rng_seed is not None:
        test = seed(rng_seed)(test)
    with warnings.catch_warnings(), no_local_constants():
        warnings.simplefilter("ignore", HypothesisWarning)  # about the run, not the subject
        test()


def generate(
    actions: Sequence[Action], examples: int, rng_seed: int | None = None
) -> tuple[Scenario, ...]:
    """The scenarios a check generates for a subject with ``actions``, in order: up to
    ``examples``, the same for every dialect and every ``--jobs``."""
    drawn: list[Scenario] = []
    novel = _Novel()

    def keep(scenario: Scenario) -> None:
        if novel(scenario):
            drawn.append(scenario)
        if len(drawn) >= examples:
            raise _Enough

    if actions and examples > 0:
        with contextlib.suppress(_Enough):
            _hypothesis_run(actions, examples, rng_seed, keep, shrink=False)
    return tuple(drawn)


def _shrink(
    subject: Subject,
    dialect: str,
    actions: Sequence[Action],
    examples: int,
    rng_seed: int | None,
    found: _Found,
) -> ShrunkFailure:
    """The failure ``found`` shrunk by Hypothesis: the generation is run again without the
    subject up to the failing scenario (drawn at the same place, the same draws passed over),
    which then fails, and Hypothesis shrinks it as if it had failed during generation."""
    why = next((_UNSHRINKABLE[f.kind] for f in found.crashed if f.kind in _UNSHRINKABLE), None)
    if why is not None:
        return ShrunkFailure(dialect, found.scenario, found.report, why)
    failing: list[tuple[Scenario, ScenarioReport]] = []
    seen = [0]
    replayed: list[bool] = []
    novel = _Novel()

    def probe(scenario: Scenario) -> None:
        if not replayed and not novel(scenario):
            return  # passed over by the generation: not counted
        index = seen[0]
        seen[0] += 1
        if index < found.index or (replayed and not failing):
            return  # before the failure, or after a replay that passed: no subject
        if index == found.index:
            replayed.append(scenario == found.scenario)
            if not replayed[0]:
                return  # drawn otherwise this time: shown as it was found
        report, crashed = _one(subject, scenario, dialect)
        if report.failed or crashed:
            failing.append((scenario, report))
            raise _Failed

    try:
        _hypothesis_run(actions, examples, rng_seed, probe, shrink=True)
    except (_Failed, Flaky) as e:
        if not failing:
            raise
        if isinstance(e, Flaky):  # the minimal one passed when replayed at the end
            return ShrunkFailure(dialect, found.scenario, found.report, _NOT_AGAIN)
        scenario, report = failing[-1]  # the last failure Hypothesis replays is the minimal one
        return ShrunkFailure(dialect, scenario, report)
    why = _NOT_AGAIN if not replayed or replayed[0] else _NOT_REDRAWN
    return ShrunkFailure(dialect, found.scenario, found.report, why)


@dataclass(frozen=True, slots=True)
class _Found:
    """The first generated scenario of a dialect that failed: where it was drawn, and why."""

    index: int
    scenario: Scenario
    report: ScenarioReport
    crashed: Sequence[SubjectFailure]


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
                report = _not_run(subject, scenario, dialect)
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
    """
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
    found: dict[str, _Found] = {}
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
        pool = Workers(min(jobs, runnable), spawn, work, _one, _name(subject), wanted)
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
                report, crashed = _one(subject, item.scenario, item.dialect)
            else:
                report, crashed = pool.result(position)
            ranked[item.rank] = report
            failures.extend(crashed)
            budget.count(crashed)
            if item.generated is not None:
                generated_ids[report.scenario_id] = None
                if report.failed or crashed:  # later runs of the dialect are passed over
                    found[item.dialect] = _Found(item.generated, item.scenario, report, crashed)
            tick(what)
            if budget.spent is not None:
                break
    finally:
        if pool is not None:
            pool.close()
    reports = [ranked[rank] for rank in sorted(ranked)]
    ids = {**dict.fromkeys(s.id for s in fixtures), **generated_ids}
    generated_runs = sum(1 for item in plan if item.generated is not None and item.rank in ranked)
    shrunk = [
        _shrink(subject, dialect, actions, examples, rng_seed, found[dialect])
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
    if failures and failures[-1].kind == "hang" and why.startswith("the subject hung"):
        last = failures[-1]
        return [*failures[:-1], replace(last, message=f"{last.message}; {why}")]
    ran = {r.scenario_id for r in reports}
    next_id = next((s.id for s in fixtures if s.id not in ran), "(generated)")
    return [*failures, SubjectFailure.of("hang", next_id, why)]
