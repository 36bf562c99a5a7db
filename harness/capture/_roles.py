"""Who is who among the conversations: the parent, fork children, spawned children.

A branched conversation is a fork child when its first request's new user text carries a
child message: a directive of a call the model made at or after the branch point (the
latest such turn wins), or else the fork tag (then the call is the branch turn's). A
conversation that starts afresh with one user message equal to a string argument of an
earlier call is a spawned child of the turn that made the call. One that starts afresh with
a child message anyway is a fork child whose inherited history was rewritten (the rules
then say where): it is placed by directive, or by the fork tag when exactly one earlier
turn calls a fork tool. Children of one model turn are siblings, matched to its fork calls by
directive. Every model turn that calls a fork tool is a ``ForkTurn``, with or without
children: one made inside a fork child is a recursive fork. One call may start several
children (a parallel ``tasks: [A, B]``): each child that repeats one of its arguments is its
own. A fresh agent started by a call of the fork tool (``--fork-tool``, or a tool that forked
children elsewhere in the run) is a fork child with nothing to inherit yet (made on the
parent's first turn), not a spawn. A conversation that branches from an earlier request
without a child message (or whose first request carries the session-fork mark) is a
**session fork**: a new process continuing a saved session, judged as a fork of the request
it extends.

Placing costs time in proportion to the requests, not to their square: the turns that may
have started a conversation are found by request order (a bisection), a spawned child's
call through an index of the calls' string arguments, a child's added text from what
grouping noted, and every conversation's role is worked out once.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from ..model import FunctionCall, Message, Text
from ._group import (
    Conversation,
    Grouping,
    GroupOptions,
    Origin,
    added_by,
    directive_of,
    model_turn,
    received,
    side_request,
    string_values,
    turn_calls,
)

__all__ = [
    "MIN_PROMPT",
    "ForkTurn",
    "Roles",
    "SessionFork",
    "SpawnLink",
    "Unplaced",
    "assign_roles",
]

MIN_PROMPT = 8
"""A delegation prompt shorter than this (spaces folded) must be a spawned child's whole
first user turn: a few characters found inside a longer text prove nothing."""


@dataclass(frozen=True, slots=True)
class ForkTurn:
    """A model turn that called the fork tool: the request it answered (``source``
    conversation, position ``turn``), its fork calls and directives, and the child
    conversation each call started (``None``: none found); ``extra`` children had no call
    left to match."""

    source: int
    turn: int
    message: Message
    tool: str
    calls: tuple[FunctionCall, ...]
    directives: tuple[str | None, ...]
    children: tuple[int | None, ...]
    extra: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class SpawnLink:
    """A spawned ``child`` conversation and the call (in the answer to ``source``'s request
    at ``turn``) whose argument ``prompt`` is its only message."""

    child: int
    source: int
    turn: int
    message: Message
    call: FunctionCall
    prompt: str


@dataclass(frozen=True, slots=True)
class SessionFork:
    """A ``child`` conversation that continues ``source``'s request at ``turn`` as a saved
    session continued by a new process: ``declared`` by the session-fork mark, else
    recognised (it branches from a request already continued, with a user message of its
    own and no child message)."""

    child: int
    source: int
    turn: int
    declared: bool


@dataclass(frozen=True, slots=True)
class Unplaced:
    """A conversation that is neither the parent nor a child, and why. ``suspect``: it
    looks like a child that could not be placed (it carries the fork tag, or it is an agent
    whose first user turn repeats an argument of an earlier call), and is reported as not
    checked; others are independent requests with nothing to check."""

    conversation: int
    reason: str
    suspect: bool = False
    looks: str = "it carries the fork tag"
    """Why a suspect looks like a child, in a few words (its role says so)."""


@dataclass(frozen=True, slots=True)
class Roles:
    """The conversations of one dialect and their roles: conversation indexes throughout."""

    grouping: Grouping
    parent: int
    fork_turns: tuple[ForkTurn, ...]
    spawns: tuple[SpawnLink, ...]
    unplaced: tuple[Unplaced, ...]
    fork_children: frozenset[int]
    rewritten: frozenset[int] = frozenset()
    """Fork children whose first request does not extend the request they were forked from."""
    first_turn: frozenset[int] = frozenset()
    """Fork children started fresh by a fork tool: nothing was there to inherit yet."""
    session_forks: tuple[SessionFork, ...] = ()
    unmatched: tuple[str, ...] = ()
    """The grouping options that matched nothing (the fork tag, the fork tool, the directive
    key), a sentence each naming the option: why children may be missing."""
    _roles: dict[int, str] = field(default_factory=dict, init=False, compare=False, repr=False)

    @property
    def conversations(self) -> tuple[Conversation, ...]:
        return self.grouping.conversations

    def role(self, index: int) -> str:
        """What conversation ``index`` is, in a few words (every conversation's is worked
        out once, at the first question: a report asks for each)."""
        if not self._roles:
            self._roles.update(self._all_roles())
        return self._roles.get(index, "other")

    def _all_roles(self) -> dict[int, str]:
        """The role of every conversation that has one besides "other": the parent, then
        the first fork turn that names it, then its spawn, then why it is unplaced."""
        convs = self.conversations
        found: dict[int, str] = {self.parent: "parent"}
        for turn in self.fork_turns:
            seq = convs[turn.source].requests[turn.turn].seq
            for index in (*turn.children, *turn.extra):
                if index is not None and index not in found:
                    note = ", history rewritten" if index in self.rewritten else ""
                    if index in self.first_turn:
                        note = ", nothing inherited yet"
                    found[index] = f"fork child of {convs[turn.source].name}, request {seq}{note}"
        for fork in self.session_forks:
            seq = convs[fork.source].requests[fork.turn].seq
            how = "declared" if fork.declared else "recognised"
            found.setdefault(
                fork.child, f"session fork of {convs[fork.source].name}, request {seq} ({how})"
            )
        for link in self.spawns:
            seq = convs[link.source].requests[link.turn].seq
            found.setdefault(link.child, f"spawned by {convs[link.source].name}, request {seq}")
        for unplaced in self.unplaced:
            why = f"not placed: {unplaced.looks}" if unplaced.suspect else None
            found.setdefault(unplaced.conversation, why or f"other: {unplaced.reason}")
        return found


def assign_roles(grouping: Grouping, options: GroupOptions) -> Roles:
    """The roles of ``grouping``'s conversations (see the module docstring)."""
    return _Placer(grouping, options).roles()


class _Placer:
    def __init__(self, grouping: Grouping, options: GroupOptions) -> None:
        self.grouping, self.options = grouping, options
        self.convs = grouping.conversations
        self.branches: dict[Origin, list[Conversation]] = defaultdict(list)
        for conv in self.convs:
            if conv.origin is not None:
                self.branches[conv.origin].append(conv)
        self.calls = cache(self._calls)
        self.turn = cache(self._turn)
        self.tag_seen = False
        """Whether the fork tag was in the new user text of a conversation looked at."""
        self.seqs = [conv.seqs for conv in self.convs]
        self._called: list[tuple[int, int, int]] | None = None
        self._prompt_index: _Prompts | None = None

    def _calls(self, source: int, turn: int) -> tuple[FunctionCall, ...] | None:
        """The calls of the model's answer to ``source``'s request at ``turn``, if it is
        known (as grouping noted them: no request is read back for them)."""
        firsts = (c.first for c in self.branches[Origin(source, turn)])
        return turn_calls(self.convs[source].requests, turn, *firsts)

    def _turn(self, source: int, turn: int) -> Message | None:
        """The model's answer to ``source``'s request at ``turn``, if known: read for the
        turns that started a child, not kept for the others."""
        firsts = (c.first for c in self.branches[Origin(source, turn)])
        return model_turn(self.convs[source].requests, turn, *firsts)

    def roles(self) -> Roles:
        convs, options = self.convs, self.options
        marked = next(
            (c.index for c in convs if any(r.mark == options.parent_mark for r in c.requests)),
            None,
        )
        fresh = [c for c in convs if c.origin is None and c.index != marked]
        links = self._spawn_links(fresh)
        attributed: dict[tuple[int, int], list[tuple[int, str]]] = defaultdict(list)
        unplaced: list[Unplaced] = []
        rewritten: set[int] = set()
        tools = {options.fork_tool} if options.fork_tool else set()
        linked = {link.child for link in links}
        later = [c for c in fresh if c.index not in linked]
        for conv in [c for c in convs if c.origin is not None] + later:
            found = self._attribute(conv, tools)
            if isinstance(found, str):
                unplaced.append(Unplaced(conv.index, found, suspect=True))
            elif found is not None:
                source, turn, tool = found
                attributed[(source, turn)].append((conv.index, tool))
                tools |= set() if options.fork_tool else {tool}
                if conv.origin is None:
                    rewritten.add(conv.index)
        # a fresh agent started by a call of the fork tool is a fork child with nothing to
        # inherit yet (the parent's first turn), not a spawn
        first_turn = {link.child for link in links if self._forked_fresh(link, tools)}
        for link in links:
            if link.child in first_turn:
                attributed[(link.source, link.turn)].append((link.child, link.call.name))
        spawns = [link for link in links if link.child not in first_turn]
        spawned = {link.child for link in spawns}
        fork_children = frozenset(c for v in attributed.values() for c, _ in v)
        turns = self._fork_turns(attributed, tools, spawns)
        parent = marked if marked is not None else self._parent(turns, spawns, fork_children)
        placed = fork_children | spawned | {parent} | {u.conversation for u in unplaced}
        forks = self._session_forks([c for c in convs if c.index not in placed])
        placed |= {f.child for f in forks}
        unplaced += [self._unplaced(c) for c in convs if c.index not in placed]
        unplaced.sort(key=lambda u: u.conversation)
        return Roles(
            self.grouping,
            parent,
            turns,
            tuple(spawns),
            tuple(unplaced),
            fork_children,
            frozenset(rewritten),
            frozenset(first_turn),
            tuple(forks),
            tuple(self._unmatched(turns)),
        )

    def _forked_fresh(self, link: SpawnLink, tools: set[str]) -> bool:
        """Whether a fresh agent tied to a call is a fork child with nothing to inherit: the
        call is of ``--fork-tool``, or of a tool that forked children elsewhere in the run
        when the call answers the parent's first turn and the child has the parent's system
        instruction (a spawned agent has one of its own)."""
        if self.options.fork_tool is not None:
            return link.call.name == self.options.fork_tool
        source = self.convs[link.source].requests[link.turn]
        child = self.convs[link.child].first
        return (
            link.call.name in tools
            and not source.has_model
            and child.system_key == source.system_key
        )

    def _session_forks(self, left: Sequence[Conversation]) -> list[SessionFork]:
        """The conversations among ``left`` that continue a saved session in a new process:
        those whose first request carries the session-fork mark, and those that branch
        from a request already continued with a user message of their own (no child
        message, the same agent: not a side request)."""
        mark = self.options.session_fork_mark
        out = []
        for conv in left:
            origin = conv.origin
            declared = mark is not None and conv.first.mark == mark
            if origin is None:
                continue
            base = self.convs[origin.conversation].requests[origin.turn]
            if declared or (
                not side_request(base, conv.first) and added_by(conv.first, base.size).strip()
            ):
                out.append(SessionFork(conv.index, origin.conversation, origin.turn, declared))
        return out

    def _unplaced(self, conv: Conversation) -> Unplaced:
        """Why ``conv`` has no role: an agent whose first user turn repeats an argument of
        an earlier call is a child that could not be placed (suspect); others are
        independent requests."""
        first = conv.first
        if conv.origin is None and first.has_tools and not first.has_model:
            users = [
                [p.text for p in m.parts if isinstance(p, Text)]
                for m in first.history
                if m.role == "user"
            ]
            texts = {_folded("\n".join(sep.join(t) for t in users)) for sep in ("", "\n")}
            for source, t, j in self._prompts().calls(texts, first.seq):
                made = self.calls(source, t) or ()
                prompt = next(
                    (p for f in texts if (p := _prompt_in(made[j], self.options.directive_key, f))),
                    None,
                )
                if prompt is not None:
                    seq = self.convs[source].requests[t].seq
                    reason = (
                        f"its first user turn repeats the argument {_short(prompt)} of the "
                        f"{made[j].name} call answering request {seq}, whose children are "
                        "all placed: which call started it is unclear"
                    )
                    return Unplaced(conv.index, reason, True, "it repeats a call's argument")
        return Unplaced(conv.index, _why_unplaced(conv, self.convs))

    def _unmatched(self, turns: Sequence[ForkTurn]) -> list[str]:
        """A sentence for each grouping option that matched nothing: a session-fork mark no
        request carries; and when the model made calls at all (a capture without any has
        nothing to match), the fork tag in no child's new user text, a fork tool that no call
        names, a directive key that no fork call has as an argument."""
        options = self.options
        found: list[str] = []
        mark = options.session_fork_mark
        if mark is not None and not any(r.mark == mark for c in self.convs for r in c.requests):
            found.append(
                f"--session-fork {mark!r} matched nothing: no request carries that script mark,"
                " so no session fork was declared"
            )
        called = [call for _, c, t in self._called_turns() for call in self.calls(c, t) or ()]
        if not called:
            return found
        if not self.tag_seen:
            found.append(
                f"the fork tag {options.fork_tag!r} (fork_tag of the script, or --fork-tag)"
                " matched nothing: no request's new user text holds it, so a fork child is"
                " known only by a directive it repeats"
            )
        names = sorted({c.name for c in called})
        if options.fork_tool is not None and options.fork_tool not in names:
            found.append(
                f"--fork-tool {options.fork_tool!r} matched nothing: no call names it (the"
                f" model called {', '.join(names)})"
            )
        key = options.directive_key
        forks = [c for turn in turns for c in turn.calls] or called
        if key is not None and not any(isinstance(c.args, dict) and key in c.args for c in forks):
            keys = sorted({k for c in forks if isinstance(c.args, dict) for k in c.args})
            found.append(
                f"--directive-key {key!r} matched nothing: no fork call has that argument"
                f" (they have {', '.join(keys) or 'none'})"
            )
        return found

    def _parent(
        self, turns: Sequence[ForkTurn], spawns: Sequence[SpawnLink], children: frozenset[int]
    ) -> int:
        """The conversation that issued the first fork or spawn call outside any child: the
        parent is known by what it did, not by arriving first (a router, classifier or title
        request often does). Without such a call, the first conversation."""
        spawned = {s.child for s in spawns}
        sources = [(t.source, t.turn) for t in turns] + [(s.source, s.turn) for s in spawns]
        outside = [(c, t) for c, t in sources if c not in children and c not in spawned]
        if not outside:
            return 0
        first = min(outside, key=lambda ct: self.convs[ct[0]].requests[ct[1]].seq)
        return first[0]

    def _start(self, conv: Conversation) -> int:
        """Where ``conv``'s new user text starts: after the history of the request it
        branched from (the start of its history when it extends none)."""
        if conv.origin is None:
            return 0
        return self.convs[conv.origin.conversation].requests[conv.origin.turn].size

    def _candidates(self, conv: Conversation) -> list[tuple[int, int]]:
        """The turns that may have started ``conv``, latest first: those before its first
        request among the branch turn and later ones of its origin, or, for a conversation
        that extends nothing, every earlier turn (of the others) whose answer made calls.
        Found by the requests' order (``seq``), not by looking at every request."""
        first = conv.first.seq
        if conv.origin is not None:
            source, pos = conv.origin.conversation, conv.origin.turn
            end = max(pos, bisect_left(self.seqs[source], first))
            return [(source, t) for t in range(end - 1, pos - 1, -1)]
        called = self._called_turns()
        end = bisect_left(called, (first,))
        return [(source, t) for _, source, t in reversed(called[:end])]

    def _called_turns(self) -> list[tuple[int, int, int]]:
        """Every turn whose answer is known to make calls, as (seq, conversation, turn), in
        order: worked out once."""
        if self._called is None:
            self._called = sorted(
                (c.requests[t].seq, c.index, t)
                for c in self.convs
                for t in range(len(c.requests))
                if self.calls(c.index, t)
            )
        return self._called

    def _attribute(self, conv: Conversation, tools: set[str]) -> tuple[int, int, str] | str | None:
        """Where fork child ``conv`` was started, as (conversation, turn, fork tool); ``None``
        when it is not a fork child; a sentence when it carries the fork tag but the call
        that started it is unclear."""
        options = self.options
        text = added_by(conv.first, self._start(conv))
        self.tag_seen = self.tag_seen or options.fork_tag in text
        if conv.origin is None and options.fork_tag not in text and not _forked_shape(conv):
            return None
        turns = self._candidates(conv)
        best: tuple[int, int, int, str] | None = None  # (length found, source, turn, tool)
        for source, t in turns:  # latest first: among equally long matches the latest wins
            for call in self.calls(source, t) or ():
                if options.fork_tool and call.name != options.fork_tool:
                    continue
                found = received(call, options.directive_key, text)
                if found is not None and (best is None or len(found) > best[0]):
                    best = (len(found), source, t, call.name)
        if best is not None:
            return best[1], best[2], best[3]
        if options.fork_tag not in text:
            return None
        if conv.origin is None:
            forks = [
                (source, t, names)
                for source, t in turns
                if (names := {c.name for c in self.calls(source, t) or () if c.name in tools})
            ]
            if len(forks) == 1 and len(forks[0][2]) == 1:
                return forks[0][0], forks[0][1], next(iter(forks[0][2]))
            return (
                f"it carries the fork tag {options.fork_tag!r} but extends no earlier request "
                f"and holds no call's directive, and {len(forks)} earlier turns call a fork "
                "tool, so where it was forked is unclear"
            )
        source, pos = conv.origin.conversation, conv.origin.turn
        calls = self.calls(source, pos) or ()
        names = {c.name for c in calls if not options.fork_tool or c.name == options.fork_tool}
        if len(names) == 1:
            return source, pos, names.pop()
        seq = self.convs[source].requests[pos].seq
        if not names:
            return (
                f"it carries the fork tag {options.fork_tag!r} but the answer to request {seq}, "
                "where it branches, has no call that could have started it"
            )
        return (
            f"it carries the fork tag but no call's directive; the answer to request {seq} "
            f"calls {', '.join(sorted(names))}, so which one started it is unclear "
            "(set the fork tool or the directive key)"
        )

    def _spawn_links(self, fresh: Sequence[Conversation]) -> list[SpawnLink]:
        """Spawned children among ``fresh`` conversations, each tied to its own call and
        argument: one call may start several (a parallel ``tasks: [A, B]``), one child per
        argument."""
        links: list[SpawnLink] = []
        used: set[tuple[int, int, int, str]] = set()  # (conversation, turn, call, prompt)
        for conv in fresh:
            link = self._spawn_link(conv, used)
            if link is not None:
                links.append(link)
        return links

    def _spawn_link(
        self, child: Conversation, used: set[tuple[int, int, int, str]]
    ) -> SpawnLink | None:
        """The latest earlier call whose prompt ``child``'s first user turn holds (wrapped in
        a template, split over blocks, after reminders), that prompt not yet tied to a child.

        A spawned child is an agent of its own: its first request has no model message,
        declares tools and does not carry the fork tag. Requests without tools (routers,
        classifiers, title generators, summarizers, a search tool's helper) are side requests
        even when they repeat the prompt.
        """
        first = child.first
        if first.has_model or not first.has_tools:
            return None
        history = first.history
        users = [
            [p.text for p in m.parts if isinstance(p, Text)] for m in history if m.role == "user"
        ]
        if any(self.options.fork_tag in t for texts in users for t in texts):
            return None
        texts = {_folded("\n".join(sep.join(t) for t in users)) for sep in ("", "\n")}
        key = self.options.directive_key
        for source, t, j in self._prompts().calls(texts, first.seq):
            made = self.calls(source, t)
            assert made is not None  # indexed from these very calls
            call = made[j]
            prompt = next((p for f in texts if (p := _prompt_in(call, key, f))), None)
            if prompt is not None and (source, t, j, prompt) not in used:
                used.add((source, t, j, prompt))
                message = self.turn(source, t)
                assert message is not None
                return SpawnLink(child.index, source, t, message, call, prompt)
        return None

    def _prompts(self) -> _Prompts:
        """The string arguments of every call that may have spawned a child: built once."""
        if self._prompt_index is None:
            self._prompt_index = _Prompts()
            for seq, source, t in self._called_turns():
                for j, call in enumerate(self.calls(source, t) or ()):
                    if not self.options.fork_tool or call.name == self.options.fork_tool:
                        values = _prompts_of(call, self.options.directive_key)
                        self._prompt_index.add((seq, source, t, j), values)
        return self._prompt_index

    def _fork_turns(
        self,
        attributed: dict[tuple[int, int], list[tuple[int, str]]],
        tools: set[str],
        spawns: Sequence[SpawnLink],
    ) -> tuple[ForkTurn, ...]:
        spawn_calls = {(s.source, s.turn, s.call) for s in spawns}
        out: list[ForkTurn] = []
        for conv in self.convs:
            for t in range(len(conv.requests)):
                children = attributed.get((conv.index, t), [])
                found = self.calls(conv.index, t)
                if found is None:
                    continue
                names = [c.name for c in found if c.name in tools]
                tool = children[0][1] if children else (names[0] if names else None)
                if tool is None:
                    continue
                calls = tuple(
                    c for c in found if c.name == tool and (conv.index, t, c) not in spawn_calls
                )
                if not calls and not children:
                    continue
                message = self.turn(conv.index, t)
                assert message is not None
                matched, slots, received_args, extra = self._match([c for c, _ in children], calls)
                directives = tuple(
                    arg if arg is not None else self._directive(call, slot)
                    for call, slot, arg in zip(matched, slots, received_args, strict=True)
                )
                out.append(
                    ForkTurn(conv.index, t, message, tool, matched, directives, slots, extra)
                )
        return tuple(out)

    def _child_text(self, index: int) -> str:
        """The user text child ``index`` added to what it inherited: where its task is."""
        child = self.convs[index]
        return added_by(child.first, self._start(child))

    def _directive(self, call: FunctionCall, child: int | None) -> str | None:
        """The argument ``child`` received (the longest found in its text), else the first."""
        key = self.options.directive_key
        found = received(call, key, self._child_text(child)) if child is not None else None
        return found if found is not None else directive_of(call, key)

    def _match(
        self, children: list[int], calls: tuple[FunctionCall, ...]
    ) -> tuple[
        tuple[FunctionCall, ...], tuple[int | None, ...], tuple[str | None, ...], tuple[int, ...]
    ]:
        """Each call's children: the one whose text holds the longest argument of a call
        whose slot is free (the longest that fits wins); a child holding another argument
        of a call already taken (a parallel ``tasks: [A, B]``) gets a slot of its own for
        that call; then the rest in arrival order; children left over are ``extra``.
        Returns the calls (one per slot, a call once per child it started), each slot's
        child, the argument it received (None: unknown) and the extra children."""
        key = self.options.directive_key
        matched: list[FunctionCall] = list(calls)
        owner: list[int] = list(range(len(calls)))  # the call each slot belongs to
        slots: list[int | None] = [None] * len(calls)
        args: list[str | None] = [None] * len(calls)
        leftover: list[int] = []
        for index in sorted(children, key=lambda c: self.convs[c].first.seq):
            text = self._child_text(index)
            fits = [
                (len(found), -j, found)
                for j, call in enumerate(calls)
                if (found := received(call, key, text)) is not None
            ]
            free = [f for f in fits if slots[-f[1]] is None]
            if free:
                _, j, found = max(free)
                slots[-j], args[-j] = index, found
                continue
            if fits:
                _, j, found = max(fits)
                if found not in {args[k] for k in range(len(slots)) if owner[k] == -j}:
                    matched.append(calls[-j])
                    owner.append(-j)
                    slots.append(index)
                    args.append(found)
                    continue
            leftover.append(index)
        extra: list[int] = []
        for index in leftover:
            free_slot = next((j for j, s in enumerate(slots) if s is None), None)
            if free_slot is None:
                extra.append(index)
            else:
                slots[free_slot] = index
        return tuple(matched), tuple(slots), tuple(args), tuple(extra)


_GRAMS = (MIN_PROMPT, 16, 32, 64)
"""The lengths of the beginnings by which a prompt is indexed: the longest that it has."""


class _Prompts:
    """The calls' string arguments (white space folded), indexed so that the calls whose
    argument a text may hold are found from the text alone, not by trying every earlier
    call: by the whole argument (a short prompt must be the whole text), and by its
    beginning of the longest of ``_GRAMS`` lengths it has (a longer one may be anywhere in
    the text, so it starts at some position of it). Calls are ``(seq, conversation, turn,
    call index)``."""

    def __init__(self) -> None:
        self.whole: dict[str, list[tuple[int, int, int, int]]] = defaultdict(list)
        self.starts: dict[str, list[tuple[int, int, int, int]]] = defaultdict(list)

    def add(self, call: tuple[int, int, int, int], values: Sequence[str]) -> None:
        for folded in {f for v in values if (f := _folded(v))}:
            self.whole[folded].append(call)
            size = next((g for g in reversed(_GRAMS) if len(folded) >= g), None)
            if size is not None:
                self.starts[folded[:size]].append(call)

    def calls(self, texts: set[str], before: int) -> list[tuple[int, int, int]]:
        """The calls made before request ``before`` whose argument some of ``texts`` may
        hold, latest turn first, in call order within a turn: a superset of the calls
        ``_prompt_in`` finds, in the order they were tried when every call was."""
        found: set[tuple[int, int, int, int]] = set()
        for text in texts:
            found.update(self.whole.get(text, ()))
            for size in _GRAMS if self.starts else ():
                for i in range(len(text) - size + 1):
                    found.update(self.starts.get(text[i : i + size], ()))
        ordered = sorted((c for c in found if c[0] < before), key=lambda c: (-c[0], c[3]))
        return [(source, t, j) for _, source, t, j in ordered]


def _why_unplaced(conv: Conversation, convs: Sequence[Conversation]) -> str:
    if conv.origin is None:
        return "no child message, no delegation prompt"
    base = convs[conv.origin.conversation].requests[conv.origin.turn]
    if side_request(base, conv.first):
        return "a side request: it reads the conversation with a system prompt and tools of its own"
    return "branches without a child message"


def _short(text: str, limit: int = 40) -> str:
    folded = _folded(text)
    return repr(folded if len(folded) <= limit else folded[: limit - 1] + "…")


def _forked_shape(conv: Conversation) -> bool:
    """Whether a conversation that extends no earlier request may still be a fork child
    whose inherited history was rewritten: an agent (it declares tools) whose first request
    carries context, a model message before its task. One without (a router or classifier
    repeating a call's argument, a spawned child) is no fork child."""
    return conv.first.has_tools and conv.first.has_model


def _folded(text: str) -> str:
    """``text`` with every run of white space as one space: how a prompt is found inside a
    template that re-wraps or re-indents it."""
    return " ".join(text.split())


def _prompts_of(call: FunctionCall, key: str | None) -> list[str]:
    """The call's string arguments (those of argument ``key`` when given): its prompts."""
    args = call.args if isinstance(call.args, dict) else {}
    return string_values(args if key is None else args.get(key))


def _prompt_in(call: FunctionCall, key: str | None, text: str) -> str | None:
    """The call's longest string argument (or argument ``key``) that ``text`` (folded) holds:
    the whole text, or a part of at least ``MIN_PROMPT`` characters."""
    found = [
        v.strip()
        for v in _prompts_of(call, key)
        if (f := _folded(v)) and (f == text or (len(f) >= MIN_PROMPT and f in text))
    ]
    return max(found, key=len) if found else None
