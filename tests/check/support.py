"""What the tests of ``harness.check`` share: the corpus and the reference subject."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from harness.check import CheckRun, bundled_fixtures
from harness.scenarios import Scenario, load_fixtures
from harness.subjects import ReferenceSubject

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
