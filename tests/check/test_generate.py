"""The scenarios a check generates (harness/check/_generate.py): drawn once, the same every
time and in every dialect, near-copies of a long history passed over."""

from __future__ import annotations

from typing import Any

import pytest

from harness.check import _generate, generate, run_check
from harness.check._generate import LONG
from harness.scenarios import ACTIONS, Scenario
from harness.strategies import scenarios

from .support import (
    DIALECTS,
    Recording,
    with_long,
)


def test_generation_is_the_same_every_time_and_for_every_dialect() -> None:
    first = generate(ACTIONS, 8)
    assert len(first) == 8
    assert generate(ACTIONS, 8) == first
    assert generate(ACTIONS, 8, rng_seed=3) == generate(ACTIONS, 8, rng_seed=3)
    subject = Recording()
    run = run_check(subject, [], dialects=DIALECTS, examples=8)
    assert run.exit_code == 0
    assert subject.asked == [s for s in first for _ in DIALECTS]  # drawn once, run per dialect


def test_the_generation_ends_at_its_last_scenario_without_drawing_it_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hypothesis replays the example a test failed on, drawing it again; the generation's
    stop is not a failure, so the last scenario drawn is the very one kept last."""
    seen: list[Scenario] = []

    def counted(**options: Any) -> Any:
        return scenarios(**options).map(lambda s: seen.append(s) or s)

    monkeypatch.setattr(_generate, "scenarios", counted)
    drawn = generate(ACTIONS, 5)
    assert len(drawn) == 5
    assert seen[-1] is drawn[-1]
    assert drawn == generate(ACTIONS, 5)


def test_near_copies_of_a_long_history_are_passed_over() -> None:
    """Hypothesis mutates each example it draws into a few near-copies: a long history comes
    back several times at the same length, and those are not run again."""
    _, drawn = with_long(100)
    assert len(drawn) == 100
    long = [(s.action, len(s.history)) for s in drawn if len(s.history) > LONG]
    assert len(long) == len(set(long))
    assert any(len(s.history) <= LONG for s in drawn)
