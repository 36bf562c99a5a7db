"""A fixed number of generated scenarios, the same on every run with the same seed.

They are drawn by Hypothesis from ``harness.strategies.scenarios`` (every action), without
shrinking or an example database, derandomized unless a seed is given, as
``prefix-harness check`` draws them. The same seed gives the same scenarios in every
process, so pytest-xdist workers collect the same items.
"""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings

from ..scenarios import Scenario
from ..strategies import scenarios

__all__ = ["generated_scenarios"]


def generated_scenarios(examples: int, rng_seed: int | None = None) -> tuple[Scenario, ...]:
    """``examples`` scenarios (fewer only when Hypothesis draws one twice), in draw order."""
    if examples <= 0:
        return ()
    drawn: dict[Scenario, None] = {}

    def keep(scenario: Scenario) -> None:
        drawn[scenario] = None

    draw = settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=rng_seed is None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
    )(given(scenarios())(keep))
    if rng_seed is not None:
        draw = seed(rng_seed)(draw)
    draw()
    return tuple(drawn)
