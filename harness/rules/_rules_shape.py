"""alternation and call-pairing: the shape of every child and follow-up history.

Checked in the neutral model on each body the subject would send after the parent (children,
then follow-ups); the evidence points at the first segment of the offending message. Calls
pair as the dialect pairs them (``Dialect.calls_answered``: by id, or in gemini, where ids
are optional, by name and position when a side carries none).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..model import FunctionCall, FunctionResponse, Message
from ._body import Body, message_frame
from ._context import Context
from ._evidence import at
from ._report import Finding, combine

__all__ = ["CHECKS"]


def _bodies(ctx: Context) -> tuple[Body, ...]:
    return ctx.children + ctx.follow_ups


def _flag(ctx: Context, rule: str, body: Body, k: int, problem: str) -> Finding:
    """A failure at message ``k`` of ``body``, pointing at its first segment."""
    frame = message_frame(ctx.dialect, body, k)
    message = f"{body.label}: message {k} {problem}"
    evidence = at(frame, frame.start if frame else None, body=body.label, reason=problem)
    return Finding(rule, "fail", message, evidence)


def alternation(ctx: Context) -> Finding:
    shaped = _repeats(ctx.parent)
    findings = [_alternation(ctx, b, shaped) for b in _bodies(ctx)]
    return combine("alternation", findings, none="no child body to check")


def _alternation(ctx: Context, body: Body, shaped: set[tuple[int, str]]) -> Finding:
    rule, history = "alternation", body.request.history
    if not history:
        evidence = at(None, None, body=body.label, reason="no messages")
        return Finding(rule, "fail", f"{body.label} has no messages", evidence)
    turns = [(k, m) for k, m in enumerate(history) if m.role != "system"]
    if not turns:
        evidence = at(None, None, body=body.label, reason="no user or model messages")
        return Finding(rule, "fail", f"{body.label} has only system messages", evidence)
    previous: str | None = None
    for turn, (k, message) in enumerate(turns):
        due = "user" if previous is None else ("model" if previous == "user" else "user")
        previous = message.role
        if message.role == due or (turn, message.role) in shaped:
            continue
        problem = f"has role {message.role} where {due} is due (user/model from a user turn)"
        if k == ctx.inherited_count(body) < len(ctx.inherited):
            problem += ": the child's copy of the history stops short of the model turn here"
        return _flag(ctx, rule, body, k, problem)
    if turns[-1][1].role != "user":
        return _flag(ctx, rule, body, turns[-1][0], "is a model turn: nothing asks for a reply")
    between = len(history) - len(turns)
    others = f" (and {between} system-role message{'' if between == 1 else 's'})" if between else ""
    return Finding(
        rule, "pass", f"{body.label}'s {len(turns)} messages alternate user/model{others}"
    )


def _repeats(parent: Body | None) -> set[tuple[int, str]]:
    """(turn, role) of each turn of the parent's own body that repeats the role before it:
    the runtime's own shape (codex sends its environment context and the user's prompt as
    two user turns), which the provider accepted from the parent. A child repeating it at
    the same turn is not breaking alternation; a repeat of its own still is."""
    if parent is None:
        return set()
    roles = [m.role for m in parent.request.history if m.role != "system"]
    return {(t, r) for t, r in enumerate(roles) if t and roles[t - 1] == r}


def call_pairing(ctx: Context) -> Finding:
    findings = [_pairing(ctx, body) for body in _bodies(ctx)]
    return combine("call-pairing", findings, none="no child body to check")


def _describe(parts: Sequence[FunctionCall | FunctionResponse]) -> str:
    return "[" + ", ".join(f"{p.name}#{p.id}" for p in parts) + "]"


Answered = Callable[[Sequence[FunctionCall], Sequence[FunctionResponse]], bool]


def _walk(
    history: Sequence[Message], answered: Answered
) -> tuple[int, str] | tuple[None, tuple[FunctionCall, ...]]:
    """Pair calls and responses in order: the index of the first message that breaks the
    pairing and why, or None and the calls still open at the end."""
    calls: tuple[FunctionCall, ...] = ()
    for k, message in enumerate(history):
        role = message.role
        if role == "system":  # between turns, where a dialect allows it
            continue
        responses = message.function_responses
        if role == "model" and responses:
            return k, "is a model turn holding function responses"
        if role == "user" and not answered(calls, responses):
            problem = (
                f"does not answer the calls before it one to one "
                f"(calls {_describe(calls)}, responses {_describe(responses)})"
            )
            return k, problem
        if role == "model" and calls:
            return k, f"follows calls {_describe(calls)} that were never answered"
        calls = message.function_calls if role == "model" else ()
    return None, calls


def _pairing(ctx: Context, body: Body) -> Finding:
    rule, history = "call-pairing", body.request.history
    at, found = _walk(history, ctx.dialect.calls_answered)
    if isinstance(at, int):
        assert isinstance(found, str)
        return _flag(ctx, rule, body, at, found)
    if found:
        return _flag(ctx, rule, body, len(history) - 1, "ends the request with open calls")
    total = sum(len(m.function_calls) for m in history)
    return Finding(rule, "pass", f"{body.label}: each of its {total} calls has one response")


CHECKS: dict[str, Callable[[Context], Finding]] = {
    "alternation": alternation,
    "call-pairing": call_pairing,
}
