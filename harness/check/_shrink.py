"""Shrinking the first generated scenario that failed in a dialect to a minimal one.

The generation is run again without the subject up to the failing scenario (drawn at the
same place, the same draws passed over), which then fails, and Hypothesis shrinks it as if
it had failed during generation: it and the smaller scenarios Hypothesis tries are run by
the subject. A scenario the subject hung on (or could not start for) is not shrunk, as
every try would cost a timeout; nor is one that did not fail when replayed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from hypothesis.errors import Flaky

from ..protocol import Subject
from ..rules import ScenarioReport
from ..scenarios import Action, Scenario
from ..subjects import SubjectFailure
from ._generate import Novel, hypothesis_run
from ._one import run_one
from ._results import ShrunkFailure

__all__ = ["Found", "shrink"]

_UNSHRINKABLE: Final = {
    "hang": "the subject hung, and each try would cost a timeout",
    "start": "the subject could not be started",
}
_NOT_AGAIN: Final = "it did not fail again when replayed (the subject is not deterministic)"
_NOT_REDRAWN: Final = (
    "the generation did not draw it again (Hypothesis also draws constants of the local "
    "modules loaded, and one was loaded since)"
)


class _Failed(Exception):
    """Raised inside the Hypothesis probe so that it shrinks a failing scenario."""


def shrink(
    subject: Subject,
    dialect: str,
    actions: Sequence[Action],
    examples: int,
    rng_seed: int | None,
    found: Found,
    *,
    strict: bool = False,
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
    novel = Novel()

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
        report, crashed = run_one(subject, scenario, dialect, strict=strict)
        if report.failed or crashed:
            failing.append((scenario, report))
            raise _Failed

    try:
        hypothesis_run(actions, examples, rng_seed, probe, shrink=True)
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
class Found:
    """The first generated scenario of a dialect that failed: where it was drawn, and why."""

    index: int
    scenario: Scenario
    report: ScenarioReport
    crashed: Sequence[SubjectFailure]
