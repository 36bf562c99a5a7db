"""The sources of many small choices: bytes read as numbers (0 past the end), a text cut into
pieces, a seeded Dice (seed 0 the simplest), strategies built once."""

import random

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from harness.generation._sources import (
    ByteReader,
    Dice,
    TextPool,
    between,
    blobs,
    one_of_these,
    texts,
)


def test_a_byte_reader_reads_in_order_then_zeros() -> None:
    reader = ByteReader(b"\x05\xff\x01\x02")
    assert reader.left == 4
    assert reader.byte() == 5
    assert reader.below(10) == 255 % 10
    assert reader.integer(3) == 0x0102 << 8  # the third byte is past the end: 0
    assert reader.left == 0
    assert (reader.byte(), reader.below(7), reader.integer(2)) == (0, 0, 0)


def test_a_text_pool_cuts_pieces_in_order_until_it_runs_out() -> None:
    pool = TextPool("héllo")
    assert [pool.take(2), pool.take(0), pool.take(2), pool.take(5), pool.take(1)] == [
        "hé",
        "",
        "ll",
        "o",
        "",
    ]


def test_dice_of_seed_0_make_the_simplest_choice() -> None:
    dice = Dice(0)
    assert (dice.below(9), dice.between(3, 8), dice.chance(0.99)) == (0, 3, False)
    assert dice.pick("xyz") == "x"
    assert dice.shuffled([3, 1, 2]) == [3, 1, 2]


@given(st.integers(1, 2**32 - 1))
def test_dice_of_a_seed_make_the_same_choices_every_time(seed: int) -> None:
    def choices(dice: Dice) -> list[object]:
        return [dice.below(1000), dice.between(-5, 5), dice.chance(0.5), dice.shuffled(range(6))]

    first, again = choices(Dice(seed)), choices(Dice(seed))
    assert first == again
    assert 0 <= first[0] < 1000  # type: ignore[operator]
    assert -5 <= first[1] <= 5  # type: ignore[operator]
    assert sorted(first[3]) == list(range(6))  # type: ignore[call-overload]


def test_dice_reach_every_choice() -> None:
    seen = {Dice(seed).below(4) for seed in range(1, 60)}
    assert seen == {0, 1, 2, 3}
    assert any(Dice(seed).chance(0.5) for seed in range(1, 20))


def test_strategies_are_built_once_per_arguments() -> None:
    assert between(0, 9) is between(0, 9)
    assert texts(1, 5) is texts(1, 5)
    assert blobs(0, 8) is blobs(0, 8)
    assert one_of_these(("a", "b")) is one_of_these(("a", "b"))


SIMPLEST = settings(database=None, phases=[Phase.generate, Phase.shrink], max_examples=200)


def test_the_strategies_built_once_shrink_to_their_simplest() -> None:
    assert find(between(0, 1000), lambda x: x >= 17, settings=SIMPLEST) == 17
    assert find(texts(0, 9), lambda t: len(t) >= 3, settings=SIMPLEST) == "000"
    assert find(blobs(0, 9), lambda b: len(b) >= 2, settings=SIMPLEST) == b"\0\0"
    assert between(0, 4) is between(0, 4)


@given(st.integers(1, 2**64))
def test_dice_choices_are_the_generators_rolls(seed: int) -> None:
    dice, rng = Dice(seed), random.Random(seed)
    assert dice.below(7) == int(rng.random() * 7)
    assert dice.between(-3, 3) == -3 + int(rng.random() * 7)
    assert dice.chance(0.5) is (rng.random() < 0.5)
    assert dice.pick("xyz") == "xyz"[int(rng.random() * 3)]
    items = list(range(5))
    rng.shuffle(items)
    assert dice.shuffled(range(5)) == items


def test_seed_0_makes_the_simplest_choices() -> None:
    dice = Dice(0)
    assert (dice.below(7), dice.between(-3, 3), dice.chance(1.0)) == (0, -3, False)
    assert (dice.pick("xyz"), dice.shuffled(range(3))) == ("x", [0, 1, 2])


def test_a_pick_from_nothing_fails_as_before() -> None:
    for seed in (0, 3):
        with pytest.raises(IndexError):
            Dice(seed).pick("")
