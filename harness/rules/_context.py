"""Everything the rules read about one scenario, dialect and outcome, computed once.

The bodies come from the subject; what they should hold comes from the scenario: the inherited
span (a one-shot fork's history less a trailing user message, a continuable fork's completed
turns). A child is judged against the subject's own parent body, which is what the provider
has cached; the scenario is the reference only for content (``_content``), never for bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate

import orjson

from ..dialects import CacheScope, Dialect
from ..model import Message
from ..prefix import Divergence, locate
from ..protocol import Outcome
from ..scenarios import CAPTURED, Scenario, completed_prefix
from ._body import Body, message_frames, read_body
from ._continuation import resolve
from ._report import Cost

__all__ = ["Context", "encoded", "inherited_span", "parent_span"]


def inherited_span(scenario: Scenario) -> tuple[Message, ...]:
    """The part of the parent's history a child must repeat verbatim (none for a spawn)."""
    history = scenario.history
    if scenario.action == "continuable":
        return completed_prefix(history)
    if scenario.action == "spawn":
        return ()
    return history[:-1] if history and history[-1].role == "user" else history


def parent_span(scenario: Scenario) -> tuple[Message, ...]:
    """The messages the parent's body holds: those before the last model message that the
    child inherits (a spawn's: before its delegating turn)."""
    span = scenario.history if scenario.action == "spawn" else inherited_span(scenario)
    last = next((k for k in range(len(span) - 1, -1, -1) if span[k].role == "model"), 0)
    return tuple(span[:last])


@dataclass(frozen=True, eq=False)
class Context:
    """A scenario, its dialect, the subject's outcome and its bodies as read (or why not)."""

    scenario: Scenario
    dialect: Dialect
    outcome: Outcome
    parent: Body | None = None
    children: tuple[Body, ...] = ()
    follow_ups: tuple[Body, ...] = ()
    parent_next: Body | None = None
    problems: tuple[tuple[str, str], ...] = ()
    """(label, why) of each body that does not parse."""
    _divergences: dict[str, Divergence | None] = field(default_factory=dict, repr=False)
    _counts: dict[str, int] = field(default_factory=dict, repr=False)
    """Each body's ``inherited_count``, by label."""
    _starts: dict[str, tuple[int, ...]] = field(default_factory=dict, repr=False)
    """Each body's ``message_starts``, by label."""

    @classmethod
    def read(cls, scenario: Scenario, dialect: Dialect, outcome: Outcome) -> Context:
        """Read every body of ``outcome``; those that do not parse become ``problems``."""
        problems: list[tuple[str, str]] = []

        def one(
            label: str, raw: bytes | None, answer: tuple[Message, ...] | None = None
        ) -> Body | None:
            if raw is None:
                return None
            body: Body | str = read_body(label, raw, dialect)
            if isinstance(body, Body) and dialect.continued(body.parsed.body) is not None:
                judged = resolve(label, body.parsed.body, dialect, parent, answer)
                body = read_body(label, judged, dialect) if isinstance(judged, bytes) else judged
            if isinstance(body, str):
                problems.append((label, body))
                return None
            return body

        parent: Body | None = None
        parent = one("parent", outcome.parent)
        answer = inherited_span(scenario)[len(parent_span(scenario)) :]
        children = [one(f"children[{i}]", raw, answer) for i, raw in enumerate(outcome.children)]
        follow_ups = [one(f"follow_ups[{i}]", raw) for i, raw in enumerate(outcome.follow_ups)]
        parent_next = one("parent_next", outcome.parent_next)
        return cls(
            scenario,
            dialect,
            outcome,
            parent,
            tuple(b for b in children if b is not None),
            tuple(b for b in follow_ups if b is not None),
            parent_next,
            tuple(problems),
        )

    # --- the scenario's side ---------------------------------------------------------------

    @property
    def degraded(self) -> bool:
        """A fork without cache-safe parameters: no shared prefix is expected."""
        return self.scenario.action in ("fork", "siblings") and not self.scenario.snapshot

    @property
    def recursive(self) -> bool:
        """The fork is requested by a fork child: the scenario says so in a field of its own;
        how a runtime marks its children (a tag, a flag) is the runtime's choice."""
        return self.scenario.known_fork_child

    @property
    def captured(self) -> bool:
        """The scenario was rebuilt from the parent's own recorded request."""
        return CAPTURED in self.scenario.tags

    def task(self, index: int) -> str | None:
        """The child-only task text of child ``index``: its directive, or the continuable task."""
        if self.scenario.continuation is not None and self.scenario.action == "continuable":
            return self.scenario.continuation.task
        directives = self.scenario.directives
        return directives[index] if index < len(directives) else None

    @cached_property
    def inherited(self) -> tuple[Message, ...]:
        """The inherited span of the scenario."""
        return inherited_span(self.scenario)

    # --- the bodies ------------------------------------------------------------------------

    def inherited_count(self, body: Body) -> int:
        """How many of the body's leading messages are its copy of the inherited span: as
        many as the span has, unless the body dropped some of them. Read in order, each body
        message is found in what is left of the span; at the first one that is not, a message
        where the span has one of the same role is a changed copy (the span goes on), any
        other is the body's own (the span ended there: the body dropped the rest, which
        ``history-inherited`` reports). So a task sent after a shortened history is after
        the inherited part, and a task written into an inherited message is inside it."""
        if body.label not in self._counts:
            self._counts[body.label] = _kept(self.inherited, body.request.history)
        return self._counts[body.label]

    def inherited_end(self, body: Body) -> int:
        """The index of the body's first frame after the inherited span (head included): the
        frames of the body's own first messages, as many as ``inherited_count`` says."""
        starts = self.message_starts(body)  # a count past the history: all its frames
        first = starts[min(self.inherited_count(body), len(starts) - 1)]
        return min(first, body.frame_count)

    def message_starts(self, body: Body) -> tuple[int, ...]:
        """The index of each history message's first frame in ``body``, and after them the
        index past the last message's frames (not cut to the body's frames): counted once per
        body (``message_frames``), since several rules map messages to frames."""
        if body.label not in self._starts:
            counts = message_frames(self.dialect, body.request.history)
            self._starts[body.label] = tuple(accumulate(counts, initial=body.history_start))
        return self._starts[body.label]

    def message_span(self, body: Body, k: int) -> tuple[int, int]:
        """The frame indexes [start, end) of message ``k`` (from 0) of ``body``'s history (the
        end cut to the body's frames; past the last message, an empty span at the end of
        them)."""
        starts = self.message_starts(body)
        if k + 1 < len(starts):
            return starts[k], min(starts[k + 1], body.frame_count)
        return starts[-1], min(starts[-1], body.frame_count)

    def inherited_offset(self, body: Body) -> int:
        """The byte offset in the body's prefix stream where the inherited span ends."""
        end = self.inherited_end(body)
        return body.frames[end - 1].end if end else 0

    def divergence(self, body: Body) -> Divergence | None:
        """Where ``body`` leaves the parent's prefix stream (the parent must be there)."""
        assert self.parent is not None
        if body.label not in self._divergences:
            self._divergences[body.label] = locate(self.parent.stream, body.stream)
        return self._divergences[body.label]

    def cost(self, body: Body) -> Cost:
        """The parent's prefix bytes ``body`` could reuse but does not (the parent must be
        there): up to the shorter of the two streams, so never more than the body's own."""
        assert self.parent is not None
        d = self.divergence(body)
        reusable = min(self.parent.stream.length, body.stream.length)
        shared = reusable if d is None else min(d.offset, reusable)
        return Cost(reusable - shared, body.stream.length, lost_from=shared)

    def cost_from(self, body: Body, scope: CacheScope) -> Cost:
        """What ``body`` loses when a setting that invalidates ``scope`` differs from the
        parent's: the parent's prefix from the first segment of that family on."""
        assert self.parent is not None
        parent = self.parent
        if scope == "request":
            start = 0
        else:
            first = next((i for i, f in enumerate(parent.families) if f == scope), None)
            start = parent.frames[first].start if first is not None else parent.stream.length
        reusable = min(parent.stream.length, body.stream.length)
        return Cost(max(0, reusable - start), body.stream.length, lost_from=start)

    def prefix_unexpected(self) -> str | None:
        """Why no prefix is shared with a parent body here; None when one should be."""
        if self.scenario.action == "spawn":
            return "a spawned child has a head of its own: nothing is inherited"
        if self.degraded:
            return "a degraded fork (no cache-safe parameters) is expected to share no prefix"
        if self.parent is None:
            return "no parent body: the inherited span has no model message, or none was given"
        return None


def _kept(span: tuple[Message, ...], history: tuple[Message, ...]) -> int:
    """``Context.inherited_count``: each message of ``history`` searched for in what is
    left of ``span``, up to the first one not found there."""
    j = 0
    for i, message in enumerate(history):
        if j >= len(span):
            return i
        found = next((k for k in range(j, len(span)) if span[k] == message), None)
        if found is None:
            return len(span) if message.role == span[j].role else i
        j = found + 1
    return len(span)


def encoded(text: str) -> bytes:
    """``text`` as it appears inside a JSON string of a prefix frame."""
    return orjson.dumps(text)[1:-1]
