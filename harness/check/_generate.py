"""The scenarios a check generates: drawn by Hypothesis from ``harness.generation.scenarios``
once, before any is run, the same ones in every dialect and whatever the number of jobs.

Near-copies of a long history that Hypothesis's mutations draw again are passed over
(``Novel``). The same settings and test function serve the shrinking (``_shrink``), which
runs the generation again up to a failure so that it is drawn at the same place.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Sequence
from typing import Final

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis.errors import HypothesisWarning

from ..generation import long_turns, scenarios
from ..scenarios import Action, Scenario
from ._constants import no_local_constants

__all__ = ["LONG", "Novel", "generate", "hypothesis_run"]


LONG: Final = long_turns()[0]
"""A history of more messages than this is a long one: ``harness.generation`` draws at least
twice as many messages for those (``long_turns``), and short ones of a few turns."""
_HEADROOM: Final = 2
"""Hypothesis is asked for this many times the examples wanted: the draws passed over
(``Novel``) are made up for from the rest."""


class Novel:
    """Whether a drawn scenario is run. Hypothesis's generation mutates each example it draws
    a few times (it copies one part of the example over another), so one long history comes
    back as several near-copies of the same length: each a long run in every dialect, they
    were most of a default check's time, and they add next to nothing. A long history of an
    action and a length already drawn is passed over; short ones all run."""

    def __init__(self) -> None:
        self._seen: set[tuple[str, int]] = set()

    def __call__(self, scenario: Scenario) -> bool:
        if len(scenario.history) <= LONG:
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


def hypothesis_run(
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
    novel = Novel()

    def keep(scenario: Scenario) -> None:
        if novel(scenario):
            drawn.append(scenario)
        if len(drawn) >= examples:
            raise _Enough

    if actions and examples > 0:
        with contextlib.suppress(_Enough):
            hypothesis_run(actions, examples, rng_seed, keep, shrink=False)
    return tuple(drawn)
