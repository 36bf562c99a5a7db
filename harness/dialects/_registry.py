"""The registry of dialects: everything that lists dialects asks here.

The built-in dialects (one package each under ``harness.dialects``) are registered when this
package is imported; code outside it adds one with ``register`` (and may take it away again
with ``unregister``). The command line's ``--dialect`` choices, the fake provider's routes
and SDK environment, the rule catalog's scopes and the test lists all derive from
``all_dialects``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._base import Dialect
from ._wire import Wire

__all__ = [
    "all_dialects",
    "detect_dialect",
    "get_dialect",
    "providers",
    "register",
    "unregister",
    "wires",
]

_DIALECTS: dict[str, Dialect] = {}
"""Every registered dialect, by name."""


def register(dialect: Dialect) -> Dialect:
    """Make ``dialect`` known under its name to everything that lists dialects, and return
    it. ``ValueError`` when another dialect has that name already."""
    if not isinstance(dialect, Dialect):
        raise TypeError(f"expected a Dialect, not {type(dialect).__name__}")
    held = _DIALECTS.get(dialect.name)
    if held is not None and held is not dialect:
        raise ValueError(f"a dialect named {dialect.name!r} is registered already")
    wire = dialect.wire
    if wire is not None and wire.dialect != dialect.name:
        raise ValueError(f"the {dialect.name} dialect's wire is the {wire.dialect} wire")
    _DIALECTS[dialect.name] = dialect
    return dialect


def unregister(name: str) -> None:
    """Forget the dialect called ``name`` (a test's own, say); nothing when there is none."""
    _DIALECTS.pop(name, None)


def all_dialects() -> dict[str, Dialect]:
    """Every registered dialect by name, in name order."""
    return dict(sorted(_DIALECTS.items()))


def get_dialect(name: str) -> Dialect:
    """The dialect called ``name``; ``KeyError`` with the known names otherwise."""
    try:
        return _DIALECTS[name]
    except KeyError:
        known = ", ".join(all_dialects())
        raise KeyError(f"unknown dialect {name!r}; known dialects: {known}") from None


def wires() -> dict[str, Wire]:
    """The capture side of every dialect that has one, by dialect name."""
    return {name: d.wire for name, d in all_dialects().items() if d.wire is not None}


def providers() -> dict[str, tuple[Wire, ...]]:
    """The wires a fake provider serves, by the dialect it is asked for with: that dialect's
    wire first, then the wires of the other dialects of the same provider (an OpenAI
    endpoint serves chat completions and responses alike). The first wire gives the base
    URL and the shape of refusals for URLs that no wire has."""
    found = all_dialects()
    out: dict[str, tuple[Wire, ...]] = {}
    for name, wire in wires().items():
        provider = found[name].facts.provider
        others = [
            w
            for other, w in wires().items()
            if other != name and found[other].facts.provider == provider
        ]
        out[name] = (wire, *others)
    return out


def detect_dialect(body: Mapping[str, Any]) -> tuple[Dialect | None, bool]:
    """The dialect a decoded body most looks like, and whether that was unambiguous.

    Returns ``(None, False)`` when no dialect recognizes it.
    """
    scores = sorted(
        ((d.detect(body), name, d) for name, d in all_dialects().items()),
        key=lambda item: (-item[0], item[1]),
    )
    if not scores:
        return None, False
    best_score, _, best = scores[0]
    if best_score <= 0:
        return None, False
    tied = len(scores) > 1 and scores[1][0] == best_score
    return best, not tied
