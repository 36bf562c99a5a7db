"""Generated scenarios of the suite: a fixed number, the same for the same seed."""

from harness.scenarios import ACTIONS, lifecycle_of
from harness.suite import generated_scenarios


def test_the_same_seed_gives_the_same_scenarios() -> None:
    assert generated_scenarios(6) == generated_scenarios(6)
    assert generated_scenarios(6, 3) == generated_scenarios(6, 3)
    assert generated_scenarios(6, 3) != generated_scenarios(6)


def test_as_many_distinct_scenarios_as_asked_of_every_lifecycle() -> None:
    drawn = generated_scenarios(25)
    assert len(set(drawn)) == len(drawn) == 25  # the strategy draws some twice: made up
    assert {s.lifecycle for s in drawn} == {lifecycle_of(a) for a in ACTIONS}
    assert generated_scenarios(0) == ()
    assert generated_scenarios(-1) == ()


def test_the_suite_reads_no_local_constants(local_constants_asked: list[None]) -> None:
    """The test modules collected beside the suite cannot change its items: Hypothesis is
    never asked for the constants of the local modules loaded."""
    assert generated_scenarios(6, 5)
    assert local_constants_asked == []
