"""A fixed number of generated scenarios, the same on every run with the same seed.

They are drawn by Hypothesis from ``harness.strategies.scenarios`` (every action), without
shrinking or an example database, derandomized unless a seed is given, as
``prefix-harness check`` draws them. The same seed gives the same scenarios in processes
that load the same code, so pytest-xdist workers collect the same items (Hypothesis also
draws constants it finds in the local modules loaded, so another set of test modules in the
same run may give other scenarios).
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings

from ..scenarios import Scenario
from ..strategies import scenarios

__all__ = ["generated_scenarios"]


_ROUNDS = 10


def _draw(count: int, rng_seed: int | None, keep: Callable[[Scenario], None]) -> None:
    draw = settings(
        max_examples=count,
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


def generated_scenarios(examples: int, rng_seed: int | None = None) -> tuple[Scenario, ...]:
    """``examples`` distinct scenarios, in draw order: a scenario drawn twice is kept once,
    and a shortfall is made up from another round of draws with a seed derived from
    ``rng_seed`` (fewer only if ten rounds do not reach the number)."""
    drawn: dict[Scenario, None] = {}
    for round_ in range(_ROUNDS):
        if len(drawn) >= examples:
            break
        derived = rng_seed if round_ == 0 else (rng_seed or 0) * _ROUNDS + round_
        _draw(examples, derived, lambda s: drawn.setdefault(s, None))
    return tuple(drawn)[: max(examples, 0)]
