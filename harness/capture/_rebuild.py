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

from ..model import FunctionCall, FunctionResponse, Message, dumps
from ..protocol import Outcome
from ..scenarios import (
    CAPTURED,
    Continuation,
    FollowUp,
    Scenario,
    completed_prefix,
    has_send_message,
)
from ._group import Conversation, GroupOptions, added_by, model_turn
from ._observe import Observed
from ._roles import MIN_PROMPT, ForkTurn, Roles, SessionFork, SpawnLink

__all__ = ["UNKNOWN_PARENT_ID", "Case", "cases"]

UNKNOWN_PARENT_ID = "(unknown parent id)"


@dataclass(frozen=True, slots=True)
class Case:
    """One group to check: what it is, and its scenario and outcome, or why it has none;
    ``evidence`` says what the requests show that decided how it is judged (its lifecycle,
    which children a call started, whether a nested fork was refused)."""

    what: str
    scenario: Scenario | None = None
    outcome: Outcome | None = None
    reason: str | None = None
    evidence: tuple[str, ...] = ()


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
        for fork in roles.session_forks:
            self._session_fork(fork)
        for u in roles.unplaced:
            if not u.suspect:
                continue  # independent requests: nothing to check
            conv = self.convs[u.conversation]
            self._skip(f"{conv.name} (requests {_seqs(conv)})", f"not placed: {u.reason}")

    def _run(
        self, what: str, scenario: Scenario | str, outcome: Outcome, evidence: Sequence[str] = ()
    ) -> None:
        if isinstance(scenario, str):
            self._skip(what, scenario, evidence)
        else:
            self.cases.append(Case(what, scenario, outcome, evidence=tuple(evidence)))

    def _skip(self, what: str, reason: str, evidence: Sequence[str] = ()) -> None:
        self.cases.append(Case(what, reason=reason, evidence=tuple(evidence)))

    def _fork_turn(self, turn: ForkTurn) -> None:
        source = self.convs[turn.source]
        request = source.requests[turn.turn]
        turn = _as_replayed(turn, source)
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
        said = self._started(turn)
        if recursive:
            self._recursion(turn, what, said)
            return
        lifecycle, why = self._lifecycle(turn)
        said.append(f"{lifecycle}: {why}")
        if lifecycle == "continuable":
            self._continuable(turn, what, said)
        else:
            self._forks(turn, what, said)

    def _started(self, turn: ForkTurn) -> list[str]:
        """Which child each call started, by the argument its first request repeats."""
        said = []
        for call, directive, index in zip(turn.calls, turn.directives, turn.children, strict=True):
            if index is None:
                continue
            conv = self.convs[index]
            said.append(
                f"{conv.name} (request {conv.first.seq}) repeats {_short(str(directive))} of "
                f"its {call.name} call"
            )
        if len(set(map(id, turn.calls))) < len(turn.calls):
            said.append("one call started several children, one for each argument they repeat")
        if any(c in self.roles.first_turn for c in turn.children if c is not None):
            said.append(
                "nothing inherited: the fork was made on the parent's first turn, so only "
                "its head (system, tools, settings) is the parent's"
            )
        return said

    def _lifecycle(self, turn: ForkTurn) -> tuple[str, str]:
        """One-shot or continuable, and the evidence: ``--lifecycle`` when given, else how
        the children were seeded (the model turn that forked them, or the parent's completed
        turns alone), else how they lived (a child sent a message after it answered; the
        fork call's result holding a child's answer), else the parent's tools."""
        if self.options.lifecycle is not None:
            return self.options.lifecycle, "as --lifecycle says"
        source = self.convs[turn.source]
        request = source.requests[turn.turn]
        children = [self.convs[c] for c in turn.children if c is not None]
        if any(c.index in self.roles.first_turn for c in children):
            return "one-shot", "a fork made before the parent completed a turn"
        size = len(request.history)
        for child in children:
            if child.first.size > size and child.first.model_at(size) is not None:
                calls = child.first.calls_at(size) or ()
                if any(c.name == turn.tool for c in calls):
                    return "one-shot", f"{child.name}'s history holds the model turn that forked it"
        completed = completed_prefix((*request.history, turn.message))
        for child in children:
            history = child.first.history
            if (
                completed
                and history[: len(completed)] == completed
                and not any(
                    m.role == "model" and any(c.name == turn.tool for c in m.function_calls)
                    for m in history[len(completed) :]
                )
            ):
                seq = child.first.seq
                return "continuable", (
                    f"{child.name}'s history (request {seq}) is the parent's completed turns, "
                    "without the turn that forked it"
                )
        for child in children:
            later = _messaged(child)
            if later is not None:
                return "continuable", f"{child.name} was sent a message after it answered ({later})"
        answered = self._answered_by_result(turn, children)
        if answered is not None:
            return "one-shot", answered
        if has_send_message(request.request.preset.tools):
            return "continuable", "no request shows it; the parent declares send_message"
        return "one-shot", "no request shows a continuable child"

    def _answered_by_result(self, turn: ForkTurn, children: Sequence[Conversation]) -> str | None:
        """Why the fork call's result is a child's answer (one-shot), if it is: the parent's
        next request answers the call with text the child gave as its last answer."""
        source = self.convs[turn.source]
        if turn.turn + 1 >= len(source.requests):
            return None
        after = source.requests[turn.turn + 1]
        request = source.requests[turn.turn]
        results = _results(after.history, len(request.history) + 1, turn.calls)
        said = " ".join(" ".join(_full_text(r).split()) for r in results)
        for child in children:
            answer = _last_answer(child)
            if answer and len(answer) >= MIN_PROMPT and answer in said:
                return (
                    f"the fork call's result in request {after.seq} holds {child.name}'s "
                    f"answer {_short(answer)}"
                )
        return None

    def _children(self, turn: ForkTurn) -> tuple[list[int], tuple[str, ...], list[Conversation]]:
        """Call indexes with a child first, then those without; directives and children in
        that order, so child ``i`` goes with directive ``i``."""
        present = [j for j, c in enumerate(turn.children) if c is not None]
        order = present + [j for j, c in enumerate(turn.children) if c is None]
        directives = tuple(str(turn.directives[j]) for j in order)
        children = [self.convs[c] for c in turn.children if c is not None]
        return order, directives, children

    def _forks(self, turn: ForkTurn, what: str, said: Sequence[str] = ()) -> None:
        request = self.convs[turn.source].requests[turn.turn]
        _, directives, children = self._children(turn)
        action = "siblings" if len(directives) > 1 else "fork"
        fresh = any(c.index in self.roles.first_turn for c in children)
        scenario = _scenario(
            f"{action}-{request.seq}",
            action,
            request,
            turn,
            directives=directives,
            inherits=not fresh,
        )
        outcome = Outcome(
            "assembled",
            parent=request.body,
            children=tuple(c.first.body for c in children),
            follow_ups=tuple(r.body for c in children for r in c.requests[1:]),
        )
        self._run(what + _arrow(children), scenario, outcome, said)

    def _continuable(self, turn: ForkTurn, what: str, said: Sequence[str] = ()) -> None:
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
            self._run(what + _arrow([child] if child else []), scenario, outcome, said)

    def _recursion(self, turn: ForkTurn, what: str, said: list[str]) -> None:
        """A fork inside a fork child: allowed when a grandchild ran (placed as a child, or
        a conversation started after the call whose answer the call's result holds);
        refused when the child's next request answers the call and no grandchild ran."""
        source = self.convs[turn.source]
        request = source.requests[turn.turn]
        _, directives, children = self._children(turn)
        action = "siblings" if len(directives) > 1 else "fork"
        scenario = _scenario(
            f"recursion-{request.seq}", action, request, turn, directives=directives, known=True
        )
        after = source.requests[turn.turn + 1] if turn.turn + 1 < len(source.requests) else None
        results = _results(after.history, len(request.history) + 1, turn.calls) if after else []
        if not children and after is not None:
            ran = self._grandchild(request.seq, after.seq, results, turn.source)
            if ran is not None:
                grandchild, answer = ran
                children = [grandchild]
                said.append(
                    f"allowed: {grandchild.name} ran after the call (request "
                    f"{grandchild.first.seq}) and the call's result in request {after.seq} "
                    f"holds its answer {_short(answer)}"
                )
        if children:
            if not any(s.startswith("allowed:") for s in said):
                said.append("allowed: a grandchild request was made")
            outcome = Outcome(
                "assembled",
                parent=request.body,
                children=tuple(c.first.body for c in children),
                follow_ups=tuple(r.body for c in children for r in c.requests[1:]),
            )
            self._run(what + _arrow(children), scenario, outcome, said)
            return
        if after is None:
            self._skip(
                what,
                f"{source.name} made no request after its fork call and no grandchild request "
                "was made, so whether the runtime refused the fork is unknown",
                said,
            )
            return
        if not results:
            self._skip(
                what,
                f"{source.name}'s next request ({after.seq}) holds no result for its fork call, "
                "and no grandchild request was made",
                said,
            )
            return
        message = " / ".join(_result_text(r) for r in results)
        flagged = " (flagged as an error)" if any(r.is_error for r in results) else ""
        said.append(
            f"refused: request {after.seq} answers the call{flagged} and no grandchild request "
            "was made"
        )
        outcome = Outcome("rejected", parent=request.body, message=message)
        self._run(what + f" -> refused in request {after.seq}", scenario, outcome, said)

    def _grandchild(
        self, start: int, end: int, results: Sequence[FunctionResponse], source: int
    ) -> tuple[Conversation, str] | None:
        """A conversation that started between requests ``start`` and ``end`` (not the
        source's own) whose last answer the call's results hold: a grandchild that ran,
        though it could not be placed as a fork child."""
        said = " ".join(" ".join(_full_text(r).split()) for r in results)
        for conv in self.convs:
            if conv.index == source or not start < conv.first.seq < end:
                continue
            answer = _last_answer(conv)
            if answer and len(answer) >= MIN_PROMPT and answer in said:
                return conv, answer
        return None

    def _session_fork(self, fork: SessionFork) -> None:
        """A session continued by a new process, judged as a fork of the request it extends:
        its task is the user text it adds."""
        source = self.convs[fork.source]
        request = source.requests[fork.turn]
        child = self.convs[fork.child]
        how = (
            "declared by its mark"
            if fork.declared
            else f"recognised: it branches from request {request.seq}, which {source.name} "
            "had already continued, with a user message of its own"
        )
        what = f"session fork at request {request.seq} in {source.name}" + _arrow([child])
        message = model_turn(source.requests, fork.turn, child.first)
        history = (*request.history, message) if message is not None else request.history
        added = added_by(child.first, len(history)).strip()
        if not added:
            self._skip(what, "the session fork adds no user text to take as its task", [how])
            return
        turn = ForkTurn(fork.source, fork.turn, message or Message("model", ()), "", (), (), ())
        scenario = _scenario(
            f"session-fork-{request.seq}",
            "fork",
            request,
            turn,
            directives=(added,),
            inherits=message is not None,
        )
        outcome = Outcome(
            "assembled",
            parent=request.body,
            children=(child.first.body,),
            follow_ups=tuple(r.body for r in child.requests[1:]),
        )
        self._run(what, scenario, outcome, [f"a session fork, {how}"])

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
    inherits: bool = True,
) -> Scenario | str:
    """The scenario of ``request`` and the model's ``turn`` answering it; ``inherits``
    False leaves that turn out: a fork made before anything was there to inherit."""
    history = (*request.history, turn.message) if inherits else request.history
    try:
        return Scenario(
            id=name,
            action=action,  # type: ignore[arg-type]
            preset=request.request.preset,
            history=history,
            directives=directives,
            fork_tool=turn.tool or "agent",
            known_fork_child=known,
            continuation=continuation,
            prompt=prompt,
            description=f"rebuilt from request {request.seq} and the model's answer to it",
            tags=(CAPTURED,),
        )
    except ValueError as e:
        return f"the scenario cannot be rebuilt: {e}"


def _as_replayed(turn: ForkTurn, source: Conversation) -> ForkTurn:
    """``turn`` with its model message as the parent replays it in its next request (its
    thinking kept or not, as the parent keeps it), when that request holds it with the same
    calls: what a child should keep of it. Else the message the fake played."""
    if turn.turn + 1 >= len(source.requests):
        return turn
    size = source.requests[turn.turn].size
    replayed = source.requests[turn.turn + 1].model_at(size)
    if replayed is None:
        return turn
    names = [c.name for c in replayed.function_calls]
    if names != [c.name for c in turn.message.function_calls]:
        return turn
    return replace(turn, message=replayed)


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


def _full_text(response: FunctionResponse) -> str:
    """A result's text: a string as it is, text blocks joined, other JSON as compact JSON."""
    value = response.response
    if isinstance(value, str):
        return value
    if isinstance(value, tuple) and all(isinstance(b, dict) and "text" in b for b in value):
        return "\n".join(str(b["text"]) for b in value if isinstance(b, dict))
    if isinstance(value, dict) and len(value) == 1:
        return _full_text(FunctionResponse(response.name, next(iter(value.values()))))
    return dumps(value).decode()


def _last_answer(conv: Conversation) -> str:
    """The text of the model's last answer to ``conv`` (folded), when it is known and makes
    no call: the child's final answer."""
    last = conv.requests[-1]
    if last.reply is None or last.reply.calls or not last.reply.text:
        return ""
    return " ".join(last.reply.text.split())


def _messaged(conv: Conversation) -> str | None:
    """Where ``conv`` was sent a message after it answered, if it was: a request that
    follows a model answer making no call (a finished child given more work)."""
    for k in range(1, len(conv.requests)):
        before = model_turn(conv.requests, k - 1)
        request = conv.requests[k]
        last = request.history[-1] if request.history else None
        if (
            before is not None
            and not before.function_calls
            and last is not None
            and last.role == "user"
            and last.text.strip()
        ):
            return f"request {request.seq}"
    return None


def _short(text: str, limit: int = 40) -> str:
    folded = " ".join(text.split())
    return repr(folded if len(folded) <= limit else folded[: limit - 1] + "…")


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
