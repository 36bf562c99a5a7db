"""A check's draws, kept apart from the source code loaded around them.

Hypothesis mixes into what it draws the constants it reads from the source of every "local"
module loaded: any module outside site-packages and the standard library, such as the harness
itself when installed editable, or a ``python:`` subject's own module. A check's scenarios
would then change with any literal of that code: between an editable and a regular install
of one release, between two subjects, from one commit to the next. Reading those sources
also costs a fresh check a few tenths of a second. ``no_local_constants`` runs a generation
with none of them; Hypothesis's own edge values stay.

Hypothesis has no setting for this: the names patched are its own, looked up when it draws,
and when a release has none of them the generation runs as it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["no_local_constants"]


@contextmanager
def no_local_constants() -> Iterator[bool]:
    """While the block runs, Hypothesis draws no constant of local modules; True if it could
    be told so. Its cache of the constants each kind of draw permits is set aside too, so
    that none found before the block is drawn in it, and is given back after."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a Hypothesis without the feature
        yield False
        return
    names = ("_get_local_constants", "CONSTANTS_CACHE", "Constants")
    found: dict[str, Any] = {n: getattr(providers, n, None) for n in names}
    cache, empty_of = found["CONSTANTS_CACHE"], found["Constants"]
    if None in found.values() or not hasattr(cache, "max_size"):
        yield False
        return
    empty = empty_of()
    providers._get_local_constants = lambda: empty
    providers.CONSTANTS_CACHE = type(cache)(cache.max_size)
    try:
        yield True
    finally:
        providers._get_local_constants = found["_get_local_constants"]
        providers.CONSTANTS_CACHE = cache
