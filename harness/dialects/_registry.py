"""Finding dialects: every public module of this package that exports ``DIALECT`` is one."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from functools import cache
from typing import Any

from ._base import Dialect

__all__ = ["all_dialects", "detect_dialect", "get_dialect"]


@cache
def all_dialects() -> dict[str, Dialect]:
    """Every installed dialect by name, in name order."""
    found: dict[str, Dialect] = {}
    for info in pkgutil.iter_modules(_package_paths()):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__package__}.{info.name}")
        dialect = getattr(module, "DIALECT", None)
        if isinstance(dialect, Dialect):
            found[dialect.name] = dialect
    return dict(sorted(found.items()))


def _package_paths() -> list[str]:
    package = importlib.import_module(__package__ or "harness.dialects")
    return list(package.__path__)


def get_dialect(name: str) -> Dialect:
    """The dialect called ``name``; ``KeyError`` with the known names otherwise."""
    dialects = all_dialects()
    try:
        return dialects[name]
    except KeyError:
        raise KeyError(f"unknown dialect {name!r}; known dialects: {', '.join(dialects)}") from None


def detect_dialect(body: Mapping[str, Any]) -> tuple[Dialect | None, bool]:
    """The dialect a decoded body most looks like, and whether that was unambiguous.

    Returns ``(None, False)`` when no dialect recognizes it.
    """
    scores = sorted(
        ((d.detect(body), name, d) for name, d in all_dialects().items()),
        key=lambda item: (-item[0], item[1]),
    )
    best_score, _, best = scores[0]
    if best_score <= 0:
        return None, False
    tied = len(scores) > 1 and scores[1][0] == best_score
    return best, not tied
