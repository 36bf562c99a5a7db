"""A fixed number of generated scenarios, the same on every run with the same seed.

They are drawn by Hypothesis from ``harness.generation.scenarios`` (every action), without
shrinking or an example database, derandomized unless a seed is given, as
``prefix-harness check`` draws them. The same seed gives the same scenarios in every
process, so pytest-xdist workers collect the same items: as for ``check``, Hypothesis mixes
in no constant of the local modules loaded (``no_local_constants``), so the test modules
collected beside the suite change nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings

from ..check import no_local_constants
from ..generation import scenarios
from ..scenarios import Scenario

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
    with no_local_constants():
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
