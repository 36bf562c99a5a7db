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

import random
from collections.abc import Sequence
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
    the least number, no chance taken). Each choice is one ``random()`` of the seed's
    generator (a shuffle, ``random.shuffle``'s)."""

    __slots__ = ("_rng",)

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed) if seed else None

    def below(self, n: int) -> int:
        """A number 0..n-1."""
        return int(self._rng.random() * n) if self._rng is not None else 0

    def between(self, low: int, high: int) -> int:
        """A number ``low``..``high``."""
        return low + self.below(high - low + 1)

    def chance(self, p: float) -> bool:
        """True with probability ``p``; never for seed 0."""
        return self._rng is not None and self._rng.random() < p

    def pick(self, items: Sequence[T]) -> T:
        """One of ``items`` (not empty)."""
        return items[self.below(len(items))]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """``items`` in an order of the dice's (as given for seed 0)."""
        out = list(items)
        if self._rng is not None:
            self._rng.shuffle(out)
        return out


# --- strategies built once per arguments, on their first call in a draw (never when a module
# is imported: building one while pytest loads a conftest that imports the strategies would be
# a HypothesisSideeffectWarning).


@cache
def between(low: int, high: int) -> st.SearchStrategy[int]:
    """``st.integers(low, high)``."""
    return st.integers(low, high)


@cache
def texts(min_size: int, max_size: int) -> st.SearchStrategy[str]:
    """``st.text(min_size=min_size, max_size=max_size)``."""
    return st.text(min_size=min_size, max_size=max_size)


@cache
def blobs(min_size: int, max_size: int) -> st.SearchStrategy[bytes]:
    """``st.binary(min_size=min_size, max_size=max_size)``."""
    return st.binary(min_size=min_size, max_size=max_size)


@cache
def one_of_these(items: tuple[T, ...]) -> st.SearchStrategy[T]:
    """``st.sampled_from(items)``."""
    return st.sampled_from(items)


@cache
def flags() -> st.SearchStrategy[bool]:
    """``st.booleans()``."""
    return st.booleans()
