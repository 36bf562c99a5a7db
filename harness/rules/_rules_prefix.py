"""byte-prefix, task-after-prefix, siblings-shared: where a child's bytes part from others'.

The task text is the scenario's (a directive, a continuable task), found JSON-escaped in the
prefix stream; the boilerplate around it is the subject's own wording and is not looked for.
"""

from __future__ import annotations

from collections.abc import Callable

import orjson

from ..model import Preset, Request, Text
from ..prefix import Divergence, Frame, locate, prefix_stream
from ..subjects import ReferenceSubject, parent_preset
from ._accepted import accepted_head
from ._body import Body, message_frames
from ._context import Context, encoded
from ._evidence import at, from_divergence, json_start, occurrences
from ._report import Cost, Finding, combine

__all__ = ["CHECKS"]


def byte_prefix(ctx: Context) -> Finding:
    why = ctx.prefix_unexpected()
    if why is not None:
        return Finding("byte-prefix", "not-applicable", why)
    findings = [_prefix(ctx, c) for c in ctx.children]
    return combine("byte-prefix", findings, none="no child body to check")


def _in_head(ctx: Context, child: Body, d: Divergence) -> bool:
    """Whether the divergence lies in the system instruction or the tool declarations."""
    assert ctx.parent is not None
    for body, frame in ((child, d.fork_frame), (ctx.parent, d.parent_frame)):
        index = body.frame_index(frame.name) if frame is not None else None
        if index is not None and body.families[index] in ("system", "tools"):
            return True
    return False


def _prefix(ctx: Context, child: Body) -> Finding:
    assert ctx.parent is not None
    rule, d, cost = "byte-prefix", ctx.divergence(child), ctx.cost(child)
    if d is None:
        length = ctx.parent.stream.length
        share = length / child.stream.length if child.stream.length else 1.0
        message = (
            f"{child.label} starts with the parent's whole prefix "
            f"({length:,} bytes = {share:.1%} of its own)"
        )
        return Finding(rule, "pass", message)
    evidence = from_divergence(d, body=child.label, against="parent")
    where = evidence.segment or evidence.against_segment
    accepted = accepted_head(ctx, child) if _in_head(ctx, child, d) else None
    if accepted is not None:
        message = (
            f"{child.label} leaves the parent's prefix at byte {d.offset:,} ({where}) by an "
            f"accepted divergence: {accepted}"
        )
        return Finding(rule, "warning", message, evidence, cost)
    message = f"{child.label} leaves the parent's prefix at byte {d.offset:,} ({where}): {d.reason}"
    return Finding(rule, "fail", message, evidence, cost)


def task_after_prefix(ctx: Context) -> Finding:
    findings = [_task(ctx, i, c) for i, c in enumerate(ctx.children)]
    return combine("task-after-prefix", findings, none="no child body to check")


def _nth(frame: Frame, needle: bytes, n: int) -> int:
    """The stream offset of the ``n``-th (from 0) occurrence of ``needle`` in the frame."""
    at_ = -1
    for _ in range(n + 1):
        at_ = frame.json.find(needle, at_ + 1)
    return json_start(frame) + at_


def _head_frames(ctx: Context, request: Request) -> set[bytes]:
    body = ctx.dialect.render(Request(request.preset))
    return {f.json for f in prefix_stream(ctx.dialect.parse(orjson.loads(body))).frames}


def _scenario_head(ctx: Context) -> set[bytes]:
    """The head segments the scenario itself accounts for: the parent's preset, a degraded
    fork's default tools, and the head the reference gives the child (restored persona,
    structured output). Text found there is the scenario's, not child-only, whatever it says.
    """
    scenario = ctx.scenario
    preset = parent_preset(scenario)
    tools = (*preset.tools, *scenario.default_tools)
    frames = _head_frames(ctx, Request(Preset(preset.system, tools, preset.settings)))
    for body in ReferenceSubject().assemble(scenario, ctx.dialect.name).children:
        frames |= _head_frames(ctx, ctx.dialect.parse(orjson.loads(body)).request)
    return frames


def _misplaced(ctx: Context, child: Body, needle: bytes) -> tuple[int, int] | None:
    """(frame index, offset) of the first occurrence of the task before the end of the
    inherited span that neither the parent's head nor the inherited messages explain."""
    parent_head = _scenario_head(ctx)
    if ctx.parent is not None and ctx.prefix_unexpected() is None:
        parent_head |= {f.json for f in ctx.parent.frames[: ctx.parent.history_start]}
    for i, frame in enumerate(child.frames[: child.history_start]):
        if needle in frame.json and frame.json not in parent_head:
            return i, _nth(frame, needle, 0)
    start, end = child.history_start, ctx.inherited_end(child)
    expected = ctx.probe.frames if ctx.probe is not None else ()
    for j, frame in enumerate(child.frames[start:end]):
        allowed = expected[j].json.count(needle) if j < len(expected) else 0
        if frame.json.count(needle) > allowed:
            return start + j, _nth(frame, needle, allowed)
    return None


def _task(ctx: Context, index: int, child: Body) -> Finding:
    rule, task = "task-after-prefix", ctx.task(index)
    if not task:
        return Finding(rule, "not-applicable", f"the scenario gives no task text for {child.label}")
    needle, end = encoded(task), ctx.inherited_end(child)
    cost = ctx.cost(child) if ctx.prefix_unexpected() is None else None
    boundary = f"the end of the inherited prefix (byte {ctx.inherited_offset(child):,})"
    misplaced = _misplaced(ctx, child, needle)
    if misplaced is not None:
        index, offset = misplaced
        frame, family = child.frames[index], child.families[index]
        reason = f"the task text is in the {family} segment {frame.name}, before {boundary}"
        evidence = at(frame, offset, body=child.label, reason=reason)
        return Finding(rule, "fail", f"{child.label}: {reason}", evidence, cost)
    after = next(occurrences(child.frames[end:], needle), None)
    if after is None:
        reason = f"the task text is not found after {boundary}"
        last = child.frames[-1] if child.frames else None
        evidence = at(last, last.start if last else None, body=child.label, reason=reason)
        return Finding(rule, "fail", f"{child.label}: {reason}", evidence, cost)
    message = f"{child.label}: the task text comes in {after[0].name}, after the inherited prefix"
    return Finding(rule, "pass", message)


def siblings_shared(ctx: Context) -> Finding:
    rule = "siblings-shared"
    if ctx.scenario.action != "siblings":
        return Finding(rule, "not-applicable", "only sibling forks are compared with each other")
    if len(ctx.children) < 2:
        return Finding(rule, "not-applicable", "fewer than two sibling bodies to compare")
    first = ctx.children[0]
    findings = [_sibling(ctx, first, i, c) for i, c in enumerate(ctx.children[1:], start=1)]
    return combine(rule, findings, none="no sibling body to compare")


def _directive_at(ctx: Context, index: int, child: Body) -> int | None:
    """The stream offset of child ``index``'s directive: its last place in the first user text
    part after the inherited span that holds it (the child message).

    A short directive ("a", "1") also occurs by chance elsewhere, in a call id or in the very
    bytes where two siblings differ; found through the message structure, it is the real one.
    """
    directive = ctx.task(index)
    if not directive:
        return None
    history = child.request.history
    counts = message_frames(ctx.dialect, history)
    start = min(len(ctx.inherited), len(history))
    first = child.history_start + sum(counts[:start])
    for k in range(start, len(history)):
        frames = child.frames[first : first + counts[k]]
        first += counts[k]
        for part in history[k].parts if history[k].role == "user" else ():
            if not isinstance(part, Text) or directive not in part.text:
                continue
            text, inner = encoded(part.text), encoded(part.text[: part.text.rfind(directive)])
            for frame in frames:
                at_ = frame.json.rfind(text)
                if at_ >= 0:
                    return json_start(frame) + at_ + len(inner)
    return None


def _sibling(ctx: Context, first: Body, index: int, child: Body) -> Finding:
    rule = "siblings-shared"
    starts = (_directive_at(ctx, 0, first), _directive_at(ctx, index, child))
    missing = [b.label for b, s in zip((first, child), starts, strict=True) if s is None]
    if missing:
        reason = f"the directive is not found after the inherited prefix in {', '.join(missing)}"
        evidence = at(None, None, body=missing[-1], reason=reason)
        return Finding(rule, "fail", reason, evidence)
    theirs, mine = starts
    assert theirs is not None
    assert mine is not None
    d = locate(first.stream, child.stream)
    shared = first.stream.length if d is None else d.offset
    if mine == theirs and shared >= mine:
        message = f"{child.label} equals {first.label} up to its directive (byte {mine:,})"
        return Finding(rule, "pass", message)
    reason = d.reason if d is not None else "its directive starts elsewhere"
    message = (
        f"{child.label} parts from {first.label} at byte {shared:,}, "
        f"before its directive at byte {mine:,}: {reason}"
    )
    evidence = (
        from_divergence(d, body=child.label, against=first.label)
        if d is not None
        else at(None, mine, body=child.label, reason=reason, against=first.label)
    )
    cost = Cost(mine - min(shared, mine), child.stream.length)
    return Finding(rule, "fail", message, evidence, cost)


CHECKS: dict[str, Callable[[Context], Finding]] = {
    "byte-prefix": byte_prefix,
    "task-after-prefix": task_after_prefix,
    "siblings-shared": siblings_shared,
}
