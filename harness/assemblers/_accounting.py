"""Retained-context accounting for delegating work to a spawned child vs doing it inline.

Seed 003 counts "cards" (a message or a tool exchange, with its token size): delegating keeps
the exploration in the child, so the parent retains only the call and the result; inline,
every exploration card stays in the parent's context and is resent with later requests.
Counts are of retained input only: no system prompt, schemas or the child's compute.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate
from typing import Literal

__all__ = ["Card", "Delegation", "Lane", "Retained"]


@dataclass(frozen=True, slots=True)
class Card:
    """One item of a context with its size in tokens."""

    label: str
    tokens: int

    def __post_init__(self) -> None:
        if isinstance(self.tokens, bool) or not isinstance(self.tokens, int) or self.tokens < 0:
            raise ValueError(f"card {self.label!r}: tokens must be a non-negative int")


@dataclass(frozen=True, slots=True)
class Lane:
    """One context (a messages array): its cards in order."""

    cards: tuple[Card, ...] = ()

    @property
    def tokens(self) -> int:
        return sum(c.tokens for c in self.cards)

    @property
    def running(self) -> tuple[int, ...]:
        """The lane's size after each card."""
        return tuple(accumulate(c.tokens for c in self.cards))


@dataclass(frozen=True, slots=True)
class Retained:
    """What each context retains at the end under one strategy."""

    strategy: Literal["delegated", "inline"]
    parent: Lane
    child: Lane


@dataclass(frozen=True, slots=True)
class Delegation:
    """A task that can be delegated or done inline: the same cards either way.

    ``call`` and ``result`` exist only when delegating (the Task call and the child's answer
    as its result); ``prompt`` opens the child's lane; ``exchanges`` are the tool round
    trips, each card counting the request and its result.
    """

    user: Card
    call: Card
    prompt: Card
    exchanges: tuple[Card, ...]
    result: Card
    answer: Card

    def delegated(self) -> Retained:
        """The parent keeps user, call, result and answer; the exploration stays in the child."""
        return Retained(
            "delegated",
            parent=Lane((self.user, self.call, self.result, self.answer)),
            child=Lane((self.prompt, *self.exchanges)),
        )

    def inline(self) -> Retained:
        """Every exchange lands in the parent's own context; there is no child."""
        return Retained(
            "inline", parent=Lane((self.user, *self.exchanges, self.answer)), child=Lane()
        )

    def ratio(self) -> float:
        """How many times more context the parent retains inline than when delegating."""
        delegated = self.delegated().parent.tokens
        if delegated == 0:
            raise ValueError("the delegated parent retains no tokens; the ratio is undefined")
        return self.inline().parent.tokens / delegated
