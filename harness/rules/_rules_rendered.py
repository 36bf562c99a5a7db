"""parent-faithful: whether the subject's parent request carries the scenario.

The prefix rules judge a child against its parent's bytes, whatever the parent holds; this
rule asks the other question, in content only (``_content``): does the parent send the
scenario's messages, tools and system text at all? Lost content (a message, text, call,
result, image, tool or system block) is an error; a rendering choice that loses nothing the
model needs (image detail, thinking dropped or redacted, ids, whitespace, a schema's key
order, a parameterless tool's default schema) is a warning. Tools are compared by value
(``schema_value``): the parent's declaration is what its children repeat.
"""

from __future__ import annotations

from collections.abc import Callable

import orjson

from ..model import Request, Tool
from ._body import Body
from ._content import content_lost, rendering_differences, same_messages, schema_value
from ._context import Context, parent_span
from ._evidence import at
from ._report import Finding

__all__ = ["CHECKS"]

RULE = "parent-faithful"


def _expressed(ctx: Context) -> Request:
    """The parent's part of the scenario as the dialect can express it (rendered and read
    back): what the dialect itself cannot carry is no choice of the subject's. A parent
    that sent these very bytes has already been read: its request is the same."""
    preset = ctx.scenario.preset  # not the reference's own additions (send_message)
    body = ctx.dialect.render(Request(preset, parent_span(ctx.scenario)))
    if ctx.parent is not None and ctx.parent.raw == body:
        return ctx.parent.request
    return ctx.dialect.parse(orjson.loads(body)).request


def parent_renders_scenario(ctx: Context) -> Finding:
    if ctx.parent is None:
        return Finding(RULE, "not-applicable", "no parent body to compare with the scenario")
    if ctx.captured:
        why = "the scenario was rebuilt from the parent's own recorded request"
        return Finding(RULE, "not-applicable", why)
    parent, want = ctx.parent, _expressed(ctx)
    same = same_messages(want.history, parent.request.history)  # nothing lost, nor said
    lost = None if same else _history(ctx, want, parent)
    lost = lost or _tools(want, parent) or _system(want, parent)
    if lost is not None:
        return lost
    said = [] if same else rendering_differences(want.history, parent.request.history)
    said += _tool_order(want, parent) + _system_rendering(want, parent)
    if said:
        message = (
            f"the parent renders the scenario its own way ({'; '.join(said)}): no content is "
            "lost, and the children are judged against these bytes"
        )
        return Finding(RULE, "warning", message)
    count = len(parent.request.history)
    return Finding(RULE, "pass", f"the parent carries the scenario's {count} messages as given")


def _history(ctx: Context, want: Request, parent: Body) -> Finding | None:
    loss = content_lost(want.history, parent.request.history)
    if loss is None:
        return None
    k = loss.at
    start, _ = ctx.message_span(parent, k) if k < len(parent.request.history) else (-1, 0)
    frame = parent.frames[start] if 0 <= start < len(parent.frames) else None
    reason = f"the parent's request loses content of the scenario: {loss.describe()}"
    evidence = at(frame, frame.start if frame else None, body="parent", reason=reason)
    return Finding(RULE, "fail", reason, evidence)


def _declared(tool: Tool) -> tuple[str, bytes]:
    """A tool declaration by value: its description (absent is empty) and its schema
    (``schema_value``)."""
    return tool.description or "", schema_value(tool.parameters)


def _tools(want: Request, parent: Body) -> Finding | None:
    theirs = {t.name: t for t in parent.request.preset.tools}
    for tool in want.preset.tools:
        got = theirs.get(tool.name)
        if got is not None and _declared(got) == _declared(tool):
            continue
        what = "is missing" if got is None else "is declared with another description or schema"
        reason = f"the parent's request loses content of the scenario: the tool {tool.name} {what}"
        frames = parent.frames_of("tools")
        names = [t.name for t in parent.request.preset.tools]
        index = names.index(tool.name) if got is not None else 0
        frame = frames[index] if index < len(frames) and len(frames) == len(names) else None
        evidence = at(frame, frame.start if frame else None, body="parent", reason=reason)
        return Finding(RULE, "fail", reason, evidence)
    return None


def _tool_order(want: Request, parent: Body) -> list[str]:
    mine = [t.name for t in want.preset.tools]
    theirs = [t.name for t in parent.request.preset.tools if t.name in mine]
    said = [] if mine == theirs else ["tools in another order"]
    spelled = {t.name: t for t in parent.request.preset.tools}
    if any(
        (t.description, t.parameters) != (spelled[t.name].description, spelled[t.name].parameters)
        for t in want.preset.tools
        if t.name in spelled
    ):
        said.append("tool declarations spelled their own way (schema key order or a default)")
    return said


def _flat(text: str) -> str:
    return " ".join(text.split())


def _system(want: Request, parent: Body) -> Finding | None:
    sent = _flat("\n".join(parent.request.preset.system))
    at_ = 0
    for block in want.preset.system:
        found = sent.find(_flat(block), at_)
        if found < 0:
            reason = (
                "the parent's request loses content of the scenario: its system instruction "
                f"lacks the block {_flat(block)[:48]!r}"
            )
            frames = parent.frames_of("system")
            frame = frames[0] if frames else None
            evidence = at(frame, frame.start if frame else None, body="parent", reason=reason)
            return Finding(RULE, "fail", reason, evidence)
        at_ = found + len(_flat(block))
    return None


def _system_rendering(want: Request, parent: Body) -> list[str]:
    sent = "\n".join(parent.request.preset.system)
    blocks = want.preset.system
    if all(block in sent for block in blocks):
        return []
    return ["system text differs in whitespace"]


CHECKS: dict[str, Callable[[Context], Finding]] = {RULE: parent_renders_scenario}
