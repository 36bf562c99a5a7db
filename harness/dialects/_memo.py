"""TO BE REMOVED once the callers outside this package are gone (issue 26, the ``plain``
branch): thin stand-ins for the reading caches this package no longer has.

``vouched`` does nothing; ``on_forget`` and ``forget`` still call the hooks registered from
outside (stores of their own that the callers empty), and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["forget", "on_forget", "vouched"]

_HOOKS: list[Callable[[], None]] = []

_FEW = 8
"""Unused: kept while tests outside this package still patch it."""


def forget() -> None:
    """Call every hook ``on_forget`` registered."""
    for hook in _HOOKS:
        hook()


def on_forget(hook: Callable[[], None]) -> None:
    """Have ``forget`` call ``hook``."""
    _HOOKS.append(hook)


@contextmanager
def vouched(arrays: Iterable[list[Any]]) -> Iterator[None]:
    """Does nothing: the dialects read every body afresh."""
    yield
