"""history-inherited and call-args-kept: the child's history against its parent's.

The provider caches the parent's request as the subject sent it, so the child must repeat the
parent's messages as the parent sent them (compared in the neutral model, the evidence in
bytes against the parent's segments). The inherited messages the parent's request cannot hold
(the model's last answer) are compared with the scenario by content only (``_content``): how a
subject renders them is its choice, and losing one of them costs none of the parent's cached
prefix: a warning with its reason (``loses_cache``), unless the child also leaves the
parent's prefix. Call arguments redacted to ``{}`` are left to call-args-kept (its own rule,
not a history-ordering failure).
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import FunctionCall, Message, Thinking
from ._body import Body
from ._content import content_lost
from ._context import Context
from ._evidence import at, between
from ._report import Evidence, Finding, combine, loses_cache

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


def _against_parent(ctx: Context, child: Body, k: int) -> Evidence:
    """The segments of message ``k`` in ``child`` against the same message of the parent."""
    assert ctx.parent is not None
    a, b = ctx.message_span(ctx.parent, k)
    c, d = ctx.message_span(child, k)
    found = between(
        ctx.parent.frames[a:b],
        child.frames[c:d],
        body=child.label,
        against="parent",
        what=f"message {k}",
    )
    if found is not None:
        return found
    frame = child.frames[c] if c < len(child.frames) else None
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


def _parent_messages(ctx: Context) -> tuple[Message, ...]:
    """The parent's messages a child must repeat as sent (none without a parent to share)."""
    if ctx.parent is None or ctx.prefix_unexpected() is not None:
        return ()
    return ctx.parent.request.history[: len(ctx.inherited)]


def _inherited(ctx: Context, child: Body) -> Finding:
    rule, actual = "history-inherited", child.request.history
    theirs = _parent_messages(ctx)
    for k, want in enumerate(theirs):
        if k >= len(actual):
            message = (
                f"{child.label}'s history ends after {len(actual)} messages; the parent's "
                f"request, which it inherits, has {len(theirs)}"
            )
            last = child.frames[-1] if child.frames else None
            evidence = at(last, last.end if last else None, body=child.label, reason=message)
            cost = ctx.cost(child)  # none when the child is a mere prefix: content is lost
            return Finding(rule, "fail", message, evidence, cost if loses_cache(cost) else None)
        got = actual[k]
        if got is want or got == want or _unredacted(got, want) == want:
            continue
        evidence = _against_parent(ctx, child, k)
        message = (
            f"{child.label}: message {k} ({want.role}) differs from the parent's at "
            f"{evidence.path}: {evidence.reason}"
        )
        return Finding(rule, "fail", message, evidence, ctx.cost(child))
    rest = ctx.inherited[len(theirs) :]
    tail = actual[len(theirs) :]
    tail = tuple(_unredacted(g, w) for g, w in zip(tail, rest, strict=False)) + tail[len(rest) :]
    loss = content_lost(rest, tail, first=len(theirs)) if rest else None
    if loss is not None:
        k = loss.at
        start, _ = ctx.message_span(child, k) if k < len(actual) else (len(child.frames), 0)
        frame = child.frames[start] if start < len(child.frames) else None
        reason = f"after the parent's messages, {loss.describe()}"
        evidence = at(frame, frame.start if frame else None, body=child.label, reason=reason)
        lost = ctx.cost(child) if theirs else None  # a parent body whose prefix is shared
        if lost is None or loses_cache(lost):
            return Finding(rule, "fail", f"{child.label}: {reason}", evidence, lost)
        said = (
            f"{child.label}: {reason}; the parent's request never held it, so no cached "
            "prefix is lost"
        )
        return Finding(rule, "warning", said, evidence)
    dropped = _thinking_dropped(ctx, rest, tail, first=len(theirs))
    if dropped is not None:
        k, part = dropped
        start, _ = ctx.message_span(child, k) if k < len(actual) else (len(child.frames), 0)
        frame = child.frames[start] if start < len(child.frames) else None
        signed = f" (signature {part.signature[:24]!r})" if part.signature else ""
        reason = (
            f"message {k} (model) lacks the thinking{signed} that the parent replays with its "
            "own model turns; the provider may refuse a call without its thinking, and no "
            "cached prefix is lost"
        )
        evidence = at(frame, frame.start if frame else None, body=child.label, reason=reason)
        return Finding(rule, "warning", f"{child.label}: {reason}", evidence)
    if theirs:
        message = f"{child.label} repeats the parent's {len(theirs)} messages as sent" + (
            f" and carries the {len(rest)} inherited after them" if rest else ""
        )
    else:
        message = f"{child.label} carries the {len(rest)} inherited messages"
    return Finding(rule, "pass", message)


def _replays_thinking(ctx: Context) -> bool:
    """Whether the parent replays its model turns' thinking: its own request keeps a thinking
    part in a model message (then a child's copy of the turn that forked it should keep that
    turn's thinking too). A captured scenario's turn is the parent's own replay of it."""
    if ctx.captured:
        return True
    parent = ctx.parent
    return parent is not None and any(
        isinstance(p, Thinking)
        for m in parent.request.history
        if m.role == "model"
        for p in m.parts
    )


def _thinking_dropped(
    ctx: Context, expected: tuple[Message, ...], actual: tuple[Message, ...], *, first: int
) -> tuple[int, Thinking] | None:
    """The first thinking part of ``expected``'s model messages (the inherited turns the
    parent's request does not hold) that the child's copy lacks, where the parent replays
    thinking; None when it keeps them all (or the parent replays none)."""
    if not expected or not _replays_thinking(ctx):
        return None
    for k, (want, got) in enumerate(zip(expected, actual, strict=False), start=first):
        if want.role != "model":
            continue
        # by text: a dialect may join a turn's thinking (reasoning_content) or sign none
        kept = " ".join(" ".join(p.text.split()) for p in got.parts if isinstance(p, Thinking))
        for part in want.parts:
            if isinstance(part, Thinking) and " ".join(part.text.split()) not in kept:
                return k, part
    return None


def call_args_kept(ctx: Context) -> Finding:
    why = _no_span(ctx)
    if why is not None:
        return Finding("call-args-kept", "not-applicable", why)
    findings = [_args(ctx, c) for c in ctx.children]
    return combine("call-args-kept", findings, none="no child body to check")


def _args(ctx: Context, child: Body) -> Finding:
    span, history = ctx.inherited, child.request.history
    for k, (want, got) in enumerate(zip(span, history, strict=False)):
        pairs = zip(want.parts, got.parts, strict=False)
        redacted = next((w for w, g in pairs if _redacted(w, g)), None)
        if not isinstance(redacted, FunctionCall):
            continue
        first, _ = ctx.message_span(child, k)
        frame = child.frames[first] if first < len(child.frames) else None
        reason = f"the arguments of call {redacted.name} are emptied to {{}}"
        evidence = at(frame, frame.start if frame else None, body=child.label, reason=reason)
        start = frame.start if frame else ctx.inherited_offset(child)
        cost = ctx.span_cost(child, start, ctx.inherited_offset(child), "divergence")
        message = (
            f"{child.label} redacts the arguments of call {redacted.name} ({redacted.id}) in "
            f"inherited message {k} to {{}}: it parts from the parent's continuation there"
        )
        return Finding("call-args-kept", "warning", message, evidence, cost)
    calls = sum(len(m.function_calls) for m in span[: len(history)])
    message = f"{child.label} keeps the arguments of the {calls} inherited calls"
    return Finding("call-args-kept", "pass", message)


CHECKS: dict[str, Callable[[Context], Finding]] = {
    "history-inherited": history_inherited,
    "call-args-kept": call_args_kept,
}
