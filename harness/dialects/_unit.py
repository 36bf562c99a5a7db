"""A unit of the rendered prefix: one piece of what the provider renders and caches.

A dialect renders a request into units in cache order (``Dialect.units``). Units are what the
prefix rules compare and what a provider's cache model places its entries between: a tool
declaration, a system block, a message's header (its role and fields of its own), one content
block. Two requests the provider documents as the same prompt render to the same units, byte
for byte; the spelling a unit was read from is kept only as ``path`` and ``applied`` (which
equivalences made it so), for the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

__all__ = ["Unit", "UnitFamily"]

UnitFamily: TypeAlias = Literal["system", "tools", "settings", "history"]


@dataclass(frozen=True, slots=True)
class Unit:
    """One piece of a request's rendered prefix.

    ``name`` is the unit's place in the rendered prompt (``tools[2]``, ``system[0]``,
    ``messages[4]`` for a message's header, ``messages[4].content[1]`` for a block of it),
    the same for every spelling the provider documents as the same prompt; ``path`` is where
    in the body it was read (``messages[5].content`` for a string content). ``value`` is the
    unit as the comparison sees it and ``data`` its compact JSON.

    ``block`` is the unit's index among the positions the provider counts (Anthropic's
    blocks; None for a unit that is no such position, a message header). ``message`` is
    the index of the rendered message holding it (None in the head), ``ends_message``
    whether it is that message's last unit, ``eligible`` whether a cache lookup boundary
    may fall right after it by the provider's rules (OpenAI's eligible message endings),
    ``marker`` the cache marker the body put on it (None: none) and ``applied`` the ids of
    the documented equivalences that reading it applied.
    """

    name: str
    path: str
    family: UnitFamily
    value: Any
    data: bytes
    block: int | None = None
    message: int | None = None
    role: str | None = None
    ends_message: bool = False
    eligible: bool = False
    marker: Any = None
    applied: tuple[str, ...] = ()
