"""Everything the rules read about one scenario, dialect and outcome, computed once.

The bodies come from the subject; what they should hold comes from the scenario: the inherited
span (a one-shot fork's history less a trailing user message, a continuable fork's completed
turns). A child is judged against the subject's own parent body, which is what the provider
has cached; the scenario is the reference only for content (``_content``), never for bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import orjson

from ..dialects import Dialect
from ..model import Message
from ..prefix import CacheSimulator, Divergence, PrefixCache, Priced, judge_pair, locate
from ..protocol import Outcome
from ..scenarios import CAPTURED, Scenario, completed_prefix
from ._body import Body, message_starts, read_body
from ._continuation import resolve
from ._report import REFERENCE_PARENT_TOKENS, Cost, CostCause, RequestUsage

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
    strict: bool = False
    """The prefix rules compare bytes as sent (``--strict-bytes``), not the rendered prefix."""
    _judged: dict[str, PrefixCache] = field(default_factory=dict, repr=False)
    _divergences: dict[str, Divergence | None] = field(default_factory=dict, repr=False)
    _counts: dict[str, int] = field(default_factory=dict, repr=False)
    """Each body's ``inherited_count``, by label."""
    _starts: dict[str, tuple[int, ...]] = field(default_factory=dict, repr=False)
    """Each body's ``message_starts``, by label."""

    @classmethod
    def read(
        cls, scenario: Scenario, dialect: Dialect, outcome: Outcome, *, strict: bool = False
    ) -> Context:
        """Read every body of ``outcome``; those that do not parse become ``problems``.
        ``strict``: the prefix rules compare the bytes as sent (``--strict-bytes``)."""
        problems: list[tuple[str, str]] = []

        def one(
            label: str, raw: bytes | None, answer: tuple[Message, ...] | None = None
        ) -> Body | None:
            if raw is None:
                return None
            body: Body | str = read_body(label, raw, dialect, strict=strict)
            if isinstance(body, Body) and dialect.continued(body.parsed.body) is not None:
                judged = resolve(label, body.parsed.body, dialect, parent, answer)
                if isinstance(judged, bytes):
                    body = read_body(label, judged, dialect, strict=strict)
                else:
                    body = judged
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
            strict,
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
            self._starts[body.label] = message_starts(self.dialect, body)
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

    def judged(self, body: Body) -> PrefixCache:
        """``body`` judged against the parent by the provider's cache: sent just after it
        (the parent must be there)."""
        assert self.parent is not None
        if body.label not in self._judged:
            self._judged[body.label] = judge_pair(self.parent.priced, body.priced)
        return self._judged[body.label]

    def cost(self, body: Body) -> Cost:
        """What ``body`` loses of the parent's cached prefix by where it stops repeating the
        parent (the parent must be there): the parent's entries past that place."""
        judged = self.judged(body)
        return self.priced_cost(self.parent, body, judged.reachable, judged.deepest, "divergence")

    def cost_from(self, body: Body, setting: str | None = None) -> Cost:
        """What ``body`` loses of the parent's cached prefix to a setting the cache is keyed
        on (the parent must be there); the simulator knows which settings key what.
        ``setting`` names the one changed, for the provider's name of such a miss."""
        judged = self.judged(body)
        assert self.parent is not None
        return priced_cost(
            self.dialect, self.parent, body, judged.settings_at, judged.deepest, "settings", setting
        )

    def boundary_cost(self, body: Body) -> Cost:
        """What ``body`` repeats of the parent's cached prefix but cannot read: its own
        breakpoints or lookup boundaries do not reach the parent's entry."""
        judged = self.judged(body)
        return self.priced_cost(self.parent, body, judged.read_same, judged.reachable, "boundaries")

    def total_cost(self, body: Body) -> Cost:
        """What ``body`` loses of the parent's cached prefix by what it sends, wherever the
        loss shows: past where it stops repeating the parent, and where its boundaries do not
        reach what it repeats (a task written into the parent's last message has both)."""
        judged = self.judged(body)
        cause: CostCause = "divergence" if judged.lost_to_divergence else "boundaries"
        return self.priced_cost(self.parent, body, judged.read_same, judged.deepest, cause)

    def priced_cost(
        self, before: Body | None, body: Body, start: int, end: int, cause: CostCause
    ) -> Cost:
        """A cost of ``before``'s units ``start`` to ``end`` (positions in its rendered
        prefix) lost by ``body`` (``before`` must be there)."""
        assert before is not None
        return priced_cost(self.dialect, before, body, start, end, cause)

    def span_cost(self, body: Body, start: int, end: int, cause: CostCause) -> Cost:
        """A cost of ``body``'s own prefix stream from byte ``start`` to byte ``end``, in
        whole units (a cache entry ends at a unit boundary at the finest)."""
        first, last = unit_at(body, start), unit_at(body, end)
        return priced_cost(self.dialect, body, body, first, max(first, last), cause)

    def usage(self) -> tuple[RequestUsage, ...]:
        """What each request of the outcome reads and writes, sent in order through one
        simulated cache: the parent (after its conversation's earlier turns), the children,
        the follow-ups and the parent's next request. Minimum lengths are not applied (as in
        the verdicts); ``RequestUsage.below_minimum`` says where the provider would cache
        nothing at this size."""
        bodies = [self.parent, *self.children, *self.follow_ups, self.parent_next]
        return simulate_usage(self.dialect, [b for b in bodies if b is not None])

    def prefix_unexpected(self) -> str | None:
        """Why no prefix is shared with a parent body here; None when one should be. A
        fork that inherits no history (made on the parent's first turn) shares the head
        alone: its head is still judged (``head_unexpected``), its messages are not."""
        why = self.head_unexpected()
        if why is None and self.scenario.action in ("fork", "siblings") and not self.inherited:
            return (
                "the fork inherits no history (made on the parent's first turn): only its "
                "head is the parent's, judged by system-identical, tools-identical and "
                "settings-identical"
            )
        return why

    def head_unexpected(self) -> str | None:
        """Why no head (system, tools, settings) is shared with a parent body here; None
        when it should be."""
        if self.scenario.action == "spawn":
            return "a spawned child has a head of its own: nothing is inherited"
        if self.degraded:
            return "a degraded fork (no cache-safe parameters) is expected to share no prefix"
        if self.parent is None:
            return "no parent body: the inherited span has no model message, or none was given"
        return None


def priced_cost(
    dialect: Dialect,
    before: Body,
    body: Body,
    start: int,
    end: int,
    cause: CostCause,
    setting: str | None = None,
) -> Cost:
    """A cost of ``before``'s units ``start`` to ``end`` (positions in its rendered prefix)
    lost by ``body``: their tokens and bytes, the same loss at a reference parent and its
    price, and the provider's name for the miss (``Context.priced_cost``; usable where there
    is no context, a conversation's turns)."""
    parent = before.priced
    view = parent.view
    end = max(start, end)
    # never more than the child's own prefix: a later request shorter than what it drops of
    # the one before could have read no more than it holds
    own_bytes = _rendered_bytes(body)
    tokens = min(parent.tokens[end] - parent.tokens[start], body.priced.total)
    lost_bytes = min(
        sum(len(u.name.encode()) + len(u.data) + 2 for u in view.units[start:end]), own_bytes
    )
    reference = None
    usd = None
    if parent.total:
        reference = round(tokens * REFERENCE_PARENT_TOKENS / parent.total)
        usd = view.model.prices.saved(reference)
    parted = locate(before.stream, body.stream) if cause == "divergence" else None
    return Cost(
        tokens=tokens,
        prefix_tokens=body.priced.total,
        cause=cause,
        exact=parent.exact,
        encoding=view.model.encoding if parent.exact else None,
        lost_bytes=lost_bytes,
        child_bytes=own_bytes,
        reference_tokens=reference,
        reference_usd=usd,
        model=view.model.label,
        miss_reason=_miss_reason(dialect, before, body, cause, setting, parted),
        lost_from=None if parted is None else parted.offset,
    )


def _rendered_bytes(body: Body) -> int:
    """The length of ``body``'s rendered prefix stream (its frames' in the default view)."""
    return sum(len(u.name.encode()) + len(u.data) + 2 for u in body.priced.view.units)


def unit_at(body: Body, offset: int) -> int:
    """The position (units before it) of the unit holding byte ``offset`` of ``body``'s
    stream; in the byte view, whose frames are segments, the first unit read from the
    segment holding it."""
    index = next((i for i, f in enumerate(body.frames) if offset < f.end), len(body.frames))
    if not body.strict:
        return index
    units = body.priced.view.units
    if index >= len(body.frames):
        return len(units)
    name = body.frames[index].name
    return next(
        (i for i, u in enumerate(units) if u.path == name or u.path.startswith(name + ".")),
        len(units),
    )


def _miss_reason(
    dialect: Dialect,
    before: Body,
    body: Body,
    cause: CostCause,
    setting: str | None,
    d: Divergence | None,
) -> str | None:
    """The provider's own name for the miss: by the changed setting, else by the family of
    the first unit the child does not repeat (none for a boundary miss: the prefix is the
    same)."""
    if cause == "settings":
        return dialect.facts.miss_reason(setting) if setting else None
    if cause == "boundaries" or d is None:
        return None
    index = next((i for i, f in enumerate(body.frames) if d.offset < f.end), None)
    if index is None:
        index = next((i for i, f in enumerate(before.frames) if d.offset < f.end), None)
        families = before.families
    else:
        families = body.families
    return None if index is None else dialect.facts.miss_reason(families[index])


def simulate_usage(dialect: Dialect, bodies: list[Body]) -> tuple[RequestUsage, ...]:
    """Each body sent in order through one simulated cache (the first after its
    conversation's earlier turns), with its usage in the provider's own fields."""
    sim = CacheSimulator(minimums=False)
    sized = CacheSimulator(minimums=True)
    out = []
    for i, body in enumerate(bodies):
        p: Priced = body.priced
        plan = p.view.plan
        if i == 0:
            sim.prime(p.data, p.tokens, plan)
            sized.prime(p.data, p.tokens, plan)
        used = sim.send(p.data, p.tokens, plan)
        at_size = sized.send(p.data, p.tokens, plan)
        fields = dialect.usage_fields(used.total, used.read, used.written, body.parsed.body)
        out.append(
            RequestUsage(
                body=body.label,
                total=used.total,
                read=used.read,
                written=used.written,
                exact=p.exact,
                fields=fields,
                below_minimum=at_size.read < used.read or at_size.below_minimum > 0,
                minimum=p.view.model.minimum_tokens,
                model=p.view.model.label,
                caching=plan.caching,
                notes=plan.notes,
            )
        )
    return tuple(out)


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
