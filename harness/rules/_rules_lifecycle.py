"""recursion-rejected, degraded-fallback, spawn-isolated: whether a child is made, and from what.

The recursion guard is judged by the outcome (status ``rejected`` and no child body), never by
the wording of the refusal. A spawned child is checked in the neutral model for the parent's
texts and call ids; the parent's next request for growing by exactly one exchange.
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import FunctionCall, FunctionResponse, Image, Message, Opaque, Part, Text, Thinking
from ..prefix import locate
from ..scenarios import Scenario
from ._body import Body, message_frame
from ._content import content_item, embedded_values
from ._context import Context
from ._evidence import at, from_divergence
from ._report import Finding, combine

__all__ = ["CHECKS"]


def recursion_rejected(ctx: Context) -> Finding:
    rule, outcome = "recursion-rejected", ctx.outcome
    count = len(outcome.children)
    if not ctx.recursive:
        if outcome.status == "rejected":
            reason = f"rejected a fork whose requester is not a fork child: {outcome.message}"
            return Finding(rule, "fail", reason, at(None, None, body="outcome", reason=reason))
        return Finding(rule, "not-applicable", "the fork's requester is not a fork child")
    if outcome.status == "rejected" and not count:
        return Finding(rule, "pass", f"the fork inside a fork child is rejected: {outcome.message}")
    bodies = "1 child body" if count == 1 else f"{count} child bodies"
    reason = f"a fork inside a fork child is {outcome.status}, with {bodies}"
    child = ctx.children[0] if ctx.children else None
    if child is not None:
        end = ctx.inherited_end(child)
        first = child.frames[end] if end < len(child.frames) else None
        where = f"{reason}; the scenario says its requester is a fork child (known_fork_child)"
        evidence = at(first, first.start if first else None, body=child.label, reason=where)
        return Finding(rule, "fail", reason, evidence)
    return Finding(rule, "fail", reason, at(None, None, body="outcome", reason=reason))


def degraded_fallback(ctx: Context) -> Finding:
    rule, outcome = "degraded-fallback", ctx.outcome
    if not ctx.degraded:
        return Finding(rule, "not-applicable", "the parent has cache-safe parameters")
    if ctx.recursive:
        return Finding(rule, "not-applicable", "the fork is requested by a fork child")
    if ctx.children:
        message = (
            f"the fork ran without cache-safe parameters ({len(ctx.children)} child bodies): "
            "no shared prefix is expected, so the prefix rules do not apply"
        )
        return Finding(rule, "note", message)
    reason = (
        f"without cache-safe parameters the subject made no child ({outcome.status}"
        f"{': ' + outcome.message if outcome.message else ''})"
    )
    return Finding(rule, "fail", reason, at(None, None, body="outcome", reason=reason))


def spawn_isolated(ctx: Context) -> Finding:
    findings = [_isolated(ctx, c) for c in ctx.children] + [_growth(ctx)]
    return combine("spawn-isolated", findings, none="no spawned child body")


def _preamble(
    scenario_history: tuple[Message, ...], child: tuple[Message, ...]
) -> tuple[Part, ...]:
    """The leading parts the first user turns of parent and child share exactly: the
    runtime's own session preamble (environment, skills, date), which every agent of the
    runtime starts with, as leading text parts of the first user message or as user messages
    of their own (codex's environment context). It is the runtime's content, not the
    parent's, as long as the parent's first user turns hold more than it."""
    leading = _leading_users(scenario_history)
    shared: list[Part] = []
    for mine, theirs in zip(leading, _leading_users(child), strict=False):
        if mine == theirs:
            shared.extend(mine.parts)
            continue
        for a, b in zip(mine.parts, theirs.parts, strict=False):
            if not (isinstance(a, Text) and a == b):
                break
            shared.append(a)
        break
    return tuple(shared) if len(shared) < sum(len(m.parts) for m in leading) else ()


def _leading_users(history: tuple[Message, ...]) -> list[Message]:
    out = []
    for message in history:
        if message.role != "user":
            break
        out.append(message)
    return out


MIN_LEAK = 16
"""A parent string shorter than this (after whitespace is normalised) is no evidence of a
leak when a spawned child holds it: "ok", a number or a file name occur by chance."""


def _parent_strings(scenario: Scenario, preamble: set[Part]) -> dict[str, str]:
    """Every piece of the parent's content a spawned child must not carry, normalised, with
    what it is: texts, thinking, call arguments, tool results, images. Strings the delegation
    prompt holds, or the shared preamble, are the child's by right."""
    prompt = " ".join((scenario.prompt or "").split())
    out: dict[str, str] = {}
    for message in scenario.history:
        for part in message.parts:
            if part in preamble:
                continue
            if isinstance(part, Thinking):
                value, what = " ".join(part.text.split()), "thinking"
            elif isinstance(part, Image):
                out[f"{part.data or part.url}"] = "image"
                continue
            else:
                item = content_item(message.role, part)
                if item is None:
                    continue
                value, what = item.value, item.kind
                if isinstance(part, FunctionCall):
                    value = value.split(" ", 1)[1] if " " in value else value
            if len(value) >= MIN_LEAK and value not in prompt:
                out.setdefault(value, what)
    return out


def _child_strings(message: Message) -> list[str]:
    """What a child's message holds, normalised like ``_parent_strings``: each text also by
    the value of every JSON object or array written in it (``embedded_values``), so that a
    parent's result quoted as JSON text in any key order or spacing is found."""
    out = []
    for part in message.parts:
        if isinstance(part, Image):
            out.append(f"{part.data or part.url}")
        elif isinstance(part, Thinking):
            out.append(" ".join(part.text.split()))
        elif isinstance(part, Opaque):
            out.append(" ".join(part.as_text.split()))
        else:
            item = content_item(message.role, part)
            if item is not None:
                out.append(item.value)
        if isinstance(part, Text | Thinking):
            out.extend(embedded_values(part.text))
    return out


def _isolated(ctx: Context, child: Body) -> Finding:
    rule, scenario = "spawn-isolated", ctx.scenario
    preamble = set(_preamble(scenario.history, child.request.history))
    shared = len(preamble)
    strings = _parent_strings(scenario, preamble)
    ids = {
        p.id
        for m in scenario.history
        for p in m.parts
        if isinstance(p, FunctionCall | FunctionResponse) and p.id
    }
    for k, message in enumerate(child.request.history):
        for part in message.parts:
            if isinstance(part, FunctionCall | FunctionResponse) and part.id in ids:
                return _leak(ctx, child, k, f"message {k} carries the parent's call id {part.id!r}")
        for held in _child_strings(message):
            leaked = next((v for v in strings if v in held), None)
            if leaked is not None:
                what = strings[leaked]
                reason = f"message {k} carries the parent's {what} {leaked[:40]!r}"
                return _leak(ctx, child, k, reason)
    count = len(child.request.history)
    note = (
        f" (its first {shared} text part{'' if shared == 1 else 's'} are the runtime's own "
        "preamble, the same as the parent's first user turn starts with)"
        if shared
        else ""
    )
    said = (
        f"{child.label}: {count} message(s), none of the parent's {len(strings)} texts, calls, "
        f"results or images of {MIN_LEAK}+ characters{note}"
    )
    return Finding(rule, "pass", said)


def _leak(ctx: Context, child: Body, k: int, reason: str) -> Finding:
    frame = message_frame(ctx.dialect, child, k)
    evidence = at(frame, frame.start if frame else None, body=child.label, reason=reason)
    return Finding("spawn-isolated", "fail", f"{child.label}: {reason}", evidence)


def _growth(ctx: Context) -> Finding:
    rule, parent, after = "spawn-isolated", ctx.parent, ctx.parent_next
    if parent is None or after is None:
        return Finding(rule, "not-applicable", "no parent and next parent body to compare")
    d = locate(parent.stream, after.stream)
    if d is not None:
        evidence = from_divergence(
            d,
            body=after.label,
            against=parent.label,
            frames=after.frames,
            against_frames=parent.frames,
        )
        reason = f"parent_next rewrites the parent's request at byte {d.offset:,}: {d.reason}"
        return Finding(rule, "fail", reason, evidence)
    added = after.request.history[len(parent.request.history) :]
    calls = [c for m in added[:1] for c in m.function_calls]
    results = [r for m in added[1:] for r in m.function_responses]
    answered = _answered(calls, results)
    if (
        [m.role for m in added] == ["model", "user"]
        and answered is not None
        and any(c.name == ctx.scenario.fork_tool for c in answered)
    ):
        what = "the delegation call" if len(calls) == 1 else f"the {len(calls)} calls of its turn"
        message = f"parent_next adds {what} and one result for each to the parent's request"
        return Finding(rule, "pass", message)
    roles = "/".join(m.role for m in added) or "nothing"
    reason = (
        f"parent_next adds {len(added)} messages ({roles}) with {len(results)} results for "
        f"{len(calls)} calls; a spawn adds its delegation call (with the other calls of its "
        "turn) and one result for each, and nothing of the child's own exchanges"
    )
    frame = message_frame(ctx.dialect, after, len(parent.request.history))
    evidence = at(frame, frame.start if frame else None, body=after.label, reason=reason)
    return Finding(rule, "fail", reason, evidence)


def _answered(
    calls: list[FunctionCall], results: list[FunctionResponse]
) -> list[FunctionCall] | None:
    """The calls ``results`` answer, one result each (by id where both carry one, else by
    name in order: ids are optional in some dialects); None when a result answers no call
    of the turn, or there is none."""
    if not results:
        return None
    left, answered = list(calls), []
    for result in results:
        match = next(
            (
                c
                for c in left
                if (c.id is not None and c.id == result.id)
                or ((c.id is None or result.id is None) and c.name == result.name)
            ),
            None,
        )
        if match is None:
            return None
        left.remove(match)
        answered.append(match)
    return answered


CHECKS: dict[str, Callable[[Context], Finding]] = {
    "recursion-rejected": recursion_rejected,
    "degraded-fallback": degraded_fallback,
    "spawn-isolated": spawn_isolated,
}
