"""byte-prefix, task-after-prefix, siblings-shared: where a child's bytes part from others'.

The task text is the scenario's (a directive, a continuable task), found JSON-escaped in the
prefix stream; the boilerplate around it is the subject's own wording and is not looked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..dialects import Unit
from ..model import Message, Text
from ..prefix import Divergence, Frame, locate
from ..scenarios import parent_preset
from ._accepted import accepted_head
from ._body import Body
from ._context import Context, encoded
from ._equivalent import candidate_note, equivalence_note
from ._evidence import at, from_divergence, json_start
from ._report import Finding, combine

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
    rule, d = "byte-prefix", ctx.divergence(child)
    if d is None:  # no cost to state: a pass
        parent = ctx.parent.priced
        approx = "" if parent.exact else "~"
        share = parent.total / child.priced.total if child.priced.total else 1.0
        message = (
            f"{child.label} starts with the parent's whole prefix "
            f"({approx}{parent.total:,} tokens = {share:.1%} of its own)"
        )
        count = len(parent.view.units)
        same = None if ctx.strict else equivalence_note(ctx.dialect, ctx.parent, child, count)
        return Finding(rule, "pass", message + (f"; {same}" if same else ""))
    cost = ctx.cost(child)
    evidence = from_divergence(
        d, body=child.label, against="parent", frames=child.frames, against_frames=ctx.parent.frames
    )
    where = evidence.segment or evidence.against_segment
    accepted = accepted_head(ctx, child) if _in_head(ctx, child, d) else None
    if accepted is not None:
        message = (
            f"{child.label} leaves the parent's prefix at byte {d.offset:,} ({where}) by an "
            f"accepted divergence: {accepted}"
        )
        return Finding(rule, "warning", message, evidence, cost)
    message = f"{child.label} leaves the parent's prefix at byte {d.offset:,} ({where}): {d.reason}"
    note = candidate_note(
        ctx.dialect, _unit(ctx.parent, d.parent_frame), _unit(child, d.fork_frame)
    )
    return Finding(rule, "fail", message + (f"; {note}" if note else ""), evidence, cost)


def _unit(body: Body, frame: Frame | None) -> Unit | None:
    """The rendered unit a frame shows (None in the byte view, where frames are segments)."""
    if frame is None or body.strict:
        return None
    index = body.frame_index(frame.name)
    units = body.priced.view.units
    return units[index] if index is not None and index < len(units) else None


def task_after_prefix(ctx: Context) -> Finding:
    known = _known_texts(ctx) if ctx.children else []
    findings = [_task(ctx, i, c, known) for i, c in enumerate(ctx.children)]
    return combine("task-after-prefix", findings, none="no child body to check")


MIN_SUBSTRING_TASK = 8
"""Shorter task texts count only where they stand alone: whole lines of a text, alone or
after a label (``Directive: 01``). A longer one counts wherever a text holds it. So a
one- or two-character directive found inside a timestamp or an id is never the task."""


_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""What ends a line (as ``str.splitlines`` sees it)."""
_BLANKS = "".join(c for c in map(chr, range(0x3001)) if c.isspace() and c not in _BREAKS)
"""Whitespace within a line (``str.strip`` takes it off a task, so may a rendering)."""


def holds_task(text: str, task: str) -> bool:
    """Whether ``text`` carries ``task`` as a task, judged by structure (see above)."""
    task = task.strip()
    if len(task) >= MIN_SUBSTRING_TASK:
        return task in text
    at_ = text.find(task)
    while task and at_ >= 0:
        raw = text[:at_]
        before = raw.rstrip(_BLANKS)
        after = text[at_ + len(task) :].lstrip(_BLANKS)
        label = before.endswith(":") and len(before) < len(raw)  # "Directive: 01"
        if (not before or before[-1] in _BREAKS or label) and (not after or after[0] in _BREAKS):
            return True
        at_ = text.find(task, at_ + 1)
    return False


def _count(message: Message, task: str) -> int:
    """How many text parts of ``message`` hold ``task`` (``holds_task``)."""
    count = 0
    for part in message.parts:
        if isinstance(part, Text) and holds_task(part.text, task):
            count += 1
    return count


def _head_texts(ctx: Context) -> set[str]:
    """The head texts the scenario and the parent account for: the parent's preset, a
    degraded fork's default tools, a continuable child's restored persona or output section.
    Text found there is theirs, not child-only, whatever it says."""
    scenario, texts = ctx.scenario, set[str]()
    preset = parent_preset(scenario)
    texts.update(preset.system)
    texts.update(t.description or "" for t in (*preset.tools, *scenario.default_tools))
    spec = scenario.continuation
    if spec is not None:
        texts.update(spec.persona or ())
        texts.update(x for x in (spec.output_section,) if x)
        if spec.output_tool is not None:
            texts.add(spec.output_tool.description or "")
    if ctx.parent is not None and ctx.prefix_unexpected() is None:
        texts.update(ctx.parent.request.preset.system)
        texts.update(t.description or "" for t in ctx.parent.request.preset.tools)
    return texts


def _in_text(
    frames: Sequence[Frame], message: Message, task: str
) -> tuple[Frame | None, int | None]:
    """The frame and stream offset of the task inside the last text part of ``message``
    that holds it (not a call argument that happens to repeat it)."""
    for part in reversed(message.parts):
        if not (isinstance(part, Text) and holds_task(part.text, task)):
            continue
        text, inner = encoded(part.text), encoded(part.text[: part.text.rfind(task.strip())])
        for frame in frames:
            found = frame.json.rfind(text)
            if found >= 0:
                return frame, json_start(frame) + found + len(inner)
    return None, None


def _head_place(child: Body, text: str, own: str, task: str) -> tuple[int | None, int | None]:
    """The head frame holding ``text`` and the stream offset of the task there: in the part
    of the text that is the child's own (``own`` is ``text`` less what the scenario knows)."""
    whole = encoded(text)
    tail = own[own.find(task.strip()) :] if task.strip() in own else own
    at_text = text.rfind(tail) if tail else -1
    inner = encoded(text[: at_text if at_text >= 0 else 0])
    for i, frame in enumerate(child.frames[: child.history_start]):
        found = frame.json.find(whole)
        if found >= 0:
            return i, json_start(frame) + found + len(inner)
    return None, None


def _known_texts(ctx: Context) -> list[str]:
    """The non-empty ``_head_texts``, longest first (the order they are taken out in)."""
    return sorted((k for k in _head_texts(ctx) if k), key=len, reverse=True)


def _misplaced(
    ctx: Context, child: Body, task: str, known: list[str]
) -> tuple[Frame | None, int | None, str]:
    """Where the task is before the end of the inherited span, with the reason; or a
    reason of "" when it is not: in a child-only head text, or in an inherited message more
    often than the scenario's message holds it. ``known`` is ``_known_texts``."""
    head, whole = child.request.preset, set(known)
    for text in (*head.system, *(t.description or "" for t in head.tools)):
        if text in whole:  # taken out whole: no longer text is in it, "\n" is all it leaves
            continue
        own = text
        for theirs in known:  # a block may join a known text with the child's own
            own = own.replace(theirs, "\n")
        if holds_task(own, task):
            index, offset = _head_place(child, text, own, task)
            frame = child.frames[index] if index is not None else None
            family = child.families[index] if index is not None else "head"
            where = f"the {family} segment {frame.name}" if frame is not None else "the head"
            return frame, offset, f"the task text is in {where}"
    history, span = child.request.history, ctx.inherited
    for k in range(min(len(history), len(span), ctx.inherited_count(child))):
        found = _count(history[k], task)  # the span's count only matters where one is found
        if found and found > _count(span[k], task):
            start, end = ctx.message_span(child, k)
            frame, offset = _in_text(child.frames[start:end], history[k], task)
            if frame is None and start < len(child.frames):
                frame = child.frames[start]
                offset = frame.start
            name = frame.name if frame is not None else f"message {k}"
            return frame, offset, f"the task text is in inherited message {k} ({name})"
    return None, None, ""


def _task(ctx: Context, index: int, child: Body, known: list[str]) -> Finding:
    rule, task = "task-after-prefix", ctx.task(index)
    if not task:
        return Finding(rule, "not-applicable", f"the scenario gives no task text for {child.label}")
    boundary = f"the end of the inherited prefix (byte {ctx.inherited_offset(child):,})"
    frame, offset, where = _misplaced(ctx, child, task, known)
    if where:
        cost = ctx.total_cost(child) if ctx.prefix_unexpected() is None else None
        reason = f"{where}, before {boundary}"
        evidence = at(frame, offset, body=child.label, reason=reason)
        return Finding(rule, "fail", f"{child.label}: {reason}", evidence, cost)
    history = child.request.history
    after = next(
        (k for k in range(ctx.inherited_count(child), len(history)) if _count(history[k], task)),
        None,
    )
    if after is None:
        reason = f"the task text is not found in a message after {boundary}"
        last = child.frames[-1] if child.frames else None
        evidence = at(last, last.start if last else None, body=child.label, reason=reason)
        return Finding(rule, "fail", f"{child.label}: {reason}", evidence)
    start, _ = ctx.message_span(child, after)
    name = child.stream.segments[start].name if start < child.frame_count else f"message {after}"
    message = f"{child.label}: the task text comes in {name}, after the inherited prefix"
    return Finding(rule, "pass", message)


def siblings_shared(ctx: Context) -> Finding:
    rule = "siblings-shared"
    if ctx.scenario.action != "siblings":
        return Finding(rule, "not-applicable", "only sibling forks are compared with each other")
    if len(ctx.children) < 2:
        return Finding(rule, "not-applicable", "fewer than two sibling bodies to compare")
    first = ctx.children[0]
    theirs = _directive_at(ctx, 0, first)  # found once for every sibling compared with it
    findings = [_sibling(ctx, first, theirs, i, c) for i, c in enumerate(ctx.children[1:], start=1)]
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
    starts = ctx.message_starts(child)
    for k in range(min(ctx.inherited_count(child), len(history)), len(history)):
        if history[k].role != "user":
            continue
        frames: tuple[Frame, ...] | None = None
        for part in history[k].parts:
            if not isinstance(part, Text) or not holds_task(part.text, directive):
                continue
            if frames is None:
                frames = child.frames_in(starts[k], starts[k + 1])
            text, inner = encoded(part.text), encoded(part.text[: part.text.rfind(directive)])
            for frame in frames:
                at_ = frame.json.rfind(text)
                if at_ >= 0:
                    return json_start(frame) + at_ + len(inner)
    return None


def _sibling(ctx: Context, first: Body, at_first: int | None, index: int, child: Body) -> Finding:
    """Child ``index`` against the first sibling, whose directive is at ``at_first``."""
    rule = "siblings-shared"
    starts = (at_first, _directive_at(ctx, index, child))
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
        from_divergence(
            d,
            body=child.label,
            against=first.label,
            frames=child.frames,
            against_frames=first.frames,
        )
        if d is not None
        else at(None, mine, body=child.label, reason=reason, against=first.label)
    )
    cost = ctx.span_cost(child, min(shared, mine), mine, "divergence")
    return Finding(rule, "fail", message, evidence, cost)


CHECKS: dict[str, Callable[[Context], Finding]] = {
    "byte-prefix": byte_prefix,
    "task-after-prefix": task_after_prefix,
    "siblings-shared": siblings_shared,
}
