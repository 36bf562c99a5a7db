"""alternation and call-pairing: the shape of every child and follow-up history.

Checked in the neutral model on each body the subject would send after the parent (children,
then follow-ups); the evidence points at the first segment of the offending message. Calls
pair as the dialect pairs them (``Dialect.calls_answered``: by id, or in gemini, where ids
are optional, by name and position when a side carries none).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import is_

from ..dialects._memo import on_forget
from ..model import FunctionCall, FunctionResponse, Message
from ..scenarios import Scenario
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
    findings, walked = [], None
    for body in _bodies(ctx):
        finding, walked = _pairing(ctx, body, walked)
        findings.append(finding)
    return combine("call-pairing", findings, none="no child body to check")


Walked = tuple[tuple[Message, ...], int]
"""A history whose every call is answered (walked whole, none open at its end), with how
many calls it holds."""


def _extends(history: tuple[Message, ...], walked: Walked | None) -> int:
    """How many leading messages of ``history`` are those of the history ``walked``, the
    very objects (a follow-up read in a dialect that gives equal messages as one object):
    all of them, or -1. The walk goes on after them as a walk of them ended."""
    if walked is None:
        return -1
    before = walked[0]
    n = len(before)
    if n > len(history) or not all(map(is_, history[:n], before)):
        return -1
    return n


def _describe(parts: Sequence[FunctionCall | FunctionResponse]) -> str:
    return "[" + ", ".join(f"{p.name}#{p.id}" for p in parts) + "]"


_CALL_PARTS = (FunctionCall, FunctionResponse)

Answered = Callable[[Sequence[FunctionCall], Sequence[FunctionResponse]], bool]


def _walk(
    history: Sequence[Message], answered: Answered, start: int, calls: tuple[FunctionCall, ...]
) -> tuple[int, str] | tuple[None, tuple[FunctionCall, ...]]:
    """Pair calls and responses from message ``start`` on, with ``calls`` open before it:
    the index of the first message that breaks the pairing and why, or None and the calls
    still open at the end."""
    plain = answered((), ())  # a turn without calls after one without calls
    for k in range(start, len(history)):
        message = history[k]
        role, parts = message.role, message.parts
        if role == "system":  # between turns, where a dialect allows it
            continue
        for part in parts:  # most messages hold no call or response at all
            if isinstance(part, _CALL_PARTS):
                own = tuple([p for p in parts if isinstance(p, FunctionCall)])
                responses = tuple([p for p in parts if isinstance(p, FunctionResponse)])
                break
        else:
            own = responses = ()
        if role == "model" and responses:
            return k, "is a model turn holding function responses"
        if role == "user" and not (
            plain if not calls and not responses else answered(calls, responses)
        ):
            problem = (
                f"does not answer the calls before it one to one "
                f"(calls {_describe(calls)}, responses {_describe(responses)})"
            )
            return k, problem
        if role == "model" and calls:
            return k, f"follows calls {_describe(calls)} that were never answered"
        calls = own if role == "model" else ()
    return None, calls


_SPAN_BREAKS: dict[tuple[int, object], tuple[Scenario, int | None]] = {}
"""Where the pairing of a scenario's inherited span breaks (None: nowhere), by the scenario
(held, so its id stays its own) and the dialect's pairing function: one walk of the span
serves every dialect that pairs alike (a check runs each dialect's scenarios in turn, so
as many are held as a run has), and every body that copies the span."""
_SPAN_BREAKS_MAX = 256
on_forget(_SPAN_BREAKS.clear)


def _span_break(ctx: Context, answered: Answered) -> int | None:
    """The first message of the inherited span that breaks the pairing, if one does."""
    pairing = getattr(answered, "__func__", answered)
    key = (id(ctx.scenario), pairing)
    held = _SPAN_BREAKS.get(key)
    if held is None or held[0] is not ctx.scenario:
        if len(_SPAN_BREAKS) >= _SPAN_BREAKS_MAX:
            del _SPAN_BREAKS[next(iter(_SPAN_BREAKS))]
        at, _ = _walk(ctx.inherited, answered, 0, ())
        held = _SPAN_BREAKS[key] = (ctx.scenario, at if isinstance(at, int) else None)
    return held[1]


def _settled(ctx: Context, body: Body, answered: Answered) -> int:
    """How many leading messages of ``body`` need no walk: those equal to the span's (its
    ``aligned`` count: a child's, which the span's rules count anyway, or another body's
    counted already) before any place the span's own pairing breaks. Equal messages pair
    as the span's do, so the walk goes on after them as it would have."""
    aligned = ctx.aligned(body) if body in ctx.children else ctx.known_aligned(body)
    if not aligned:
        return 0
    at = _span_break(ctx, answered)
    return 0 if at is not None and at < aligned else aligned


def _open_calls(history: Sequence[Message], start: int) -> tuple[FunctionCall, ...]:
    """The calls a walk has open before message ``start``: the last turn's, if a model's."""
    k = start - 1
    while k >= 0 and history[k].role == "system":
        k -= 1
    return history[k].function_calls if k >= 0 and history[k].role == "model" else ()


def _pairing(ctx: Context, body: Body, walked: Walked | None) -> tuple[Finding, Walked | None]:
    """The body's finding, and the history walked whole lately (``walked``, or this one)."""
    rule, history = "call-pairing", body.request.history
    answered = ctx.dialect.calls_answered  # what ``calls_answered`` asks of a dialect
    start = _extends(history, walked)
    calls: tuple[FunctionCall, ...] = ()
    if start >= 0:
        assert walked is not None
        counted = walked[1]
    else:
        start = _settled(ctx, body, answered)
        calls, counted = _open_calls(history, start), ctx.inherited_calls.before[start]
    at, found = _walk(history, answered, start, calls)
    if isinstance(at, int):
        assert isinstance(found, str)
        return _flag(ctx, rule, body, at, found), walked
    if found:
        problem = "ends the request with open calls"
        return _flag(ctx, rule, body, len(history) - 1, problem), walked
    total = counted + _calls(history, start)
    message = f"{body.label}: each of its {total} calls has one response"
    return Finding(rule, "pass", message), (history, total)


def _calls(history: Sequence[Message], start: int) -> int:
    """How many function calls the messages from ``start`` on hold."""
    count = 0
    for k in range(start, len(history)):
        for part in history[k].parts:
            if isinstance(part, FunctionCall):
                count += 1
    return count


CHECKS: dict[str, Callable[[Context], Finding]] = {
    "alternation": alternation,
    "call-pairing": call_pairing,
}
