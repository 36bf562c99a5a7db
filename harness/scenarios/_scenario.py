"""Scenarios: one test input — preset, parent history, action — in the neutral model
(docs/protocol.md, "The scenario").

A scenario says what the parent has and what is asked of the subject (fork, sibling forks,
a continuable fork, a spawn); what a conforming subject sends follows from it through the
reference assemblers, so a scenario carries no expected bodies of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from ..model import Message, Preset, Text, Tool

__all__ = [
    "ACTIONS",
    "CAPTURED",
    "Action",
    "Continuation",
    "FollowUp",
    "Lifecycle",
    "Scenario",
    "lifecycle_of",
]

Action: TypeAlias = Literal["fork", "siblings", "continuable", "spawn"]
ACTIONS: tuple[Action, ...] = ("fork", "siblings", "continuable", "spawn")
CAPTURED = "captured"
"""The tag of a scenario rebuilt from recorded traffic: its history is the parent's own."""
Lifecycle: TypeAlias = Literal["one-shot", "continuable", "spawn"]


_LIFECYCLES: dict[Action, Lifecycle] = {
    "fork": "one-shot",
    "siblings": "one-shot",
    "continuable": "continuable",
    "spawn": "spawn",
}


def lifecycle_of(action: Action) -> Lifecycle:
    """The child lifecycle a subject must support to run an action."""
    return _LIFECYCLES[action]


@dataclass(frozen=True, slots=True)
class FollowUp:
    """One more exchange of a continuing child: the model's reply and the next user turn."""

    reply: Message
    message: Message


@dataclass(frozen=True, slots=True)
class Continuation:
    """What a continuable fork needs beyond the parent: its task and how it was restored.

    ``tool_filter``/``persona`` are overrides restored on a cold resume; ``output_tool`` and
    ``output_section`` make a child with structured output. All are accepted divergences.
    """

    task: str
    parent_id: str
    tool_filter: tuple[str, ...] | None = None
    persona: tuple[str, ...] | None = None
    output_tool: Tool | None = None
    output_section: str | None = None
    follow_ups: tuple[FollowUp, ...] = ()


@dataclass(frozen=True, slots=True)
class Scenario:
    """One test input with a stable ``id``.

    ``history`` is the parent's conversation at the moment of the action: for a fork it
    usually ends with the model message that calls ``fork_tool``. ``snapshot`` False means
    the parent has no cache-safe parameters yet (first turn): the fork must degrade
    gracefully to ``default_tools`` and the subject's fallback system prompt.
    """

    id: str
    action: Action
    preset: Preset
    history: tuple[Message, ...]
    directives: tuple[str, ...] = ()
    fork_tool: str = "agent"
    snapshot: bool = True
    known_fork_child: bool = False
    default_tools: tuple[Tool, ...] = ()
    continuation: Continuation | None = None
    prompt: str | None = None
    answer: str | None = None
    description: str = ""
    tags: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        problems = self.problems()
        if problems:
            raise ValueError(f"scenario {self.id!r}: " + "; ".join(problems))

    def problems(self) -> tuple[str, ...]:
        """Every reason the scenario cannot be run, as short sentences."""
        found: list[str] = []
        if not self.id or any(c.isspace() for c in self.id):
            found.append("id must be non-empty without white space")
        if self.action not in ACTIONS:
            found.append(f"action {self.action!r} is not one of {ACTIONS}")
        if self.action == "fork" and len(self.directives) != 1:
            found.append("a fork has exactly one directive")
        if self.action == "siblings" and len(self.directives) < 2:
            found.append("siblings need two or more directives")
        if self.action == "continuable" and self.continuation is None:
            found.append("a continuable fork needs a continuation")
        if self.action == "spawn" and not (self.prompt and self.prompt.strip()):
            found.append("a spawn needs a delegation prompt")
        return tuple(found)

    @property
    def lifecycle(self) -> Lifecycle:
        return lifecycle_of(self.action)

    def mentions(self, text: str) -> bool:
        """Whether any text part of the history contains ``text`` (e.g. a boilerplate tag)."""
        return any(isinstance(p, Text) and text in p.text for m in self.history for p in m.parts)
