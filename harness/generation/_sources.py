"""Where a strategy's many small choices come from when Hypothesis draws only a few values.

A Hypothesis draw costs far more than the Python that builds a value from it, so the
strategies draw a few large values and build the rest from them:

* ``ByteReader`` reads small numbers from one drawn byte string, 0 once it runs out. Every
  byte string is a valid plan and all zeros (or none) the simplest, so Hypothesis still
  shrinks the value part by part, by deleting and lowering bytes.
* ``Dice`` makes choices from one drawn seed; seed 0 makes the simplest choice every time, so
  a value built from a seed shrinks to its simplest form with the seed.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Sequence
from functools import cache
from typing import TypeVar

from hypothesis import strategies as st

__all__ = [
    "ByteReader",
    "Dice",
    "TextPool",
    "between",
    "blobs",
    "flags",
    "one_of_these",
    "prebuilt",
    "texts",
]

T = TypeVar("T")


class ByteReader:
    """Small numbers read in order from ``data``; 0 for each read past its end."""

    __slots__ = ("_at", "_data")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._at = 0

    @property
    def left(self) -> int:
        """How many bytes are still unread."""
        return len(self._data) - self._at

    def byte(self) -> int:
        """The next byte, 0..255."""
        at = self._at
        if at >= len(self._data):
            return 0
        self._at = at + 1
        return self._data[at]

    def below(self, n: int) -> int:
        """A number 0..n-1 from the next byte (``n`` at most 256)."""
        return self.byte() % n

    def integer(self, size: int) -> int:
        """A number from the next ``size`` bytes, big-endian."""
        value = 0
        for _ in range(size):
            value = value << 8 | self.byte()
        return value


class TextPool:
    """Pieces cut in order from one drawn text; empty once it is used up."""

    __slots__ = ("_at", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._at = 0

    def take(self, size: int) -> str:
        """The next ``size`` characters, fewer when the pool runs out."""
        at = self._at
        self._at = at + size
        return self._text[at : at + size]


class Dice:
    """Choices made from ``seed``; seed 0 makes the simplest one each time (the first item,
    the least number, no chance taken).

    Each choice is one ``random()`` of the seed's generator (a shuffle, ``random.shuffle``'s);
    ``rolls`` hands that function to code that makes many choices in a loop, which then
    spends the same rolls in the same order as these methods would."""

    __slots__ = ("_rng", "rolls")

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed) if seed else None
        self.rolls: Callable[[], float] | None = self._rng.random if self._rng is not None else None
        """The generator's ``random``, or None for seed 0 (every choice the simplest)."""

    def below(self, n: int) -> int:
        """A number 0..n-1."""
        roll = self.rolls
        return int(roll() * n) if roll is not None else 0

    def between(self, low: int, high: int) -> int:
        """A number ``low``..``high``."""
        roll = self.rolls
        return low + (int(roll() * (high - low + 1)) if roll is not None else 0)

    def chance(self, p: float) -> bool:
        """True with probability ``p``; never for seed 0."""
        roll = self.rolls
        return roll is not None and roll() < p

    def pick(self, items: Sequence[T]) -> T:
        """One of ``items`` (not empty)."""
        roll = self.rolls
        return items[int(roll() * len(items)) if roll is not None else 0]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """``items`` in an order of the dice's (as given for seed 0)."""
        out = list(items)
        if self._rng is not None:
            self._rng.shuffle(out)
        return out


# --- strategies built once ---------------------------------------------------------------------
# A strategy built inside a draw pays Hypothesis's checks and labelling on every draw, so each
# of these is built once per arguments; and drawn as built, not through the lazy wrapper that
# ``st.integers`` and its kind return (Hypothesis unwraps that on every draw). They are built
# on their first call in a draw, never when a module is imported: building one while pytest
# loads a conftest that imports the strategies would be a HypothesisSideeffectWarning.


def prebuilt(strategy: st.SearchStrategy[T]) -> st.SearchStrategy[T]:
    """``strategy`` as Hypothesis draws it: the strategy a lazy wrapper stands for, which
    draws the same choices under the same label (``strategy`` itself if it is not one)."""
    wrapped: st.SearchStrategy[T] = getattr(strategy, "wrapped_strategy", strategy)
    _settled(wrapped)
    return wrapped


def _settled(strategy: st.SearchStrategy[T]) -> None:
    """Have ``strategy`` say at once whether it is empty. Hypothesis asks that on every draw
    (``is_empty``), and reads the answer it computed once through a first lookup of an
    override (``force_is_empty``) that fails, a few microseconds each time; the answer is
    stored as that override: the same answer, found at the first lookup. A Hypothesis that
    reads the property otherwise just ignores the attribute."""
    empty = strategy.is_empty
    with contextlib.suppress(AttributeError, TypeError):
        strategy.force_is_empty = empty  # type: ignore[attr-defined]


@cache
def between(low: int, high: int) -> st.SearchStrategy[int]:
    """``st.integers(low, high)``."""
    return prebuilt(st.integers(low, high))


@cache
def texts(min_size: int, max_size: int) -> st.SearchStrategy[str]:
    """``st.text(min_size=min_size, max_size=max_size)``."""
    return prebuilt(st.text(min_size=min_size, max_size=max_size))


@cache
def blobs(min_size: int, max_size: int) -> st.SearchStrategy[bytes]:
    """``st.binary(min_size=min_size, max_size=max_size)``."""
    return prebuilt(st.binary(min_size=min_size, max_size=max_size))


@cache
def one_of_these(items: tuple[T, ...]) -> st.SearchStrategy[T]:
    """``st.sampled_from(items)``."""
    return prebuilt(st.sampled_from(items))


@cache
def flags() -> st.SearchStrategy[bool]:
    """``st.booleans()``."""
    return prebuilt(st.booleans())
