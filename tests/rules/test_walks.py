"""The rules' walks over long histories against plain versions of them: the per-body counts
``Context`` keeps, and the walks that skip what those counts settle, give what a walk over
every message gives, on histories drawn to trip them (values equal in Python that encode
differently, system turns, redacted and unanswered calls)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.assemblers import calls_answered
from harness.model import FunctionCall, FunctionResponse, Message, Part, Text, freeze
from harness.rules import Finding
from harness.rules._body import Body, message_frames
from harness.rules._context import Context, _kept, encoded, inherited_span
from harness.rules._evidence import json_start
from harness.rules._rules_history import _args, _redacted
from harness.rules._rules_prefix import _count, _directive_at, _misplaced, holds_task
from harness.rules._rules_shape import _describe, _flag, _pairing
from harness.scenarios import Scenario

from .scenarios import BY_ID
from .support import DIALECTS, REFERENCE, context

_PARTS: list[Part] = [
    Text("1"),
    Text("Fix the tokenizer."),  # the directive of the scenario the walks run in
    Text("Then: Fix the tokenizer."),
    FunctionCall("run", freeze({"a": 1}), "c1"),
    FunctionCall("run", freeze({"a": True}), "c1"),
    FunctionCall("run", freeze({"a": 1.0}), "c1"),
    FunctionCall("run", freeze({}), "c1"),
    FunctionCall("run", None, "c2"),
    FunctionCall("ls", freeze({"p": "."}), None),
    FunctionResponse("run", freeze({"ok": 1}), "c1"),
    FunctionResponse("run", freeze({"ok": True}), "c2"),
    FunctionResponse("ls", "done", None),
]
_MESSAGES = [
    Message(role, parts)
    for role in ("user", "model", "system")
    for parts in [(p,) for p in _PARTS] + [(_PARTS[2], _PARTS[6]), (_PARTS[8], _PARTS[9])]
]
_HISTORY = st.lists(st.sampled_from(_MESSAGES), max_size=8).map(tuple)


def _old_kept(span: tuple[Message, ...], history: tuple[Message, ...]) -> int:
    j = 0
    for i, message in enumerate(history):
        if j >= len(span):
            return i
        found = next((k for k in range(j, len(span)) if span[k] == message), None)
        if found is None:
            return len(span) if message.role == span[j].role else i
        j = found + 1
    return len(span)


@settings(max_examples=400, deadline=None)
@given(_HISTORY, _HISTORY, st.integers(0, 8))
def test_kept_and_aligned_are_the_plain_walks(
    span: tuple[Message, ...], tail: tuple[Message, ...], cut: int
) -> None:
    history = span[:cut] + tail
    count, aligned = _kept(span, history)
    assert count == _old_kept(span, history)
    run = 0
    while run < min(len(span), len(history)) and span[run] == history[run]:
        run += 1
    assert aligned == run


def _contexts() -> list[tuple[Context, Body]]:
    found = []
    for scenario in BY_ID:
        for dialect in DIALECTS:
            ctx = context(REFERENCE, scenario, dialect)
            found += [(ctx, b) for b in (ctx.parent, *ctx.children, *ctx.follow_ups) if b]
    return found


def test_message_spans_and_the_inherited_end_are_the_counts_before_them() -> None:
    for ctx, body in _contexts():
        history = body.request.history
        for k in range(len(history) + 2):
            counts = message_frames(ctx.dialect, history[: k + 1])
            start = body.history_start + sum(counts[:k])
            end = min(start + (counts[k] if k < len(counts) else 0), body.frame_count)
            assert ctx.message_span(body, k) == (start, end), (body.label, k)
        own = message_frames(ctx.dialect, history[: ctx.inherited_count(body)])
        assert ctx.inherited_end(body) == min(body.history_start + sum(own), body.frame_count)


def _old_pairing(ctx: Context, body: Body) -> Finding:
    rule, history = "call-pairing", body.request.history
    calls: tuple[FunctionCall, ...] = ()
    for k, message in enumerate(history):
        if message.role == "system":
            continue
        responses = message.function_responses
        if message.role == "model" and responses:
            return _flag(ctx, rule, body, k, "is a model turn holding function responses")
        if message.role == "user" and not calls_answered(calls, responses, ctx.dialect):
            problem = (
                f"does not answer the calls before it one to one "
                f"(calls {_describe(calls)}, responses {_describe(responses)})"
            )
            return _flag(ctx, rule, body, k, problem)
        if message.role == "model" and calls:
            problem = f"follows calls {_describe(calls)} that were never answered"
            return _flag(ctx, rule, body, k, problem)
        calls = message.function_calls if message.role == "model" else ()
    if calls:
        return _flag(ctx, rule, body, len(history) - 1, "ends the request with open calls")
    total = sum(len(m.function_calls) for m in history)
    return Finding(rule, "pass", f"{body.label}: each of its {total} calls has one response")


def _old_args(ctx: Context, child: Body) -> Finding:
    calls = 0
    for k, (want, got) in enumerate(zip(ctx.inherited, child.request.history, strict=False)):
        calls += len(want.function_calls)
        pairs = zip(want.parts, got.parts, strict=False)
        redacted = next((w for w, g in pairs if _redacted(w, g)), None)
        if not isinstance(redacted, FunctionCall):
            continue
        return Finding("call-args-kept", "warning", f"{k} {redacted}")
    return Finding("call-args-kept", "pass", f"{calls}")


def _old_misplaced_at(ctx: Context, child: Body, task: str) -> int | None:
    history, span = child.request.history, ctx.inherited
    for k in range(min(len(history), len(span), ctx.inherited_count(child))):
        if _count(history[k], task) > _count(span[k], task):
            return k
    return None


def _old_directive_at(ctx: Context, index: int, child: Body) -> int | None:
    directive = ctx.task(index)
    if not directive:
        return None
    history = child.request.history
    counts = message_frames(ctx.dialect, history)
    start = min(ctx.inherited_count(child), len(history))
    first = child.history_start + sum(counts[:start])
    for k in range(start, len(history)):
        frames = child.frames_in(first, first + counts[k])
        first += counts[k]
        for part in history[k].parts if history[k].role == "user" else ():
            if not isinstance(part, Text) or not holds_task(part.text, directive):
                continue
            text, inner = encoded(part.text), encoded(part.text[: part.text.rfind(directive)])
            for frame in frames:
                at_ = frame.json.rfind(text)
                if at_ >= 0:
                    return json_start(frame) + at_ + len(inner)
    return None


def _outcome(walk: Callable[[Context, Body], Finding], ctx: Context, body: Body) -> object:
    try:
        return walk(ctx, body)
    except Exception as e:  # a message no dialect renders alone: both walks must raise
        return type(e)


def _redact(message: Message, empty: object) -> Message:
    parts = tuple(
        replace(p, args=empty) if isinstance(p, FunctionCall) else p for p in message.parts
    )
    return Message(message.role, parts)


@settings(max_examples=150, deadline=None)
@given(
    _HISTORY,
    _HISTORY,
    st.integers(0, 8),
    st.lists(st.sampled_from([None, freeze({}), "keep"]), min_size=8, max_size=8),
)
def test_the_walks_that_skip_settled_messages_find_what_the_plain_walks_find(
    span: tuple[Message, ...],
    tail: tuple[Message, ...],
    cut: int,
    redactions: list[object],
) -> None:
    """In each dialect, on one scenario whose inherited span is the one drawn (so that
    what is remembered of a span's walk serves all of them, as in a check)."""
    go = Message("user", (Text("Fix the tokenizer."),))
    scenario = replace(BY_ID["fork-model-calls"], history=(*span, go))
    kept = zip(span[:cut], redactions, strict=False)
    history = tuple(m if r == "keep" else _redact(m, r) for m, r in kept) + tail
    # a sibling sharing the first's message objects up to a point (as a reader gives them)
    again = history[: len(redactions) // 2 + cut % 3] + span[cut:]
    for dialect in DIALECTS:
        _walks_agree(scenario, dialect, history, again)


def _walks_agree(
    scenario: Scenario,
    dialect: str,
    history: tuple[Message, ...],
    again: tuple[Message, ...],
) -> None:
    real = context(REFERENCE, "fork-model-calls", dialect)
    assert real.children
    span = inherited_span(scenario)
    child = replace(real.children[0], request=replace(real.children[0].request, history=history))
    other = replace(child, label="children[1]", request=replace(child.request, history=again))
    ctx = Context(scenario, real.dialect, real.outcome, real.parent, (child, other))
    assert ctx.inherited == span
    for body in (child, other):
        assert ctx.known_aligned(body) is None or body is other
        assert ctx.inherited_count(body) == _old_kept(span, body.request.history)
        run, shown = 0, body.request.history
        while run < min(len(span), len(shown)) and span[run] == shown[run]:
            run += 1
        assert ctx.aligned(body) == ctx.known_aligned(body) == run
        assert _outcome(_pairing, ctx, body) == _outcome(_old_pairing, ctx, body)
    found = _args(ctx, child)
    plain = _old_args(ctx, child)
    assert found.status == plain.status
    if found.status == "pass":
        assert found.message.endswith(f"the {plain.message} inherited calls")
    else:
        assert f"inherited message {plain.message.split()[0]} " in found.message
    task = ctx.task(0)
    assert task
    _, _, where = _misplaced(ctx, child, task)
    k = _old_misplaced_at(ctx, child, task)
    if not where.startswith("the task text is in the "):  # not in the head
        assert (k is None) == (not where)
        assert k is None or f"inherited message {k} (" in where
    assert _outcome(lambda c, b: _directive_at(c, 0, b), ctx, child) == _outcome(
        lambda c, b: _old_directive_at(c, 0, b), ctx, child
    )


def test_segment_indexes_are_the_frames_indexes() -> None:
    for ctx, body in _contexts():
        for name in {s.name for s in body.stream.segments} | {"absent"}:
            assert ctx.segment_index(body, name) == body.frame_index(name), (body.label, name)
