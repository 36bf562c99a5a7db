"""Seed 003's worked example: about 90 tokens retained delegated, 2,128 inline (~24x)."""

import pytest

from harness.assemblers import Card, Delegation, Lane

EXAMPLE = Delegation(
    user=Card("user question", 18),
    call=Card("Task(prompt=...)", 34),
    prompt=Card("child prompt", 26),
    exchanges=(
        Card('search["Aurora Run"]', 432),
        Card('search["Aurora Run (2011)"]', 572),
        Card('search["Northlight"]', 392),
        Card('search["Northlight Pictures"]', 692),
    ),
    result=Card("Northlight Pictures — founded in 1987.", 16),
    answer=Card("The studio was Northlight Pictures, founded in 1987.", 22),
)


def test_delegated_parent_grows_18_52_68_90() -> None:
    retained = EXAMPLE.delegated()
    assert retained.parent.running == (18, 52, 68, 90)
    assert retained.parent.tokens == 90


def test_delegated_child_holds_the_exploration() -> None:
    child = EXAMPLE.delegated().child
    assert child.running == (26, 458, 1030, 1422, 2114)
    assert child.tokens == 2114


def test_inline_parent_holds_every_search() -> None:
    retained = EXAMPLE.inline()
    assert Lane(EXAMPLE.exchanges).running == (432, 1004, 1396, 2088)
    assert retained.parent.tokens == 2128
    assert retained.child.tokens == 0


def test_inline_retains_about_24_times_more() -> None:
    assert EXAMPLE.ratio() == pytest.approx(2128 / 90)
    assert round(EXAMPLE.ratio()) == 24


def test_cards_must_have_a_non_negative_size() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        Card("bad", -1)


def test_ratio_without_delegated_tokens_is_refused() -> None:
    zero = Card("empty", 0)
    with pytest.raises(ValueError, match="undefined"):
        Delegation(zero, zero, zero, (Card("s", 5),), zero, zero).ratio()
