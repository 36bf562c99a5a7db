"""Rebuilding scenarios from grouped requests: each fork turn and spawn becomes a scenario
and an outcome for the rules (docs/capture.md, "Checking").

The scenario is rebuilt from what the parent sent and what it was told: the preset and
history of the request the fork call answered, plus that model turn; the outcome holds the
recorded bodies. Where a scenario cannot be rebuilt, the case carries the reason instead of
a guess.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..model import FunctionCall, FunctionResponse, Message
from ..protocol import Outcome
from ..scenarios import (
    CAPTURED,
    Continuation,
    FollowUp,
    Scenario,
    completed_prefix,
    has_send_message,
)
from ._group import Conversation, GroupOptions, model_turn
from ._observe import Observed
from ._roles import ForkTurn, Roles, SpawnLink

__all__ = ["UNKNOWN_PARENT_ID", "Case", "cases"]

UNKNOWN_PARENT_ID = "(unknown parent id)"


@dataclass(frozen=True, slots=True)
class Case:
    """One group to check: what it is, and its scenario and outcome, or why it has none."""

    what: str
    scenario: Scenario | None = None
    outcome: Outcome | None = None
    reason: str | None = None


def cases(roles: Roles, options: GroupOptions) -> list[Case]:
    """Every fork turn, spawn and conversation that looks like a child but could not be
    placed, in that order; scenario ids are unique."""
    return _unique(_Rebuild(roles, options).cases)


def _unique(found: list[Case]) -> list[Case]:
    """The cases with each repeated scenario id (two spawns from one turn, say) numbered
    ``-2``, ``-3``... after its first use, so that every check id names one check."""
    counts = Counter(c.scenario.id for c in found if c.scenario is not None)
    seen: Counter[str] = Counter()
    out = []
    for case in found:
        scenario = case.scenario
        if scenario is not None and counts[scenario.id] > 1:
            seen[scenario.id] += 1
            if seen[scenario.id] > 1:
                case = replace(
                    case, scenario=replace(scenario, id=f"{scenario.id}-{seen[scenario.id]}")
                )
        out.append(case)
    return out


class _Rebuild:
    def __init__(self, roles: Roles, options: GroupOptions) -> None:
        self.roles, self.options = roles, options
        self.convs = roles.conversations
        self.cases: list[Case] = []
        for turn in roles.fork_turns:
            self._fork_turn(turn)
        for link in roles.spawns:
            self._spawn(link)
        for u in roles.unplaced:
            if not u.suspect:
                continue  # independent requests: nothing to check
            conv = self.convs[u.conversation]
            self._skip(f"{conv.name} (requests {_seqs(conv)})", f"not placed: {u.reason}")

    def _run(self, what: str, scenario: Scenario | str, outcome: Outcome) -> None:
        if isinstance(scenario, str):
            self._skip(what, scenario)
        else:
            self.cases.append(Case(what, scenario, outcome))

    def _skip(self, what: str, reason: str) -> None:
        self.cases.append(Case(what, reason=reason))

    def _fork_turn(self, turn: ForkTurn) -> None:
        source = self.convs[turn.source]
        request = source.requests[turn.turn]
        recursive = turn.source in self.roles.fork_children
        kind = "recursion" if recursive else "fork"
        what = f"{kind} at request {request.seq}: {_calls(turn)} in {source.name}"
        for extra in turn.extra:
            self._skip(
                f"{self.convs[extra].name} (requests {_seqs(self.convs[extra])})",
                f"a fork child of request {request.seq} with no fork call left to match",
            )
        if not turn.calls:
            self._skip(what, f"the answer to request {request.seq} has no {turn.tool} call left")
            return
        if any(d is None for d in turn.directives):
            key = self.options.directive_key
            arg = f"argument {key!r}" if key else "string argument"
            self._skip(what, f"a {turn.tool} call has no {arg} to take as its directive")
            return
        if recursive:
            self._recursion(turn, what)
        elif has_send_message(request.request.preset.tools):
            self._continuable(turn, what)
        else:
            self._forks(turn, what)

    def _children(self, turn: ForkTurn) -> tuple[list[int], tuple[str, ...], list[Conversation]]:
        """Call indexes with a child first, then those without; directives and children in
        that order, so child ``i`` goes with directive ``i``."""
        present = [j for j, c in enumerate(turn.children) if c is not None]
        order = present + [j for j, c in enumerate(turn.children) if c is None]
        directives = tuple(str(turn.directives[j]) for j in order)
        children = [self.convs[c] for c in turn.children if c is not None]
        return order, directives, children

    def _forks(self, turn: ForkTurn, what: str) -> None:
        request = self.convs[turn.source].requests[turn.turn]
        _, directives, children = self._children(turn)
        action = "siblings" if len(directives) > 1 else "fork"
        scenario = _scenario(
            f"{action}-{request.seq}", action, request, turn, directives=directives
        )
        outcome = Outcome(
            "assembled",
            parent=request.body,
            children=tuple(c.first.body for c in children),
            follow_ups=tuple(r.body for c in children for r in c.requests[1:]),
        )
        self._run(what + _arrow(children), scenario, outcome)

    def _continuable(self, turn: ForkTurn, what: str) -> None:
        source = self.convs[turn.source]
        request = source.requests[turn.turn]
        history = (*request.history, turn.message)
        completed = completed_prefix(history)
        parent = next(
            (
                r
                for r in source.requests
                if r.size == len(completed) - 1 and r.history == completed[:-1]
            ),
            None,
        )
        for j, directive in enumerate(turn.directives):
            index = turn.children[j]
            child = self.convs[index] if index is not None else None
            follow_ups = _follow_ups(child) if child is not None else ()
            continuation = Continuation(
                task=str(directive),
                parent_id=self.options.parent_id or UNKNOWN_PARENT_ID,
                follow_ups=follow_ups,
            )
            name = f"continuable-{request.seq}-{child.first.seq if child else f'call{j}'}"
            scenario = _scenario(
                name, "continuable", request, turn, directives=(), continuation=continuation
            )
            outcome = Outcome(
                "assembled",
                parent=parent.body if parent is not None and completed else None,
                children=(child.first.body,) if child is not None else (),
                follow_ups=tuple(r.body for r in child.requests[1:]) if child else (),
            )
            self._run(what + _arrow([child] if child else []), scenario, outcome)

    def _recursion(self, turn: ForkTurn, what: str) -> None:
        source = self.convs[turn.source]
        request = source.requests[turn.turn]
        _, directives, children = self._children(turn)
        action = "siblings" if len(directives) > 1 else "fork"
        scenario = _scenario(
            f"recursion-{request.seq}", action, request, turn, directives=directives, known=True
        )
        if children:
            outcome = Outcome(
                "assembled",
                parent=request.body,
                children=tuple(c.first.body for c in children),
                follow_ups=tuple(r.body for c in children for r in c.requests[1:]),
            )
            self._run(what + _arrow(children), scenario, outcome)
            return
        if turn.turn + 1 >= len(source.requests):
            self._skip(
                what,
                f"{source.name} made no request after its fork call and no grandchild request "
                "was made, so whether the runtime refused the fork is unknown",
            )
            return
        after = source.requests[turn.turn + 1]
        results = _results(after.history, len(request.history) + 1, turn.calls)
        if not results:
            self._skip(
                what,
                f"{source.name}'s next request ({after.seq}) holds no result for its fork call, "
                "and no grandchild request was made",
            )
            return
        message = " / ".join(_result_text(r) for r in results)
        outcome = Outcome("rejected", parent=request.body, message=message)
        self._run(what + f" -> refused in request {after.seq}", scenario, outcome)

    def _spawn(self, link: SpawnLink) -> None:
        source = self.convs[link.source]
        request = source.requests[link.turn]
        child = self.convs[link.child]
        what = f"spawn at request {request.seq}: {link.call.name} in {source.name}" + _arrow(
            [child]
        )
        if link.turn + 1 >= len(source.requests):
            reason = (
                f"{source.name} made no request after request {request.seq}, so its growth "
                "by the spawn's result cannot be checked"
            )
            self._skip(what, reason)
            return
        turn = ForkTurn(link.source, link.turn, link.message, link.call.name, (), (), ())
        scenario = _scenario(f"spawn-{request.seq}", "spawn", request, turn, prompt=link.prompt)
        outcome = Outcome(
            "assembled",
            parent=request.body,
            children=(child.first.body,),
            follow_ups=tuple(r.body for r in child.requests[1:]),
            parent_next=source.requests[link.turn + 1].body,
        )
        self._run(what, scenario, outcome)


def _scenario(
    name: str,
    action: str,
    request: Observed,
    turn: ForkTurn,
    *,
    directives: tuple[str, ...] = (),
    known: bool = False,
    continuation: Continuation | None = None,
    prompt: str | None = None,
) -> Scenario | str:
    try:
        return Scenario(
            id=name,
            action=action,  # type: ignore[arg-type]
            preset=request.request.preset,
            history=(*request.history, turn.message),
            directives=directives,
            fork_tool=turn.tool,
            known_fork_child=known,
            continuation=continuation,
            prompt=prompt,
            description=f"rebuilt from request {request.seq} and the model's answer to it",
            tags=(CAPTURED,),
        )
    except ValueError as e:
        return f"the scenario cannot be rebuilt: {e}"


def _follow_ups(child: Conversation) -> tuple[FollowUp, ...]:
    """The child's exchanges after its first request: the model's answer, the next turn."""
    out = []
    for i in range(1, len(child.requests)):
        reply = model_turn(child.requests, i - 1) or Message("model", ())
        out.append(FollowUp(reply=reply, message=child.requests[i].history[-1]))
    return tuple(out)


def _results(
    history: Sequence[Message], start: int, calls: Sequence[FunctionCall]
) -> list[FunctionResponse]:
    """The responses in ``history[start]`` that answer ``calls`` (by id, else by name)."""
    if len(history) <= start:
        return []
    ids = {c.id for c in calls if c.id is not None}
    names = {c.name for c in calls}
    responses = history[start].function_responses
    return [r for r in responses if (r.id in ids if ids else r.name in names)]


def _result_text(response: FunctionResponse) -> str:
    text = response.response if isinstance(response.response, str) else str(response.response)
    flag = " (error)" if response.is_error else ""
    return f"{text[:200]}{flag}"


def _calls(turn: ForkTurn) -> str:
    count = len(turn.calls)
    return f"{count} {turn.tool} call{'' if count == 1 else 's'}"


def _arrow(children: Sequence[Conversation]) -> str:
    if not children:
        return " -> no child request"
    return " -> " + ", ".join(f"{c.name} (request {c.first.seq})" for c in children)


def _seqs(conv: Conversation) -> str:
    return ", ".join(str(s) for s in conv.seqs)
