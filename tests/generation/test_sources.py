"""The sources of many small choices: bytes read as numbers (0 past the end), a text cut into
pieces, a seeded Dice (seed 0 the simplest), strategies built once and drawn unwrapped."""

import random

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from harness.generation._sources import (
    ByteReader,
    Dice,
    TextPool,
    between,
    blobs,
    one_of_these,
    prebuilt,
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


def test_a_prebuilt_strategy_draws_and_shrinks_as_the_lazy_one() -> None:
    lazy = st.integers(0, 1000)
    assert prebuilt(lazy) is not lazy
    assert find(prebuilt(lazy), lambda x: x >= 17, settings=SIMPLEST) == 17
    assert find(texts(0, 9), lambda t: len(t) >= 3, settings=SIMPLEST) == "000"
    assert find(blobs(0, 9), lambda b: len(b) >= 2, settings=SIMPLEST) == b"\0\0"
    plain = st.just(3)
    assert prebuilt(plain.map(str)).example() == "3"


def test_a_prebuilt_strategy_says_whether_it_is_empty_as_hypothesis_computes_it() -> None:
    for strategy in (st.integers(0, 3), st.nothing(), st.sampled_from([1]).filter(bool)):
        unwrapped = getattr(strategy, "wrapped_strategy", strategy)
        computed = unwrapped.is_empty
        assert prebuilt(strategy).is_empty is computed
    assert prebuilt(st.nothing()).is_empty is True
    assert between(0, 4).is_empty is False


def _seeded(strategy: st.SearchStrategy[object], seed: int) -> list[object]:
    """What a seeded run of 30 examples draws from ``strategy``, in order."""
    seen: list[object] = []

    @settings(database=None, phases=[Phase.generate], max_examples=30, derandomize=False)
    @given(strategy)
    def probe(value: object) -> None:
        seen.append(value)

    hypothesis_seed(seed)(probe)()
    return seen


def test_prebuilt_strategies_draw_what_fresh_lazy_ones_draw() -> None:
    def made(fresh: bool) -> st.SearchStrategy[object]:
        if fresh:
            ints, text, data = st.integers(0, 10**9), st.text(max_size=9), st.binary(max_size=9)
        else:
            ints, text, data = between(0, 10**9), texts(0, 9), blobs(0, 9)
        return st.tuples(ints, text, data, st.lists(ints, max_size=3))

    for seed in (1, 2, 3):
        assert _seeded(made(False), seed) == _seeded(made(True), seed)


class _PlainDice:
    """The dice as first written, each choice through ``below``: the reference the rolls
    the dice hand out (``Dice.rolls``) must follow."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed) if seed else None

    def below(self, n: int) -> int:
        return int(self._rng.random() * n) if self._rng is not None else 0

    def between(self, low: int, high: int) -> int:
        return low + self.below(high - low + 1)

    def chance(self, p: float) -> bool:
        return self._rng is not None and self._rng.random() < p

    def pick(self, items: str) -> str:
        return items[self.below(len(items))]

    def shuffled(self, items: range) -> list[int]:
        out = list(items)
        if self._rng is not None:
            self._rng.shuffle(out)
        return out


def _sequence(dice: Dice | _PlainDice) -> list[object]:
    return [
        dice.below(1),
        dice.below(7),
        dice.between(-3, 3),
        dice.between(5, 5),
        dice.chance(0.0),
        dice.chance(0.5),
        dice.chance(1.0),
        dice.pick("xyz"),
        dice.pick("q"),
        dice.shuffled(range(5)),
        dice.below(2**40),
    ]


@given(st.integers(0, 2**64))
def test_dice_make_the_choices_of_the_plain_dice(seed: int) -> None:
    assert _sequence(Dice(seed)) == _sequence(_PlainDice(seed))


def test_dice_rolls_are_the_generators_own_or_none_for_seed_0() -> None:
    assert Dice(0).rolls is None
    rolls = Dice(7).rolls
    assert rolls is not None
    plain = random.Random(7)
    assert [rolls() for _ in range(3)] == [plain.random() for _ in range(3)]


def test_a_pick_from_nothing_fails_as_before() -> None:
    for seed in (0, 3):
        with pytest.raises(IndexError):
            Dice(seed).pick("")
