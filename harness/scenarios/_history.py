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
from ..dialects._memo import on_forget
from ..model import FunctionCall, FunctionResponse, Message

__all__ = [
    "HistoryEnding",
    "calls_answered",
    "check_history",
    "completed_prefix",
    "extended_history",
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
    return tuple(_problems(history, open_calls)[0])


def _problems(history: Sequence[object], open_calls: bool) -> tuple[list[str], Message | None, int]:
    """``history_problems``, with the state its walk ended in (``_walk``)."""
    problems, previous, turn = _walk(history, 0, None, 0)
    if history and turn == 0:
        problems.append(
            "history holds only system-role messages: a history starts with a user message"
        )
    if previous is not None and previous.function_calls and not open_calls:
        problems.append(f"history[{len(history) - 1}] ends with calls nobody answered")
    return problems, previous, turn


def _walk(
    messages: Sequence[object], first: int, previous: Message | None, turn: int
) -> tuple[list[str], Message | None, int]:
    """The problems of ``messages``, the history's items from index ``first`` on, after a
    walk that left the last user/model message ``previous`` and ``turn`` such messages
    (or items not messages) seen; and the walk's state after them.

    A user message that answers no call and holds no response pairs as ``calls_answered``
    says without asking it: the walk of a long history asks it only where calls are."""
    problems: list[str] = []
    for i, message in enumerate(messages, first):
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
        if role == "user":
            responses = message.function_responses
            if (calls or responses) and not answered_one_to_one(calls, responses):
                problems.append(
                    f"history[{i}] does not answer the calls of the message before it one "
                    f"to one (calls {_describe(calls)}, responses {_describe(responses)})"
                )
        previous = message
    return problems, previous, turn


def _describe(parts: Sequence[FunctionCall | FunctionResponse]) -> str:
    return "[" + ", ".join(f"{p.name}#{p.id}" for p in parts) + "]"


def check_history(history: Sequence[Message], *, what: str = "history") -> tuple[Message, ...]:
    """``history`` as a tuple, or ``ValueError`` naming its first problem.

    A tuple found without problems is remembered (``_CHECKED``): each child of a scenario,
    in each dialect, checks the same history object again."""
    if isinstance(history, str | bytes | Message):
        raise ValueError(f"{what} must be a sequence of Message, not a {type(history).__name__}")
    if type(history) is tuple and _known(history) is not None:
        return history
    problems, previous, turn = _problems(history, True)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ValueError(f"{what}: {problems[0]}{more}")
    checked = tuple(history)
    _remember(checked, previous, turn)
    return checked


def extended_history(
    history: tuple[Message, ...], *more: Message, what: str = "history"
) -> tuple[Message, ...]:
    """``check_history((*history, *more))``: only ``more`` is walked when ``history`` is a
    tuple checked lately (the walk goes on from where that one ended, so it finds what a
    walk of the whole would find there, and nothing before)."""
    held = _known(history) if type(history) is tuple else None
    if held is not None:
        problems, previous, turn = _walk(more, len(history), *held)
        if not problems and turn:
            checked = (*history, *more)
            _remember(checked, previous, turn)
            return checked
    return check_history((*history, *more), what=what)


_CHECKED: dict[int, tuple[tuple[Message, ...], Message | None, int]] = {}
"""Histories checked lately, by ``id``, each held (so no other object has its id) with the
state its walk ended in; the oldest is dropped first."""
_CHECKED_MAX = 256
on_forget(_CHECKED.clear)


def _known(history: tuple[Message, ...]) -> tuple[Message | None, int] | None:
    held = _CHECKED.get(id(history))
    if held is None or held[0] is not history:
        return None
    return held[1], held[2]


def _remember(history: tuple[Message, ...], previous: Message | None, turn: int) -> None:
    if len(_CHECKED) >= _CHECKED_MAX:
        del _CHECKED[next(iter(_CHECKED))]
    _CHECKED[id(history)] = (history, previous, turn)


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
