"""history-inherited and call-args-kept: the child's history against the scenario's inherited span.

Both compare in the neutral model, message for message, with the span read back through the
dialect; the evidence then shows the differing message's segments against the dialect's own
rendering of the scenario's message. Call arguments redacted to ``{}`` are left to
call-args-kept (SPEC §5.2: its own rule, not a history-ordering failure).
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import FunctionCall, Message
from ._body import Body
from ._context import Context
from ._evidence import at, between
from ._report import Cost, Evidence, Finding, combine

__all__ = ["CHECKS"]


def _redacted(want: object, got: object) -> bool:
    """Whether ``got`` is the call ``want`` with its arguments emptied."""
    return (
        isinstance(want, FunctionCall)
        and isinstance(got, FunctionCall)
        and (want.name, want.id) == (got.name, got.id)
        and bool(want.args)
        and got.args in (None, {})
    )


def _unredacted(got: Message, want: Message) -> Message:
    """``got`` with each redacted call given back the arguments of ``want``'s call."""
    parts = list(got.parts)
    for i, (w, g) in enumerate(zip(want.parts, got.parts, strict=False)):
        if _redacted(w, g):
            parts[i] = w
    return Message(got.role, tuple(parts))


def _message_evidence(ctx: Context, child: Body, k: int) -> Evidence:
    """The segments of inherited message ``k`` in ``child`` against the scenario's rendering."""
    assert ctx.probe is not None
    starts, base = ctx.inherited_starts, child.history_start
    expected = ctx.probe.frames[starts[k] : starts[k + 1]]
    actual = child.frames[base + starts[k] : base + starts[k + 1]]
    found = between(
        expected, actual, body=child.label, against="scenario", what=f"inherited message {k}"
    )
    if found is not None:
        return found
    frame = actual[0] if actual else None
    return at(
        frame,
        frame.start if frame else None,
        body=child.label,
        reason="the message reads differently in the neutral model",
    )


def _no_span(ctx: Context) -> str | None:
    if ctx.scenario.action == "spawn":
        return "a spawned child inherits no history"
    if not ctx.inherited:
        return "the scenario's inherited span is empty"
    return None


def history_inherited(ctx: Context) -> Finding:
    why = _no_span(ctx)
    if why is not None:
        return Finding("history-inherited", "not-applicable", why)
    findings = [_inherited(ctx, c) for c in ctx.children]
    return combine("history-inherited", findings, none="no child body to check")


def _inherited(ctx: Context, child: Body) -> Finding:
    rule, expected, actual = "history-inherited", ctx.inherited, child.request.history
    cost = ctx.cost(child) if ctx.prefix_unexpected() is None else None
    for k, want in enumerate(expected):
        if k >= len(actual):
            message = (
                f"{child.label}'s history ends after {len(actual)} messages; "
                f"the inherited span has {len(expected)}"
            )
            last = child.frames[-1] if child.frames else None
            evidence = at(last, last.end if last else None, body=child.label, reason=message)
            return Finding(rule, "fail", message, evidence, cost)
        got = actual[k]
        if got == want or _unredacted(got, want) == want:
            continue
        evidence = _message_evidence(ctx, child, k)
        message = (
            f"{child.label}: inherited message {k} ({want.role}) differs at {evidence.path}: "
            f"{evidence.reason}"
        )
        return Finding(rule, "fail", message, evidence, cost)
    message = f"{child.label} starts with the {len(expected)} inherited messages, unchanged"
    return Finding(rule, "pass", message)


def call_args_kept(ctx: Context) -> Finding:
    why = _no_span(ctx)
    if why is not None:
        return Finding("call-args-kept", "not-applicable", why)
    findings = [_args(ctx, c) for c in ctx.children]
    return combine("call-args-kept", findings, none="no child body to check")


def _args(ctx: Context, child: Body) -> Finding:
    calls = 0
    for k, (want, got) in enumerate(zip(ctx.inherited, child.request.history, strict=False)):
        calls += len(want.function_calls)
        pairs = zip(want.parts, got.parts, strict=False)
        redacted = next((w for w, g in pairs if _redacted(w, g)), None)
        if not isinstance(redacted, FunctionCall):
            continue
        evidence = _message_evidence(ctx, child, k)
        start = child.frames[child.history_start + ctx.inherited_starts[k]].start
        cost = Cost(ctx.inherited_offset(child) - start, child.stream.length)
        message = (
            f"{child.label} redacts the arguments of call {redacted.name} ({redacted.id}) in "
            f"inherited message {k} to {{}}: it parts from the parent's continuation there"
        )
        return Finding("call-args-kept", "warning", message, evidence, cost)
    message = f"{child.label} keeps the arguments of the {calls} inherited calls"
    return Finding("call-args-kept", "pass", message)


CHECKS: dict[str, Callable[[Context], Finding]] = {
    "history-inherited": history_inherited,
    "call-args-kept": call_args_kept,
}
