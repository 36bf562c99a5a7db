"""Shape checks and classifications of a user/model history: facts of a scenario, shared by
the scenario checks, the reference's assemblers, the rules and the capture grouping.

A history a provider would accept alternates roles from a user message, and every function
call is answered in the next message by exactly one response with the same id and name. The
reference only assembles from such histories: checking that up front turns bad input into
one clear ``ValueError`` instead of a malformed request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeAlias

from ..dialects import Dialect, answered_one_to_one
from ..model import FunctionCall, FunctionResponse, Message

__all__ = [
    "HistoryEnding",
    "calls_answered",
    "check_history",
    "completed_prefix",
    "history_ending",
    "history_problems",
]

HistoryEnding: TypeAlias = Literal["empty", "model", "model_calls", "user"]
"""How a history ends (docs/protocol.md): nothing, a model message without or with calls, a user."""


def calls_answered(
    calls: Sequence[FunctionCall],
    responses: Sequence[FunctionResponse],
    dialect: Dialect | None = None,
) -> bool:
    """Whether ``responses`` answer ``calls`` one to one, as ``dialect`` pairs them
    (``Dialect.calls_answered``: gemini ids are optional). Without a dialect: each call has
    exactly one response with its id and name, and nothing else (the reference's own rule)."""
    if dialect is not None:
        return dialect.calls_answered(calls, responses)
    return answered_one_to_one(calls, responses)


def history_problems(history: Sequence[object], *, open_calls: bool = True) -> tuple[str, ...]:
    """Every reason ``history`` is not an alternating, call-paired user/model history.

    ``open_calls`` allows the calls of a final model message to be unanswered, as they are
    when the parent is in the middle of calling the fork tool. System-role messages (which
    some dialects allow between turns) take no part in the alternation.
    """
    problems, previous, turn = _walk(history)
    if history and turn == 0:
        problems.append(
            "history holds only system-role messages: a history starts with a user message"
        )
    if previous is not None and previous.function_calls and not open_calls:
        problems.append(f"history[{len(history) - 1}] ends with calls nobody answered")
    return tuple(problems)


def _walk(messages: Sequence[object]) -> tuple[list[str], Message | None, int]:
    """The problems of ``messages``, with the last user/model message and how many such
    messages (or items not messages) were seen."""
    problems: list[str] = []
    previous: Message | None = None
    turn = 0
    for i, message in enumerate(messages):
        if not isinstance(message, Message):
            problems.append(f"history[{i}] is a {type(message).__name__}, not a Message")
            previous = None
            turn += 1
            continue
        role = message.role
        if role == "system":
            continue
        expected = "user" if turn % 2 == 0 else "model"
        turn += 1
        if role != expected:
            problems.append(
                f"history[{i}] has role {role!r} where {expected!r} is due: a history "
                "alternates user/model starting with user"
            )
        if not message.parts:
            problems.append(f"history[{i}] has no parts")
        if role == "model" and message.function_responses:
            problems.append(f"history[{i}] is a model message holding function responses")
        if role == "user" and message.function_calls:
            problems.append(f"history[{i}] is a user message holding function calls")
        calls = previous.function_calls if previous is not None else ()
        responses = message.function_responses
        if role == "user" and not answered_one_to_one(calls, responses):
            problems.append(
                f"history[{i}] does not answer the calls of the message before it one "
                f"to one (calls {_describe(calls)}, responses {_describe(responses)})"
            )
        previous = message
    return problems, previous, turn


def _describe(parts: Sequence[FunctionCall | FunctionResponse]) -> str:
    return "[" + ", ".join(f"{p.name}#{p.id}" for p in parts) + "]"


def check_history(history: Sequence[Message], *, what: str = "history") -> tuple[Message, ...]:
    """``history`` as a tuple, or ``ValueError`` naming its first problem."""
    if isinstance(history, str | bytes | Message):
        raise ValueError(f"{what} must be a sequence of Message, not a {type(history).__name__}")
    problems = history_problems(history)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ValueError(f"{what}: {problems[0]}{more}")
    return tuple(history)


def history_ending(history: Sequence[Message]) -> HistoryEnding:
    """Which of the endings of docs/protocol.md ``history`` has."""
    if not history:
        return "empty"
    last = history[-1]
    if last.role == "user":
        return "user"
    return "model_calls" if last.function_calls else "model"


def completed_prefix(history: Sequence[Message]) -> tuple[Message, ...]:
    """The completed turns: everything up to the last model message that makes no calls.

    A trailing user message, or a model message whose calls are still open (with the user
    message that prompted it), is a turn in progress and is left out (docs/protocol.md).
    """
    for end in range(len(history), 0, -1):
        last = history[end - 1]
        if last.role == "model" and not last.function_calls:
            return tuple(history[:end])
    return ()
