"""What the tests of ``harness.check`` share: the corpus, the reference subject and subjects
that record, hang or raise."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

from harness.check import CheckRun, bundled_fixtures, generate
from harness.check._generate import LONG
from harness.protocol import Outcome
from harness.scenarios import ACTIONS, Lifecycle, Scenario, load_fixtures
from harness.subjects import ReferenceSubject, SubjectFailure

DIALECTS = ("anthropic", "gemini", "openai")
REFERENCE = ReferenceSubject()
FAKES = Path(__file__).resolve().parents[1] / "subjects" / "fakes"


@cache
def corpus() -> tuple[Scenario, ...]:
    return tuple(load_fixtures(bundled_fixtures()))


@cache
def oneshot() -> tuple[Scenario, ...]:
    return tuple(load_fixtures(bundled_fixtures() / "oneshot.json"))


def fixture(scenario_id: str) -> Scenario:
    return next(s for s in corpus() if s.id == scenario_id)


def failed(run: CheckRun) -> set[tuple[str, str]]:
    """(scenario, rule) of every unexpected failure."""
    return {(r.scenario_id, f.rule) for r, f in run.unexpected_failures}


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


def with_long(examples: int) -> tuple[int | None, tuple[Scenario, ...]]:
    """The first seed (the default first) whose draw of ``examples`` has a long history, and
    that draw: which draws hold one depends on what Hypothesis draws, so find one, do not
    assume it."""
    for rng_seed in (None, 1, 2, 3):
        drawn = generate(ACTIONS, examples, rng_seed=rng_seed)
        if any(len(s.history) > LONG for s in drawn):
            return rng_seed, drawn
    raise AssertionError(f"no long history among {examples} drawn scenarios of four seeds")
