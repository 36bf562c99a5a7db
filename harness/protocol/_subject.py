"""What a subject (the implementation under test) gives back for one scenario
(docs/protocol.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias, runtime_checkable

from ..scenarios import Lifecycle, Scenario

__all__ = ["Outcome", "OutcomeStatus", "Subject"]

OutcomeStatus: TypeAlias = Literal["assembled", "rejected", "skipped", "errored"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """The request bodies a subject would send for a scenario, exactly as it would POST them.

    ``parent`` is the parent's request that produced the last model message of the span the
    child inherits (for a one-shot fork: the history less a trailing user message; for a
    continuable fork: the completed turns); None when that span has no model message.
    ``children`` are the children's first requests (one per sibling). ``follow_ups`` are a
    continuing child's later requests, in order. ``parent_next`` is, for a spawn, the
    parent's request after it received the child's answer. ``message`` is the rejection
    error, the reason for a skip, or what went wrong.
    """

    status: OutcomeStatus
    parent: bytes | None = None
    children: tuple[bytes, ...] = ()
    follow_ups: tuple[bytes, ...] = ()
    parent_next: bytes | None = None
    message: str | None = None


@runtime_checkable
class Subject(Protocol):
    """An implementation under test: names itself and assembles request bodies."""

    @property
    def name(self) -> str: ...

    @property
    def dialects(self) -> tuple[str, ...]: ...

    @property
    def lifecycles(self) -> tuple[Lifecycle, ...]: ...

    def assemble(self, scenario: Scenario, dialect: str) -> Outcome:
        """The bodies for ``scenario`` in ``dialect``; never raises for a valid scenario."""
        ...
