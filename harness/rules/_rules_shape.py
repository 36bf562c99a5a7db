"""alternation and call-pairing: the shape of every child and follow-up history.

Checked in the neutral model on each body the subject would send after the parent (children,
then follow-ups); the evidence points at the first segment of the offending message. Calls
pair as the dialect pairs them (``Dialect.calls_answered``: by id, or in gemini, where ids
are optional, by name and position when a side carries none).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..model import FunctionCall, FunctionResponse
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
    findings = [_alternation(ctx, b) for b in _bodies(ctx)]
    return combine("alternation", findings, none="no child body to check")


def _alternation(ctx: Context, body: Body) -> Finding:
    rule, history = "alternation", body.request.history
    if not history:
        evidence = at(None, None, body=body.label, reason="no messages")
        return Finding(rule, "fail", f"{body.label} has no messages", evidence)
    turns = [(k, m) for k, m in enumerate(history) if m.role != "system"]
    if not turns:
        evidence = at(None, None, body=body.label, reason="no user or model messages")
        return Finding(rule, "fail", f"{body.label} has only system messages", evidence)
    shaped = _repeats(ctx.parent)
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
    findings = [_pairing(ctx, b) for b in _bodies(ctx)]
    return combine("call-pairing", findings, none="no child body to check")


def _describe(parts: Sequence[FunctionCall | FunctionResponse]) -> str:
    return "[" + ", ".join(f"{p.name}#{p.id}" for p in parts) + "]"


_CALL_PARTS = (FunctionCall, FunctionResponse)


def _pairing(ctx: Context, body: Body) -> Finding:
    rule, history, dialect = "call-pairing", body.request.history, ctx.dialect
    calls: tuple[FunctionCall, ...] = ()
    total = 0
    answered = dialect.calls_answered  # what ``calls_answered`` asks of a dialect
    plain = answered((), ())  # a turn without calls after one without calls
    for k, message in enumerate(history):
        role, parts = message.role, message.parts
        for part in parts:  # most messages hold no call or response at all
            if isinstance(part, _CALL_PARTS):
                own = tuple([p for p in parts if isinstance(p, FunctionCall)])
                responses = tuple([p for p in parts if isinstance(p, FunctionResponse)])
                break
        else:
            own = responses = ()
        total += len(own)
        if role == "system":  # between turns, where a dialect allows it
            continue
        if role == "model" and responses:
            return _flag(ctx, rule, body, k, "is a model turn holding function responses")
        if role == "user" and not (
            plain if not calls and not responses else answered(calls, responses)
        ):
            problem = (
                f"does not answer the calls before it one to one "
                f"(calls {_describe(calls)}, responses {_describe(responses)})"
            )
            return _flag(ctx, rule, body, k, problem)
        if role == "model" and calls:
            problem = f"follows calls {_describe(calls)} that were never answered"
            return _flag(ctx, rule, body, k, problem)
        calls = own if role == "model" else ()
    if calls:
        return _flag(ctx, rule, body, len(history) - 1, "ends the request with open calls")
    return Finding(rule, "pass", f"{body.label}: each of its {total} calls has one response")


CHECKS: dict[str, Callable[[Context], Finding]] = {
    "alternation": alternation,
    "call-pairing": call_pairing,
}
