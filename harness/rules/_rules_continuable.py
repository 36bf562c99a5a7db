"""parent-id-guidance and append-only: a continuable child's return path and later requests.

The guidance is judged by what it must carry, not by its wording: the direct parent's id
JSON-encoded and the ``send_message`` tool name, in the text after the inherited seed, present
exactly when the child can see ``send_message``, and never in the system instruction. The id
is found by its decoded value: any JSON string literal of the text that decodes to it counts
(``"lead<A>"`` and ``"lead\\u003cA\\u003e"`` alike), as a JSON reader of the task would take it.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from json import JSONDecoder

import orjson

from ..dialects import Dialect, Unit
from ..prefix import Frame, compare_settings, judge_pair, locate
from ..scenarios import SEND_MESSAGE, has_send_message
from ._body import Body
from ._context import Context, encoded, priced_cost
from ._equivalent import candidate_note, equivalence_note
from ._evidence import at, from_divergence, occurrences
from ._report import Evidence, Finding, Status, combine, loses_cache

__all__ = ["CHECKS", "extends", "names_id"]


def parent_id_guidance(ctx: Context) -> Finding:
    rule, spec = "parent-id-guidance", ctx.scenario.continuation
    if ctx.scenario.action != "continuable" or spec is None:
        return Finding(rule, "not-applicable", "only a continuable fork returns by send_message")
    findings = [_guidance(ctx, spec.parent_id, c) for c in ctx.children]
    return combine(rule, findings, none="no child body to check")


_DECODER = JSONDecoder()


def names_id(text: str, parent_id: str) -> bool:
    """Whether ``text`` holds a JSON string literal that decodes to ``parent_id``: each
    ``"`` of the text is tried as the start of one, whatever escapes it uses."""
    if orjson.dumps(parent_id).decode() in text:
        return True  # the usual spelling, found without decoding
    start = text.find('"')
    while start >= 0:
        try:
            value, end = _DECODER.raw_decode(text, start)
        except ValueError:  # no string literal starts here
            end = start + 1
        else:
            if isinstance(value, str) and value == parent_id:
                return True
        start = text.find('"', end)
    return False


def _guidance(ctx: Context, parent_id: str, child: Body) -> Finding:
    rule = "parent-id-guidance"
    quoted = orjson.dumps(parent_id).decode()
    in_system = names_id("\n".join(child.request.preset.system), parent_id)
    parent_system = "\n".join(ctx.parent.request.preset.system) if ctx.parent else ""
    if in_system and not (ctx.parent and names_id(parent_system, parent_id)):
        frame, offset = next(occurrences(child.frames_of("system"), encoded(quoted)), (None, None))
        reason = f"the parent id {quoted} is in the system instruction, not after the seed"
        evidence = at(frame, offset, body=child.label, reason=reason)
        return Finding(rule, "fail", f"{child.label}: {reason}", evidence)
    after = child.request.history[ctx.inherited_count(child) :]
    text = "\n".join(m.text for m in after)
    visible = has_send_message(child.request.preset.tools)
    has_id = names_id(text, parent_id)
    carried = [t for t, held in ((quoted, has_id), (SEND_MESSAGE, SEND_MESSAGE in text)) if held]
    if visible and len(carried) < 2:
        missing = [t for t in (quoted, SEND_MESSAGE) if t not in carried]
        unquoted = " (the id appears unquoted)" if parent_id in text and quoted in missing else ""
        reason = f"{SEND_MESSAGE} is visible but the task lacks {' and '.join(missing)}{unquoted}"
        tail = child.frames[ctx.inherited_end(child) :]  # built only to point at them
        first = tail[0] if tail else None
        evidence = at(first, first.start if first else None, body=child.label, reason=reason)
        return Finding(rule, "fail", f"{child.label}: {reason}", evidence)
    if not visible and carried:
        tail = child.frames[ctx.inherited_end(child) :]
        frame, offset = next(occurrences(tail, encoded(carried[0])), (None, None))
        reason = f"{SEND_MESSAGE} is not visible, yet the task names {' and '.join(carried)}"
        evidence = at(frame, offset, body=child.label, reason=reason)
        return Finding(rule, "fail", f"{child.label}: {reason}", evidence)
    if visible:
        message = f"{child.label}: the task names the parent id {quoted} and {SEND_MESSAGE}"
    else:
        message = f"{child.label}: no return guidance, as {SEND_MESSAGE} is not visible"
    return Finding(rule, "pass", message)


def append_only(ctx: Context) -> Finding:
    rule = "append-only"
    if not ctx.follow_ups or not ctx.children:
        return Finding(rule, "not-applicable", "no follow-up request to compare")
    chain = (ctx.children[0], *ctx.follow_ups)
    findings = [extends(before, after) for before, after in pairwise(chain)]
    return combine(rule, findings, none="no follow-up request to compare")


def extends(before: Body, after: Body, *, settings: Status = "fail") -> Finding:
    """append-only for one pair: ``after`` starts with ``before``'s whole prefix stream
    (else a failure with offset and cost, a warning where the difference costs no cached
    prefix) and keeps its settings (else ``settings``)."""
    rule = "append-only"
    d = locate(before.stream, after.stream)
    _, changes = compare_settings(before.parsed.settings, after.parsed.settings)
    if d is None and not changes:
        kept = before.priced.total
        message = f"{after.label} extends {before.label} ({_tokens(before, kept)} kept)"
        count = len(before.priced.view.units)
        same = None if after.strict else equivalence_note(dialect_of(before), before, after, count)
        return Finding(rule, "pass", message + (f"; {same}" if same else ""))
    if d is None:
        names = ", ".join(c.name for c in changes)
        reason = f"{after.label} changes the settings {names} of {before.label}"
        evidence = Evidence(after.label, before.label, path=changes[0].name, reason=reason)
        return Finding(rule, settings, reason, evidence)
    evidence = from_divergence(
        d, body=after.label, against=before.label, frames=after.frames, against_frames=before.frames
    )
    where = evidence.segment or evidence.against_segment
    judged = judge_pair(before.priced, after.priced)
    dialect = before.parsed.dialect
    cost = priced_cost(dialect, before, after, judged.reachable, judged.deepest, "divergence")
    if not loses_cache(cost):
        message = (
            f"{after.label} differs from {before.label} at byte {d.offset:,} ({where}), past "
            f"every entry {before.label} leaves in the cache: {d.reason} (no cached prefix is "
            "lost by it)"
        )
        return Finding(rule, "warning", message, evidence)
    message = f"{after.label} rewrites {before.label} at byte {d.offset:,} ({where}): {d.reason}"
    note = candidate_note(dialect, _unit(before, d.parent_frame), _unit(after, d.fork_frame))
    return Finding(rule, "fail", message + (f"; {note}" if note else ""), evidence, cost)


def _unit(body: Body, frame: Frame | None) -> Unit | None:
    """The rendered unit a frame shows (None in the byte view, where frames are segments)."""
    if frame is None or body.strict:
        return None
    index = body.frame_index(frame.name)
    units = body.priced.view.units
    return units[index] if index is not None and index < len(units) else None


def dialect_of(body: Body) -> Dialect:
    return body.parsed.dialect


def _tokens(body: Body, count: int) -> str:
    """``count`` tokens, said as an estimate where they are one."""
    return f"{count:,} tokens" if body.priced.exact else f"~{count:,} tokens"


CHECKS: dict[str, Callable[[Context], Finding]] = {
    "parent-id-guidance": parent_id_guidance,
    "append-only": append_only,
}
