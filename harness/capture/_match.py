"""Choosing the scripted reply for a request: first matching rule, within its ``times``.

Conditions are read off the request in the neutral model, so one script works for every
dialect. The matcher is shared by the server's threads: counting and rule budgets are
updated under one lock so parallel children never make a rule fire more than it may.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass

from ..dialects import Reply
from ..model import FunctionCall, FunctionResponse, Json, Message, Request, Text
from ._script import Script, When

__all__ = ["Answer", "Facts", "Matcher", "facts_of", "holds"]


@dataclass(frozen=True, slots=True)
class Facts:
    """What rules can ask about one request, computed once per request."""

    turn: int
    """1 + the number of model messages in the history."""
    history_text: str
    """Every text part, call name and string value in call arguments and responses."""
    last_user_text: str
    """The text parts of the last user message."""
    system_text: str
    last_user_tool_results: frozenset[str]
    """Tool names that the last user message holds a function response for."""


@dataclass(frozen=True, slots=True)
class Answer:
    """The reply chosen, the index of the rule that chose it (``None``: the default), its
    mark, and ``nth``: this request's number among all the requests the script answered."""

    reply: Reply
    rule: int | None
    mark: str | None
    nth: int


def facts_of(request: Request) -> Facts:
    history = request.history
    last_user = next((m for m in reversed(history) if m.role == "user"), None)
    return Facts(
        turn=1 + sum(m.role == "model" for m in history),
        history_text="\n".join(s for m in history for s in _strings(m)),
        last_user_text="" if last_user is None else last_user.text,
        system_text="\n".join(request.preset.system),
        last_user_tool_results=frozenset(
            r.name for r in (() if last_user is None else last_user.function_responses)
        ),
    )


def holds(when: When, facts: Facts | None, nth: int, fork_tag: str) -> bool:
    """Whether every condition of ``when`` holds; with no facts (the dialect could not read
    the body) a condition on the request never holds."""
    if when.nth_request is not None and when.nth_request != nth:
        return False
    if facts is None:
        return not when.needs_request
    checks = (
        when.turn is None or when.turn == facts.turn,
        when.first is None or when.first == (facts.turn == 1),
        when.history_contains is None or when.history_contains in facts.history_text,
        when.last_user_contains is None or when.last_user_contains in facts.last_user_text,
        when.system_contains is None or when.system_contains in facts.system_text,
        when.in_fork_child is None or when.in_fork_child == (fork_tag in facts.history_text),
        when.has_tool_result_for is None
        or when.has_tool_result_for in facts.last_user_tool_results,
    )
    return all(checks)


class Matcher:
    """Answers requests from a script; safe to call from many threads at once."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self._lock = threading.Lock()
        self._fired = [0] * len(script.rules)
        self._count = 0

    def answer(self, request: Request | None) -> Answer:
        """The reply for ``request`` (``None`` when its body could not be read as one)."""
        try:
            facts = None if request is None else facts_of(request)
        except RecursionError:  # arguments nested deeper than Python recurses
            facts = None
        with self._lock:
            self._count += 1
            nth = self._count
            for index, rule in enumerate(self.script.rules):
                if rule.times is not None and self._fired[index] >= rule.times:
                    continue
                if holds(rule.when, facts, nth, self.script.fork_tag):
                    self._fired[index] += 1
                    return Answer(rule.reply, index, rule.mark, nth)
        return Answer(self.script.default, None, None, nth)

    @property
    def fired(self) -> tuple[int, ...]:
        """How many times each rule has answered so far."""
        with self._lock:
            return tuple(self._fired)


def _strings(message: Message) -> Iterator[str]:
    for part in message.parts:
        if isinstance(part, Text):
            yield part.text
        elif isinstance(part, FunctionCall):
            yield part.name
            yield from _leaves(part.args)
        elif isinstance(part, FunctionResponse):
            yield from _leaves(part.response)


def _leaves(value: Json) -> Iterator[str]:
    """The string values (not keys) inside a JSON value, depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, tuple):
        for item in value:
            yield from _leaves(item)
